"""The site's heartbeat and its outages (``tables/downtime.py``), each a function of a
SQLAlchemy ``Connection`` run in one transaction.

A beat renews ``site_heartbeat.at`` and, with the id of the process that beats, its row in
``site_processes``. The beat a process writes as it stops (``stopping``) marks the heartbeat
(``stopped_at = at``) and removes the process's row; any later beat clears the mark. The
first beat of a process (``starting``) that finds the mark, and no other process that beat
within an outage, knows that the last process stopped then and none ran since: it records
that outage, however short. Older than an outage, the heartbeat means the same, as before
(a crash, or the database away)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.store.schema import site_heartbeat, site_outages, site_processes

#: A process's row silent for this many outages is a crashed process's, and is removed.
FORGET = 10


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive UTC times."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def beat(
    conn: Connection,
    now: datetime,
    outage_s: float,
    process: str | None = None,
    starting: bool = False,
    stopping: bool = False,
) -> tuple[datetime, datetime] | None:
    """Set the heartbeat to ``now`` (never back in time), and ``process``'s row (removed if
    ``stopping``, which marks the heartbeat as a stop). If the heartbeat was older than
    ``outage_s``, or (``starting``) a stop's mark with no other process alive, the whole site
    was down since: the outage is recorded, in this same transaction, and returned. The row
    is locked while read (on PostgreSQL), so of processes starting together one only finds
    the old beat (the others find its fresh one), and a process that dies here records
    nothing and leaves the old beat to the next. (SQLite reads outside the transaction: two
    processes that both find it record the same outage, whose key lets one commit.)"""
    c, p = site_heartbeat.c, site_processes.c
    outage_s = min(outage_s, 1e9)
    row = conn.execute(sa.select(c.at, c.stopped_at).where(c.id == 1).with_for_update()).first()
    alive = False
    if starting and row is not None and row.stopped_at == row.at:
        alive = (
            conn.execute(
                sa.select(p.id)
                .where(p.beat_at > now - timedelta(seconds=outage_s))
                .where(sa.true() if process is None else p.id != process)
                .limit(1)
            ).first()
            is not None
        )
    if process is not None:
        if stopping:
            conn.execute(sa.delete(site_processes).where(p.id == process))
        elif not conn.execute(
            sa.update(site_processes).where(p.id == process).values(beat_at=now)
        ).rowcount:
            conn.execute(sa.insert(site_processes).values(id=process, beat_at=now))
    forgotten = p.beat_at < now - timedelta(seconds=FORGET * outage_s)
    conn.execute(
        sa.delete(site_processes).where(
            forgotten if process is None else sa.and_(forgotten, p.id != process)
        )
    )
    mark = now if stopping else None
    if row is None:
        conn.execute(sa.insert(site_heartbeat).values(id=1, at=now, stopped_at=mark))
        return None
    previous = _aware(row.at)
    assert previous is not None
    if previous > now or (previous == now and not stopping):
        return None  # a stop at the very moment of the last beat is still marked
    conn.execute(sa.update(site_heartbeat).where(c.id == 1).values(at=now, stopped_at=mark))
    stopped = starting and row.stopped_at == row.at and not alive
    if (now - previous).total_seconds() <= outage_s and not stopped:
        return None
    conn.execute(sa.insert(site_outages).values(down_at=previous, up_at=now))
    return previous, now


#: The beat of :func:`beat` as one PostgreSQL statement: the row locked, renewed, an outage
#: recorded, or the first beat written, and the process's row renewed (or removed), all or
#: nothing.
_BEAT_AT_ONCE = sa.text(
    """
    WITH previous AS (
        SELECT at, stopped_at FROM site_heartbeat WHERE id = 1 FOR UPDATE
    ), others AS (
        SELECT 1 FROM site_processes
        WHERE id IS DISTINCT FROM :process
          AND beat_at > :now - make_interval(secs => :outage_s)
    ), renewed AS (
        UPDATE site_heartbeat
        SET at = :now, stopped_at = CASE WHEN :stopping THEN :now END
        FROM previous
        WHERE site_heartbeat.id = 1
          AND (previous.at < :now OR (:stopping AND previous.at = :now))
        RETURNING previous.at AS down_at,
                  previous.stopped_at IS NOT DISTINCT FROM previous.at AS marked
    ), recorded AS (
        INSERT INTO site_outages (down_at, up_at)
        SELECT down_at, :now FROM renewed
        WHERE down_at < :now - make_interval(secs => :outage_s)
           OR (:starting AND marked AND NOT EXISTS (SELECT 1 FROM others))
        RETURNING down_at, up_at
    ), first AS (
        INSERT INTO site_heartbeat (id, at, stopped_at)
        SELECT 1, :now, CASE WHEN :stopping THEN :now END
        WHERE NOT EXISTS (SELECT 1 FROM previous)
        ON CONFLICT (id) DO NOTHING
    ), mine AS (
        INSERT INTO site_processes (id, beat_at)
        SELECT :process, :now WHERE :process IS NOT NULL AND NOT :stopping
        ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at
    ), gone AS (
        DELETE FROM site_processes
        WHERE (:stopping AND id = :process)
           OR (id IS DISTINCT FROM :process
               AND beat_at < :now - make_interval(secs => :forget * :outage_s))
    )
    SELECT down_at, up_at FROM recorded
    """
).bindparams(
    sa.bindparam("now", type_=sa.DateTime(timezone=True)),
    sa.bindparam("outage_s", type_=sa.Float),
    sa.bindparam("process", type_=sa.String),
    sa.bindparam("starting", type_=sa.Boolean),
    sa.bindparam("stopping", type_=sa.Boolean),
    sa.bindparam("forget", type_=sa.Float),
)


def beat_at_once(
    conn: Connection,
    now: datetime,
    outage_s: float,
    process: str | None = None,
    starting: bool = False,
    stopping: bool = False,
) -> tuple[datetime, datetime] | None:
    """:func:`beat` on PostgreSQL, as one statement run outside any transaction (the caller's
    connection commits each statement): the row is locked only while the database runs it.
    A process stopped half-way through a beat of several statements (SIGSTOP, a debugger, a
    frozen VM) held it, and every other process's beat waited; the first beat after that
    found the heartbeat old and recorded an outage while moves were being served (a review).
    Now whatever becomes of the process, its beat is done or not done.

    The other processes are read as the statement began: one that started while this one
    waited for the row finds the heartbeat renewed (no mark), so nothing is recorded."""
    values = {
        "now": now,
        "outage_s": min(outage_s, 1e9),
        "process": process,
        "starting": starting,
        "stopping": stopping,
        "forget": float(FORGET),
    }
    row = conn.execute(_BEAT_AT_ONCE, values).first()
    return None if row is None else (row.down_at, row.up_at)


def read_outages(conn: Connection) -> list[tuple[datetime, datetime]]:
    c = site_outages.c
    rows = conn.execute(sa.select(c.down_at, c.up_at).order_by(c.down_at))
    return [(_aware(r.down_at), _aware(r.up_at)) for r in rows]  # type: ignore[misc]
