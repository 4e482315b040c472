"""Time the site was down is nobody's thinking time.

A clock here is derived from the moves' commit times (:mod:`playtable.tables.clocks`), so a
server that stops and starts again would charge the side to move for every second it was
away, and its sweep would end at once, on time, a game whose player could not even connect.

So every process renews the site's heartbeat in the store every :data:`BEAT_S` seconds, and
once more as it stops (:class:`~playtable.tables.sweep.Sweep` does). A process that starts
and finds the heartbeat older than :data:`OUTAGE_S` knows the whole site was down since
then, and records that outage in the same transaction as its new beat (the store locks the
row while it reads it: of processes starting together one only finds the old beat, and one
that dies before its commit leaves it to the next). Every process loads the outages as it
starts, before its first request and its first sweep (none was running during one, so none
has to learn of it later), and the clocks leave them out of every stretch
(:func:`paused`): from the moment the site is back, each side has
what it had when it went down, and no table needs to be written for it.

A restart shorter than that would be charged to the clocks running (an operator restarting
the only process: 1 to 4 s off every game). So the beat a process writes as it stops marks
the heartbeat as a stop, and each process keeps a row of its own among the running ones,
renewed with its every beat and removed by that last one. A process that starts and finds
the mark (no beat since that stop) and no other process that beat within :data:`OUTAGE_S`
knows the last process stopped then and none ran since: it records the outage from that
stop, however short. While another process of the site runs, the site was not down: its row
is fresh, so a process that restarts beside it records nothing, mark or not, and its next
beat clears the mark. A crash leaves no mark, and only a heartbeat older than
:data:`OUTAGE_S` says the site was down.

The database can also be away while the processes run (a restart, a network cut, a read-only
disk): no move can be stored then, and no process's beat either. The first beat that
succeeds after it finds the heartbeat older than :data:`OUTAGE_S` and records that outage
the same way; the other processes load the outages again at every beat. The heartbeat is a
loop of its own, so only an absent database (or a process frozen whole) makes it late, never
a long sweep. And before any clock is judged out of time (by the sweep or at a move), a
process whose own last beat is older than an outage beats first
(:meth:`~playtable.tables.sweep.Sweep.confirm_outages`): the first move or sweep after the
database comes back already knows the time it was away.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

#: Seconds between two heartbeats of a process.
BEAT_S = 2.0
#: A heartbeat older than this means the site was down since (or the database away); and a
#: process's row that beat within it means that process runs.
OUTAGE_S = 3 * BEAT_S

Outages = tuple[tuple[datetime, datetime], ...]

#: The whole site's outages, ``(down, up)`` in order: no clock runs through one. Recorded by
#: the first beat after one, loaded by every process as it
#: starts and at every beat. The same object while they do not change.
_OUTAGES: Outages = ()


def set_outages(outages: Sequence[tuple[datetime, datetime]]) -> None:
    global _OUTAGES
    loaded = tuple((utc(down), utc(up)) for down, up in outages)
    if loaded != _OUTAGES:
        _OUTAGES = loaded


def outages() -> Outages:
    """The outages known here (a table's clocks derived with others are derived again)."""
    return _OUTAGES


def paused(start: datetime, end: datetime | None = None) -> float:
    """Seconds the whole site was down between ``start`` and ``end`` (``None``: from
    ``start`` on)."""
    total = 0.0
    for down, up in _OUTAGES:
        low, high = max(start, down), up if end is None else min(end, up)
        if high > low:
            total += (high - low).total_seconds()
    return total


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC time (SQLite gives back naive UTC times)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


async def none_learnt() -> bool:
    """A service without a sweep learns no outage (``TableService.confirm_outages``)."""
    return False


__all__ = [
    "BEAT_S",
    "OUTAGE_S",
    "Outages",
    "none_learnt",
    "outages",
    "paused",
    "set_outages",
    "utc",
]
