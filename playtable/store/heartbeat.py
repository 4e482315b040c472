"""The site's heartbeat (``tables/downtime.py``) and the tables whose clocks run, each a
function of a SQLAlchemy ``Connection`` run in one transaction."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.store.schema import site_heartbeat, tables


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive UTC times."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def beat(conn: Connection, now: datetime) -> datetime | None:
    """Set the heartbeat to ``now`` (never back in time); the one it replaced. The row is
    locked while read (on PostgreSQL), so of processes starting together one only finds the
    old beat: the others find its fresh one."""
    c = site_heartbeat.c
    previous = _aware(
        conn.execute(sa.select(c.at).where(c.id == 1).with_for_update()).scalar_one_or_none()
    )
    if previous is None:
        conn.execute(sa.insert(site_heartbeat).values(id=1, at=now))
    elif previous < now:
        conn.execute(sa.update(site_heartbeat).where(c.id == 1).values(at=now))
    return previous


def read_clocked(conn: Connection) -> list[str]:
    """Ids of the tables with a deadline: a clock runs or a first move is due."""
    rows = conn.execute(sa.select(tables.c.id).where(tables.c.deadline.is_not(None)))
    return [r.id for r in rows]
