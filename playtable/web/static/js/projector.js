// A spectator's projector view: the board as big as the screen, the players' names, scores
// and clocks large enough to read across a room, and nothing else (a club evening's wall, a
// hall). Entered with the "Projector view" button (full screen too, where the browser allows
// it) or an address ending in ?projector=1 (My games links it for the tables set up for
// others, and a followed rematch keeps it); left with the same button, Escape, or by leaving
// full screen.

const $ = (id) => document.getElementById(id);
const root = document.documentElement;

/** Whether the page shows the projector view (the rematch it follows opens in it too). */
export function inProjectorView() {
  return root.classList.contains("projector");
}

/** `toLive()`: back to the live position, as the view begins. */
export function setUpProjector(toLive = () => {}) {
  const button = $("projector-toggle");
  if (!button) return;
  let fullScreen = false; // the view asked for full screen: leaving it leaves the view

  function show(on) {
    root.classList.toggle("projector", on);
    button.setAttribute("aria-pressed", on ? "true" : "false");
    const address = new URL(window.location.href);
    if (on) address.searchParams.set("projector", "1");
    else address.searchParams.delete("projector");
    // a reload, or the address sent to the hall's computer, keeps the choice
    window.history.replaceState(window.history.state, "", address);
    if (on) toLive();
  }

  button.addEventListener("click", async () => {
    const on = !inProjectorView();
    show(on);
    if (on && root.requestFullscreen && !document.fullscreenElement) {
      try {
        await root.requestFullscreen({ navigationUI: "hide" });
        fullScreen = true;
      } catch {
        // refused (an embedded page, a browser's setting): the view fills the window instead
      }
    } else if (!on && document.fullscreenElement) {
      fullScreen = false;
      document.exitFullscreen().catch(() => {});
    }
  });
  document.addEventListener("fullscreenchange", () => {
    if (!document.fullscreenElement && fullScreen) {
      fullScreen = false;
      if (inProjectorView()) show(false);
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !inProjectorView()) return;
    // (a browser keeps Escape for itself in full screen, and leaving it ends the view; one
    // that passes the key on gets here)
    fullScreen = false;
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    show(false);
    button.focus();
  });
  if (new URLSearchParams(window.location.search).get("projector") === "1") show(true);
}
