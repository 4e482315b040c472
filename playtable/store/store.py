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
import enum
import fcntl
import functools
import hashlib
import importlib.resources
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from playtable.games import Player
from playtable.store.raw_postgres import RawPostgresWriter
from playtable.store.raw_read import RawReader
from playtable.store.raw_sqlite import RawWriter, Step
from playtable.store.schema import analysis_values, moves, push_subscriptions, seats, tables
from playtable.store.worker import Worker

DEFAULT_URL = "sqlite:///var/playtable.sqlite3"

T = TypeVar("T")


class Keep(enum.Enum):
    """Marks a field of :class:`Change` that stays as it is."""

    KEEP = 0


KEEP = Keep.KEEP


@dataclass(frozen=True, slots=True)
class AnalysisPoint:
    """One analysed position: red's final margin (Dots and Boxes) or red's share of the
    simulated games (Swaptimum, 0 to 1), and whether it is a proof or an estimate."""

    proved: bool
    red_margin: int | None = None
    red_share: float | None = None


@dataclass(frozen=True, slots=True)
class NewTable:
    id: str
    game: str
    options: Mapping[str, Any]
    invite_hash: str
    seats: Mapping[Player, str]  # player -> token hash
    offers: Mapping[str, Any] = field(default_factory=dict)
    bots: Mapping[Player, str] = field(default_factory=dict)  # player -> bot level
    time_control: str = "-"  # tables/clocks.py spec
    deadline: datetime | None = None
    created_at: datetime | None = None  # default: the store's clock


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    game: str
    options: dict[str, Any]
    version: int
    outcome: dict[str, Any] | None
    invite_hash: str
    offers: dict[str, Any]
    rematch_id: str | None
    created_at: datetime
    seats: dict[Player, str]  # player -> token hash
    bots: dict[Player, str] = field(default_factory=dict)  # player -> level of a computer seat
    time_control: str = "-"  # tables/clocks.py spec
    deadline: datetime | None = None  # when the side to move runs out of time (indexed)
    seated_at: datetime | None = None  # when the second seat was taken
    nicknames: dict[Player, str] = field(default_factory=dict)  # player -> chosen name
    #: When the result was stored: a resignation or an agreement ends the clocks then.
    finished_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class MoveRow:
    ply: int
    move: str
    player: Player
    # The commit time (``moves.created_at``) and the transit credited to the move's clock
    # (tables/clocks.py): facts about the move, not part of what it is.
    at: datetime | None = field(default=None, compare=False)
    lag_ms: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """A browser's Web Push subscription for one seat (RFC 8030 endpoint, RFC 8291 keys)."""

    endpoint: str
    p256dh: str
    auth: str
    lang: str


@dataclass(frozen=True, slots=True)
class Change:
    """One atomic change of a table; it bumps the version by one."""

    append: MoveRow | None = None  # a move played at ``append.ply`` (the current ply)
    drop_ply: int | None = None  # take back the moves from this ply on (the last ones)
    outcome: dict[str, Any] | Keep | None = KEEP
    offers: dict[str, Any] | Keep = KEEP
    rematch_id: str | Keep = KEEP
    seat: tuple[Player, str] | None = None  # (player, token hash) of a newly taken seat
    new_table: NewTable | None = None  # created in the same transaction (a rematch)
    deadline: datetime | Keep | None = KEEP  # the table's clock deadline
    at: datetime | None = None  # the time recorded for the move, seat or result (default: now)
    nickname: tuple[Player, str | None] | None = None  # a seat's new name (None: none)


def migrations_config(connection: Connection | None = None) -> Config:
    """The Alembic configuration, found inside the installed package."""
    ini = importlib.resources.files("playtable.store") / "alembic.ini"
    with importlib.resources.as_file(ini) as path:
        config = Config(str(path))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


# Any constant: the key of the advisory lock that lets one process at a time migrate.
_MIGRATION_LOCK = 0x706C6179  # "play"


