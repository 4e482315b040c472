"""The store: the only truth about tables, seats and moves (and the analyses' proved values).

Every change to a table is one transaction guarded by a compare-and-set on ``tables.version``
and, for a move, by the unique key ``(table_id, ply)``: of two writers that both read version N,
whichever server process they run in, exactly one commits and the other is told so (``False``)
and must re-read. Nothing here knows the rules of any game; the table service does.

Each operation is a plain function of a SQLAlchemy ``Connection`` run in one transaction. With
a server database (``postgresql+asyncpg://``) it runs on the async engine; with SQLite it runs
whole in a worker thread on the standard ``sqlite3`` driver: one thread hop per operation
instead of one per statement (as aiosqlite would), which on a busy machine is most of a
move's latency. SQLite commits are grouped: changes that arrive together share one fsync.

Beside the tables it keeps the analysed positions' values, proved or estimated
(:meth:`Store.analysis_points`), each tied to the exact moves that led to it, so that every
process, and every process after a restart, reuses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine

from playtable.games import Player
from playtable.store.analysis import (
    position_digests,
    read_analysis,
    read_points,
    save_analysis,
)
from playtable.store.carries import add_carry, read_carry, take_carry
from playtable.store.engines import (
    DEFAULT_URL,
    migrate,
    normalized,
    server_engine,
    sqlite_engine,
)
from playtable.store.heartbeat import beat, beat_at_once, read_outages
from playtable.store.prune import BATCH as PRUNE_BATCH
from playtable.store.prune import remove_unplayed, unplayed
from playtable.store.push import add_push, read_push, remove_push, remove_seat_push
from playtable.store.raw_postgres import RawPostgresWriter
from playtable.store.raw_read import RawReader
from playtable.store.raw_sqlite import RawWriter
from playtable.store.reads import (
    moves_from,
    read_bot_tables,
    read_due,
    read_moves,
    read_next_deadline,
    read_rematch_ids,
    read_table,
    select_one,
    table_from,
)
from playtable.store.rows import (
    AnalysisPoint,
    Change,
    MoveRow,
    NewTable,
    PushSubscription,
    TableRow,
)
from playtable.store.sqlite_file import SqliteFile
from playtable.store.worker import Worker
from playtable.store.writes import (
    CONTRADICTIONS,
    apply_change,
    apply_changes,
    insert_table,
    move_statement,
    move_steps,
    one_statement,
    utc_now,
)

T = TypeVar("T")


async def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the newest schema."""
    store = Store(url, timeouts=False)
    try:
        await store.open()
    finally:
        await store.close()


async def downgrade(url: str, revision: str) -> None:
    """Bring the database at ``url`` back to the schema ``revision`` (before starting an
    older release on it); what the newer schema's columns and tables held is dropped."""
    store = Store(url, timeouts=False)
    try:
        await store._run(migrate, revision)
    finally:
        await store.close()


