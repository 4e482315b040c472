"""Housekeeping: the tables nobody ever played, removed after a while.

Every visit of the home page can create a table, a link preview or a change of mind leaves
it unplayed, and nothing else ever removes one: without this the database only grows. A
table is removed when it was created before ``before``, holds no move, and either never
ended or was aborted (a game resigned before its first move is a result, and stays), and no
other table names it as its rematch (the finished game's page links to it). Its seats,
analysis values and push subscriptions go with it (their foreign keys cascade). Games with
a move are never removed: they are the records players come back to.

Each function takes a SQLAlchemy ``Connection`` and runs in the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.store.schema import moves, tables

# Deleted this many at a time, so that SQLite's one writer is never held for long.
BATCH = 500


def _unplayed(before: datetime) -> sa.Select[Any]:
    t = tables.c
    reason = t.outcome["reason"].as_string()  # none for a game not over (SQL or JSON null)
    rematches = sa.select(tables.c.rematch_id).where(tables.c.rematch_id.is_not(None))
    return (
        sa.select(t.id)
        .where(t.created_at < before)
        .where(~sa.exists().where(moves.c.table_id == t.id))
        .where(sa.or_(reason.is_(None), reason == "aborted"))
        .where(t.id.not_in(rematches.scalar_subquery()))
        .order_by(t.created_at)
    )


def unplayed(conn: Connection, before: datetime) -> list[str]:
    """The ids of the tables :func:`remove_unplayed` would remove, oldest first."""
    return [str(id_) for id_ in conn.execute(_unplayed(before)).scalars()]


def remove_unplayed(conn: Connection, before: datetime, limit: int = BATCH) -> list[str]:
    """Remove up to ``limit`` of the unplayed tables created before ``before`` (oldest
    first); their ids. Call again until it returns fewer than ``limit``."""
    ids = [str(id_) for id_ in conn.execute(_unplayed(before).limit(limit)).scalars()]
    if ids:
        conn.execute(sa.delete(tables).where(tables.c.id.in_(ids)))
    return ids


__all__ = ["BATCH", "remove_unplayed", "unplayed"]
