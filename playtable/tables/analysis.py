"""The analysis of a table's game: a value after every move, proved or estimated, and the
mistakes.

The values come from the store (``Store.analysis_points``, each tied to the exact moves
before its position): a game is analysed once, in the background, when it ends or when its
page first asks (:mod:`playtable.tables.analysis_jobs`), and every process, and every
process after a restart, reads what any other stored. A request never waits for the solver:
it answers with the values stored so far and whether more are coming (``pending``), and the
page asks again until the analysis is ``complete``. The best moves of one position are
still solved on request, in the same pool, one job per requester, and kept by position
(:mod:`playtable.tables.best_moves`).
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from playtable.ai import analysis as solver_work
from playtable.games.swaptimum import Swaptimum
from playtable.store import AnalysisPoint, Store
from playtable.tables.analysis_jobs import Jobs
from playtable.tables.best_moves import BestMoves, KeptAnswers, position
from playtable.tables.errors import AnalysisBusy, AnalysisRefused
from playtable.tables.fair import FairPool
from playtable.tables.pool import BotPool, BotSettings
from playtable.tables.table import LoadedTable

# Best-move jobs waiting for or running in this process's analysis pool, in all and per
# requester (an address): past either, a request is refused at once with the time to wait,
# never queued behind minutes of other people's work.
MAX_QUEUED = 4
MAX_QUEUED_PER_REQUESTER = 1
# How far the analysis' workers step back for the bots' and the server's (added niceness; the
# computer's are 15): below the computer's, and the background's lower still (SCHED_IDLE).
ANALYSIS_NICENESS = 19
BACKGROUND_NICENESS = 19


def require_open(table: LoadedTable) -> None:
    """Raise AnalysisRefused unless the table's analysis may be shown now."""
    if not solver_work.analysable(table.game):
        raise AnalysisRefused("There is no analysis for this game.")
    if table.outcome() is None and not table.bots:
        raise AnalysisRefused(
            "The analysis opens when the game is over; during a game only at a table "
            "against the computer."
        )


def summary(
    table: LoadedTable, points: dict[int, AnalysisPoint], pending: bool = False
) -> dict[str, Any]:
    """The analysis JSON of docs/protocol.md from the points stored for each ply.

    ``values[ply]`` is red's final margin (``measure`` "margin", Dots and Boxes) or red's
    share of the simulated games from 0 to 1 (``measure`` "win_rate", Swaptimum), ``None``
    while not analysed; ``proved[ply]`` says whether it is a proof or an estimate. A move's
    ``loss`` (boxes thrown away, counted as margin) is given only between two proofs.
    ``complete``: every position has a value; ``pending``: more work for the table is
    queued or under way (a second try may still turn estimates into proofs).
    """
    win_rate = isinstance(table.game, Swaptimum)
    misere = bool(table.row.options.get("misere"))
    values: list[float | int | None] = []
    proved: list[bool | None] = []
    for ply in range(len(table.moves) + 1):
        point = points.get(ply)
        values.append(None if point is None else point.red_share if win_rate else point.red_margin)
        proved.append(None if point is None else point.proved)
    moves = []
    for ply, row in enumerate(table.moves):
        before, after = values[ply], values[ply + 1]
        loss = None
        if not win_rate and proved[ply] and proved[ply + 1]:
            assert isinstance(before, int) and isinstance(after, int)
            loss = solver_work.move_loss(before, after, row.player, misere)
        moves.append({"ply": ply, "move": row.move, "player": row.player, "loss": loss})
    complete = None not in proved
    return {
        "id": table.id,
        "game": table.row.game,
        "options": table.row.options,
        "measure": "win_rate" if win_rate else "margin",
        "finished": table.outcome() is not None,
        "values": values,
        "proved": proved,
        "complete": complete,
        "pending": pending,
        "moves": moves,
    }


