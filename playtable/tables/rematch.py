"""The rules of a rematch, as pure functions beside :mod:`playtable.tables.decisions`: propose
one with colours swapped, accept the opponent's (creating the new table in the same
transaction), or decline it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from playtable.games import other
from playtable.store import NewTable
from playtable.tables import clocks, errors, tokens
from playtable.tables.decisions import Decision, decided, require_opponent, require_seat
from playtable.tables.errors import Illegal, NoOffer
from playtable.tables.events import Kind, RematchAccepted, TableEvent
from playtable.tables.table import Actor, Bot, LoadedTable, Offers


@dataclass(frozen=True)
class RematchSeats:
    """How the seats of a rematch table are made, from outside this pure module: a fresh
    table id (used unless a proposal already named one), the hash of the seat token a person
    will hold there (derived from their current token), and the new table's invitation hash."""

    fresh_id: str
    seat_hash: Callable[[str, str], str]  # (current seat token, new table id) -> token hash
    invite_hash: Callable[[str], str]  # new table id -> invitation hash
    now: datetime | None = None  # when the new table is made (its clocks start from then)


def rematch(table: LoadedTable, actor: Actor, seats: RematchSeats) -> Decision | None:
    """Propose a rematch with colours swapped, or accept the opponent's proposal.

    ``None`` when it is agreed already (nothing to change: the socket sends the link again).
    """
    player = require_seat(table, actor)
    if table.outcome() is None:
        raise Illegal(errors.REMATCH_TOO_EARLY, version=table.version)
    require_opponent(table, player)
    if table.row.rematch_id is not None:
        return None
    offers = table.offers
    if player in offers.rematch:
        raise Illegal(errors.REMATCH_PENDING, version=table.version)
    new_id = offers.rematch_table or seats.fresh_id
    new_seats = dict(offers.rematch_seats)
    new_bots = dict(offers.rematch_bots)
    # Colours swap: whoever was red sits as blue at the new table.
    if isinstance(actor, Bot):
        new_seats[other(player)] = tokens.hash_token(tokens.new_token())
        new_bots[other(player)] = table.bots[player]
    else:
        assert actor is not None
        new_seats[other(player)] = seats.seat_hash(actor, new_id)
    asked = (*offers.rematch, player)
    proposed = dataclasses.replace(
        offers, rematch=asked, rematch_table=new_id, rematch_seats=new_seats, rematch_bots=new_bots
    )
    if other(player) not in asked:
        return decided(table, (TableEvent(Kind.REMATCH_OFFERED, player),), offers=proposed)
    new_table = NewTable(
        id=new_id,
        game=table.row.game,
        options=table.row.options,
        invite_hash=seats.invite_hash(new_id),
        seats=new_seats,
        bots=new_bots,
        time_control=table.row.time_control,
        created_at=seats.now,
        deadline=clocks.derive(table.time_control, [], "red", seats.now).deadline
        if seats.now is not None
        else None,
    )
    return decided(
        table,
        (RematchAccepted(player, new_id),),
        offers=proposed,
        rematch=(new_id, new_table),
    )


def decline_rematch(table: LoadedTable, actor: Actor) -> Decision:
    """Say no to the opponent's rematch proposal: the proposal is withdrawn for both (what
    the offers keep of the game itself, the clocks' restart after a take-back, stays)."""
    player = require_seat(table, actor)
    if other(player) not in table.offers.rematch or table.row.rematch_id is not None:
        raise NoOffer(errors.NO_REMATCH_OFFER, version=table.version)
    return decided(
        table,
        (TableEvent(Kind.REMATCH_DECLINED, player),),
        offers=Offers(restarts=table.offers.restarts),
    )


# -- time: seating, aborting, running out of time (tables/clocks.py) -----------------------------


__all__ = ["RematchSeats", "decline_rematch", "rematch"]
