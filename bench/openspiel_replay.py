"""A replayer of Dots and Boxes records on OpenSpiel's C++ game: the peer of `playtable replay`.

    python bench/openspiel_replay.py < records.jsonl > results.jsonl

It reads the same JSON Lines records as ``playtable replay`` (``docs/notation.md``), square
boards of the standard start only, and writes the same result line for each: every move text is
turned into OpenSpiel's action id (a table built once per board size from OpenSpiel's action
numbering) and applied with ``apply_action``, which refuses a line already drawn. It imports
only ``json``, ``sys`` and ``pyspiel``: what a script written against OpenSpiel would need.
``bench/replay.py`` runs it and ``playtable replay`` alternately on the same records and checks
that both print the same lines.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import pyspiel

if TYPE_CHECKING:
    from typing import Any

LETTERS = "abcdefghijklmnopqrstuvwxyz"


class Board:
    """One square board of OpenSpiel's ``dots_and_boxes``: the game and the notation tables."""

    def __init__(self, rows: int, cols: int) -> None:
        self.game = pyspiel.load_game(f"dots_and_boxes(num_rows={rows},num_cols={cols})")
        # OpenSpiel numbers the horizontal lines first, row by row from the top, then the
        # vertical ones, also from the top; our dots count rows from the bottom (a1 = lower left).
        self.action: dict[str, int] = {}
        self.text: dict[int, str] = {}
        for r in range(rows + 1):
            for c in range(cols):
                self._name(
                    f"{LETTERS[c]}{r + 1}", f"{LETTERS[c + 1]}{r + 1}", (rows - r) * cols + c
                )
        for r in range(rows):
            for c in range(cols + 1):
                action = (rows + 1) * cols + (rows - 1 - r) * (cols + 1) + c
                self._name(f"{LETTERS[c]}{r + 1}", f"{LETTERS[c]}{r + 2}", action)

    def _name(self, a: str, b: str, action: int) -> None:
        self.text[action] = f"{a}-{b}"
        self.action[f"{a}-{b}"] = self.action[f"{b}-{a}"] = action


BOARDS: dict[tuple[int, int], Board] = {}


def replay(data: Any) -> dict[str, Any]:
    options = data.get("options", {})
    if data.get("game") != "dots" or set(options) - {"grid", "rows", "cols", "start", "misere"}:
        return {"ok": False, "error": "only square Dots and Boxes boards"}
    if options.get("grid", "square") != "square" or options.get("start", "standard") != "standard":
        return {"ok": False, "error": "only square Dots and Boxes boards"}
    key = (options.get("rows", 5), options.get("cols", 5))
    board = BOARDS.get(key)
    if board is None:
        board = BOARDS[key] = Board(*key)
    state = board.game.new_initial_state()
    apply_action, action = state.apply_action, board.action
    for ply, text in enumerate(data.get("moves", []), 1):
        number = action.get(text)
        if number is None:
            return {"ok": False, "ply": ply, "error": f"{text!r} is not a line"}
        if state.is_terminal():
            return {"ok": False, "ply": ply, "error": "the game is over"}
        try:
            apply_action(number)
        except pyspiel.SpielError:
            return {"ok": False, "ply": ply, "error": f"the line {text} is already drawn"}
    # The claimed boxes are the 1s and 2s of the board picture.
    picture = state.observation_string(0)
    red, blue = picture.count(" 1 "), picture.count(" 2 ")
    terminal = state.is_terminal()
    winner = None
    if terminal and red != blue:
        misere = options.get("misere", False)
        winner = "red" if (red > blue) != misere else "blue"
    return {
        "ok": True,
        "plies": len(state.history()),
        "to_move": None if terminal else ("red", "blue")[state.current_player()],
        "outcome": {"winner": winner} if terminal else None,
        "score": {"red": red, "blue": blue},
        "legal_moves": sorted(board.text[a] for a in state.legal_actions()),
    }


JSON_PLAYER = {None: "null", "red": '"red"', "blue": '"blue"'}


def result_line(result: dict[str, Any]) -> str:
    """``json.dumps(result)`` written directly for a replayed record, as ``playtable replay``
    writes it (json.dumps costs about as much as replaying a record on either side)."""
    if not result["ok"]:
        return json.dumps(result) + "\n"
    outcome, score, moves = result["outcome"], result["score"], result["legal_moves"]
    winner = "null" if outcome is None else f'{{"winner": {JSON_PLAYER[outcome["winner"]]}}}'
    return (
        f'{{"ok": true, "plies": {result["plies"]}, "to_move": {JSON_PLAYER[result["to_move"]]}, '
        f'"outcome": {winner}, "score": {{"red": {score["red"]}, "blue": {score["blue"]}}}, '
        f'"legal_moves": {json.dumps(moves) if moves else "[]"}}}\n'
    )


def main() -> int:
    # Every line read, then one write: the whole input is there, nobody waits for a line.
    results = [result_line(replay(json.loads(line))) for line in sys.stdin if line.strip()]
    sys.stdout.write("".join(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
