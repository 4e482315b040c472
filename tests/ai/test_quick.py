"""The quick move and the bots' deadline: what the table service relies on to answer in time."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from playtable.ai import MIN_THINK_S, bot_move, choose_move, quick_move
from playtable.ai.quick import quick_game_move, winning_squares
from playtable.games import GameError, load
from playtable.games.swaptimum import Swaptimum
from playtable.tables.pool import DEFAULT_CAP_S

# The service plays the quick move once its cap has passed: it must fit, with the commit,
# in what is left of the 2 seconds.
ROOM_S = 2.0 - DEFAULT_CAP_S
LARGEST: list[tuple[str, dict[str, Any]]] = [
    ("dots", {"rows": 12, "cols": 12}),
    ("dots", {"rows": 12, "cols": 12, "start": "icelandic", "misere": True}),
    ("dots", {"grid": "triangle", "size": 10, "start": "swedish"}),
    ("dots", {"grid": "hexagon", "size": 6}),
    ("swaptimum", {"size": 9}),
    ("swaptimum", {"size": 26}),
]


def ids(case: tuple[str, dict[str, Any]]) -> str:
    return "-".join(map(str, [case[0], *case[1].values()]))


@pytest.mark.parametrize("case", LARGEST, ids=ids)
def test_quick_moves_are_legal_and_cheap_through_a_whole_game(
    case: tuple[str, dict[str, Any]],
) -> None:
    name, options = case
    game = load(name, options)
    rng = random.Random(7)
    state = game.initial()
    slowest = 0.0
    while game.to_move(state) is not None:
        start = time.perf_counter()
        move = quick_game_move(game, state, rng)
        slowest = max(slowest, time.perf_counter() - start)
        assert move in game.legal_moves(state)
        state = game.apply(state, move)
        if game.to_move(state) is not None:  # and a random answer, for varied positions
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    assert slowest < ROOM_S


def test_quick_move_takes_a_record() -> None:
    moves = ["a1-b1", "c2-c3", "a1-a2", "b3-c3", "b1-b2"]
    assert quick_move("dots", {"rows": 2, "cols": 2}, moves, seed=1) == "a2-b2"
    with pytest.raises(GameError):
        quick_move("dots", {"rows": 1, "cols": 1}, ["a1-b1", "a1-a2", "b1-b2", "a2-b2"])


def test_quick_swaptimum_wins_at_once_and_blocks_a_threat() -> None:
    options = {"size": 5}
    game = load("swaptimum", options)
    assert isinstance(game, Swaptimum)
    # Red has a1..a4: a5 joins row 1 to row 5.
    winning = ["a1", "e1", "a2", "e2", "a3", "e3", "a4", "d5"]
    state = game.replay(winning)
    assert winning_squares(game, state.red, state.blue, "red") == 1 << game.index["a5"]
    for seed in range(5):
        assert game.play(state, quick_move("swaptimum", options, winning, seed)).winner == "red"
    # Blue, to move, must take a5.
    threatened = ["a1", "e1", "a2", "e2", "a3", "d3", "a4"]
    for seed in range(5):
        assert quick_move("swaptimum", options, threatened, seed) == "a5"


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
@pytest.mark.parametrize("case", LARGEST, ids=ids)
def test_a_job_whose_deadline_has_passed_answers_at_once(
    case: tuple[str, dict[str, Any]], level: str
) -> None:
    name, options = case
    game = load(name, options)
    rng = random.Random(3)
    state = game.initial()
    moves: list[str] = []
    for _ in range(len(game.legal_moves(state)) // 2):  # a middle game, where search is dear
        text = rng.choice(game.legal_move_texts(state))
        state = game.play(state, text)
        moves.append(text)
        if game.to_move(state) is None:
            moves.pop()
            state = game.replay(moves)
            break
    start = time.perf_counter()
    reply = bot_move(name, options, moves, level, seed=1, deadline=time.time() - 1)
    assert time.perf_counter() - start < ROOM_S
    assert reply.quick
    assert reply.move in game.legal_move_texts(state)


@pytest.mark.parametrize("case", LARGEST, ids=ids)
def test_the_hard_bot_stops_at_its_deadline(case: tuple[str, dict[str, Any]]) -> None:
    name, options = case
    game = load(name, options)
    rng = random.Random(5)
    state = game.initial()
    moves: list[str] = []
    while len(moves) < len(game.legal_moves(game.initial())) // 2:
        text = rng.choice(game.legal_move_texts(state))
        if game.to_move(game.play(state, text)) is None:
            break
        state = game.play(state, text)
        moves.append(text)
    # A deadline well under the budget: the deadline, not the budget, ends the search.
    budget, think = 5.0, 0.3
    start = time.perf_counter()
    reply = bot_move(name, options, moves, "hard", 2, budget, time.time() + think)
    # The searches look at the clock every few thousand nodes or every playout; the room is
    # for a loaded machine (a full CI run saw 0.2 s past the deadline), and still far under
    # the 5 s budget that would end a search that ignored its deadline.
    assert time.perf_counter() - start < think + 1.0
    assert not reply.quick and reply.move in game.legal_move_texts(state)
    assert think > MIN_THINK_S


def test_choose_move_still_takes_a_budget_alone() -> None:
    moves = ["a1-b1", "c2-c3", "a1-a2", "b3-c3", "b1-b2"]
    assert choose_move("dots", {"rows": 2, "cols": 2}, moves, "hard", 0, 0.5) == "a2-b2"
    reply = bot_move("dots", {"rows": 2, "cols": 2}, moves, "hard", 0, 0.01)
    assert reply.quick and reply.move == "a2-b2"  # below MIN_THINK_S: the quick move
