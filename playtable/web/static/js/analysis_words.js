// The analysis' values in a player's words, proved or estimated (analysis.js; the page's
// translated strings through i18n.js). Kept apart from the page so the wording can be
// checked on its own (tests/e2e/test_modules.py).

import { playerName, t, tn } from "./i18n.js";

/** Who wins a position of value `value` (red's margin) with perfect play, and by how much. */
export function verdict(value, isMisere) {
  if (value === null || value === undefined) return null;
  if (value === 0) return { winner: null, boxes: 0 };
  // Misère: the player with fewer boxes wins, so a positive red margin is a blue win.
  const redWins = isMisere ? value < 0 : value > 0;
  return { winner: redWins ? "red" : "blue", boxes: Math.abs(value) };
}

/** A share from 0 to 1 as a whole percentage in the page's language ("64 %" in Finnish). */
export function percent(share) {
  return new Intl.NumberFormat(document.documentElement.lang || "en", {
    style: "percent",
    maximumFractionDigits: 0,
  }).format(share);
}

/** A Swaptimum value (red's share of the simulated games) in a player's words. */
function rateText(share, proved, viewer) {
  if (proved) {
    if (share === 0.5) return t("eval_decided_draw");
    const winner = share > 0.5 ? "red" : "blue";
    if (viewer) return t(winner === viewer ? "eval_decided_you_win" : "eval_decided_you_lose");
    return t("eval_decided", { player: playerName(winner) });
  }
  const side = viewer || (share >= 0.5 ? "red" : "blue");
  const mine = side === "red" ? share : 1 - share;
  if (viewer) return t("eval_rate_you", { percent: percent(mine) });
  return t("eval_rate", { player: playerName(side), percent: percent(mine) });
}

/** A value in a player's words: "Blue wins by 3 boxes with perfect play", "You lose by 3
 * boxes …", an estimate "About Blue by 2 boxes (estimate)" (cells on a triangle or hexagon
 * grid), or Swaptimum's "Blue wins 64% of simulated games (estimate)". `proved` false marks
 * an estimate. */
export function valueText(value, isMisere, viewer, proved, game) {
  if (value === null || value === undefined) return t("eval_pending");
  if (game === "swaptimum") return rateText(value, proved, viewer);
  const found = verdict(value, isMisere);
  if (!proved) {
    if (!found.winner) return t("eval_about_even");
    if (viewer) {
      const key = found.winner === viewer ? "eval_about_you_win" : "eval_about_you_lose";
      return tn(key, found.boxes);
    }
    return tn("eval_about", found.boxes, { player: playerName(found.winner) });
  }
  if (!found.winner) return t("eval_draw");
  if (viewer) {
    return tn(found.winner === viewer ? "eval_you_win" : "eval_you_lose", found.boxes);
  }
  return tn("eval_wins", found.boxes, { player: playerName(found.winner) });
}
