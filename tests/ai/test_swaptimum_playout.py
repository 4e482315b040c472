"""The UCT bot's random playout ends where its rules say: the winner it reports joins its
sides in the final position (or does with one more checker: a playout stops as soon as the
side to move has a winning placement), the other side does not, and no crosscut is left."""

from __future__ import annotations

import random

import pytest

from playtable.ai.swaptimum_mcts import Playout
from playtable.games import load
from playtable.games.swaptimum import Swaptimum, SwaptimumState


@pytest.mark.parametrize("size", [3, 5, 9, 13])
def test_playouts_end_in_a_position_the_rules_agree_with(size: int) -> None:
    game = load("swaptimum", {"size": size})
    assert isinstance(game, Swaptimum)
    playout = Playout(game)
    rng = random.Random(size)
    for _ in range(120 if size < 13 else 30):
        state = game.initial()
        for _ in range(rng.randrange(size * size)):
            if state.to_move is None:
                break
            state = game.apply(state, game.random_move(state, rng))
        if state.to_move is None:
            continue
        winner = playout.run(state, rng)
        red, blue = playout.final
        assert red & blue == 0 and (red | blue) & ~game.full == 0
        assert not game._crosscuts(red, blue)
        empty = [i for i in range(game.area) if not (red | blue) >> i & 1]
        red_joins = game._red_connects(red) or any(game._red_connects(red | 1 << i) for i in empty)
        blue_joins = game._blue_connects(blue) or any(
            game._blue_connects(blue | 1 << i) for i in empty
        )
        if winner == "red":
            assert red_joins and not game._blue_connects(blue)
        elif winner == "blue":
            assert blue_joins and not game._red_connects(red)
        else:
            assert not game._red_connects(red) and not game._blue_connects(blue)
        final = SwaptimumState(red, blue, None)
        assert game.diagram(final)  # a position the game can draw