def _upgrade(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        # Several processes starting at once would each try to create the tables; the
        # lock (held to the end of this transaction) makes the others wait, then find the
        # schema at head and do nothing.
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    command.upgrade(migrations_config(connection), "head")


async def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the newest schema."""
    store = Store(url)
    try:
        await store.open()
    finally:
        await store.close()


SYNCHRONOUS = ("FULL", "EXTRA", "NORMAL")


def _sqlite_engine(url: sa.URL) -> Engine:
    """A SQLite engine on the standard driver, with WAL, foreign keys and full fsync.

    ``?synchronous=NORMAL`` in the URL trades the fsync of every commit for durability
    against a crash of the server only (not of the machine); the default is ``FULL``.
    """
    synchronous = str(url.query.get("synchronous", "FULL")).upper()
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}")
    url = url.set(drivername="sqlite").difference_update_query(["synchronous"])
    kwargs: dict[str, Any] = {"connect_args": {"timeout": 30, "check_same_thread": False}}
    if url.database in (None, "", ":memory:"):
        # One shared connection, or every checkout would see its own empty database.
        kwargs["poolclass"] = StaticPool
    engine = sa.create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a move that was acknowledged survives even a power cut, not only a crash.
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    return engine


# Connections a process keeps open to a server database: enough for every request in flight
# on a busy process, so that a burst does not open (and close) sessions by the hundred.
POOL_SIZE = 20
POOL_OVERFLOW = 20
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _server_engine(url: sa.URL) -> AsyncEngine:
    """A pooled engine for PostgreSQL (asyncpg). On loopback, with no SSL asked for in the
    URL, the driver does not try TLS first on every new session.

    No pre-ping: it costs a round trip on every operation. A connection that died (a
    database restart) fails one operation, which SQLAlchemy then discards; the recycle age
    keeps idle connections from outliving proxies' and servers' timeouts."""
    connect_args: dict[str, Any] = {}
    wants_ssl = any(key in url.query for key in ("ssl", "sslmode"))
    if url.host in LOOPBACK and not wants_ssl:
        connect_args["ssl"] = False
    return create_async_engine(
        url,
        pool_pre_ping=False,
        pool_recycle=600,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        connect_args=connect_args,
    )


def _now() -> datetime:
    return datetime.now(UTC)


def position_digests(moves: Sequence[str]) -> list[str]:
    """``result[ply]`` is the SHA-256 (hex) of ``moves[:ply]``, for every ply from 0 to the end.

    Each move counts as its length in bytes, a colon and its text, so no two different lists
    of moves share an encoding.
    """
    running = hashlib.sha256()
    digests = [running.hexdigest()]
    for move in moves:
        data = move.encode()
        running.update(b"%d:%s" % (len(data), data))
        digests.append(running.hexdigest())
    return digests


class Store:
    """Tables, seats and moves in SQLite or any database SQLAlchemy reaches asynchronously."""

    def __init__(self, url: str = DEFAULT_URL) -> None:
        self.url = url
        parsed = sa.make_url(url)
        self.sqlite = parsed.get_backend_name() == "sqlite"
        self.engine: Engine | None = _sqlite_engine(parsed) if self.sqlite else None
        self.async_engine: AsyncEngine | None = None if self.sqlite else _server_engine(parsed)
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
            RawWriter(self.engine, self._one_at_a_time) if self.engine is not None else None
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
            await self._run(_upgrade)

    def _upgrade_sqlite_file(self, path: Path) -> None:
        """Upgrade under a lock file: processes starting together on one file take turns.

        SQLite runs DDL outside the driver's implicit transactions, so without the lock two
        processes could both find the schema missing and both try to create it.
        """
        with open(path.with_name(path.name + ".migrate-lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._run_in_thread(_upgrade)
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
            return operation(conn, *args)

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
            return await self._reads.run(_table_from, self._reader.rows, table_id)
        return await self._read(_read_table, table_id)

    async def moves(self, table_id: str) -> list[MoveRow]:
        if self._reader is not None:
            return await self._reads.run(_moves_from, self._reader.rows, table_id)
        return await self._read(_read_moves, table_id)

    async def tables_with_bots(self) -> list[str]:
        """Ids of the running tables where the computer holds a seat."""
        return await self._run(_read_bot_tables)

    async def due_tables(self, now: datetime, limit: int) -> list[str]:
        """Ids of up to ``limit`` tables whose deadline is not after ``now``, earliest first
        (one range scan of the deadline index)."""
        return await self._read(_read_due, now, limit)

    async def ping(self) -> None:
        """One round trip to the database (the readiness check); raises if it is away."""
        await self._read(_ping)

    async def next_deadline(self) -> datetime | None:
        """The earliest deadline of any table (the first entry of the deadline index)."""
        return await self._read(_read_next_deadline)

    # -- Web Push subscriptions (web/push.py) -------------------------------------------------
    async def push_subscriptions(self, table_id: str, player: Player) -> list[PushSubscription]:
        return await self._read(_read_push, table_id, player)

    async def add_push_subscription(
        self, table_id: str, player: Player, subscription: PushSubscription, keep: int = 4
    ) -> None:
        """Keep ``subscription`` for the seat (replacing one with the same endpoint), and
        only the seat's ``keep`` newest subscriptions: each is a request the server sends
        at every move that passes the turn."""
        async with self._write_lock:
            await self._run(_add_push, table_id, player, subscription, keep)

    async def remove_push_subscription(self, table_id: str, player: Player, endpoint: str) -> bool:
        async with self._write_lock:
            return await self._run(_remove_push, table_id, player, endpoint)

    async def analysis_values(self, table_id: str, moves: Sequence[str]) -> dict[int, int]:
        """The stored proved values of the positions after each prefix of ``moves``.

        ``{ply: red margin}`` for the plies that have one. A value saved for other moves at
        the same ply (before a take-back) does not match the moves' digest and is left out.
        """
        return await self._read(_read_analysis, table_id, position_digests(moves))

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
        return await self._read(_read_points, table_id, position_digests(moves))

    async def save_analysis_points(
        self, table_id: str, moves: Sequence[str], points: Mapping[int, AnalysisPoint]
    ) -> None:
        """Store ``{ply: point}`` of positions reached by ``moves``. A row for the same moves
        is kept unless it is an estimate and the new point a proof (a proof is never
        replaced by an estimate); a row for other moves (before a take-back) is replaced."""
        if not points:
            return
        digests = position_digests(moves)
        now = _now()
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
            await self._run(_save_analysis, rows)

    # -- writing ----------------------------------------------------------------------------
    async def create_table(self, new: NewTable) -> bool:
        """Insert a table and its seats; ``False`` if the id is already taken."""
        try:
            async with self._write_lock:
                await self._run(_insert_table, new)
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
                if self._raw is not None and all(_one_statement(c) for _, _, c, _ in batch):
                    steps = [_move_steps(t, v, c) for t, v, c, _ in batch]
                    return await self._writes.run(self._raw.write, steps)
                return await self._run(_apply_all, [(t, v, c) for t, v, c, _ in batch])
            except _CONTRADICTIONS:
                pass  # one change contradicts the data: give each its own transaction
        return [await self._update_alone(t, v, c) for t, v, c, _ in batch]

    async def _update_alone(self, table_id: str, version: int, change: Change) -> bool:
        try:
            if _one_statement(change):
                if self._raw is not None:
                    steps = [_move_steps(table_id, version, change)]
                    return (await self._writes.run(self._raw.write, steps))[0]
                if self._raw_server is not None:
                    return await self._move_in_one_statement(table_id, version, change)
            return await self._run(_apply, table_id, version, change)
        except _CONTRADICTIONS:
            return False

    async def _move_in_one_statement(self, table_id: str, version: int, change: Change) -> bool:
        """A move on a server database in one round trip: the compare-and-set and the move's
        row in one statement (atomic by itself), without BEGIN and COMMIT around it, on a
        driver connection of the raw writer's (raw_postgres.py)."""
        assert self._raw_server is not None
        statement, params = _move_statement(table_id, version, change)
        return await self._raw_server.write(statement, params)


_Pending = tuple[str, int, Change, "asyncio.Future[bool]"]


class _Conflict(Exception):
    """The data contradict a change that passed its version check: roll it all back."""


# A change the data refuse (a duplicate move's key, a take-back with nothing to drop).
_CONTRADICTIONS = (_Conflict, sa.exc.IntegrityError, sqlite3.IntegrityError)


# -- the operations, each run in one transaction ---------------------------------------------
# The reads made most often, built once: the statement objects are the keys of SQLAlchemy's
# compiled cache and of the raw reader's (raw_read.py).
_TABLE = sa.select(tables).where(tables.c.id == sa.bindparam("table_id"))
_SEATS = sa.select(
    seats.c.player, seats.c.token_hash, seats.c.bot_level, seats.c.created_at, seats.c.nickname
).where(seats.c.table_id == sa.bindparam("table_id"))
_MOVES = (
    sa.select(moves.c.ply, moves.c.move, moves.c.player, moves.c.created_at, moves.c.lag_ms)
    .where(moves.c.table_id == sa.bindparam("table_id"))
    .order_by(moves.c.ply)
)
# Rows of a statement with its bind values: ``Connection.execute`` or the raw reader.
Fetch = Callable[[sa.Select[Any], Mapping[str, Any]], Sequence[Any]]


def _fetch(conn: Connection) -> Fetch:
    return lambda statement, values: conn.execute(statement, values).all()


def _read_table(conn: Connection, table_id: str) -> TableRow | None:
    return _table_from(_fetch(conn), table_id)


def _table_from(fetch: Fetch, table_id: str) -> TableRow | None:
    found = fetch(_TABLE, {"table_id": table_id})
    if not found:
        return None
    row = found[0]
    seat_rows = fetch(_SEATS, {"table_id": table_id})
    return TableRow(
        id=row.id,
        game=row.game,
        options=dict(row.options),
        version=row.version,
        outcome=row.outcome,
        invite_hash=row.invite_hash,
        offers=dict(row.offers),
        rematch_id=row.rematch_id,
        created_at=row.created_at,
        seats={s.player: s.token_hash for s in seat_rows},
        bots={s.player: s.bot_level for s in seat_rows if s.bot_level is not None},
        time_control=row.time_control,
        deadline=_aware(row.deadline),
        seated_at=_aware(max(s.created_at for s in seat_rows)) if len(seat_rows) == 2 else None,
        nicknames={s.player: s.nickname for s in seat_rows if s.nickname},
        finished_at=_aware(row.finished_at) if row.outcome is not None else None,
    )


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive times: they are UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def _read_moves(conn: Connection, table_id: str) -> list[MoveRow]:
    return _moves_from(_fetch(conn), table_id)


def _moves_from(fetch: Fetch, table_id: str) -> list[MoveRow]:
    rows = fetch(_MOVES, {"table_id": table_id})
    return [MoveRow(r.ply, r.move, r.player, _aware(r.created_at), r.lag_ms or 0) for r in rows]


def _read_bot_tables(conn: Connection) -> list[str]:
    # The JSON column keeps a missing outcome as JSON null on some databases and SQL NULL on
    # others, so the running tables are picked out here rather than in SQL.
    # EXISTS rather than DISTINCT over a join: PostgreSQL cannot compare json values, so it
    # cannot DISTINCT a row holding the outcome.
    with_bot = sa.exists().where(seats.c.table_id == tables.c.id, seats.c.bot_level.is_not(None))
    rows = conn.execute(sa.select(tables.c.id, tables.c.outcome).where(with_bot))
    return [r.id for r in rows if r.outcome is None]


def _read_due(conn: Connection, now: datetime, limit: int) -> list[str]:
    rows = conn.execute(
        sa.select(tables.c.id)
        .where(tables.c.deadline.is_not(None), tables.c.deadline <= now)
        .order_by(tables.c.deadline)
        .limit(limit)
    )
    return [r.id for r in rows]


def _ping(conn: Connection) -> None:
    conn.execute(sa.text("SELECT 1"))


def _read_next_deadline(conn: Connection) -> datetime | None:
    return _aware(conn.execute(sa.select(sa.func.min(tables.c.deadline))).scalar())


def _push_key(table_id: str, player: str, endpoint: str) -> Any:
    c = push_subscriptions.c
    return sa.and_(c.table_id == table_id, c.player == player, c.endpoint == endpoint)


def _read_push(conn: Connection, table_id: str, player: Player) -> list[PushSubscription]:
    c = push_subscriptions.c
    rows = conn.execute(
        sa.select(c.endpoint, c.p256dh, c.auth, c.lang).where(
            c.table_id == table_id, c.player == player
        )
    )
    return [PushSubscription(r.endpoint, r.p256dh, r.auth, r.lang) for r in rows]


def _add_push(
    conn: Connection, table_id: str, player: Player, sub: PushSubscription, keep: int
) -> None:
    conn.execute(sa.delete(push_subscriptions).where(_push_key(table_id, player, sub.endpoint)))
    conn.execute(
        sa.insert(push_subscriptions).values(
            table_id=table_id,
            player=player,
            endpoint=sub.endpoint,
            p256dh=sub.p256dh,
            auth=sub.auth,
            lang=sub.lang,
            created_at=_now(),
        )
    )
    c = push_subscriptions.c
    older = conn.execute(
        sa.select(c.endpoint)
        .where(c.table_id == table_id, c.player == player, c.endpoint != sub.endpoint)
        .order_by(c.created_at.desc())
        .offset(max(0, keep - 1))
    ).scalars()
    for endpoint in list(older):
        conn.execute(sa.delete(push_subscriptions).where(_push_key(table_id, player, endpoint)))


def _remove_push(conn: Connection, table_id: str, player: Player, endpoint: str) -> bool:
    deleted = conn.execute(
        sa.delete(push_subscriptions).where(_push_key(table_id, player, endpoint))
    )
    return bool(deleted.rowcount)


def _read_analysis(conn: Connection, table_id: str, digests: list[str]) -> dict[int, int]:
    points = _read_points(conn, table_id, digests)
    return {ply: p.red_margin for ply, p in points.items() if p.proved and p.red_margin is not None}


def _read_points(conn: Connection, table_id: str, digests: list[str]) -> dict[int, AnalysisPoint]:
    c = analysis_values.c
    rows = conn.execute(
        sa.select(c.ply, c.moves_hash, c.red_margin, c.red_share, c.proved).where(
            c.table_id == table_id, c.ply < len(digests)
        )
    )
    return {
        r.ply: AnalysisPoint(bool(r.proved), red_margin=r.red_margin, red_share=r.red_share)
        for r in rows
        if r.moves_hash == digests[r.ply]
    }


_ANALYSIS_BATCH = 200  # rows per statement: far below SQLite's limit of bound parameters


def _save_analysis(conn: Connection, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), _ANALYSIS_BATCH):
        chunk = rows[start : start + _ANALYSIS_BATCH]
        # Both dialects spell the upsert INSERT ... ON CONFLICT; SQLAlchemy builds it for each.
        statement: postgresql.Insert | sqlite.Insert
        if conn.dialect.name == "postgresql":
            statement = postgresql.insert(analysis_values).values(chunk)
        elif conn.dialect.name == "sqlite":
            statement = sqlite.insert(analysis_values).values(chunk)
        else:
            raise NotImplementedError(f"no upsert for {conn.dialect.name}")
        new = statement.excluded
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=[analysis_values.c.table_id, analysis_values.c.ply],
                set_={
                    "moves_hash": new.moves_hash,
                    "red_margin": new.red_margin,
                    "red_share": new.red_share,
                    "proved": new.proved,
                    "solved_at": new.solved_at,
                },
                # The same position solved twice (two processes at once) keeps its row; a
                # row left by other moves at this ply (a take-back) is replaced, and so is
                # an estimate by a proof.
                where=sa.or_(
                    analysis_values.c.moves_hash != new.moves_hash,
                    sa.and_(sa.not_(analysis_values.c.proved), new.proved),
                ),
            )
        )


