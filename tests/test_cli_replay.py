"""`playtable replay` as a script sees it: JSON Lines in, JSON Lines out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from playtable.games.records import GameRecord


def run(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "playtable.cli", "replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def results(stdin: str) -> list[dict[str, object]]:
    proc = run(stdin)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_dots_record_from_the_issue() -> None:
    line = json.dumps(
        {
            "game": "dots",
            "options": {
                "grid": "square",
                "rows": 4,
                "cols": 4,
                "start": "swedish",
                "misere": False,
            },
            "moves": ["a2-b2"],
        }
    )
    (result,) = results(line + "\n")
    assert result["ok"] is True
    assert result["plies"] == 1
    assert result["to_move"] == "blue"
    assert result["outcome"] is None
    assert result["score"] == {"red": 0, "blue": 0}
    moves = result["legal_moves"]
    assert isinstance(moves, list) and len(moves) == 23 and moves == sorted(moves)
    assert "a2-b2" not in moves


def test_defaults_and_other_grids() -> None:
    lines = [
        {"game": "dots", "options": {"grid": "triangle", "size": 3}, "moves": []},
        {"game": "dots", "options": {"grid": "hexagon", "size": 2}, "moves": []},
        {
            "game": "dots",
            "options": {"grid": "square", "rows": 1, "cols": 1, "start": "swedish"},
            "moves": ["a2-b2"],
        },
    ]
    tri, hexa, single = results("".join(json.dumps(x) + "\n" for x in lines))
    assert len(tri["legal_moves"]) == 18  # type: ignore[arg-type]
    assert len(hexa["legal_moves"]) == 30  # type: ignore[arg-type]
    assert single == {
        "ok": True,
        "plies": 1,
        "to_move": None,
        "outcome": {"winner": "red"},
        "score": {"red": 1, "blue": 0},
        "legal_moves": [],
    }


def test_errors_do_not_stop_later_lines() -> None:
    good = json.dumps({"game": "dots", "options": {"rows": 1, "cols": 1}, "moves": []})
    stdin = "\n".join(
        [
            "this is not json",
            json.dumps({"game": "chess", "moves": []}),
            json.dumps({"game": "dots", "options": {"rows": 99}, "moves": []}),
            json.dumps(
                {"game": "dots", "options": {"rows": 1, "cols": 1}, "moves": ["a1-b1", "a1-b1"]}
            ),
            good,
        ]
    )
    out = results(stdin + "\n")
    assert len(out) == 5
    assert out[0]["ok"] is False and "JSON" in str(out[0]["error"])
    assert out[1]["ok"] is False and "chess" in str(out[1]["error"])
    assert out[2]["ok"] is False and "rows" in str(out[2]["error"])
    assert out[3] == {"ok": False, "ply": 2, "error": "The line a1-b1 is already drawn."}
    assert out[4]["ok"] is True and len(out[4]["legal_moves"]) == 4  # type: ignore[arg-type]


def test_text_record_file_prints_a_diagram(tmp_path: Path) -> None:
    record = GameRecord("dots", {"rows": 1, "cols": 1, "start": "swedish"}, ("a2-b2",))
    path = tmp_path / "game.txt"
    path.write_text(record.to_text(), encoding="utf-8")
    proc = run("", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "| R |" in proc.stdout and "red wins" in proc.stdout


def test_text_record_with_illegal_move_fails(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text('[Game "dots"]\n[Rows "1"]\n[Cols "1"]\n\n1. a1-b1 2. a1-b1\n')
    proc = run("", str(path))
    assert proc.returncode == 1
    assert "move 2" in proc.stderr and "already drawn" in proc.stderr


def test_many_records_stream_through_in_order() -> None:
    """Whole games, partial games and bad lines, more than one read's worth of input."""
    import random

    from playtable.cli import result_line
    from playtable.games import load

    game = load("dots", {"rows": 3, "cols": 3})
    rng = random.Random(3)
    lines: list[str] = []
    for i in range(400):
        names = [line.name for line in game.board.lines]  # type: ignore[attr-defined]
        rng.shuffle(names)
        names = names[: rng.randrange(len(names) + 1)]
        if i % 50 == 7:
            names.append(names[0] if names else "q9-q8")
        lines.append(
            json.dumps({"game": "dots", "options": {"rows": 3, "cols": 3}, "moves": names})
        )
    stdin = "\r\n".join(lines) + "\n"
    out = results(stdin)
    assert len(out) == 400
    for line, result in zip(lines, out, strict=True):
        moves = json.loads(line)["moves"]
        try:
            state = game.replay(moves)
        except Exception:
            assert result["ok"] is False
            continue
        assert result["plies"] == len(moves) and result["ok"] is True
        assert result["score"] == dict(zip(("red", "blue"), game.score(state), strict=True))
        assert json.loads(result_line(result)) == result
        assert result_line(result) == json.dumps(result) + "\n"


def test_lines_cut_across_reads_and_any_line_ending() -> None:
    """replay_stream on a source that hands out 7 bytes a read: the same results as the
    line-by-line replay, whatever the line endings, a last line without one included."""
    import io

    from playtable.cli import replay_lines, replay_stream

    records = [
        json.dumps({"game": "dots", "options": {"rows": 1, "cols": 1}, "moves": moves})
        for moves in (["a1-b1"], [], ["a1-b1", "b1-b2", "a2-b2", "a1-a2"], ["zz"])
    ]
    text = records[0] + "\r\n" + records[1] + "\r" + records[2] + "\n\n" + records[3]

    class Trickle(io.BytesIO):
        def read1(self, size: int = -1) -> bytes:
            return super().read1(7)

    streamed, listed = io.StringIO(), io.StringIO()
    assert replay_stream(Trickle(text.encode()), streamed) == 4
    replay_lines(records, listed)
    assert streamed.getvalue() == listed.getvalue()
    assert [json.loads(line)["ok"] for line in streamed.getvalue().splitlines()] == [
        True,
        True,
        True,
        False,
    ]
