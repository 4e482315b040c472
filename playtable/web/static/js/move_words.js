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

/** The boxes a Dots and Boxes line completed, from the position after it (a live table or a
 * replayed one): a claimed box beside the last line drawn was closed by it. */
export function claimedBy(table, move) {
  const view = table.view;
  if (table.game !== "dots" || !view || !view.lines || !view.cells) return 0;
  const index = view.lines.findIndex((line) => line.name === move);
  if (index < 0) return 0;
  return view.cells.filter((cell) => cell.owner && cell.lines.includes(index)).length;
}
