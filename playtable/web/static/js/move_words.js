// A move in words, for screen readers: "Red placed a checker on c4 and swapped c3 and c4."
// rather than the notation "c4:c3-c4", "Blue drew the line from a1 to b1." for "a1-b1".

import { playerName, t } from "./i18n.js";
import { parseMove } from "./swap_choice.js";

/** `claimed`: the boxes a Dots and Boxes move completed (0, 1 or 2). */
export function moveWords(game, player, move, claimed = 0) {
  const who = playerName(player);
  if (game === "dots") {
    const [a, b] = move.split("-");
    const key = ["ann_line", "ann_move_claim_one", "ann_move_claim_two"][Math.min(claimed, 2)];
    return t(key, { player: who, a, b });
  }
  const [square, pair] = parseMove(move);
  if (!pair) return t("ann_place", { player: who, square });
  return t("ann_place_swap", { player: who, square, a: pair[0], b: pair[1] });
}

/** A Swaptimum turn skipped, said to `viewer` (the reader's seat, or null for a spectator):
 * the skipped player reads that their turn is skipped, their opponent that they move again. */
export function skipWords(skipped, viewer) {
  if (!skipped) return "";
  if (!viewer) return t("skipped", { player: playerName(skipped) });
  if (skipped === viewer) return t("skipped_you");
  return t("skipped_again", { player: playerName(skipped) });
}

/** How many boxes each move of a Dots and Boxes game completed (0, 1 or 2; cells on a triangle
 * or hexagon grid), read from the position after its last move (a live table, a replayed or an
 * analysed one): a claimed box was completed by the last of its lines drawn. 0 for every move
 * of another game, or of a table without its board. */
export function claimsOf(table) {
  const moves = Array.isArray(table.moves) ? table.moves : [];
  const claims = moves.map(() => 0);
  const view = table.view;
  if (table.game !== "dots" || !view || !view.lines || !view.cells) return claims;
  const plies = new Map(moves.map((move, index) => [move, index]));
  for (const cell of view.cells) {
    if (!cell.owner) continue;
    // a line drawn before the game (a Swedish or Icelandic start) is no move: -1
    const drawn = cell.lines.map((line) => plies.get(view.lines[line].name) ?? -1);
    const last = Math.max(-1, ...drawn);
    if (last >= 0) claims[last] += 1;
  }
  return claims;
}

/** The boxes a Dots and Boxes line completed, from the position right after it (a live
 * table or a replayed one, whose last move it is). */
export function claimedBy(table, move) {
  const moves = Array.isArray(table.moves) ? table.moves : [];
  const index = moves.lastIndexOf(move);
  return index < 0 ? 0 : claimsOf(table)[index];
}
