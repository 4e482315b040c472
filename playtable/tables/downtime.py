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
(:func:`~playtable.tables.clocks.paused`): from the moment the site is back, each side has
what it had when it went down, and no table needs to be written for it.

While another process of the site runs, the site was not down: a process that restarts
alone finds a fresh heartbeat and records nothing.
"""

from __future__ import annotations

#: Seconds between two heartbeats of a process.
BEAT_S = 2.0
#: A heartbeat older than this, found at start, means the site was down since.
OUTAGE_S = 3 * BEAT_S

__all__ = ["BEAT_S", "OUTAGE_S"]
