// Runs before a page's own script (web/modules.py writes it first, importing nothing, so it
// runs whatever becomes of the others): if that script, or a module it imports, could not
// be loaded (a 404 from a process of the other release during a rolling upgrade, a server
// between two releases), the page loads again, at most once in 30 s (the guard of
// notices.js mayReload, whose key it shares), instead of staying at 'Loading the board…'.

const RELOADED = "pt_reloaded_at";
const RELOAD_AGAIN_MS = 30000;

document.querySelector("script[data-entry]")?.addEventListener("error", () => {
  try {
    const last = Number(sessionStorage.getItem(RELOADED)) || 0;
    if (Date.now() - last < RELOAD_AGAIN_MS) return;
    sessionStorage.setItem(RELOADED, String(Date.now()));
  } catch {
    return; // no storage: no way to tell a loop, so no reload
  }
  window.location.reload();
});
