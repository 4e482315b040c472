"""Swaptimum's random_move and random_swap draw exactly the legal moves, each as often."""

from __future__ import annotations

import math
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from playtable.games import load
from playtable.games.swaptimum import Swaptimum, SwaptimumMove, SwaptimumState
from tests.games.test_swaptimum import random_state


def game_of(n: int) -> Swaptimum:
    game = load("swaptimum", {"size": n})
    assert isinstance(game, Swaptimum)
    return game


def played_state(game: Swaptimum, rng: random.Random) -> SwaptimumState:
    """A position of a random game (listing moves, as a reference would), cut at random."""
    state = game.initial()
    for _ in range(rng.randrange(game.area)):
        if state.to_move is None:
            break
        state = game.apply(state, rng.choice(game.legal_moves(state)))
    return state


def enough(k: int) -> int:
    """Draws after which each of k equally likely moves has been seen, but with a chance of
    at most k * (1 - 1/k) ** draws < e ** -16 (the draws are seeded, so a run repeats)."""
    return int(k * (math.log(k) + 16)) + 1


def support(game: Swaptimum, state: SwaptimumState, rng: random.Random) -> set[str]:
    draws = enough(len(game.legal_moves(state)))
    return {game.format_move(game.random_move(state, rng)) for _ in range(draws)}


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 9), played=st.booleans())
def test_the_sampler_draws_exactly_the_legal_moves(seed: int, n: int, played: bool) -> None:
    """Enough draws to see every legal move, and never a move legal_moves does not list."""
    rng = random.Random(seed)
    game = game_of(n)
    state = played_state(game, rng) if played else random_state(rng, n)
    if state.to_move is None:
        return
    legal = set(game.legal_move_texts(state))
    drawn = support(game, state, rng)
    assert drawn <= legal, drawn - legal
    assert drawn == legal, legal - drawn


def test_positions_with_many_swaps_are_covered() -> None:
    """Positions where most legal moves are swaps: the sampler's rejection path at work."""
    rng = random.Random(11)
    seen = 0
    for _ in range(400):
        n = rng.randrange(3, 8)
        game = game_of(n)
        state = random_state(rng, n)
        assert state.to_move is not None
        moves = game.legal_moves(state)
        swaps = [m for m in moves if m.swap is not None]
        if len(swaps) * 2 < len(moves):
            continue
        seen += 1
        legal = {game.format_move(m) for m in moves}
        assert support(game, state, rng) == legal
    assert seen >= 20


def test_every_legal_move_equally_likely() -> None:
    """On a position with bare placements and swaps, the draws are uniform: each count lies
    within a wide band of the mean (about five standard deviations)."""
    game = game_of(5)
    rng = random.Random(3)
    state = None
    while state is None:
        candidate = random_state(rng, 5)
        moves = game.legal_moves(candidate)
        if sum(m.swap is not None for m in moves) >= 8 and len(moves) <= 40:
            state = candidate
    moves = game.legal_moves(state)
    draws = 400 * len(moves)
    counts = Counter(game.random_move(state, rng) for _ in range(draws))
    assert set(counts) == set(moves)
    for move in moves:
        assert abs(counts[move] - 400) < 5 * 20, (game.format_move(move), counts[move])


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8))
def test_random_swap_draws_the_swaps_of_one_placement(seed: int, n: int) -> None:
    rng = random.Random(seed)
    game = game_of(n)
    state = random_state(rng, n)
    player = state.to_move
    assert player is not None
    for square in range(game.area):
        if (state.red | state.blue) >> square & 1:
            continue
        swaps = {tuple(p) for p in game._swaps(state.red, state.blue, player, square)}
        drawn = set()
        for _ in range(enough(len(swaps)) if swaps else 3):
            pair = game.random_swap(state.red, state.blue, player, square, rng)
            if pair is None:
                break
            drawn.add(pair)
        assert drawn == swaps
        for pair in drawn:
            game.apply(state, SwaptimumMove(square, pair))  # legal
