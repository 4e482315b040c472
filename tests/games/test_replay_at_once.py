"""Dots and Boxes' whole-record replay agrees with playing the moves one by one."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playtable.games import IllegalMove, load
from playtable.games.base import Game
from playtable.games.dots.game import DotsAndBoxes

BOARDS: list[dict[str, Any]] = [
    {"rows": 1, "cols": 1},
    {"rows": 5, "cols": 5},
    {"rows": 2, "cols": 4, "start": "swedish"},
    {"rows": 3, "cols": 3, "start": "icelandic", "misere": True},
    {"grid": "triangle", "size": 3},
    {"grid": "triangle", "size": 2, "start": "swedish"},
    {"grid": "hexagon", "size": 2, "misere": True},
]


def one_by_one(game: DotsAndBoxes, texts: list[str]) -> Any:
    """The reference: Game.replay, one play() per move."""
    return Game.replay(game, texts)


def random_texts(game: DotsAndBoxes, rng: random.Random) -> list[str]:
    """A random game cut at a random ply, each line written either way round."""
    state = game.initial()
    texts: list[str] = []
    stop = rng.randrange(len(game.board.lines) + 1)
    while game.outcome(state) is None and len(texts) < stop:
        move = rng.choice(game.legal_moves(state))
        text = game.format_move(move)
        if rng.random() < 0.5:
            a, b = text.split("-")
            text = f"{b}-{a}"
        texts.append(text)
        state = game.apply(state, move)
    return texts


@pytest.mark.parametrize("options", BOARDS)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_same_position_as_move_by_move(options: dict[str, Any], seed: int) -> None:
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    texts = random_texts(game, random.Random(seed))
    assert game.replay(texts) == one_by_one(game, texts)
    assert game._replay_at_once(texts) is not None  # the fast path did the work


@pytest.mark.parametrize("options", BOARDS)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), junk=st.sampled_from(["repeat", "unknown", "predrawn"]))
def test_a_bad_record_raises_what_play_raises(
    options: dict[str, Any], seed: int, junk: str
) -> None:
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    rng = random.Random(seed)
    texts = random_texts(game, rng)
    if junk == "repeat" and texts:
        bad = rng.choice(texts)
    elif junk == "predrawn" and game.predrawn:
        bad = game.format_move((game.predrawn & -game.predrawn).bit_length() - 1)
    else:
        bad = "z9-z10"
    texts.insert(rng.randrange(len(texts) + 1), bad)
    try:
        expected: Any = one_by_one(game, texts)
    except IllegalMove as error:
        expected = str(error)
    try:
        got: Any = game.replay(texts)
    except IllegalMove as error:
        got = str(error)
    assert got == expected


def test_whole_games_on_the_benchmark_board() -> None:
    game = load("dots", {"rows": 5, "cols": 5})
    assert isinstance(game, DotsAndBoxes)
    rng = random.Random(5)
    names = [line.name for line in game.board.lines]
    for _ in range(200):
        rng.shuffle(names)
        state = game.replay(names)
        assert state == one_by_one(game, names)
        assert game.outcome(state) is not None
