"""The sweep: every server process ends the tables whose deadline has passed.

No table has a timer of its own. Each process runs one loop: ask the store for the tables
whose ``deadline`` is not after now (a range scan of its index, earliest first), end each
through :meth:`TableService.end_if_due`, whose compare-and-set lets exactly one process
(of all those sweeping at once) commit the result while the others find it over; then sleep
until the earliest deadline still ahead (at most :data:`MAX_SLEEP_S`, so deadlines set by
other processes are seen soon enough). A commit in this process that sets an earlier
deadline wakes the loop at once (:meth:`Sweep.wake`, the service's ``on_deadline``). A
deadline nobody is connected for is met all the same, and a restart loses nothing: the
deadlines are in the store.

The loop also keeps the site's heartbeat, and before its first sweep gives the running
clocks back the time the whole site was down, if it was (:mod:`playtable.tables.downtime`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import Counter
from datetime import datetime, timedelta

from playtable.aio import cancel_and_wait
from playtable.tables import downtime
from playtable.tables.errors import TableError
from playtable.tables.service import TableService

logger = logging.getLogger(__name__)

#: The longest the loop sleeps: how late a deadline set by another process can be seen.
MAX_SLEEP_S = 0.5
MIN_SLEEP_S = 0.02
#: Tables ended per query; more due at once are taken in the next round at once.
BATCH = 100


class Sweep:
    """The loop of one process; :meth:`start` it with the app, :meth:`close` it after."""

    def __init__(self, service: TableService, *, max_sleep_s: float = MAX_SLEEP_S) -> None:
        self.service = service
        self.max_sleep_s = max_sleep_s
        self._wake = asyncio.Event()
        self._sleeping_until: datetime | None = None
        self._task: asyncio.Task[None] | None = None
        self._heart_task: asyncio.Task[None] | None = None
        self._confirming: asyncio.Future[None] | None = None  # the beat requests await
        self.beat_error: Exception | None = None  # why the last beat failed, while it fails
        #: Due tables ``tried`` (ended here, by another process, or saved by a move) and
        #: ``failed``, and ``rounds`` of the loop.
        self.counts: Counter[str] = Counter()
        self._last_beat: datetime | None = None
        #: This process's row among the running ones (the store's ``site_processes``).
        self.process = secrets.token_hex(8)
        self.recovered = False  # no deadline is looked at before
        #: Heartbeats that failed in a row: the store takes no writes (a read-only file, a
        #: full disk, a database in recovery), and the process is not ready (web/health.py).
        self.beat_failures = 0

    async def recover(self) -> None:
        """Renew the site's heartbeat (recording an outage of the whole site, if it was
        one) and load the outages the clocks leave out (:mod:`playtable.tables.downtime`).
        Raises if the store fails: the loop tries again, and sweeps nothing before."""
        store = self.service.store
        now = self.service.clock()
        outage = await store.beat(now, downtime.OUTAGE_S, self.process, starting=True)
        self._last_beat = now
        downtime.set_outages(await store.outages())
        self.recovered = True
        if outage is not None:
            down, up = outage
            logger.warning(
                "the whole site was down for %.1f s, since %s: no clock counts that time",
                (up - down).total_seconds(),
                down.isoformat(timespec="seconds"),
            )

    async def _beat(self, *, force: bool = False, stopping: bool = False) -> None:
        now = self.service.clock()
        last = self._last_beat
        if force or last is None or (now - last).total_seconds() >= downtime.BEAT_S:
            store = self.service.store
            try:
                # A beat found older than an outage while this process runs: the database
                # was away for every process (no move could be stored), and is recorded.
                # This process's first beat is its start (a stop just before it counts).
                outage = await store.beat(
                    now,
                    downtime.OUTAGE_S,
                    self.process,
                    starting=last is None,
                    stopping=stopping,
                )
                outages = await store.outages()  # and those other processes recorded
            except Exception as error:
                self.beat_failures += 1
                self.beat_error = error  # the cause the sweep's log gives
                raise
            downtime.set_outages(outages)
            self.beat_failures, self.beat_error = 0, None
            self._last_beat = now
            if outage is not None:
                logger.warning(
                    "no process reached the database for %.0f s (it, or every process, was "
                    "away): no clock counts that time",
                    (outage[1] - outage[0]).total_seconds(),
                )

    async def confirm_outages(self) -> bool:
        """Before a table is decided or shown (``TableService.confirm_outages``): if this
        process's last beat is older than an outage, the database may have been away for
        every process and the outage not yet recorded or learnt here, so beat now (which
        records and loads it). The requests that find it so meanwhile await one beat, and
        its failure fails them all at once: one after another, each would wait out its own
        beat on a database that hangs. ``True`` if the outages were loaded again; raises if
        the store still fails (no clock is judged or shown while the store cannot say)."""
        if self._beat_is_fresh():
            return False
        await self._shared_beat()
        return True

    async def _shared_beat(self) -> None:
        """A beat now, or the one under way (the heartbeat's or a request's): one at a time,
        awaited by all who ask meanwhile."""
        if self._confirming is None or self._confirming.done():
            beat = asyncio.ensure_future(self._beat(force=True))
            # Its failure is every waiter's; none left (all cancelled), nobody's.
            beat.add_done_callback(lambda done: done.cancelled() or done.exception())
            self._confirming = beat
        await asyncio.shield(self._confirming)

    def _beat_is_fresh(self) -> bool:
        last = self._last_beat
        return last is not None and (self.service.clock() - last).total_seconds() <= (
            downtime.OUTAGE_S
        )

    async def _heart(self) -> None:
        """The heartbeat, a loop of its own: a long sweep never makes it late."""
        while True:
            last = self._last_beat
            try:
                if last is None or (
                    (self.service.clock() - last).total_seconds() >= downtime.BEAT_S
                ):
                    await self._shared_beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.debug("the heartbeat failed", exc_info=True)  # the sweep logs
            await asyncio.sleep(downtime.BEAT_S / 4)

    def start(self) -> None:
        self.service.on_deadline = self.wake
        self.service.confirm_outages = self.confirm_outages
        self._task = asyncio.create_task(self._loop())
        self._heart_task = asyncio.create_task(self._heart())

    def wake(self, deadline: datetime) -> None:
        """A deadline was just set: sleep no longer than until it."""
        if self._sleeping_until is None or deadline < self._sleeping_until:
            self._wake.set()

    async def close(self) -> None:
        # No request beats after the last beat below (nor against a store closing).
        self.service.confirm_outages = downtime.none_learnt
        if self._confirming is not None:
            await cancel_and_wait([self._confirming])
        if self._task is not None:
            await cancel_and_wait([t for t in (self._task, self._heart_task) if t is not None])
            self._task = self._heart_task = None
            try:  # the moment this process stops: if it was the last, the site went down then
                await self._beat(force=True, stopping=True)
            except Exception:
                logger.warning("the last heartbeat was not stored", exc_info=True)

    async def sweep_once(self) -> int:
        """End every table due now; returns how many were due."""
        seen: set[str] = set()
        while True:
            due = await self.service.store.due_tables(self.service.clock(), BATCH)
            fresh = [table_id for table_id in due if table_id not in seen]
            for table_id in fresh:
                await self._end(table_id)
            seen.update(fresh)
            if len(due) < BATCH or not fresh:
                return len(seen)

    async def _end(self, table_id: str) -> None:
        try:
            await self.service.end_if_due(table_id)
            self.counts["tried"] += 1
        except TableError:
            self.counts["failed"] += 1
            logger.warning("table %s: not ended on time", table_id, exc_info=True)

    async def _loop(self) -> None:
        failing = 0  # rounds failed in a row: an outage is logged once, and its end
        while True:
            self.counts["rounds"] += 1
            due = 0
            try:
                if not self.recovered:
                    await self.recover()
                if self.beat_failures:
                    # a store that takes no writes: the log says what the beat met
                    raise RuntimeError("the heartbeat fails") from self.beat_error
                due = await self.sweep_once()
                upcoming = await self.service.store.next_deadline()
            except asyncio.CancelledError:
                raise
            except Exception:
                # The database may be away for a moment; the deadlines wait in it. Tried
                # again every round, but a traceback twice a second would flood the log.
                failing += 1
                if failing == 1:
                    logger.warning("the sweep failed; trying again", exc_info=True)
                else:
                    logger.debug("the sweep failed again (%d rounds)", failing, exc_info=True)
                upcoming = None
            else:
                if failing:
                    logger.warning("the sweep works again after %d failed rounds", failing)
                failing = 0
            now = self.service.clock()
            sleep = self.max_sleep_s
            if upcoming is not None:
                # A deadline still in the past was just tried (another process is ending it,
                # or a move came in): look again soon, not in a busy loop.
                ahead = (upcoming - now).total_seconds()
                sleep = min(sleep, ahead if ahead > 0 else (0.0 if due else MIN_SLEEP_S))
            self._sleeping_until = now + timedelta(seconds=sleep)
            self._wake.clear()
            try:
                async with asyncio.timeout(sleep):
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._sleeping_until = None


__all__ = ["BATCH", "MAX_SLEEP_S", "Sweep"]
