// The home form: show only the settings of the chosen game, grid and time control (the
// custom minutes and increment only for a custom real-time control), check the numbers
// before sending (in the page's language: the messages are the catalog's, rendered into
// the inputs' data-invalid attributes), and say so when a choice becomes unavailable.
// Without this script every field is shown and the server checks everything itself.

const form = document.getElementById("table-form");

let startChanged = false; // the Icelandic start gave way to the Swedish one: say so

function checked(name) {
  const input = form.querySelector(`input[name="${name}"]:checked`);
  return input ? input.value : null;
}

function showFor(selector, attribute, value) {
  for (const node of form.querySelectorAll(selector)) {
    const values = node.getAttribute(attribute).split(" ");
    const visible = values.includes(value);
    node.hidden = !visible;
    // hidden inputs must not block submission or be sent
    for (const input of node.querySelectorAll("input, select")) input.disabled = !visible;
  }
}

function updateTime() {
  showFor("[data-time]", "data-time", checked("time") || "unlimited");
  const preset = form.querySelector("#time_preset");
  if (preset && !preset.disabled) showFor("[data-preset]", "data-preset", preset.value);
}

function update() {
  updateTime();
  const game = checked("game") || "dots";
  showFor("fieldset.settings[data-game]", "data-game", game);
  if (game !== "dots") return;

  const grid = checked("dots_grid") || "square";
  showFor(".field-row[data-grid]", "data-grid", grid);
  // the hints of the chosen grid, and the misère sentence's word for its cells
  for (const hint of form.querySelectorAll(".hint[data-grid], .check [data-grid]")) {
    hint.hidden = !hint.dataset.grid.split(" ").includes(grid);
  }
  const size = form.querySelector("#dots_size");
  const Grid = grid[0].toUpperCase() + grid.slice(1);
  if (size.dataset[`max${Grid}`]) {
    // each grid's range, as the engine has it (rendered into data-min-*, data-max-*)
    size.min = size.dataset[`min${Grid}`];
    size.max = size.dataset[`max${Grid}`];
    // a size the new grid does not allow is not changed behind the player's back: it is
    // shown as out of range
    if (size.dataset.checked || problem(size)) check(size);
  }
  const start = form.querySelector("#dots_start");
  const icelandic = start.querySelector('option[value="icelandic"]');
  icelandic.disabled = grid !== "square";
  if (icelandic.disabled && start.value === "icelandic") {
    start.value = "swedish";
    startChanged = true;
  } else if (!icelandic.disabled && startChanged && start.value === "swedish") {
    start.value = "icelandic"; // back on the square grid: the player's own choice again
    startChanged = false;
  }
  form.querySelector("#start-note").hidden = !startChanged;
}

/** The message for `input` if its value is not a whole number in its range, else "". */
function problem(input) {
  const text = input.value.trim();
  const value = Number(text);
  const low = Number(input.min);
  const high = Number(input.max);
  if (/^-?\d+$/.test(text) && value >= low && value <= high) return "";
  // the catalog's sentence for the field (and the grid), in the page's language
  const grid = checked("dots_grid") || "square";
  const forGrid = input.dataset[`invalid${grid[0].toUpperCase()}${grid.slice(1)}`];
  return forGrid || input.dataset.invalid || "";
}

/** Show or clear the message under `input`; true if the value is fine. */
function check(input) {
  input.dataset.checked = "1";
  const message = input.disabled ? "" : problem(input);
  const id = `${input.id}-error`;
  let box = document.getElementById(id);
  if (!box) {
    box = document.createElement("p");
    box.id = id;
    box.className = "field-error";
    input.closest(".field").append(box);
    const described = (input.getAttribute("aria-describedby") || "").split(" ");
    input.setAttribute("aria-describedby", [...described, id].filter(Boolean).join(" "));
  }
  box.textContent = message;
  box.hidden = !message;
  if (message) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
  return !message;
}

function numberInputs() {
  return Array.from(form.querySelectorAll('input[type="number"]')).filter((i) => !i.disabled);
}

if (form) {
  form.addEventListener("change", (event) => {
    if (event.target.id === "dots_start") startChanged = false;
    update();
  });
  form.addEventListener("input", (event) => {
    // once a field was checked (at sending), its message follows the typing; not before,
    // so that a message appearing on blur never moves the button being clicked
    if (event.target.matches('input[type="number"]') && event.target.dataset.checked) {
      check(event.target);
    }
  });
  form.addEventListener("submit", (event) => {
    const wrong = numberInputs().filter((input) => !check(input));
    if (wrong.length) {
      event.preventDefault();
      wrong[0].focus();
    }
  });
  update();
  const error = document.getElementById("form-error");
  if (error) error.focus();
}
