// A spectator's page follows the players to their rematch. Both players' pages go to the new
// table when it is agreed (table_events.js, the `rematch` message); a watch page left on a
// projector went on showing the finished game. Once the table's `rematch_id` comes (the
// `rematch_accepted` change, or the state of a rejoin), a spectator's page at the final
// position says so, with "Stay here", and then opens the rematch's watch page in its own
// language: after 20 s (WCAG 2.2.1: time enough to find the button with a screen reader and
// press it), or 5 s in the projector view, which a room watches and nobody reads. It does not move while the replay shows an earlier position
// (back at the final position the count starts again), once "Stay here" was pressed, nor
// when the rematch existed as the page loaded (someone came back to look at the old game):
// the result's "Watch the rematch" link stays for them.

import { tn } from "./i18n.js";
import { announce } from "./notices.js";
import { inProjectorView } from "./projector.js";
import { inPageLanguage } from "./table_panels.js";
import { isOver, page, state, you } from "./table_state.js";

const FOLLOW_SECONDS = 20;
const PROJECTOR_SECONDS = 5;

const $ = (id) => document.getElementById(id);
const rematchAtLoad = Boolean(page.table.rematch_id);

/**
 * `update()`, called whenever the page is drawn: starts, keeps or stops the count towards
 * the rematch. `isLive()`: whether the board shows the live (final) position; `leave()`: the
 * page is about to open the rematch (the connection line says so).
 */
export function followRematch({ isLive, leave }) {
  const box = $("rematch-follow");
  const stay = $("rematch-follow-stay");
  let stayed = false;
  let timer = null;
  let deadline = 0;

  stay?.addEventListener("click", () => {
    stayed = true;
    const focused = document.activeElement === stay;
    stop();
    // the keyboard lands on the link that is left, not on <body>
    if (focused) $("rematch-watch-link")?.focus();
  });

  function wanted() {
    return (
      Boolean(box) &&
      you === null &&
      !rematchAtLoad &&
      !stayed &&
      !state.leaving &&
      isOver() &&
      Boolean(state.table.rematch_id) &&
      isLive()
    );
  }

  function update() {
    if (wanted()) {
      if (timer === null) start();
    } else if (timer !== null) {
      stop();
    }
  }

  function secondsLeft() {
    return Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  }

  function start() {
    const seconds = inProjectorView() ? PROJECTOR_SECONDS : FOLLOW_SECONDS;
    deadline = Date.now() + seconds * 1000;
    const text = tn("rematch_follow", seconds);
    $("rematch-follow-text").textContent = text;
    box.hidden = false;
    announce(text); // once: the count itself is only seen
    timer = setInterval(tick, 250);
  }

  function tick() {
    // the count waits while the Stay button has the keyboard's focus: whoever reached it
    // decides
    if (document.activeElement === stay) deadline = Math.max(deadline, Date.now() + 1000);
    const left = secondsLeft();
    if (left > 0) {
      $("rematch-follow-text").textContent = tn("rematch_follow", left);
      return;
    }
    go();
  }

  function stop() {
    clearInterval(timer);
    timer = null;
    if (box) box.hidden = true;
  }

  function go() {
    const id = state.table.rematch_id;
    clearInterval(timer);
    timer = null;
    state.leaving = true;
    leave();
    const view = inProjectorView() ? "?projector=1" : ""; // a projector stays one
    window.location.assign(inPageLanguage(`/t/${encodeURIComponent(id)}/watch`) + view);
  }

  return { update };
}