def _insert_table(conn: Connection, new: NewTable) -> None:
    now = new.created_at or _now()
    conn.execute(
        sa.insert(tables).values(
            id=new.id,
            game=new.game,
            options=dict(new.options),
            created_at=now,
            updated_at=now,
            version=0,
            outcome=None,
            invite_hash=new.invite_hash,
            offers=dict(new.offers),
            rematch_id=None,
            # Only for a clock: a table without one is written as before migration 0004.
            **(
                {"time_control": new.time_control, "deadline": new.deadline}
                if new.time_control != "-"
                else {}
            ),
        )
    )
    for player, token_hash in new.seats.items():
        conn.execute(
            sa.insert(seats).values(
                table_id=new.id,
                player=player,
                token_hash=token_hash,
                created_at=now,
                bot_level=new.bots.get(player),
            )
        )


# Statements built once: building one per move (and its cache key) cost more than running it.
_INSERT_MOVE = moves.insert()


@functools.cache
def _compare_and_set(columns: frozenset[str]) -> sa.Update:
    """``UPDATE tables SET <columns> WHERE id = :id_ AND version = :version_`` (the version
    checked is one less than the new one, ``new_version``)."""
    return (
        sa.update(tables)
        .where(tables.c.id == sa.bindparam("id_"))
        .where(tables.c.version == sa.bindparam("new_version") - 1)
        .values({column: sa.bindparam(f"new_{column}") for column in sorted(columns)})
    )


