"""The background analysis: every finished game is analysed once, slice by slice, and stored.

A game that ends (:meth:`Jobs.game_over`, called by the table service after the commit that
ended it) or an analysis page asking for positions not stored yet (:meth:`Jobs.request`)
queues its table here. One table at a time per process is analysed in the analysis pool
(its own workers, niced: a bot's move never waits for it), in slices of about
``BotSettings.slice_s`` seconds; each slice's values are stored at once, so a page polling
the analysis sees the graph fill in, and a later visit reads everything from the store.

The order (the goal: every 5x5 position with at most 30 free lines proved within a minute of
the end): from the last position to the first. Endgames are proved in milliseconds and fill
the worker's solver table, which then shortens the earlier searches. Once the solver has
failed twice in a row (every earlier position has more free lines still) or the table has
spent ``BotSettings.background_total_s``, the remaining positions get the bots' estimate
only. Then every position has a value and the page a whole graph; while the game's time
lasts, the estimated positions with at most :data:`RETRY_LINES` free lines are tried again,
one at a time from the last, with ``BotSettings.background_retry_s`` each, and a proof
replaces the estimate. Positions already stored, proved or estimated, are not looked at
again by a later job.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from playtable.ai.analysis_work import Found, analyse_chunk
from playtable.store import AnalysisPoint, Store
from playtable.tables.pool import BotPool, BotSettings
from playtable.tables.table import LoadedTable

# Tables waiting: those a page asked for go first; past either bound a request is refused
# (AnalysisBusy) and a finished game is left for its page to ask.
MAX_REQUESTED = 8
MAX_FINISHED = 64
# Failed proofs in a row after which the rest of the game is estimated only.
FAILURES_TO_STOP = 2
# The second try: estimated positions with this many free lines or fewer.
RETRY_LINES = 30

logger = logging.getLogger(__name__)


def point(found: Found) -> AnalysisPoint:
    return AnalysisPoint(found.proved, red_margin=found.red_margin, red_share=found.red_share)


class Jobs:
    """The queue of tables to analyse and the one task that works through it."""

    def __init__(
        self,
        store: Store,
        settings: BotSettings,
        pool: BotPool,
        load: Callable[[str], Awaitable[LoadedTable]],
        analysable: Callable[[LoadedTable], bool],
    ) -> None:
        self.store = store
        self.settings = settings
        self.pool = pool
        self.load = load
        self.analysable = analysable
        self._requested: OrderedDict[str, None] = OrderedDict()
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._running: str | None = None
        self._done: dict[str, asyncio.Event] = {}
        self._task: asyncio.Task[None] | None = None
        self.slices = 0  # slices run in the pool by this process (tests and the bench read it)

    def pending(self, table_id: str) -> bool:
        """Whether the table is waiting or being analysed in this process."""
        return (
            table_id == self._running or table_id in self._requested or table_id in self._finished
        )

    def game_over(self, table: LoadedTable) -> None:
        """After a commit: if the table's game is over, analyse it when the pool is free.
        Cheap, and never raises."""
        try:
            if table.outcome() is None or not self.analysable(table) or self.pending(table.id):
                return
            if len(self._finished) >= MAX_FINISHED:
                logger.info("table %s: analysis queue full, left for its page", table.id)
                return
            self._finished[table.id] = None
            self._start()
        except Exception:  # the commit that called this must not fail because of it
            logger.warning("table %s: analysis not queued", table.id, exc_info=True)

    def request(self, table_id: str) -> bool:
        """A page wants the table analysed: queue it ahead of the finished games (``False``
        if too many requests are waiting already)."""
        if table_id == self._running or table_id in self._requested:
            return True
        if len(self._requested) >= MAX_REQUESTED:
            return False
        self._finished.pop(table_id, None)
        self._requested[table_id] = None
        self._start()
        return True

    async def wait(self, table_id: str) -> None:
        """Until the table's analysis in this process, if any, is over."""
        while self.pending(table_id):
            event = self._done.setdefault(table_id, asyncio.Event())
            await event.wait()

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        while self._requested or self._finished:
            queue = self._requested or self._finished
            table_id, _ = queue.popitem(last=False)
            self._running = table_id
            try:
                await self.analyse(table_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("table %s: background analysis failed", table_id, exc_info=True)
            finally:
                self._running = None
                event = self._done.pop(table_id, None)
                if event is not None:
                    event.set()

    async def analyse(self, table_id: str) -> None:
        """Analyse every position of the table not stored yet, storing slice by slice."""
        table = await self.load(table_id)
        played = table.move_texts()
        stored = await self.store.analysis_points(table_id, played)
        todo = [ply for ply in range(len(played), -1, -1) if ply not in stored]
        settings = self.settings
        start = time.perf_counter()
        prove, failures = True, 0
        retry: list[int] = []
        while todo:
            if time.perf_counter() - start > settings.background_total_s:
                prove = False
            found = await self.pool.run(
                analyse_chunk,
                table.row.game,
                table.row.options,
                played,
                todo,
                settings.background_prove_s,
                settings.estimate_s,
                settings.slice_s,
                prove,
            )
            self.slices += 1
            done = {f.ply for f in found}
            todo = [ply for ply in todo if ply not in done]
            for f in found:
                if prove and f.red_margin is not None and f.free > 0:
                    failures = 0 if f.proved else failures + 1
            if failures >= FAILURES_TO_STOP:
                prove = False
            await self._save(table_id, played, found)
            retry += [f.ply for f in found if not f.proved and 0 < f.free <= RETRY_LINES]
        # The second try, with the solver's table as the first pass left it.
        for ply in retry:
            left = start + settings.background_total_s - time.perf_counter()
            if left <= 0:
                break
            found = await self.pool.run(
                analyse_chunk,
                table.row.game,
                table.row.options,
                played,
                [ply],
                min(settings.background_retry_s, left),
                0.0,
                0.0,
                True,
                False,
            )
            self.slices += 1
            await self._save(table_id, played, found)

    async def _save(self, table_id: str, played: list[str], found: list[Found]) -> None:
        try:
            await self.store.save_analysis_points(
                table_id, played, {f.ply: point(f) for f in found}
            )
        except Exception:
            # The next job for the table (a page's request) makes them again.
            logger.warning("table %s: analysis values not saved", table_id, exc_info=True)

    def close(self) -> None:
        """Stop the background work (the slice under way in the pool runs to its end); every
        :meth:`wait` returns."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._requested.clear()
        self._finished.clear()
        self._running = None
        for event in self._done.values():
            event.set()
        self._done.clear()


__all__ = ["FAILURES_TO_STOP", "MAX_FINISHED", "MAX_REQUESTED", "RETRY_LINES", "Jobs", "point"]
