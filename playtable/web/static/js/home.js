// The home form: show only the settings of the chosen game and grid. Without this script
// every field is shown and the server still reads only the relevant ones.

const form = document.getElementById("table-form");

const SIZE_LIMITS = { triangle: 10, hexagon: 6 };

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

function update() {
  const game = checked("game") || "dots";
  showFor("fieldset.settings[data-game]", "data-game", game);
  if (game !== "dots") return;

  const grid = checked("dots_grid") || "square";
  showFor(".field-row[data-grid]", "data-grid", grid);
  for (const hint of form.querySelectorAll(".hint[data-grid]")) {
    hint.hidden = !hint.dataset.grid.split(" ").includes(grid);
  }
  const size = form.querySelector("#dots_size");
  if (SIZE_LIMITS[grid]) {
    size.max = String(SIZE_LIMITS[grid]);
    if (Number(size.value) > SIZE_LIMITS[grid]) size.value = String(SIZE_LIMITS[grid]);
  }
  const start = form.querySelector("#dots_start");
  const icelandic = start.querySelector('option[value="icelandic"]');
  icelandic.disabled = grid !== "square";
  if (icelandic.disabled && start.value === "icelandic") start.value = "swedish";
}

if (form) {
  form.addEventListener("change", update);
  update();
  const error = document.getElementById("form-error");
  if (error) error.focus();
}
