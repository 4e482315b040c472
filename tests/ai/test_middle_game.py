"""The hard Dots and Boxes bot in the middle game: the fight for control.

The positions are from random safe play on 4x4 (both sides drawing lines that give nothing
away), stopped where only a few of the moves keep or win control. The exact solver decides,
in each test, which moves win; the bot's move must be one of them.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from playtable.ai import bot_move, choose_move
from playtable.ai.dots_bots import Lines, solver_for
from playtable.ai.dots_middle import MiddleGame, greedy_loss, greedy_losses, safe_lines
from playtable.ai.dots_solver import DotsSolver
from playtable.games import load
from playtable.games.dots.game import DotsAndBoxes, DotsState

FOUR = {"rows": 4, "cols": 4}
# Safe phase, 11 safe lines left, red to move: 2 of the 25 lines that give at most two
# boxes away win (by 4); every other loses.
ELEVEN_SAFE = [
    "d2-e2", "c5-d5", "e4-e5", "e1-e2", "a4-b4", "a5-b5", "d3-e3", "d3-d4", "b1-c1", "c4-c5",
    "a1-b1", "c3-c4", "c2-d2", "b2-b3", "c1-c2",
]  # fmt: skip
# 6 safe lines left, blue to move: every safe line loses control; the one winning move
# gives a box away (c4-c5) to pass the turn and win by 2.
SACRIFICE = [
    "d3-e3", "a4-b4", "b1-c1", "e2-e3", "c5-d5", "b5-c5", "c4-d4", "d4-e4", "a2-a3", "b3-c3",
    "c2-d2", "b4-c4", "d1-d2", "e1-e2", "b2-c2", "a2-b2", "a1-a2",
]  # fmt: skip
POSITIONS = {"eleven-safe": ELEVEN_SAFE, "sacrifice": SACRIFICE}


def _game(options: dict[str, Any]) -> DotsAndBoxes:
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    return game


def move_value(solver: DotsSolver, game: DotsAndBoxes, state: DotsState, line: int) -> int:
    """The exact net boxes the mover gets from ``state`` on by drawing ``line``."""
    after = game.apply(state, line)
    claimed = game.claimed_by(state, after)
    if after.to_move is None:
        return claimed
    child = solver.solve(after, all_best=False).value
    return claimed + child if claimed else -child


def exact_values(game: DotsAndBoxes, state: DotsState) -> dict[int, int]:
    solver = DotsSolver(game, table_bits=22)
    return {line: move_value(solver, game, state, line) for line in game.legal_moves(state)}


@pytest.fixture(scope="module")
def values() -> dict[str, dict[int, int]]:
    game = _game(FOUR)
    return {name: exact_values(game, game.replay(moves)) for name, moves in POSITIONS.items()}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_the_positions_are_fights_that_few_moves_win(
    name: str, values: dict[str, dict[int, int]]
) -> None:
    game = _game(FOUR)
    state = game.replay(POSITIONS[name])
    lines = Lines(game, state.drawn)
    assert not lines.captures and lines.safe  # the safe phase
    assert sum(state.drawn >> line & 1 for line in range(40)) == len(POSITIONS[name])
    winning = [line for line, value in values[name].items() if value > 0]
    assert 1 <= len(winning) <= len(values[name]) // 8
    if name == "sacrifice":
        assert all(values[name][line] < 0 for line in lines.safe)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_the_middle_game_search_wins_the_parity_fight(
    name: str, seed: int, values: dict[str, dict[int, int]]
) -> None:
    """The tree search alone (no proof of the position itself): its playouts end in proofs
    of the endings, and the move it picks wins the game."""
    game = _game(FOUR)
    state = game.replay(POSITIONS[name])
    search = MiddleGame(
        game, solver_for(game), state, random.Random(seed), time.perf_counter() + 1.5
    )
    line = search.choose()
    assert values[name][line] > 0, game.format_move(line)
    if name == "sacrifice":
        assert not safe_lines(game._cell_masks, game._full & ~state.drawn) >> line & 1


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_the_hard_bot_wins_the_parity_fight(name: str, values: dict[str, dict[int, int]]) -> None:
    game = _game(FOUR)
    moves = POSITIONS[name]
    text = choose_move("dots", FOUR, moves, "hard", seed=3, budget_s=2.0)
    assert values[name][game.parse_move(text)] > 0, text


def test_playout_endings_are_proved_right_on_a_board_of_more_than_64_lines() -> None:
    """7x7 has 112 lines: while more than 64 are free, each ending gets a search of its own
    free lines. The values agree with the solver's."""
    options = {"rows": 7, "cols": 7}
    game = _game(options)
    rng = random.Random(2)
    state = game.initial()
    while len(Lines(game, state.drawn).safe) > 30:
        state = game.apply(state, rng.choice(Lines(game, state.drawn).safe))
    assert (game._full & ~state.drawn).bit_count() > 64
    search = MiddleGame(game, solver_for(game), state, rng, time.perf_counter() + 30)
    assert search._root_core is None
    reference = DotsSolver(game)
    for _ in range(3):
        search.playout(state.drawn, True, 0)  # proves its ending, kept in search.endings
    proved = list(search.endings.values.items())
    assert proved
    for drawn, value in proved[:3]:
        ending = DotsState(drawn, 0, 0, "red", 0)
        assert not Lines(game, drawn).safe and not Lines(game, drawn).captures
        assert reference.solve(ending, all_best=False).value == value