def _one_statement(change: Change) -> bool:
    """Whether ``change`` is a move and nothing else a statement of its own must write."""
    return change.append is not None and (
        change.drop_ply is None
        and change.new_table is None
        and change.rematch_id is KEEP
        and change.seat is None
        and change.nickname is None
    )


def _table_values(version: int, change: Change, now: datetime) -> dict[str, Any]:
    """The ``tables`` columns ``change`` sets, the new version and its time included."""
    values: dict[str, Any] = {"version": version + 1, "updated_at": now}
    if change.deadline is not KEEP:
        values["deadline"] = change.deadline
    if change.outcome is not KEEP:
        values["outcome"] = change.outcome
        values["finished_at"] = now if change.outcome is not None else None
    if change.offers is not KEEP:
        values["offers"] = change.offers
    return values


def _move_statement(
    table_id: str, version: int, change: Change
) -> tuple[sa.Insert, dict[str, Any]]:
    """``WITH cas AS (UPDATE tables ... RETURNING id) INSERT INTO moves SELECT ... FROM cas``
    with its parameters: it inserts the move only if the compare-and-set matched a row."""
    assert change.append is not None
    now = change.at or _now()
    values = _table_values(version, change, now)
    params = {f"new_{column}": value for column, value in values.items()}
    move = change.append
    params.update(
        id_=table_id,
        m_ply=move.ply,
        m_move=move.move,
        m_player=move.player,
        m_at=move.at or now,
    )
    if move.lag_ms:
        params["m_lag"] = move.lag_ms
    return _cas_insert_move(frozenset(values), bool(move.lag_ms)), params


