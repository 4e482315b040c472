"""The site's heartbeat and its outages (``tables/downtime.py``), each a function of a
SQLAlchemy ``Connection`` run in one transaction."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.store.schema import site_heartbeat, site_outages


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive UTC times."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def beat(conn: Connection, now: datetime, outage_s: float) -> tuple[datetime, datetime] | None:
    """Set the heartbeat to ``now`` (never back in time). If it was older than
    ``outage_s``, the whole site was down since: the outage is recorded, in this same
    transaction, and returned. The row is locked while read (on PostgreSQL), so of processes
    starting together one only finds the old beat (the others find its fresh one), and a
    process that dies here records nothing and leaves the old beat to the next."""
    c = site_heartbeat.c
    previous = _aware(
        conn.execute(sa.select(c.at).where(c.id == 1).with_for_update()).scalar_one_or_none()
    )
    if previous is None:
        conn.execute(sa.insert(site_heartbeat).values(id=1, at=now))
        return None
    if previous >= now:
        return None
    conn.execute(sa.update(site_heartbeat).where(c.id == 1).values(at=now))
    if (now - previous).total_seconds() <= outage_s:
        return None
    conn.execute(sa.insert(site_outages).values(down_at=previous, up_at=now))
    return previous, now


#: The beat of :func:`beat` as one PostgreSQL statement: the row locked, renewed, and an
#: outage recorded, or the first beat written, all or nothing.
_BEAT_AT_ONCE = sa.text(
    """
    WITH previous AS (
        SELECT at FROM site_heartbeat WHERE id = 1 FOR UPDATE
    ), renewed AS (
        UPDATE site_heartbeat SET at = :now FROM previous
        WHERE site_heartbeat.id = 1 AND previous.at < :now
        RETURNING previous.at AS down_at
    ), recorded AS (
        INSERT INTO site_outages (down_at, up_at)
        SELECT down_at, :now FROM renewed
        WHERE down_at < :now - make_interval(secs => :outage_s)
        RETURNING down_at, up_at
    ), first AS (
        INSERT INTO site_heartbeat (id, at)
        SELECT 1, :now WHERE NOT EXISTS (SELECT 1 FROM previous)
        ON CONFLICT (id) DO NOTHING
    )
    SELECT down_at, up_at FROM recorded
    """
).bindparams(
    sa.bindparam("now", type_=sa.DateTime(timezone=True)),
    sa.bindparam("outage_s", type_=sa.Float),
)


def beat_at_once(
    conn: Connection, now: datetime, outage_s: float
) -> tuple[datetime, datetime] | None:
    """:func:`beat` on PostgreSQL, as one statement run outside any transaction (the caller's
    connection commits each statement): the row is locked only while the database runs it.
    A process stopped half-way through a beat of several statements (SIGSTOP, a debugger, a
    frozen VM) held it, and every other process's beat waited; the first beat after that
    found the heartbeat old and recorded an outage while moves were being served (a review).
    Now whatever becomes of the process, its beat is done or not done."""
    row = conn.execute(_BEAT_AT_ONCE, {"now": now, "outage_s": min(outage_s, 1e9)}).first()
    return None if row is None else (row.down_at, row.up_at)


def read_outages(conn: Connection) -> list[tuple[datetime, datetime]]:
    c = site_outages.c
    rows = conn.execute(sa.select(c.down_at, c.up_at).order_by(c.down_at))
    return [(_aware(r.down_at), _aware(r.up_at)) for r in rows]  # type: ignore[misc]
