// A rematch swaps the colours: a player who follows their page to the new table (the
// rematch link, at once or later from the old table) is told once, there, which colour they
// play now. The old page keeps the colour it played in this tab's storage, for the new table.

const KEY = "pt_rematch";

/** The page leaves for the rematch table at `url` (its seat link): remember the colour
 * `you` played here. */
export function rememberRematch(url, you) {
  const match = /\/t\/([^/?#]+)\/seat\//.exec(url);
  if (!match || !you) return;
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ table: decodeURIComponent(match[1]), was: you }));
  } catch {
    // storage refused (a private window): the new table simply says nothing
  }
}

/** Whether this page came from the previous game of table `id` and `you` now play the
 * other colour there (once: the memory is forgotten as it is read). */
export function takeRematchSwap(id, you) {
  let kept = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(KEY) || "null");
    if (kept && kept.table === id) sessionStorage.removeItem(KEY);
  } catch {
    return false;
  }
  return Boolean(kept && kept.table === id && you && kept.was !== you);
}
