// A move in words, for screen readers: "Red placed a checker on c4 and swapped c3 and c4."
// rather than the notation "c4:c3-c4".

import { playerName, t } from "./i18n.js";
import { parseMove } from "./swap_choice.js";

export function moveWords(game, player, move) {
  const who = playerName(player);
  if (game === "dots") return t("ann_line", { player: who, move });
  const [square, pair] = parseMove(move);
  if (!pair) return t("ann_place", { player: who, square });
  return t("ann_place_swap", { player: who, square, a: pair[0], b: pair[1] });
}
