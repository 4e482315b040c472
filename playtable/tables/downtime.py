"""Time the site was down is nobody's thinking time.

A clock here is derived from the moves' commit times (:mod:`playtable.tables.clocks`), so a
server that stops and starts again would charge the side to move for every second it was
away, and its sweep would end at once, on time, a game whose player could not even connect.

So every process renews the site's heartbeat in the store every :data:`BEAT_S` seconds, and
once more as it stops (:class:`~playtable.tables.sweep.Sweep` does). A process that starts
and finds the heartbeat older than :data:`OUTAGE_S` knows the whole site was down since
then: before its sweep looks at any deadline, it gives each running clock back that time as
a restart of the clocks (:class:`~playtable.tables.clocks.Restart`): from the moment the site
is back, each side has what it had when the site went down. One process only finds the old
heartbeat (the store locks it while it reads), and a table given its time already is not
given it twice.

While another process of the site runs, the site was not down: a process that restarts
alone finds a fresh heartbeat and gives nothing.
"""

from __future__ import annotations

from datetime import datetime

from playtable.games import PLAYERS, Player
from playtable.tables import clocks
from playtable.tables.decisions import Decision, decided
from playtable.tables.table import LoadedTable

#: Seconds between two heartbeats of a process.
BEAT_S = 2.0
#: A heartbeat older than this, found at start, means the site was down since.
OUTAGE_S = 3 * BEAT_S


def give_back(table: LoadedTable, down: datetime, up: datetime) -> Decision | None:
    """The restart that gives ``table``'s clocks back the time from ``down`` to ``up``, or
    ``None``: no clock running then (a game over, a free seat, a table made since), or the
    time given already."""
    if table.outcome() is not None:
        return None
    timing = table.clocks()
    if timing.deadline is None or timing.waiting_for is None or timing.deadline <= down:
        return None  # nothing running, or overdue before the site went down
    if any(restart.at >= up for restart in table.offers.restarts):
        return None
    if timing.since is not None and timing.since >= up:
        return None  # its clock started after the site was back
    left: dict[Player, float] = {}
    for player in PLAYERS:
        remaining = timing.remaining(player, down)
        if remaining is not None:
            left[player] = round(remaining, 3)
    if isinstance(timing.control, clocks.Correspondence):
        left = {timing.waiting_for: left.get(timing.waiting_for, 0.0)}
    restart = clocks.Restart(table.ply, clocks.utc(up), left)
    return decided(table, (), offers=table.offers.restarted(restart))


__all__ = ["BEAT_S", "OUTAGE_S", "give_back"]