def _move_steps(table_id: str, version: int, change: Change) -> list[Step]:
    """A move's compare-and-set and its row as two statements, for the driver's connection
    (``raw_sqlite.RawWriter``): the same rows as ``_apply`` writes."""
    assert change.append is not None
    now = change.at or _now()
    values = _table_values(version, change, now)
    check = {f"new_{column}": value for column, value in values.items()}
    check["id_"] = table_id
    move = change.append
    row = {
        "m_table": table_id,
        "m_ply": move.ply,
        "m_move": move.move,
        "m_player": move.player,
        "m_at": move.at or now,
    }
    if move.lag_ms:
        row["m_lag"] = move.lag_ms
    return [(_compare_and_set(frozenset(values)), check), (_insert_move(bool(move.lag_ms)), row)]


@functools.cache
def _insert_move(lag: bool) -> sa.Insert:
    """The move's row with named parameters (the lag's column only when there is a lag)."""
    names = [("m_table", "table_id"), ("m_ply", "ply"), ("m_move", "move")]
    names += [("m_player", "player"), ("m_at", "created_at"), *([("m_lag", "lag_ms")] * lag)]
    return sa.insert(moves).values(
        {column: sa.bindparam(name, type_=moves.c[column].type) for name, column in names}
    )


@functools.cache
def _cas_insert_move(columns: frozenset[str], lag: bool) -> sa.Insert:
    # Without a lag the column is left out, as the plain insert does (a database still at
    # an older schema, being upgraded while in use, has no such column yet).
    cas = _compare_and_set(columns).returning(tables.c.id).cte("cas")
    fields = [cas.c.id] + [
        sa.bindparam(name, type_=moves.c[column].type)
        for name, column in [
            ("m_ply", "ply"),
            ("m_move", "move"),
            ("m_player", "player"),
            ("m_at", "created_at"),
            *([("m_lag", "lag_ms")] if lag else []),
        ]
    ]
    columns_of_row = ["table_id", "ply", "move", "player", "created_at"]
    return sa.insert(moves).from_select(columns_of_row + ["lag_ms"] * lag, sa.select(*fields))


