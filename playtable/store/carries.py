"""The carries of a browser's seats to another device (web/carry.py): kept, read and taken,
each a function of a SQLAlchemy ``Connection`` run in one transaction. What is kept is
sealed; the store never sees a seat key."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.store.schema import carries


def add_carry(
    conn: Connection, code_hash: str, sealed: str, expires_at: datetime, now: datetime
) -> None:
    """Keep a carry until ``expires_at``; the expired ones go (by their index)."""
    conn.execute(sa.delete(carries).where(carries.c.expires_at <= now))
    conn.execute(
        sa.insert(carries).values(code_hash=code_hash, sealed=sealed, expires_at=expires_at)
    )


def read_carry(conn: Connection, code_hash: str, now: datetime) -> str | None:
    """The sealed seats of a carry not yet taken nor expired."""
    row = conn.execute(
        sa.select(carries.c.sealed, carries.c.expires_at).where(carries.c.code_hash == code_hash)
    ).first()
    if row is None:
        return None
    expires: datetime = row.expires_at
    if expires.tzinfo is None:  # SQLite gives back naive times: they are UTC
        expires = expires.replace(tzinfo=UTC)
    if expires <= now:
        return None
    return str(row.sealed)


def take_carry(
    conn: Connection, code_hash: str, now: datetime, kept_as: str | None = None
) -> str | None:
    """The sealed seats of a carry, taken: of two takes at once, one gets them (the
    statement's row count decides), the other ``None``, as for an expired one. Kept on under
    ``kept_as`` until it expires, if given: the browser that took it (a hash of the code and
    of that browser's own secret) finds it again there, pressing the button twice or going
    back to the link; anyone else, not."""
    sealed = read_carry(conn, code_hash, now)
    if sealed is None:
        return None
    mine = carries.c.code_hash == code_hash
    taken = conn.execute(
        sa.delete(carries).where(mine)
        if kept_as is None
        else sa.update(carries).where(mine).values(code_hash=kept_as)
    )
    return sealed if taken.rowcount == 1 else None


__all__ = ["add_carry", "read_carry", "take_carry"]
