"""The store: the only truth about tables, seats and moves.

Every change to a table is one transaction guarded by a compare-and-set on ``tables.version``
and, for a move, by the unique key ``(table_id, ply)``: of two writers that both read version N,
whichever server process they run in, exactly one commits and the other is told so (``False``)
and must re-read. Nothing here knows the rules of any game; the table service does.
"""

from __future__ import annotations

import enum
import importlib.resources
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from playtable.store.schema import moves, seats, tables

DEFAULT_URL = "sqlite+aiosqlite:///var/playtable.sqlite3"


class Keep(enum.Enum):
    """Marks a field of :class:`Change` that stays as it is."""

    KEEP = 0


KEEP = Keep.KEEP


@dataclass(frozen=True, slots=True)
class NewTable:
    id: str
    game: str
    options: Mapping[str, Any]
    invite_hash: str
    seats: Mapping[str, str]  # player -> token hash
    offers: Mapping[str, Any] = field(default_factory=dict)


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
    seats: dict[str, str]  # player -> token hash


@dataclass(frozen=True, slots=True)
class MoveRow:
    ply: int
    move: str
    player: str


@dataclass(frozen=True, slots=True)
class Change:
    """One atomic change of a table; it bumps the version by one."""

    append: MoveRow | None = None  # a move played at ``append.ply`` (the current ply)
    drop_ply: int | None = None  # take back the move at this ply (the last one)
    outcome: dict[str, Any] | Keep | None = KEEP
    offers: dict[str, Any] | Keep = KEEP
    rematch_id: str | Keep = KEEP
    seat: tuple[str, str] | None = None  # (player, token hash) of a newly taken seat
    new_table: NewTable | None = None  # created in the same transaction (a rematch)


def migrations_config(connection: Connection | None = None) -> Config:
    """The Alembic configuration, found inside the installed package."""
    ini = importlib.resources.files("playtable.store") / "alembic.ini"
    with importlib.resources.as_file(ini) as path:
        config = Config(str(path))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


async def upgrade(target: str | AsyncEngine) -> None:
    """Bring the database at ``target`` (a URL or an engine) to the newest schema."""
    engine = create_engine(target) if isinstance(target, str) else target
    try:
        async with engine.connect() as connection:
            await connection.run_sync(lambda sync: command.upgrade(migrations_config(sync), "head"))
            await connection.commit()
    finally:
        if isinstance(target, str):
            await engine.dispose()


def create_engine(url: str) -> AsyncEngine:
    """An async engine for ``url``; SQLite gets WAL, foreign keys and full fsync on commit."""
    parsed = sa.make_url(url)
    sqlite = parsed.get_backend_name() == "sqlite"
    kwargs: dict[str, Any] = {}
    if sqlite and parsed.database in (None, "", ":memory:"):
        # One shared connection, or every checkout would see its own empty database.
        kwargs["poolclass"] = StaticPool
    if sqlite:
        kwargs["connect_args"] = {"timeout": 30}
    engine = create_async_engine(parsed, **kwargs)
    if sqlite:

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            # FULL: a move that was acknowledged survives even a power cut, not only a crash.
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

    return engine


def _now() -> datetime:
    return datetime.now(UTC)


class Store:
    """Tables, seats and moves in any database SQLAlchemy reaches asynchronously."""

    def __init__(self, url: str = DEFAULT_URL) -> None:
        self.url = url
        self.engine = create_engine(url)

    async def open(self) -> None:
        """Create the SQLite file's folder if needed and upgrade the schema; call once first."""
        parsed = sa.make_url(self.url)
        if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        await upgrade(self.engine)

    async def close(self) -> None:
        await self.engine.dispose()

    # -- reading ----------------------------------------------------------------------------
    async def table(self, table_id: str) -> TableRow | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(tables).where(tables.c.id == table_id))).first()
            if row is None:
                return None
            seat_rows = await conn.execute(
                sa.select(seats.c.player, seats.c.token_hash).where(seats.c.table_id == table_id)
            )
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
            )

    async def moves(self, table_id: str) -> list[MoveRow]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(moves.c.ply, moves.c.move, moves.c.player)
                .where(moves.c.table_id == table_id)
                .order_by(moves.c.ply)
            )
            return [MoveRow(r.ply, r.move, r.player) for r in rows]

    # -- writing ----------------------------------------------------------------------------
    async def create_table(self, new: NewTable) -> bool:
        """Insert a table and its seats; ``False`` if the id is already taken."""
        try:
            async with self.engine.begin() as conn:
                await self._insert_table(conn, new)
        except sa.exc.IntegrityError:
            return False
        return True

    async def update(self, table_id: str, version: int, change: Change) -> bool:
        """Apply ``change`` if the table is still at ``version``; ``False`` if it is not.

        Returns only once the change is committed, so an acknowledged move is never lost.
        """
        now = _now()
        values: dict[str, Any] = {"version": version + 1, "updated_at": now}
        if change.outcome is not KEEP:
            values["outcome"] = change.outcome
            values["finished_at"] = now if change.outcome is not None else None
        if change.offers is not KEEP:
            values["offers"] = change.offers
        if change.rematch_id is not KEEP:
            values["rematch_id"] = change.rematch_id
        try:
            async with self.engine.begin() as conn:
                if change.new_table is not None:
                    await self._insert_table(conn, change.new_table)
                # The write comes first in the transaction so SQLite takes its write lock at
                # once (waiting politely) instead of failing to upgrade a read lock later.
                result = await conn.execute(
                    sa.update(tables)
                    .where(tables.c.id == table_id, tables.c.version == version)
                    .values(**values)
                )
                if result.rowcount != 1:
                    raise _Conflict
                if change.drop_ply is not None:
                    dropped = await conn.execute(
                        sa.delete(moves).where(
                            moves.c.table_id == table_id, moves.c.ply == change.drop_ply
                        )
                    )
                    if dropped.rowcount != 1:
                        raise _Conflict
                if change.append is not None:
                    await conn.execute(
                        sa.insert(moves).values(
                            table_id=table_id,
                            ply=change.append.ply,
                            move=change.append.move,
                            player=change.append.player,
                            created_at=now,
                        )
                    )
                if change.seat is not None:
                    player, token_hash = change.seat
                    await conn.execute(
                        sa.insert(seats).values(
                            table_id=table_id, player=player, token_hash=token_hash, created_at=now
                        )
                    )
        except (_Conflict, sa.exc.IntegrityError):
            return False
        return True

    async def _insert_table(self, conn: AsyncConnection, new: NewTable) -> None:
        now = _now()
        await conn.execute(
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
            )
        )
        for player, token_hash in new.seats.items():
            await conn.execute(
                sa.insert(seats).values(
                    table_id=new.id, player=player, token_hash=token_hash, created_at=now
                )
            )


class _Conflict(Exception):
    """Someone else changed the table first; the transaction is rolled back."""
