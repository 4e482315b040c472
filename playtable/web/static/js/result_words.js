// The words of a game's result: the result itself ("Red wins 18–7.", for a spectator and
// the records) and the same said to a player ("You win 18–7.", "Blue resigned. You win."):
// the line above the board, the result card and what a screen reader hears.

import { timeResult } from "./clock.js";
import { formatNumber, playerName, t } from "./i18n.js";
import { lastMoverOf, other, state, you } from "./table_state.js";

export function resultText(outcome, current = state.table) {
  if (!outcome) return "";
  const winner = outcome.winner ? playerName(outcome.winner) : "";
  switch (outcome.reason) {
    case "score": {
      const score = outcome.score || { red: 0, blue: 0 };
      const params = outcome.winner
        ? {
            winner,
            winner_score: formatNumber(score[outcome.winner]),
            loser_score: formatNumber(score[other(outcome.winner)]),
          }
        : { score: formatNumber(score.red) };
      let text = outcome.winner ? t("wins_score", params) : t("draw_score", params);
      if (current.view && current.view.misere) text += ` ${t("misere_rule")}`;
      return text;
    }
    case "connection": {
      const mover = lastMoverOf(current);
      if (mover && outcome.winner && mover !== outcome.winner) {
        return t("wins_connection_swap", { winner, mover: playerName(mover) });
      }
      return t("wins_connection", { winner });
    }
    case "no_moves":
      return t("draw_no_moves");
    case "resign":
      return t("wins_resign", { winner, loser: playerName(other(outcome.winner)) });
    case "draw_agreed":
      return t("draw_agreed");
    case "timeout":
    case "aborted":
      return timeResult(outcome);
    default:
      return winner ? t("wins_generic", { winner }) : t("draw_generic");
  }
}

// The result with its reason and score, said to the player ("You win 18–7.", "Blue
// resigned. You win."): the turn line, the result card and what a screen reader announces;
// a spectator reads the result's words ("Red wins 18–7.").
export function playerResultText(outcome, current = state.table) {
  if (!outcome) return "";
  if (!you || !outcome.winner) return resultText(outcome, current); // draws, aborts, watchers
  const won = outcome.winner === you;
  const opponent = playerName(other(you));
  switch (outcome.reason) {
    case "score": {
      const score = outcome.score || { red: 0, blue: 0 };
      const params = { yours: formatNumber(score[you]), theirs: formatNumber(score[other(you)]) };
      const text = t(won ? "you_win_score" : "you_lose_score", params);
      return current.view && current.view.misere ? `${text} ${t("misere_rule")}` : text;
    }
    case "connection": {
      // the loser's own swap may have completed the winner's chain
      const mover = lastMoverOf(current);
      const swapped = Boolean(mover) && mover !== outcome.winner;
      if (won) return t(swapped ? "you_win_connection_swap" : "you_win_connection");
      return t(swapped ? "you_lose_connection_swap" : "you_lose_connection");
    }
    case "resign":
      return won
        ? t("you_win_resign", { loser: opponent })
        : t("you_resigned", { winner: opponent });
    case "timeout":
      return won
        ? t("you_win_timeout", { loser: opponent })
        : t("you_lose_timeout", { winner: opponent });
    default:
      return t(won ? "you_win" : "you_lose");
  }
}
