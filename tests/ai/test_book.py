"""The opening book of the small boards: complete where it must be, consistent, and right."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from playtable.ai import book, choose_move
from playtable.ai.dots_solver import DotsSolver, board_symmetries, permute_mask
from playtable.games.dots.game import DotsAndBoxes, DotsState

THREE = [{"rows": 3, "cols": 3}, {"rows": 3, "cols": 3, "misere": True}]


def game(options: dict[str, Any]) -> DotsAndBoxes:
    return DotsAndBoxes.from_options(options)


def stored(g: DotsAndBoxes) -> dict[str, list[int]]:
    return book._book()[book.board_key(g)]


def value_after(g: DotsAndBoxes, state: DotsState, line: int) -> int | None:
    """The value of drawing ``line`` for the side to move, from the book alone."""
    after = g.apply(state, line)
    claimed = g.claimed_by(state, after)
    if g.to_move(after) is None:
        return claimed
    known = book.lookup(g, after)
    if known is None:
        return None
    return claimed + known[0] if claimed else -known[0]


@pytest.mark.parametrize("options", THREE)
def test_the_3x3_openings_are_in_the_book(options: dict[str, Any]) -> None:
    g = game(options)
    known = book.lookup(g, g.initial())
    assert known is not None
    if not options.get("misere"):
        assert known[0] == -3  # the published value


@pytest.mark.parametrize("options", THREE)
def test_book_moves_are_best_among_the_book_values(options: dict[str, Any]) -> None:
    """Below the deepest stored level every child is stored too: the stored line must reach
    the stored value, and no other line may do better (for misère: fewer cells is better,
    and the value is net cells either way, so the best is the highest in normal scoring and
    the lowest in misère)."""
    g = game(options)
    positions = stored(g)
    extra = lambda drawn: (drawn & ~g.predrawn).bit_count()  # noqa: E731
    deepest = max(extra(int(mask, 16)) for mask in positions)
    checked = 0
    for mask, (value, *lines) in positions.items():
        drawn = int(mask, 16)
        if extra(drawn) == deepest:
            continue
        state = book._state(g, drawn)
        children = {move: value_after(g, state, move) for move in g.legal_moves(state)}
        assert None not in children.values()
        best = [move for move, child in children.items() if child == value]
        assert sorted(lines) == best, mask  # every optimal line, and only those
        better = [
            v
            for v in children.values()
            if v is not None and (v < value if options.get("misere") else v > value)
        ]
        assert not better, mask
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("options", THREE)
def test_deepest_book_entries_agree_with_the_solver(options: dict[str, Any]) -> None:
    g = game(options)
    positions = stored(g)
    rng = random.Random(5)
    solver = DotsSolver(g)
    for mask in rng.sample(sorted(positions), 3):
        value, *lines = positions[mask]
        state = book._state(g, int(mask, 16))
        for line in lines:
            assert book.line_is_optimal(solver, g, state, value, line), mask


def test_a_position_in_any_orientation_gets_the_mapped_move() -> None:
    g = game(THREE[0])
    state = g.apply(g.initial(), 0)  # an edge line, then each symmetric image of it
    value = book.lookup(g, state)
    assert value is not None
    for perm in board_symmetries(g.board):
        image = book._state(g, permute_mask(state.drawn, perm))
        known = book.lookup(g, image)
        assert known is not None and known[0] == value[0]
        assert len(known[1]) == len(value[1])
        for line in known[1]:
            assert value_after(g, image, line) == value[0]


def test_the_hard_bot_opens_3x3_misere_perfectly_even_with_no_time() -> None:
    options = THREE[1]
    g = game(options)
    text = choose_move("dots", options, [], "hard", budget_s=0.01)
    line = g.parse_move(text)
    known = book.lookup(g, g.initial())
    assert known is not None
    assert line in known[1]
    assert value_after(g, g.initial(), line) == known[0]


def test_the_book_file_names_only_real_boards() -> None:
    data = json.loads(book.BOOK_PATH.read_text(encoding="utf-8"))
    assert data["version"] == book.VERSION
    for key in data["boards"]:
        assert book.board_key(game(json.loads(key))) == key
