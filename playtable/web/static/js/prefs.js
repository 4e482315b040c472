// A visitor's display choices, remembered in this browser (localStorage): the board turned,
// move sounds. Storage may be unavailable (private modes): then a choice lasts the page.

const PREFIX = "pt-";
const memory = new Map();

export function loadPref(name, fallback = null) {
  try {
    const value = window.localStorage.getItem(PREFIX + name);
    return value === null ? fallback : value;
  } catch {
    return memory.has(name) ? memory.get(name) : fallback;
  }
}

export function savePref(name, value) {
  memory.set(name, value);
  try {
    window.localStorage.setItem(PREFIX + name, value);
  } catch {
    // kept in memory only
  }
}

/** Wire a toggle button (aria-pressed) to a remembered on/off choice; `apply(on)` runs
 * at once and after every press. */
export function toggleButton(button, name, apply, fallback = false) {
  if (!button) return;
  let on = loadPref(name, fallback ? "1" : "0") === "1";
  const show = () => {
    button.setAttribute("aria-pressed", on ? "true" : "false");
    apply(on);
  };
  button.addEventListener("click", () => {
    on = !on;
    savePref(name, on ? "1" : "0");
    show();
  });
  show();
}
