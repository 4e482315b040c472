// The colour theme: the system's (prefers-color-scheme) unless the visitor chose one with
// the header's toggle, remembered in localStorage. A classic script in <head>, so a stored
// choice applies before the first paint (no flash of the other theme).
(() => {
  const KEY = "pt-theme";
  const root = document.documentElement;
  let stored = null;
  try {
    stored = window.localStorage.getItem(KEY);
  } catch {
    stored = null;
  }
  if (stored === "dark" || stored === "light") root.dataset.theme = stored;
  const system = window.matchMedia("(prefers-color-scheme: dark)");
  const isDark = () => (root.dataset.theme ? root.dataset.theme === "dark" : system.matches);

  function wire() {
    const button = document.getElementById("theme-toggle");
    if (!button) return;
    const show = () => button.setAttribute("aria-pressed", isDark() ? "true" : "false");
    button.hidden = false;
    button.addEventListener("click", () => {
      const next = isDark() ? "light" : "dark";
      root.dataset.theme = next;
      try {
        window.localStorage.setItem(KEY, next);
      } catch {
        // this page only
      }
      show();
    });
    system.addEventListener("change", show);
    show();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
