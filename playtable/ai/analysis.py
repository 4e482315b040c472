"""Solver work for the analysis of a Dots and Boxes game, run in the bots' process pool.

Like :func:`playtable.ai.choose_move`, these functions take only plain values (the options
and the moves of a record) so a worker process can run them. Values are the *final margin
from red's point of view* (red's boxes minus blue's at the end) under perfect play from the
position: the boxes already claimed plus what the solver proves for the rest.

>>> analyse_positions({"rows": 1, "cols": 1}, ["a1-b1", "a1-a2", "b1-b2", "a2-b2"], [0, 3, 4], 1.0)
{4: -1, 3: -1, 0: -1}
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from playtable.ai import book
from playtable.ai.dots_solver import DotsSolver, SolverTimeout
from playtable.ai.solve import SolverCache
from playtable.games import Game, GameError, Player, load
from playtable.games.dots.game import DotsAndBoxes, DotsState

# One per worker process: later requests about the same board reuse the solver's table.
_SOLVERS = SolverCache()


def _game(options: Mapping[str, Any]) -> DotsAndBoxes:
    game = load(DotsAndBoxes.name, options)
    assert isinstance(game, DotsAndBoxes)
    return game


def solver_for(game: DotsAndBoxes) -> DotsSolver:
    """The worker process's solver for this board, shared by the background analysis and the
    best-move requests: each one's proofs shorten the other's searches."""
    return _SOLVERS.get(game)


def analysable(game: Game[Any, Any, Any]) -> bool:
    """Whether games of this kind have an analysis: Dots and Boxes (the solver's proofs,
    else the bots' estimates) on every board, and Swaptimum (its search's win rates)."""
    from playtable.games.swaptimum import Swaptimum

    return isinstance(game, DotsAndBoxes | Swaptimum)


def solvable(game: Game[Any, Any, Any]) -> bool:
    """Whether the solver proves positions (and best moves) of this kind: Dots and Boxes."""
    return isinstance(game, DotsAndBoxes)


def move_loss(before: int, after: int, player: Player, misere: bool) -> int:
    """How many boxes a move threw away for its ``player``, from the red margins (final
    margin for red under perfect play, as :func:`analyse_positions` gives them) of the
    positions before and after it: red's margin moves against red by what red lost, and for
    blue the other way round; in misère every box counts against its owner.

    >>> move_loss(3, 1, "red", False), move_loss(3, 1, "blue", False), move_loss(3, 1, "red", True)
    (2, -2, -2)
    """
    lost = before - after if player == "red" else after - before
    return -lost if misere else lost


def _red_margin(game: DotsAndBoxes, state: DotsState, value: int) -> int:
    """The final margin for red, given the solver's value ``value`` for the side to move."""
    red, blue = game.score(state)
    mover = game.to_move(state)
    return red - blue + (value if mover == "red" else -value)


def analyse_positions(
    options: Mapping[str, Any],
    moves: Sequence[str],
    plies: Sequence[int],
    per_position_s: float,
    total_s: float | None = None,
) -> dict[int, int | None]:
    """The red margin after each of ``plies`` moves, or ``None`` where no proof came in time.

    The positions are solved from the last to the first: endgames are quick and fill the
    solver's table, which then shortens the earlier, harder searches. Stops at ``total_s``;
    the positions not tried by then are missing from the result.
    """
    game = _game(options)
    solver = _SOLVERS.get(game)
    states = [game.initial()]
    for text in moves:
        states.append(game.play(states[-1], text))
    deadline = time.perf_counter() + (total_s if total_s is not None else float("inf"))
    values: dict[int, int | None] = {}
    for ply in sorted(set(plies), reverse=True):
        if not 0 <= ply < len(states):
            raise GameError(f"there is no position after {ply} moves")
        state = states[ply]
        known = book.lookup(game, state)
        if known is not None:
            values[ply] = _red_margin(game, state, known[0])
            continue
        left = deadline - time.perf_counter()
        if left <= 0:
            break  # not tried: left out, so that a later request may try it
        try:
            solution = solver.solve(
                state, time_limit=min(per_position_s, left), all_best=False, deepening=False
            )
        except SolverTimeout:
            values[ply] = None
            continue
        values[ply] = _red_margin(game, state, solution.value)
    return values


def best_moves(
    options: Mapping[str, Any], moves: Sequence[str], budget_s: float
) -> dict[str, Any] | None:
    """Every optimal move after ``moves`` and the red margin, or ``None`` if not proved."""
    game = _game(options)
    state = game.replay(moves)
    if game.to_move(state) is None:
        return {"value": _red_margin(game, state, 0), "best_moves": []}
    try:
        solution = _SOLVERS.get(game).solve(state, time_limit=budget_s, deepening=False)
    except SolverTimeout:
        return None
    return {
        "value": _red_margin(game, state, solution.value),
        "best_moves": [game.format_move(m) for m in solution.best_moves],
    }


def ended(game: Game[Any, Any, Any], state: Any) -> dict[str, Any] | None:
    """:func:`best_moves` of a game that is over (no move, its final red margin), at no
    cost; ``None`` while it goes on."""
    if not isinstance(game, DotsAndBoxes) or game.to_move(state) is not None:
        return None
    return {"value": _red_margin(game, state, 0), "best_moves": []}


def best_moves_timed(
    options: Mapping[str, Any], moves: Sequence[str], budget_s: float
) -> tuple[dict[str, Any] | None, float]:
    """:func:`best_moves`, and the seconds it held this worker: the pool's workers are
    what the requests of everyone share, and on a busy machine a job holds one longer."""
    started = time.perf_counter()
    found = best_moves(options, moves, budget_s)
    return found, time.perf_counter() - started


def mover_value(options: Mapping[str, Any], moves: Sequence[str], budget_s: float) -> int | None:
    """What the side to move nets from here on counted as wins (+) and losses (-) of boxes
    in its favour, misère included; ``None`` if not proved within ``budget_s``."""
    game = _game(options)
    state = game.replay(moves)
    if game.to_move(state) is None:
        return None
    try:
        solution = _SOLVERS.get(game).solve(
            state, time_limit=budget_s, all_best=False, deepening=False
        )
    except SolverTimeout:
        return None
    red, blue = game.score(state)
    mine = red - blue if game.to_move(state) == "red" else blue - red
    margin = mine + solution.value
    return -margin if game.settings.misere else margin


__all__ = [
    "analysable",
    "analyse_positions",
    "best_moves",
    "best_moves_timed",
    "ended",
    "mover_value",
    "solvable",
    "solver_for",
]
