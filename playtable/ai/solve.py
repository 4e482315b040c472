"""``playtable solve``: the exact value and best moves of recorded Dots and Boxes positions.

Each record (the JSON Lines form ``playtable replay`` reads) is replayed and the position
after its moves is solved; the result line says what the side to move gets from there on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any, TextIO

from playtable.ai.dots_solver import DotsSolver, SolverTimeout
from playtable.games import GameError, IllegalMove, load
from playtable.games.dots.game import DotsAndBoxes
from playtable.games.records import GameRecord, results_per_line

DEFAULT_TIME_LIMIT = 60.0


class SolverCache:
    """One solver per game settings, so that records of one game share a table.

    Only the most recent few are kept: a table can hold millions of positions.
    """

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._solvers: dict[str, DotsSolver] = {}

    def get(self, game: DotsAndBoxes) -> DotsSolver:
        key = json.dumps(game.options(), sort_keys=True)
        solver = self._solvers.pop(key, None)
        if solver is None:
            solver = DotsSolver(game)
        self._solvers[key] = solver  # most recent last
        while len(self._solvers) > self.size:
            del self._solvers[next(iter(self._solvers))]
        return solver


def solve_record(
    record: GameRecord, time_limit: float = DEFAULT_TIME_LIMIT, cache: SolverCache | None = None
) -> dict[str, Any]:
    """The result line of ``playtable solve`` for one record."""
    start = time.perf_counter()
    try:
        game = load(record.game, record.options)
    except GameError as error:
        return {"ok": False, "error": str(error)}
    if not isinstance(game, DotsAndBoxes):
        return {"ok": False, "error": f"the solver plays Dots and Boxes only, not {record.game}"}
    state = game.initial()
    for ply, text in enumerate(record.moves, 1):
        try:
            state = game.play(state, text)
        except IllegalMove as error:
            return {"ok": False, "ply": ply, "error": str(error)}
    solver = (cache or SolverCache()).get(game)
    remaining = time_limit - (time.perf_counter() - start)
    try:
        solution = solver.solve(state, time_limit=max(remaining, 0.0), deepening=False)
    except SolverTimeout:
        return {"ok": False, "error": f"no proof within the time limit of {time_limit:g} seconds"}
    return {
        "ok": True,
        "value": solution.value,
        "best_moves": [game.format_move(m) for m in solution.best_moves],
        "nodes": solution.nodes,
        "seconds": round(solution.seconds, 3),
    }


def solve_lines(lines: Iterable[str], out: TextIO, time_limit: float = DEFAULT_TIME_LIMIT) -> int:
    """Solve JSON Lines records; one result line each, whatever the earlier lines held."""
    cache = SolverCache()
    count = 0
    for result in results_per_line(lines, lambda record: solve_record(record, time_limit, cache)):
        out.write(json.dumps(result) + "\n")
        out.flush()
        count += 1
    return count
