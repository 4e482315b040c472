// The table page's notices and announcements: the visible `role="alert"` line (a move not
// sent, the server's errors) and the ARIA live region that reads what happens at the table.

const $ = (id) => document.getElementById(id);

export function showNotice(text) {
  $("notice-text").textContent = text;
  $("notice").hidden = false;
}

/** The notice's words ("" when none is shown). */
export function noticeText() {
  return $("notice").hidden ? "" : $("notice-text").textContent;
}

/** The notice floats at the top of the screen, over the menu on a phone: its close button
 * puts it away (a later notice shows again). */
export function wireNotice() {
  $("notice-close")?.addEventListener("click", clearNotice);
}

// A notice for the page as it loads next (it reloads itself): kept in this tab's storage.
const KEPT = "pt_notice";
export function keepNotice(text) {
  try {
    sessionStorage.setItem(KEPT, text);
  } catch {
    // storage refused (a private window): the page reloads without the notice
  }
}

/** Show the kept notice if `show` (else only forget it). */
export function showKeptNotice(show) {
  let text = null;
  try {
    text = sessionStorage.getItem(KEPT);
    sessionStorage.removeItem(KEPT);
  } catch {
    return;
  }
  if (text && show) showNotice(text);
}

// A page reloads itself for a seat it lost at most once in this long: a page and its
// socket that disagree for good (a proxy that rewrites Host makes the socket a spectator's)
// must not reload for ever.
const RELOADED = "pt_reloaded_at";
const RELOAD_AGAIN_MS = 30000;
export function mayReload() {
  try {
    const last = Number(sessionStorage.getItem(RELOADED)) || 0;
    if (Date.now() - last < RELOAD_AGAIN_MS) return false;
    sessionStorage.setItem(RELOADED, String(Date.now()));
    return true;
  } catch {
    return false; // no storage: no way to tell a loop, so no reload
  }
}

export function clearNotice() {
  $("notice").hidden = true;
  $("notice-text").textContent = "";
}

let announceTimer = null;
let announceQueue = [];
let announceNext = ""; // "Red to move", read last, unless the game ended meanwhile
export function announce(text, next = "") {
  // Events arriving together (a move, then the end of the game) are read as one message;
  // the region is emptied first so the same words twice are still announced. Within one
  // message a sentence is read once: a resignation or an agreed draw is both its own
  // event and the result of the "game_over" behind it, in the same words.
  if (!announceQueue.includes(text)) announceQueue.push(text);
  if (next) announceNext = next;
  const region = $("announcer");
  region.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    region.textContent = [...announceQueue, announceNext].filter(Boolean).join(" ");
    announceQueue = [];
    announceNext = "";
  }, 50);
}

/** The game ended: the "Red to move" waiting to be read is dropped. */
export function forgetNext() {
  announceNext = "";
}