def _apply_all(conn: Connection, batch: list[tuple[str, int, Change]]) -> list[bool]:
    return [_apply(conn, table_id, version, change) for table_id, version, change in batch]


def _apply(conn: Connection, table_id: str, version: int, change: Change) -> bool:
    """One change inside an open transaction; ``False``, having written nothing, if stale.

    The compare-and-set comes first, so a stale change stops before writing anything (and
    SQLite takes its write lock at once rather than failing to upgrade a read lock). Any
    failure after it means the data contradict themselves and must abort the transaction.
    """
    now = change.at or _now()
    values = _table_values(version, change, now)
    params = {f"new_{column}": value for column, value in values.items()}
    result = conn.execute(_compare_and_set(frozenset(values)), {"id_": table_id, **params})
    if result.rowcount != 1:
        return False
    if change.new_table is not None:
        _insert_table(conn, change.new_table)
    if change.rematch_id is not KEEP:
        # After the insert: the foreign key wants the new table to exist already.
        conn.execute(
            sa.update(tables).where(tables.c.id == table_id).values(rematch_id=change.rematch_id)
        )
    if change.drop_ply is not None:
        dropped = conn.execute(
            sa.delete(moves).where(moves.c.table_id == table_id, moves.c.ply >= change.drop_ply)
        )
        if dropped.rowcount < 1:
            raise _Conflict
    if change.append is not None:
        lag = {"lag_ms": change.append.lag_ms} if change.append.lag_ms else {}
        row = {
            "table_id": table_id,
            "ply": change.append.ply,
            "move": change.append.move,
            "player": change.append.player,
            "created_at": change.append.at or now,
            **lag,
        }
        conn.execute(_INSERT_MOVE, row)
    if change.seat is not None:
        player, token_hash = change.seat
        conn.execute(
            sa.insert(seats).values(
                table_id=table_id, player=player, token_hash=token_hash, created_at=now
            )
        )
    if change.nickname is not None:
        player, nickname = change.nickname
        named = conn.execute(
            sa.update(seats)
            .where(seats.c.table_id == table_id, seats.c.player == player)
            .values(nickname=nickname)
        )
        if named.rowcount != 1:
            raise _Conflict
    return True