class Store:
    """Tables, seats and moves in SQLite or any database SQLAlchemy reaches asynchronously."""

    def __init__(self, url: str = DEFAULT_URL, *, timeouts: bool = True) -> None:
        """``timeouts``: PostgreSQL statements time out (PLAYTABLE_DB_TIMEOUT); off for the
        migrations run before a server starts, which may wait for another process's."""
        self.url = url = normalized(url)
        parsed = sa.make_url(url)
        self.sqlite = parsed.get_backend_name() == "sqlite"
        on_disk = self.sqlite and parsed.database not in (None, "", ":memory:")
        self.file = SqliteFile(str(parsed.database)) if on_disk else None
        self.engine: Engine | None = sqlite_engine(parsed, self.file) if self.sqlite else None
        self.async_engine: AsyncEngine | None = (
            None if self.sqlite else server_engine(parsed, timeouts=timeouts)
        )
        # SQLite takes one writer at a time and makes the others poll with growing sleeps:
        # queueing this process's writers here keeps the wait fair and short.
        self._write_lock: asyncio.Lock | contextlib.nullcontext[None] = (
            asyncio.Lock() if self.sqlite else contextlib.nullcontext()
        )
        self._pending: list[_Pending] = []
        self._writer: asyncio.Task[None] | None = None
        # An in-memory database is one connection shared by the worker threads: the sqlite3
        # module must never be entered by two of them at once on it (it crashes the process).
        memory = self.sqlite and parsed.database in (None, "", ":memory:")
        self._one_at_a_time: threading.Lock | contextlib.nullcontext[None] = (
            threading.Lock() if memory else contextlib.nullcontext()
        )
        # Moves, the writes that count, skip SQLAlchemy's per-statement work on SQLite.
        self._raw: RawWriter | None = (
            RawWriter(self.engine, self._one_at_a_time, self.file)
            if self.engine is not None
            else None
        )
        # And so do the reads made most often: a table's row and seats, its moves.
        self._reader: RawReader | None = (
            RawReader(self.engine, self._one_at_a_time) if self.engine is not None else None
        )
        # Both run in threads of the store's own (worker.py: cheaper than to_thread), the raw
        # reads apart from the writes (a read is a tenth of a millisecond: one thread serves
        # thousands a second, on one connection, without waiting for a write's fsync).
        # On a server database, moves skip it too, on asyncpg connections of their own.
        self._raw_server: RawPostgresWriter | None = (
            RawPostgresWriter(self.async_engine)
            if self.async_engine is not None and self.async_engine.dialect.driver == "asyncpg"
            else None
        )
        self._writes = Worker("playtable-sqlite-writes")
        self._reads = Worker("playtable-sqlite-reads")

    async def open(self) -> None:
        """Create the SQLite file's folder if needed and upgrade the schema; call once first."""
        parsed = sa.make_url(self.url)
        if self.sqlite and parsed.database not in (None, "", ":memory:"):
            path = Path(parsed.database)
            path.parent.mkdir(parents=True, exist_ok=True)
            await asyncio.to_thread(self._upgrade_sqlite_file, path)
        else:
            await self._run(migrate)

    def _upgrade_sqlite_file(self, path: Path) -> None:
        """Upgrade under a lock file: processes starting together on one file take turns.

        SQLite runs DDL outside the driver's implicit transactions, so without the lock two
        processes could both find the schema missing and both try to create it.
        """
        with open(path.with_name(path.name + ".migrate-lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._run_in_thread(migrate)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    async def close(self) -> None:
        if self._writer is not None:
            await asyncio.wait([self._writer])
        self._writes.close()
        self._reads.close()
        if self._raw is not None:
            self._raw.close()
        if self._reader is not None:
            self._reader.close()
        if self.engine is not None:
            # A read may still run in a thread (its caller cancelled, the thread not): on an
            # in-memory database, closing the one connection under it crashes the process.
            await asyncio.to_thread(self._dispose)
        if self._raw_server is not None:
            await self._raw_server.close()
        if self.async_engine is not None:
            await self.async_engine.dispose()

    def _dispose(self) -> None:
        assert self.engine is not None
        with self._one_at_a_time:
            self.engine.dispose()

    async def _run(self, operation: Callable[..., T], *args: Any) -> T:
        """``operation(connection, *args)`` in one transaction, committed when it returns."""
        if self.engine is not None:
            return await asyncio.to_thread(self._run_in_thread, operation, *args)
        assert self.async_engine is not None
        async with self.async_engine.begin() as conn:
            return await conn.run_sync(operation, *args)

    def _run_in_thread(self, operation: Callable[..., T], *args: Any) -> T:
        assert self.engine is not None
        with self._one_at_a_time, self.engine.begin() as conn:
            result = operation(conn, *args)
            if self.file is not None:
                self.file.check()  # before the commit (sqlite_file.py)
            return result

    async def _read(self, operation: Callable[..., T], *args: Any) -> T:
        """A read: on a server database without BEGIN and COMMIT (two round trips fewer).

        Safe because nothing read in two statements must agree: a table's seats are only
        ever added, and a caller that acts on what it read is checked by the compare-and-set.
        """
        if self.async_engine is None:
            return await self._run(operation, *args)
        async with self.async_engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            return await conn.run_sync(operation, *args)

    # -- reading ----------------------------------------------------------------------------
    async def table(self, table_id: str) -> TableRow | None:
        if self._reader is not None:
            return await self._reads.run(table_from, self._reader.rows, table_id)
        return await self._read(read_table, table_id)

    async def moves(self, table_id: str) -> list[MoveRow]:
        if self._reader is not None:
            return await self._reads.run(moves_from, self._reader.rows, table_id)
        return await self._read(read_moves, table_id)

    async def rematch_ids(self, table_ids: Sequence[str]) -> dict[str, str]:
        """Each of ``table_ids`` that has a rematch, with the rematch's id."""
        return await self._read(read_rematch_ids, table_ids)

    async def tables_with_bots(self) -> list[str]:
        """Ids of the running tables where the computer holds a seat."""
        return await self._run(read_bot_tables)

    async def due_tables(self, now: datetime, limit: int) -> list[str]:
        """Ids of up to ``limit`` tables whose deadline is not after ``now``, earliest first
        (one range scan of the deadline index)."""
        return await self._read(read_due, now, limit)

    async def ping(self) -> None:
        """One round trip to the database (the readiness check); raises if it is away."""
        await self._read(select_one)

    async def next_deadline(self) -> datetime | None:
        """The earliest deadline of any table (the first entry of the deadline index)."""
        return await self._read(read_next_deadline)

    # -- the site's heartbeat (tables/downtime.py) -------------------------------------------
    async def beat(
        self,
        now: datetime,
        outage_s: float,
        process: str | None = None,
        *,
        starting: bool = False,
        stopping: bool = False,
    ) -> tuple[datetime, datetime] | None:
        """Renew the site's heartbeat (and ``process``'s row among the running ones); the
        outage it found and recorded, if it was older than ``outage_s``, or if ``starting``
        it finds the last process's stop and no other process running (the whole site was
        down since). ``stopping``: the beat of a process that stops (heartbeat.beat)."""
        args = (now, outage_s, process, starting, stopping)
        if self.async_engine is not None:
            # PostgreSQL: one statement, committed by itself (heartbeat.beat_at_once).
            return await self._read(beat_at_once, *args)
        async with self._write_lock:
            try:
                return await self._run(beat, *args)
            except sa.exc.IntegrityError:  # another process wrote the beat or outage meanwhile
                return await self._run(beat, *args)

    async def outages(self) -> list[tuple[datetime, datetime]]:
        """The whole site's outages, ``(down, up)``, earliest first."""
        return await self._read(read_outages)

    # -- housekeeping (store/prune.py) -------------------------------------------------------
    async def remove_unplayed(self, before: datetime, *, dry_run: bool = False) -> list[str]:
        """Remove the tables nobody played that were created before ``before`` (prune.py),
        a batch a transaction; their ids. ``dry_run``: only which they would be."""
        if dry_run:
            return await self._read(unplayed, before)
        removed: list[str] = []
        while True:
            async with self._write_lock:
                batch = await self._run(remove_unplayed, before)
            removed += batch
            if len(batch) < PRUNE_BATCH:
                return removed

    # -- seats carried to another device (web/carry.py) --------------------------------------
    async def add_carry(self, code_hash: str, sealed: str, expires_at: datetime) -> None:
        await self._run(add_carry, code_hash, sealed, expires_at, utc_now())

    async def carry(self, code_hash: str) -> str | None:
        return await self._read(read_carry, code_hash, utc_now())

    async def take_carry(self, code_hash: str, kept_as: str | None = None) -> str | None:
        return await self._run(take_carry, code_hash, utc_now(), kept_as)

    # -- Web Push subscriptions (web/push.py) -------------------------------------------------
    async def push_subscriptions(self, table_id: str, player: Player) -> list[PushSubscription]:
        return await self._read(read_push, table_id, player)

    async def add_push_subscription(
        self, table_id: str, player: Player, subscription: PushSubscription, keep: int = 4
    ) -> None:
        """Keep ``subscription`` for the seat (replacing one with the same endpoint), and
        only the seat's ``keep`` newest subscriptions: each is a request the server sends
        at every move that passes the turn."""
        async with self._write_lock:
            await self._run(add_push, table_id, player, subscription, keep)

    async def remove_push_subscription(self, table_id: str, player: Player, endpoint: str) -> bool:
        async with self._write_lock:
            return await self._run(remove_push, table_id, player, endpoint)

    async def remove_seat_push_subscriptions(self, table_id: str, player: Player) -> int:
        """Forget every subscription of the seat (its link was replaced: a device that saw
        it is told nothing more; the player's own pages subscribe again)."""
        async with self._write_lock:
            return await self._run(remove_seat_push, table_id, player)

    async def analysis_values(self, table_id: str, moves: Sequence[str]) -> dict[int, int]:
        """The stored proved values of the positions after each prefix of ``moves``.

        ``{ply: red margin}`` for the plies that have one. A value saved for other moves at
        the same ply (before a take-back) does not match the moves' digest and is left out.
        """
        return await self._read(read_analysis, table_id, position_digests(moves))

    async def save_analysis_values(
        self, table_id: str, moves: Sequence[str], values: Mapping[int, int]
    ) -> None:
        """Store proved values ``{ply: red margin}`` of positions reached by ``moves``.

        Idempotent, and safe against other processes saving the same plies at once: a row
        already there for the same moves is kept, one for other moves is replaced.
        """
        points = {ply: AnalysisPoint(True, red_margin=value) for ply, value in values.items()}
        await self.save_analysis_points(table_id, moves, points)

    async def analysis_points(
        self, table_id: str, moves: Sequence[str]
    ) -> dict[int, AnalysisPoint]:
        """Every stored value, proved or estimated, of the positions after each prefix of
        ``moves`` (rows left by other moves at a ply are left out)."""
        return await self._read(read_points, table_id, position_digests(moves))

    async def save_analysis_points(
        self, table_id: str, moves: Sequence[str], points: Mapping[int, AnalysisPoint]
    ) -> None:
        """Store ``{ply: point}`` of positions reached by ``moves``. A row for the same moves
        is kept unless it is an estimate and the new point a proof (a proof is never
        replaced by an estimate); a row for other moves (before a take-back) is replaced."""
        if not points:
            return
        digests = position_digests(moves)
        now = utc_now()
        rows = [
            {
                "table_id": table_id,
                "ply": ply,
                "moves_hash": digests[ply],
                "red_margin": point.red_margin,
                "red_share": point.red_share,
                "proved": point.proved,
                "solved_at": now,
            }
            # In ply order: concurrent upserts then lock the rows in one order (no deadlock).
            for ply, point in sorted(points.items())
        ]
        async with self._write_lock:
            await self._run(save_analysis, rows)

    # -- writing ----------------------------------------------------------------------------
    async def create_table(self, new: NewTable) -> bool:
        """Insert a table and its seats; ``False`` if the id is already taken."""
        try:
            async with self._write_lock:
                await self._run(insert_table, new)
        except sa.exc.IntegrityError:
            return False
        return True

    async def update(self, table_id: str, version: int, change: Change) -> bool:
        """Apply ``change`` if the table is still at ``version``; ``False`` if it is not.

        Returns only once the change is committed, so an acknowledged move is never lost.
        """
        if not self.sqlite:
            return await self._update_alone(table_id, version, change)  # no task of its own
        return await self.submit(table_id, version, change)

    def submit(self, table_id: str, version: int, change: Change) -> asyncio.Future[bool]:
        """:meth:`update`, started: the write is under way from the caller's next ``await``
        (the caller can do other work meanwhile); the future is its result."""
        if not self.sqlite:
            return asyncio.ensure_future(self._update_alone(table_id, version, change))
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending.append((table_id, version, change, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_batches())
        return future

    async def _write_batches(self) -> None:
        """Commit everything that queued up meanwhile in one transaction, until none is left.

        A SQLite commit costs one fsync (milliseconds) however much it writes: changes of
        different tables that arrive together share it instead of queueing for one each.
        """
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                async with self._write_lock:
                    results = await self._commit_batch(batch)
            except BaseException as error:
                for *_, future in batch:
                    if not future.done():
                        future.set_exception(error)
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            for (*_, future), ok in zip(batch, results, strict=True):
                if not future.done():  # the caller may have given up (cancelled)
                    future.set_result(ok)

    async def _commit_batch(self, batch: list[_Pending]) -> list[bool]:
        if len(batch) > 1:
            try:
                if self._raw is not None and all(one_statement(c) for _, _, c, _ in batch):
                    steps = [move_steps(t, v, c) for t, v, c, _ in batch]
                    return await self._writes.run(self._raw.write, steps)
                return await self._run(apply_changes, [(t, v, c) for t, v, c, _ in batch])
            except CONTRADICTIONS:
                pass  # one change contradicts the data: give each its own transaction
        return [await self._update_alone(t, v, c) for t, v, c, _ in batch]

    async def _update_alone(self, table_id: str, version: int, change: Change) -> bool:
        try:
            if one_statement(change):
                if self._raw is not None:
                    steps = [move_steps(table_id, version, change)]
                    return (await self._writes.run(self._raw.write, steps))[0]
                if self._raw_server is not None:
                    return await self._move_in_one_statement(table_id, version, change)
            return await self._run(apply_change, table_id, version, change)
        except CONTRADICTIONS:
            return False

    async def _move_in_one_statement(self, table_id: str, version: int, change: Change) -> bool:
        """A move on a server database in one round trip: the compare-and-set and the move's
        row in one statement (atomic by itself), without BEGIN and COMMIT around it, on a
        driver connection of the raw writer's (raw_postgres.py)."""
        assert self._raw_server is not None
        statement, params = move_statement(table_id, version, change)
        return await self._raw_server.write(statement, params)


_Pending = tuple[str, int, Change, "asyncio.Future[bool]"]
