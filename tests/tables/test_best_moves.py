"""The kept best-move answers: proved ones until pushed out, unproved ones for a while."""

from __future__ import annotations

from playtable.tables.best_moves import KeptAnswers, position

PROVED = {"ply": 0, "proved": True, "value": 1, "best_moves": ["a1-b1"]}
UNPROVED = {"ply": 0, "proved": False, "value": None, "best_moves": []}


def test_the_same_moves_in_the_same_game_are_one_position() -> None:
    assert position("dots", {"rows": 2, "cols": 3}, ["a1-b1"]) == position(
        "dots", {"cols": 3, "rows": 2}, ("a1-b1",)
    )
    assert position("dots", {"rows": 2, "cols": 3}, []) != position(
        "dots", {"rows": 3, "cols": 2}, []
    )
    assert position("dots", {"size": 5}, []) != position("swaptimum", {"size": 5}, [])


def test_an_unproved_answer_is_kept_for_a_while_and_the_oldest_go_first() -> None:
    kept = KeptAnswers(kept=2, unproved_for_s=60)
    kept.put(position("dots", {"n": 1}, []), PROVED, now=0)
    kept.put(position("dots", {"n": 2}, []), UNPROVED, now=0)
    assert kept.get(position("dots", {"n": 2}, []), now=59) == UNPROVED
    assert kept.get(position("dots", {"n": 2}, []), now=61) is None  # someone may prove it now
    assert kept.get(position("dots", {"n": 1}, []), now=10_000) == PROVED
    kept.put(position("dots", {"n": 3}, []), PROVED, now=1)
    kept.put(position("dots", {"n": 4}, []), PROVED, now=2)
    assert len(kept) == 2 and kept.get(position("dots", {"n": 1}, []), now=3) is None
