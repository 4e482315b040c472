// Visible messages about what just happened at the table: an offer declined or lapsed, the
// friend sitting down, the connection back. Screen readers hear the same words through the
// page's live region, so this box is not one itself.

const SHOW_MS = 12000;
let timer = null;
let shownAt = 0;

/** Show `text` under the turn line for a while; `tone` is "info" or "ok". */
export function showFeedback(text, tone = "info") {
  const box = document.getElementById("feedback");
  if (!box) return;
  box.textContent = text;
  box.dataset.tone = tone;
  box.hidden = false;
  shownAt = performance.now();
  clearTimeout(timer);
  timer = setTimeout(() => {
    box.hidden = true;
  }, SHOW_MS);
}

/** Take the message away once the game has moved on: a later move (if it has been up at
 * least `olderThan` ms, so one shown with that move stays), or the end of the game. */
export function clearFeedback({ olderThan = 0 } = {}) {
  const box = document.getElementById("feedback");
  if (!box || box.hidden || performance.now() - shownAt < olderThan) return;
  clearTimeout(timer);
  box.hidden = true;
}
