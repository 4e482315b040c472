"""The background analysis' work on one slice of a game, run in the analysis process pool.

The table service (:mod:`playtable.tables.analysis_jobs`) cuts the analysis of a finished
game into slices of a second or two, so that the page can show the values as they come and
a waiting request for the best moves never queues behind minutes of work. Each slice takes
plain values (the game's name, options, moves and the plies to look at, in the order given)
and returns one :class:`Found` per ply it finished.

- **Dots and Boxes**: the solver's proof within ``prove_s`` seconds (the opening book's,
  when it has the position); when none comes, or ``prove`` is off, an *estimate* from the
  bots' search: :meth:`DotsSolver.choose` to a few choice moves, whose horizon is scored by
  the long-chain rule, in ``estimate_s`` seconds. The solver of the worker process keeps
  its table between slices, so a proof of a late position shortens the earlier ones'.
- **Swaptimum**: decided positions (a connection, or a winning move at hand) are proved;
  the others get red's share of the games the bots' Monte Carlo search simulated.

>>> found = analyse_chunk("dots", {"rows": 1, "cols": 1}, ["a1-b1", "a1-a2"], [2, 0], 1, 0.1, 5)
>>> [(f.ply, f.proved, f.red_margin) for f in found]
[(2, True, -1), (0, True, -1)]
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playtable.ai import book
from playtable.ai.analysis import solver_for
from playtable.ai.dots_solver import SolverTimeout
from playtable.games import GameError, load
from playtable.games.dots.game import DotsAndBoxes, DotsState
from playtable.games.swaptimum import Swaptimum, SwaptimumState

# The estimate's search: choice moves deep at most (forced captures do not count).
ESTIMATE_DEPTH = 4
# Swaptimum: simulated games per estimated position, at most (and ``estimate_s`` seconds).
ESTIMATE_PLAYOUTS = 3000


@dataclass(frozen=True, slots=True)
class Found:
    """The value of the position after ``ply`` moves: red's final margin (Dots and Boxes)
    or red's share of the simulated games (Swaptimum, 0 to 1); ``proved`` or an estimate.
    ``free`` is the number of free lines (Dots and Boxes; else 0)."""

    ply: int
    proved: bool
    red_margin: int | None = None
    red_share: float | None = None
    free: int = 0


def analyse_chunk(
    game_name: str,
    options: Mapping[str, Any],
    moves: Sequence[str],
    plies: Sequence[int],
    prove_s: float,
    estimate_s: float,
    slice_s: float,
    prove: bool = True,
    estimate: bool = True,
) -> list[Found]:
    """The values after each of ``plies`` moves, in that order, until ``slice_s`` seconds
    are spent (at least one ply is always finished). Without ``estimate`` (a second try at
    positions estimated before) only the proofs are returned."""
    game = load(game_name, options)
    states = [game.initial()]
    for text in moves:
        states.append(game.play(states[-1], text))
    until = time.perf_counter() + slice_s
    found: list[Found] = []
    for ply in plies:
        if found and time.perf_counter() >= until:
            break
        if not 0 <= ply < len(states):
            raise GameError(f"there is no position after {ply} moves")
        if isinstance(game, DotsAndBoxes):
            value = _dots(game, states[ply], ply, prove_s if prove else 0.0, estimate_s, estimate)
            if value is not None:
                found.append(value)
        elif isinstance(game, Swaptimum):
            found.append(_swaptimum(game, states[ply], ply, estimate_s))
        else:
            raise GameError(f"no analysis for {game_name}")
    return found


def _margin(game: DotsAndBoxes, state: DotsState, value: int) -> int:
    """Red's final margin, given ``value`` (what the side to move nets from here on)."""
    red, blue = game.score(state)
    return red - blue + (value if game.to_move(state) == "red" else -value)


def _dots(
    game: DotsAndBoxes,
    state: DotsState,
    ply: int,
    prove_s: float,
    estimate_s: float,
    estimate: bool = True,
) -> Found | None:
    free = len(game.board.lines) - state.drawn.bit_count()
    if game.to_move(state) is None:
        return Found(ply, True, red_margin=_margin(game, state, 0), free=free)
    known = book.lookup(game, state)
    if known is not None:
        return Found(ply, True, red_margin=_margin(game, state, known[0]), free=free)
    solver = solver_for(game)
    if prove_s > 0:
        try:
            solution = solver.solve(state, time_limit=prove_s, all_best=False, deepening=False)
            return Found(ply, True, red_margin=_margin(game, state, solution.value), free=free)
        except SolverTimeout:
            if not estimate:
                return None
    try:
        _, value, exact = solver.choose(
            state,
            deadline=time.perf_counter() + estimate_s,
            max_depth=ESTIMATE_DEPTH,
            exact_first_lines=0,
        )
    except SolverTimeout:
        # Not even a one-move search in time: the boxes as they stand.
        return Found(ply, False, red_margin=_margin(game, state, 0), free=free)
    return Found(ply, exact, red_margin=_margin(game, state, value), free=free)


def _swaptimum(game: Swaptimum, state: SwaptimumState, ply: int, estimate_s: float) -> Found:
    from playtable.ai.swaptimum_mcts import MCTS

    if state.to_move is None:
        share = 1.0 if state.winner == "red" else 0.0 if state.winner == "blue" else 0.5
        return Found(ply, True, red_share=share)
    search = MCTS(game, random.Random(ply))
    if search.immediate_win(state) is not None:
        return Found(ply, True, red_share=1.0 if state.to_move == "red" else 0.0)
    search.choose(state, ESTIMATE_PLAYOUTS, time.perf_counter() + estimate_s)
    rate = search.last_win_rate if search.last_win_rate is not None else 0.5
    return Found(ply, False, red_share=rate if state.to_move == "red" else 1.0 - rate)


__all__ = ["ESTIMATE_DEPTH", "ESTIMATE_PLAYOUTS", "Found", "analyse_chunk"]
