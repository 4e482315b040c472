// The site menu on a phone: below 600 px the header's links, languages and theme toggle fold
// behind one "Menu" button, so a table's board is on the first screen. A classic script in
// <head>: the page is marked before the first paint (no flash of the open header); without
// scripts the header stays as it is on a wide screen, every link shown.
(() => {
  const root = document.documentElement;
  root.classList.add("menu-ready");

  function wire() {
    const header = document.getElementById("site-header");
    const button = document.getElementById("menu-toggle");
    if (!header || !button) return;
    const isOpen = () => button.getAttribute("aria-expanded") === "true";
    const set = (open) => {
      header.classList.toggle("site-header--open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
    };
    button.addEventListener("click", () => set(!isOpen()));
    header.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !isOpen()) return;
      set(false);
      button.focus();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
