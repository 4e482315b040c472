"""The store's reads: plain functions of a SQLAlchemy ``Connection`` (or of the raw reader's
rows, ``raw_read.py``), each run in one transaction or on one connection."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.store.rows import MoveRow, TableRow
from playtable.store.schema import moves, seats, tables

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


def read_table(conn: Connection, table_id: str) -> TableRow | None:
    return table_from(_fetch(conn), table_id)


def table_from(fetch: Fetch, table_id: str) -> TableRow | None:
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


def read_moves(conn: Connection, table_id: str) -> list[MoveRow]:
    return moves_from(_fetch(conn), table_id)


def moves_from(fetch: Fetch, table_id: str) -> list[MoveRow]:
    rows = fetch(_MOVES, {"table_id": table_id})
    return [MoveRow(r.ply, r.move, r.player, _aware(r.created_at), r.lag_ms or 0) for r in rows]


def read_rematch_ids(conn: Connection, table_ids: Sequence[str]) -> dict[str, str]:
    """The rematch of each of ``table_ids`` that has one (by primary key, one statement)."""
    if not table_ids:
        return {}
    rows = conn.execute(
        sa.select(tables.c.id, tables.c.rematch_id).where(
            tables.c.id.in_(list(table_ids)), tables.c.rematch_id.is_not(None)
        )
    )
    return {r.id: r.rematch_id for r in rows}


def read_bot_tables(conn: Connection) -> list[str]:
    # The JSON column keeps a missing outcome as JSON null on some databases and SQL NULL on
    # others, so the running tables are picked out here rather than in SQL.
    # EXISTS rather than DISTINCT over a join: PostgreSQL cannot compare json values, so it
    # cannot DISTINCT a row holding the outcome.
    with_bot = sa.exists().where(seats.c.table_id == tables.c.id, seats.c.bot_level.is_not(None))
    rows = conn.execute(sa.select(tables.c.id, tables.c.outcome).where(with_bot))
    return [r.id for r in rows if r.outcome is None]


def read_due(conn: Connection, now: datetime, limit: int) -> list[str]:
    rows = conn.execute(
        sa.select(tables.c.id)
        .where(tables.c.deadline.is_not(None), tables.c.deadline <= now)
        .order_by(tables.c.deadline)
        .limit(limit)
    )
    return [r.id for r in rows]


def select_one(conn: Connection) -> None:
    conn.execute(sa.text("SELECT 1"))


def read_next_deadline(conn: Connection) -> datetime | None:
    return _aware(conn.execute(sa.select(sa.func.min(tables.c.deadline))).scalar())
