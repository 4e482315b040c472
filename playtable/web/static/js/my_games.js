// My games (my_games.py) kept current while it stays open: a player of several slow games
// leaves it open in a tab (on a phone, all day) to see which wait for their move, and it
// went on saying "Opponent's move" hours after the opponent had moved. The list is read
// again when the page comes back into view and every few minutes while in view, and put in
// place only if it changed (the keyboard's focus kept on the same game's link).

import { writeLocalTimes } from "./local_times.js";

const EVERY_MS = 3 * 60 * 1000;
const root = document.querySelector(".my-games");

async function refresh() {
  if (!root || document.visibilityState !== "visible") return;
  let fresh;
  try {
    const response = await fetch(location.href, { cache: "no-store" });
    if (!response.ok) return; // a refused read (too many at once): the next try
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    fresh = page.querySelector(".my-games");
  } catch {
    return; // offline for a moment: the next try
  }
  if (!fresh) return;
  writeLocalTimes(fresh);
  if (fresh.innerHTML === root.innerHTML) return;
  const focused = document.activeElement && document.activeElement.closest("[data-table]");
  const row = focused && root.contains(focused) ? focused.dataset.table : null;
  root.replaceChildren(...fresh.childNodes);
  if (row) {
    const link = root.querySelector(`[data-table="${CSS.escape(row)}"] a`);
    if (link) link.focus();
  }
}

if (root) {
  setInterval(refresh, EVERY_MS);
  document.addEventListener("visibilitychange", refresh);
}