def greedy_move(game: DotsAndBoxes, state: DotsState, rng: random.Random) -> int:
    """Issue 16's greedy player: take a box, else a line that gives none, else the line
    that gives the fewest; no chain control, no double-dealing."""
    from playtable.ai.dots_middle import greedy_loss

    lines = Lines(game, state.drawn)
    if lines.captures:
        return rng.choice(lines.captures)
    if lines.safe:
        return rng.choice(lines.safe)
    loss = {line: greedy_loss(game, state.drawn | 1 << line) for line in lines.sacrifices}
    return rng.choice([line for line in lines.sacrifices if loss[line] == min(loss.values())])


# 5x5 thinks for 1 s a move (players' games give it 1.4 s): at 0.3 s a loaded CI machine once
# left its search too shallow, and it lost a 5x5 game by one box.
@pytest.mark.parametrize(
    ("options", "games", "budget_s"), [(FOUR, 4, 0.3), ({"rows": 5, "cols": 5}, 2, 1.0)]
)
def test_the_hard_bot_never_loses_to_the_greedy_player(
    options: dict[str, Any], games: int, budget_s: float
) -> None:
    game = _game(options)
    for index in range(games):
        rng = random.Random(index)
        hard = "red" if index % 2 == 0 else "blue"
        state = game.initial()
        moves: list[str] = []
        while state.to_move is not None:
            if state.to_move == hard:
                text = choose_move("dots", options, moves, "hard", seed=index, budget_s=budget_s)
            else:
                text = game.format_move(greedy_move(game, state, rng))
            state = game.play(state, text)
            moves.append(text)
        red, blue = game.score(state)
        margin = red - blue if hard == "red" else blue - red
        # No loss (the issue's bar): 4x4's 16 boxes allow a draw, which a search of 0.3 s a
        # move on a loaded machine sometimes settles for (2 in 100 in bench/bots.py).
        assert margin >= 0, (index, moves)


@pytest.mark.parametrize(
    "options", [{"rows": 5, "cols": 5}, {"rows": 6, "cols": 6}, {"rows": 8, "cols": 8}]
)
def test_the_middle_game_search_stops_at_its_deadline(options: dict[str, Any]) -> None:
    game = _game(options)
    rng = random.Random(6)
    state = game.initial()
    moves: list[str] = []
    while len(Lines(game, state.drawn).safe) > 14:
        line = rng.choice(Lines(game, state.drawn).safe)
        state = game.apply(state, line)
        moves.append(game.format_move(line))
    think = 0.3  # well under the budget: the deadline, not the budget, ends the search
    # CPU time, not wall time: on a loaded machine the process may wait for a core past the
    # deadline, but a search that ignored it would spend its whole 5 s budget thinking. The
    # bound is the site's promise of an answer within 2 s: the first move on a board also
    # builds the solver's tables (0.57 s of CPU in all once in CI, against 0.5 allowed before).
    start = time.process_time()
    reply = bot_move("dots", options, moves, "hard", 4, 5.0, time.time() + think)
    assert time.process_time() - start < 2.0
    assert not reply.quick and reply.move in game.legal_move_texts(state)


def test_prove_and_optimal_moves_agree_with_the_solver() -> None:
    options = {"rows": 3, "cols": 3}
    game = _game(options)
    for seed in range(6):
        rng = random.Random(seed)
        state = game.initial()
        for _ in range(8 + seed):
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        solution = DotsSolver(game, native=False).solve(state)
        solver = DotsSolver(game)
        line, value = solver.prove(state, deadline=time.perf_counter() + 30)
        assert value == solution.value and line in solution.best_moves
        found = solver.optimal_moves(state, value, deadline=time.perf_counter() + 30)
        assert found == solution.best_moves


@pytest.mark.parametrize(
    "options",
    [
        {"rows": 5, "cols": 5},
        {"rows": 12, "cols": 12},
        {"grid": "triangle", "size": 4},
        {"grid": "hexagon", "size": 2},
        {"rows": 4, "cols": 4, "start": "icelandic"},
    ],
)
def test_the_shared_scan_finds_the_same_losses_as_a_scan_per_line(options: dict[str, Any]) -> None:
    """greedy_losses seeds each line's count with the cells one line short before it and
    the line's own cells; on random positions (boxes on offer or not) it agrees with a
    whole scan of the board per line."""
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    rng = random.Random(5)
    checked = 0
    for _ in range(6):
        state = game.initial()
        while game.outcome(state) is None:
            free = list(game.legal_moves(state))
            expected = {line: greedy_loss(game, state.drawn | 1 << line) for line in free}
            assert greedy_losses(game, state.drawn, free) == expected
            checked += len(free)
            state = game.apply(state, rng.choice(free))
    assert checked > 100
