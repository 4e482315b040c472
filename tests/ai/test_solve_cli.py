"""`playtable solve` as a script sees it: JSON Lines in, JSON Lines out."""

from __future__ import annotations

import json
import subprocess
import sys

from playtable.ai.dots_solver import plain_value
from playtable.games.dots.game import DotsAndBoxes


def solve(stdin: str, *args: str) -> list[dict[str, object]]:
    proc = subprocess.run(
        [sys.executable, "-m", "playtable.cli", "solve", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def record(moves: list[str], **options: object) -> str:
    return json.dumps({"game": "dots", "options": options, "moves": moves})


def test_values_and_best_moves() -> None:
    lines = [
        record([], rows=2, cols=2),
        # Red took nothing; blue to move on a 1x2 board with three lines drawn.
        record(["a1-b1", "b1-c1", "a2-b2"], rows=1, cols=2),
        record(["a1-b1", "a1-a2", "b1-b2"], rows=1, cols=1),
    ]
    results = solve("\n".join(lines) + "\n\n")
    assert [r["ok"] for r in results] == [True, True, True]
    first, second, third = results
    assert first["value"] == 2
    assert set(first) == {"ok", "value", "best_moves", "nodes", "seconds"}
    assert isinstance(first["nodes"], int) and first["nodes"] > 0
    assert "a1-b1" in first["best_moves"]  # type: ignore[operator]
    # The same answer as the plain memoised search, in-process.
    game = DotsAndBoxes.from_options({"rows": 1, "cols": 2})
    state = game.replay(["a1-b1", "b1-c1", "a2-b2"])
    assert second["value"] == plain_value(game, state.drawn)
    assert third == {**third, "value": 1, "best_moves": ["a2-b2"]}


def test_misere_value_is_still_net_cells_of_the_mover() -> None:
    # One box, three sides drawn, blue to move: blue must complete it (the only line),
    # so blue nets +1 cell, which in misère is the losing outcome.
    results = solve(record(["a1-b1", "a1-a2", "b1-b2"], rows=1, cols=1, misere=True) + "\n")
    assert results[0]["value"] == 1
    # 1x2 misère from the start: checked against the small plain search in the solver tests.
    results = solve(record([], rows=1, cols=2, misere=True) + "\n")
    assert results[0]["ok"] is True


def test_finished_game_and_errors() -> None:
    finished = record(["a1-b1", "a1-a2", "b1-b2", "a2-b2"], rows=1, cols=1)
    results = solve(
        "\n".join(
            [
                finished,
                record(["a1-b1", "a1-b1"], rows=1, cols=1),
                json.dumps({"game": "swaptimum", "options": {"size": 5}, "moves": []}),
                "not json",
            ]
        )
    )
    assert results[0] == {**results[0], "ok": True, "value": 0, "best_moves": []}
    assert results[1]["ok"] is False and results[1]["ply"] == 2
    assert results[2]["ok"] is False and "Dots and Boxes" in str(results[2]["error"])
    assert results[3]["ok"] is False


def test_time_limit_error() -> None:
    results = solve(record([], rows=5, cols=5) + "\n", "--time-limit", "0.3")
    assert results[0]["ok"] is False
    assert "time limit" in str(results[0]["error"])