class Analysis:
    """Analyses tables in their own pool (a long analysis must not make the computer at other
    tables fall back to its quick move)."""

    def __init__(
        self,
        store: Store,
        settings: BotSettings,
        load: Callable[[str], Awaitable[LoadedTable]],
    ) -> None:
        self.store = store
        self.settings = settings
        self.load = load
        # Best-move requests, in turns by requester (tables/fair.py).
        self.pool = BotPool(settings.analysis_workers, nice=ANALYSIS_NICENESS)
        self.fair = FairPool(self.pool)
        # The background analysis of finished games has a worker of its own, lower still: a
        # slice of it (a proof may run for seconds) never holds up a request someone waits for.
        self.background = BotPool(1, nice=BACKGROUND_NICENESS, idle=True)
        self.jobs = Jobs(
            store,
            settings,
            self.background,
            load,
            lambda table: solver_work.analysable(table.game),
        )
        self._queued: Counter[str] = Counter()  # requester -> best-move jobs
        self.answers = KeptAnswers()

    @contextlib.contextmanager
    def _slot(self, requester: str, seconds: float) -> Iterator[None]:
        """A place in the pool's queue for ``requester``, or AnalysisBusy."""
        total = sum(self._queued.values())
        if total >= MAX_QUEUED or self._queued[requester] >= MAX_QUEUED_PER_REQUESTER:
            wait = max(1, math.ceil(seconds * max(1, total) / self.pool.workers))
            raise AnalysisBusy(f"The analysis is busy; try again in {wait} s.", retry_after=wait)
        self._queued[requester] += 1
        try:
            yield
        finally:
            self._queued[requester] -= 1
            if self._queued[requester] <= 0:
                del self._queued[requester]

    async def open_table(self, table_id: str) -> LoadedTable:
        """The table if its analysis is open; raises AnalysisRefused or TableNotFound."""
        table = await self.load(table_id)
        require_open(table)
        return table

    def game_over(self, table: LoadedTable) -> None:
        """The table service's hook after every commit: a game over is analysed in the
        background. Cheap, and never raises."""
        self.jobs.game_over(table)

    async def analyse(
        self, table_id: str, requester: str = "", wait: bool = False
    ) -> dict[str, Any]:
        """The values stored so far after each move, and the mistakes; see docs/protocol.md.
        Queues the positions not stored yet (AnalysisBusy if too many tables wait) and, with
        ``wait``, waits for them."""
        table = await self.open_table(table_id)
        # Someone is looking at this analysis: best-move requests may follow, and their
        # worker must not make the first one wait for a spawn (returns at once).
        self.pool.start()
        played = table.move_texts()
        points = await self.store.analysis_points(table_id, played)
        if len(points) < len(played) + 1:
            if not self.jobs.request(table_id):
                wait_s = max(1, math.ceil(self.settings.slice_s * 4))
                raise AnalysisBusy(
                    f"The analysis is busy; try again in {wait_s} s.", retry_after=wait_s
                )
            if wait:
                await self.jobs.wait(table_id)
                points = await self.store.analysis_points(table_id, played)
        return summary(table, points, self.jobs.pending(table_id))

    async def best_moves(
        self, table_id: str, ply: int, requester: str = "", wait_s: int | None = None
    ) -> BestMoves:
        """Every optimal move after ``ply`` moves, if the solver proves it within budget.
        ``wait_s``: the requester has none of its solver time left for that long, so only a
        kept answer is given (else AnalysisBusy)."""
        table = await self.open_table(table_id)
        if not solver_work.solvable(table.game):
            raise AnalysisRefused("Best moves are for Dots and Boxes only.")
        if not 0 <= ply <= table.ply:
            raise AnalysisRefused(f"There is no position after {ply} moves at this table.")
        moves = table.move_texts()[:ply]
        key = position(table.row.game, table.row.options, moves)
        kept = self.answers.get(key)
        if kept is not None:
            return BestMoves(kept)
        over = solver_work.ended(table.game, table.state) if ply == table.ply else None
        if over is not None:
            # The last position needs no solver: answered even to an address out of its time.
            return BestMoves({"ply": ply, "proved": True, **over})
        if wait_s is not None:
            raise AnalysisBusy(
                f"The analysis is busy; try again in {wait_s} s.", retry_after=wait_s
            )
        budget = self.settings.position_budget_s * 2
        with self._slot(requester, budget):
            found, spent = await self.fair.run(
                requester or "anonymous",
                solver_work.best_moves_timed,
                table.row.options,
                moves,
                budget,
            )
        answer: dict[str, Any]
        if found is None:
            answer = {"ply": ply, "proved": False, "value": None, "best_moves": []}
        else:
            answer = {"ply": ply, "proved": True, **found}
        self.answers.put(key, answer)
        return BestMoves(answer, spent)

    def close(self) -> None:
        self.jobs.close()
        self.pool.shutdown()
        self.background.shutdown()


__all__ = ["MAX_QUEUED", "Analysis", "require_open", "summary"]
