"""The take-back: who may ask for one, what it takes back, and where the clocks start again
when it is allowed (:class:`clocks.Restart`). Decisions as in :mod:`playtable.tables.decisions`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

from playtable.games import PLAYERS, Player, other
from playtable.tables import errors
from playtable.tables.clocks import Clocks, RealTime, Restart, Unlimited, utc
from playtable.tables.decisions import (
    Decision,
    decided,
    out_of_time,
    require_opponent,
    require_running,
    require_seat,
)
from playtable.tables.errors import Illegal, NoOffer
from playtable.tables.events import Kind, TableEvent, UndoEvent
from playtable.tables.table import Actor, LoadedTable


def restart_at(
    clocks: Clocks,
    ply: int,
    now: datetime | None,
    movers: Sequence[Player],
    to_move: Player | None,
) -> Restart | None:
    """The restart of a take-back to ``ply`` allowed at ``now``; None without a clock (or
    without a moment).

    ``movers`` played the moves so far and ``to_move`` moves next. Each side keeps the time
    it has, less the increments the moves taken back had earned it: else playing a move and
    taking it back (the computer always allows it) would add an increment a time, and the
    first move taken back would leave more than the base time."""
    control = clocks.control
    if isinstance(control, Unlimited) or now is None:
        return None
    left: dict[Player, float] = {}
    if isinstance(control, RealTime):
        left = {p: clocks.remaining(p, now) or 0.0 for p in PLAYERS}
        for index in range(ply, len(movers)):
            following = movers[index + 1] if index + 1 < len(movers) else to_move
            if following is not None and following != movers[index]:
                left[movers[index]] -= control.increment_s
        left = {p: round(max(0.0, value), 3) for p, value in left.items()}
    return Restart(ply, utc(now), left)


def undo_start(table: LoadedTable, player: Player) -> int | None:
    """The first ply a take-back by ``player`` would remove, or ``None`` if none is possible.

    Between people only the requester's own last move, right after playing it. Against the
    computer, whose answer comes at once, the requester's last move and every reply after it.
    """
    if not table.moves:
        return None
    if table.moves[-1].player == player:
        return table.ply - 1
    if other(player) not in table.bots:
        return None
    for index in range(table.ply - 1, -1, -1):
        if table.moves[index].player == player:
            return index
    return None


def request_undo(table: LoadedTable, actor: Actor, now: datetime | None = None) -> Decision:
    player = require_seat(table, actor)
    require_running(table)
    if (late := out_of_time(table, now)) is not None:
        return late
    require_opponent(table, player)
    if undo_start(table, player) is None:
        raise Illegal(
            errors.UNDO_NOT_YOURS,
            version=table.version,
        )
    if table.offers.undo == player:
        raise Illegal(errors.UNDO_ALREADY_ASKED, version=table.version)
    if table.offers.undo_declined == player:
        raise Illegal(errors.UNDO_DECLINED, version=table.version)
    return decided(
        table,
        (TableEvent(Kind.UNDO_REQUESTED, player),),
        offers=dataclasses.replace(table.offers, undo=player),
    )


def answer_undo(
    table: LoadedTable, actor: Actor, accept: bool, now: datetime | None = None
) -> Decision:
    """``now``: when the take-back is allowed, where the clocks start again (clocks.Restart)."""
    player = require_seat(table, actor)
    require_running(table)
    if (late := out_of_time(table, now)) is not None:
        return late
    requester = other(player)
    if table.offers.undo != requester:
        raise NoOffer(errors.NO_UNDO_REQUEST, version=table.version)
    start = undo_start(table, requester)
    if not accept or start is None:
        # A request that no longer fits the position (nothing of the requester's left to
        # take back) lapses like a declined one.
        return decided(
            table,
            (TableEvent(Kind.UNDO_DECLINED, player),),
            offers=dataclasses.replace(table.offers, undo=None, undo_declined=requester),
        )
    remaining = table.moves[:start]
    movers = [m.player for m in table.moves]
    restart = restart_at(table.clocks(), start, now, movers, table.to_move())
    return decided(
        table,
        (UndoEvent(requester, table.moves[start].move, table.ply - start),),
        offers=table.offers.cleared()
        if restart is None
        else table.offers.cleared().restarted(restart),
        drop_from=start,
        state=table.game.replay([m.move for m in remaining]),
    )


__all__ = ["answer_undo", "request_undo", "restart_at", "undo_start"]
