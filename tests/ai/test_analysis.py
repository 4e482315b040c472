"""The analysis work the process pool runs: red margins, best moves, draws, budgets."""

from __future__ import annotations

import random

from playtable.ai.analysis import analyse_positions, best_moves, mover_value
from playtable.ai.dots_solver import plain_value
from playtable.games import load
from playtable.games.dots.game import DotsAndBoxes


def _random_game(options: dict[str, object], seed: int) -> tuple[DotsAndBoxes, list[str]]:
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    rng = random.Random(seed)
    state, moves = game.initial(), []
    while game.to_move(state) is not None:
        move = rng.choice(game.legal_move_texts(state))
        moves.append(move)
        state = game.play(state, move)
    return game, moves


def test_values_are_red_margins_that_agree_with_the_plain_search() -> None:
    for misere in (False, True):
        options = {"rows": 2, "cols": 2, "misere": misere}
        game, moves = _random_game(options, seed=7)
        values = analyse_positions(options, moves, range(len(moves) + 1), 5.0)
        state = game.initial()
        for ply in range(len(moves) + 1):
            red, blue = game.score(state)
            mover = game.to_move(state)
            own = plain_value(game, state.drawn) if mover is not None else 0
            assert values[ply] == red - blue + (own if mover == "red" else -own), (misere, ply)
            if ply < len(moves):
                state = game.play(state, moves[ply])
        assert values[len(moves)] == red - blue


def test_positions_past_the_total_budget_are_left_out() -> None:
    options = {"rows": 2, "cols": 2}
    _, moves = _random_game(options, seed=3)
    assert analyse_positions(options, moves, [0, 1, 2], 1.0, total_s=0.0) == {}


def test_best_moves_and_what_the_mover_gets() -> None:
    found = best_moves({"rows": 2, "cols": 2, "start": "swedish"}, [], 2.0)
    assert found is not None and found["value"] == -4  # blue takes all four boxes
    assert sorted(found["best_moves"]) == ["a2-b2", "b1-b2", "b2-b3", "b2-c2"]
    assert mover_value({"rows": 2, "cols": 2, "start": "swedish"}, [], 2.0) == -4
    # In misère the mover's value counts boxes against it: positive means it wins.
    options = {"rows": 2, "cols": 2, "misere": True}
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    net = plain_value(game, game.initial().drawn)
    assert mover_value(options, [], 5.0) == -net
