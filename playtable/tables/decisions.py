"""The rules of the table, as pure functions: a loaded table and a request -> a decision.

Each action (move, resign, draw, take-back, rematch) is one function of the
:class:`~playtable.tables.table.LoadedTable` it is asked of. It either refuses with a
:class:`~playtable.tables.errors.TableError` (nothing changes), or returns a
:class:`Decision`: the store :class:`~playtable.store.Change` to commit, the events to
publish once it has committed, and the table as it will be then. Nothing here reads the
store, the clock or the network, so every rule is tested with plain values
(``tests/tables/test_decisions.py``); :mod:`playtable.tables.service` commits decisions under
compare-and-set and decides again on a fresh read when it loses a race.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from playtable.games import PLAYERS, GameError, Outcome, Player, Termination, other
from playtable.store import KEEP, Change, MoveRow, NewTable
from playtable.store.rows import Keep
from playtable.tables import clocks, errors
from playtable.tables.errors import GameOver, Illegal, NoOffer, NotSeated, NotYourTurn, Stale
from playtable.tables.events import (
    Event,
    Kind,
    MoveEvent,
    NicknameEvent,
    TableEvent,
    TimeOut,
)
from playtable.tables.events import (
    GameOver as GameOverEvent,
)
from playtable.tables.nicknames import clean_nickname
from playtable.tables.table import Actor, Bot, LoadedTable, Offers


@dataclass(frozen=True)
class Decision:
    """What a request changes: commit ``change``, then publish ``events``; ``after`` is the
    table once committed (its version one more)."""

    change: Change
    events: tuple[Event, ...]
    after: LoadedTable


# -- the checks every action starts with --------------------------------------------------------
def require_seat(table: LoadedTable, actor: Actor) -> Player:
    player = table.seat_of(actor)
    if player is None:
        reason = (
            "Your seat token is not valid at this table."
            if actor
            else "You are watching this table; only its players can do that."
        )
        raise NotSeated(reason, version=table.version)
    return player


def require_running(table: LoadedTable) -> None:
    if table.outcome() is not None:
        raise GameOver("The game is over.", version=table.version)


def require_opponent(table: LoadedTable, player: Player) -> None:
    if not table.seated(other(player)):
        raise Illegal(errors.NO_OPPONENT, version=table.version)


# -- building a decision -----------------------------------------------------------------------
def out_of_time(table: LoadedTable, now: datetime | None) -> Decision | None:
    """The table ended on time, if its deadline passed before an action at ``now`` (an
    answer, an offer, a resignation): the clock falls first, as it would have had the sweep
    come first. ``None`` if in time, unclocked or ``now`` unknown."""
    if now is None or not table.clocks().due(now):
        return None
    return flag(table, now)


def decided(
    table: LoadedTable,
    events: tuple[Event, ...],
    *,
    offers: Offers,
    outcome: Outcome | Keep | None = KEEP,
    append: MoveRow | None = None,
    drop_from: int | None = None,
    rematch: tuple[str, NewTable] | None = None,
    state: Any = None,
    seat: tuple[Player, str, datetime] | None = None,
    nickname: tuple[Player, str | None] | None = None,
    ended_at: datetime | None = None,
    rekey: tuple[Player, str] | None = None,
) -> Decision:
    """The decision to commit: the store change and the table as it will be afterwards.

    ``ended_at``: when a game ended off the board (a resignation, an agreement, a flag):
    the side on turn is charged its clock's time up to then.

    The table's deadline is worked out from the table afterwards, so every change keeps it
    true (a move starts the other clock, the end of the game clears it).
    """
    stored_outcome = KEEP if outcome is KEEP else (None if outcome is None else outcome.to_json())
    # The row's changes gathered and made at once: each dataclasses.replace copies the whole
    # row, and a move is the change made most often.
    before = table.row
    changes: dict[str, Any] = {"version": table.version + 1, "offers": offers.to_json()}
    if seat is not None:
        changes["seats"] = {**before.seats, seat[0]: seat[1]}
        # when the second seat was taken (the clocks may run): a table set up for two others
        # has both free, and its first seat taken starts nothing
        changes["seated_at"] = seat[2] if len(changes["seats"]) == len(PLAYERS) else None
    if rekey is not None:  # the same seat, a new key (seating.new_seat_key)
        changes["seats"] = {**before.seats, rekey[0]: rekey[1]}
    if not isinstance(stored_outcome, Keep):
        changes["outcome"] = stored_outcome
        changes["finished_at"] = ended_at if stored_outcome is not None else None
    if rematch is not None:
        changes["rematch_id"] = rematch[0]
    if nickname is not None:
        names = {p: n for p, n in before.nicknames.items() if p != nickname[0]}
        if nickname[1]:
            names[nickname[0]] = nickname[1]
        changes["nicknames"] = names
    moves = table.moves
    if append is not None:
        moves = (*moves, append)
    if drop_from is not None:
        moves = moves[:drop_from]
    row = dataclasses.replace(before, **changes)
    after = LoadedTable(row, moves, table.game, table.state if state is None else state)
    # The clocks (hence the deadline) depend on the moves, the time control and the outcome,
    # not on the stored deadline: worked out on ``after``, kept with it if it stays the same.
    deadline = after.clocks().deadline
    if deadline != row.deadline:
        after = LoadedTable(
            dataclasses.replace(row, deadline=deadline), moves, table.game, after.state
        )
    change = Change(
        append=append,
        drop_ply=drop_from,
        outcome=stored_outcome,
        offers=offers.to_json(),
        rematch_id=KEEP if rematch is None else rematch[0],
        new_table=None if rematch is None else rematch[1],
        seat=None if seat is None else seat[:2],
        nickname=nickname,
        rekey=rekey,
        deadline=deadline if deadline != table.row.deadline else KEEP,
        at=append.at if append is not None else (seat[2] if seat is not None else ended_at),
    )
    return Decision(change, events, after)


def ended(table: LoadedTable, winner: Player | None, reason: Termination) -> Outcome:
    """The result of a game ended off the board (resignation, agreement), with its score."""
    return Outcome(winner, reason, table.game.score(table.state))


# -- the actions ------------------------------------------------------------------------------
def play(
    table: LoadedTable,
    actor: Actor,
    ply: int,
    text: str,
    now: datetime | None = None,
    think_s: float | None = None,
) -> Decision:
    """Play the move ``text`` from the position after ``ply`` moves, at ``now``.

    ``think_s``: the thinking time the page measured, for the transit credit (lag
    compensation, :func:`playtable.tables.clocks.transit_credit`). A move that comes after
    its side's time ran out ends the game on time instead.
    """
    player = require_seat(table, actor)
    require_running(table)
    timing = table.clocks()
    lag_s = 0.0
    if now is not None and timing.deadline is not None:
        lag_s = clocks.transit_credit(timing, now, think_s)
        if not timing.in_time(now, lag_s):
            ended_on_time = flag(table, max(now, timing.deadline))
            assert ended_on_time is not None
            return ended_on_time
    if ply != table.ply:
        raise Stale(
            f"That move was meant for move {ply + 1}, but the table is at move "
            f"{table.ply + 1}; here is the current position.",
            version=table.version,
        )
    to_move = table.game.to_move(table.state)
    if to_move != player:
        raise NotYourTurn(f"It is {to_move}'s turn, not yours.", version=table.version)
    try:
        parsed = table.game.parse_move(text)
        state = table.game.apply(table.state, parsed)
    except GameError as error:
        raise Illegal.of(error, table.version) from None
    played = MoveRow(ply, table.game.format_move(parsed), player, now, round(lag_s * 1000))
    return moved(table, played, state)


def moved(table: LoadedTable, played: MoveRow, state: Any) -> Decision:
    """The decision of a move already judged legal: ``played`` leads to ``state``. Also how
    a process advances its cached table by a move another process made."""
    facts = table.game.move_facts(table.state, state)
    events: list[Event] = [MoveEvent(played.player, played.move, played.ply, facts)]
    outcome = table.game.outcome(state)
    if outcome is not None:
        events.append(GameOverEvent(outcome))
    return decided(
        table,
        tuple(events),
        offers=table.offers.cleared(),
        outcome=outcome if outcome is not None else KEEP,
        append=played,
        state=state,
    )


def resign(table: LoadedTable, actor: Actor, now: datetime | None = None) -> Decision:
    player = require_seat(table, actor)
    require_running(table)
    if (late := out_of_time(table, now)) is not None:
        return late
    outcome = ended(table, other(player), Termination.RESIGN)
    return decided(
        table,
        (TableEvent(Kind.RESIGN, player), GameOverEvent(outcome)),
        offers=table.offers.cleared(),
        outcome=outcome,
        ended_at=now,
    )


def _agree_draw(table: LoadedTable, player: Player, now: datetime | None) -> Decision:
    outcome = ended(table, None, Termination.DRAW_AGREED)
    return decided(
        table,
        (TableEvent(Kind.DRAW_AGREED, player), GameOverEvent(outcome)),
        offers=table.offers.cleared(),
        outcome=outcome,
        ended_at=now,
    )


def offer_draw(table: LoadedTable, actor: Actor, now: datetime | None = None) -> Decision:
    """Offer a draw; offering back to a player who offered one agrees to it."""
    player = require_seat(table, actor)
    require_running(table)
    if (late := out_of_time(table, now)) is not None:
        return late
    require_opponent(table, player)
    pending = table.offers.draw
    if pending == player:
        raise Illegal(errors.DRAW_ALREADY_OFFERED, version=table.version)
    if pending == other(player):
        return _agree_draw(table, player, now)
    if table.offers.draw_declined == player:
        raise Illegal(errors.DRAW_DECLINED, version=table.version)
    return decided(
        table,
        (TableEvent(Kind.DRAW_OFFERED, player),),
        offers=dataclasses.replace(table.offers, draw=player),
    )


def answer_draw(
    table: LoadedTable, actor: Actor, accept: bool, now: datetime | None = None
) -> Decision:
    player = require_seat(table, actor)
    require_running(table)
    if (late := out_of_time(table, now)) is not None:
        return late
    if table.offers.draw != other(player):
        raise NoOffer(errors.NO_DRAW_OFFER, version=table.version)
    if accept:
        return _agree_draw(table, player, now)
    return decided(
        table,
        (TableEvent(Kind.DRAW_DECLINED, player),),
        offers=dataclasses.replace(table.offers, draw=None, draw_declined=other(player)),
    )


def set_nickname(table: LoadedTable, actor: Actor, text: str) -> Decision:
    """The seated player's name shown to the table; an empty one goes back to the colour."""
    player = require_seat(table, actor)
    if isinstance(actor, Bot):
        raise Illegal(errors.COMPUTER_NAME, version=table.version)
    name = clean_nickname(text)
    return decided(
        table,
        (NicknameEvent(player, name or None),),
        offers=table.offers,
        nickname=(player, name or None),
    )


def take_seat(table: LoadedTable, player: Player, token_hash: str, now: datetime) -> Decision:
    """Seat a player (the invitation taken) at ``now``: once both seats are taken, the
    clocks may run, so the first move's deadline starts from here."""
    return decided(
        table,
        (TableEvent(Kind.SEATED, player),),
        offers=table.offers,
        seat=(player, token_hash, now),
    )


def abort(table: LoadedTable, actor: Actor, now: datetime | None = None) -> Decision:
    """End the table without a result: allowed to either player until both have moved."""
    player = require_seat(table, actor)
    require_running(table)
    if (late := out_of_time(table, now)) is not None:
        return late
    if table.both_moved():
        raise Illegal(errors.ABORT_TOO_LATE, version=table.version)
    outcome = Outcome(None, Termination.ABORTED)
    return decided(
        table,
        (TableEvent(Kind.ABORTED, player), GameOverEvent(outcome)),
        offers=table.offers.cleared(),
        outcome=outcome,
        ended_at=now,
    )


def new_seat_key(table: LoadedTable, actor: Actor, token_hash: str) -> Decision:
    """The seat of ``actor`` gets a new key (its hash ``token_hash``): its old link, and every
    device that holds it, plays there no more (a seat link seen by someone else).

    A finished game's key still proposes and accepts the rematch, whose seats are derived
    from it: so it can be replaced until the rematch is made (this seat's own proposal, if
    any, is withdrawn: its seat there was derived from the old key), but not after (the
    rematch's seat was derived from the key it had: the new link is made there)."""
    player = require_seat(table, actor)
    if isinstance(actor, Bot):
        raise NotSeated("The computer's seat has no link.", version=table.version)
    offers = table.offers
    if table.outcome() is not None:
        if table.row.rematch_id is not None:
            raise GameOver("The game is over.", version=table.version)
        if player in offers.rematch:
            kept = {seat: v for seat, v in offers.rematch_seats.items() if seat != other(player)}
            bots = {seat: v for seat, v in offers.rematch_bots.items() if seat != other(player)}
            asked = tuple(p for p in offers.rematch if p != player)
            offers = dataclasses.replace(
                offers,
                rematch=asked,
                rematch_table=offers.rematch_table if asked else None,
                rematch_seats=kept,
                rematch_bots=bots,
            )
    return decided(
        table,
        (TableEvent(Kind.SEAT_KEY_REPLACED, player),),
        offers=offers,
        rekey=(player, token_hash),
    )


def flag(table: LoadedTable, now: datetime) -> Decision | None:
    """End the table whose deadline has passed at ``now``: the side to move loses on time,
    or, before both players have moved, the table is aborted. ``None`` if it is not due
    (a move came in time, or the game is over): nothing to change."""
    timing = table.clocks()
    late = timing.waiting_for
    if table.outcome() is not None or late is None or not timing.due(now):
        if table.row.deadline != timing.deadline:
            # A stored deadline that is not the clocks' (nothing here makes one, but a row
            # is data): put it right, so the sweep does not keep finding it.
            return decided(table, (), offers=table.offers)
        return None
    if timing.expiry is clocks.Expiry.ABORT:
        outcome = Outcome(None, Termination.ABORTED)
    else:
        outcome = ended(table, other(late), Termination.TIMEOUT)
    return decided(
        table,
        (TimeOut(late, outcome.reason is Termination.ABORTED), GameOverEvent(outcome)),
        offers=table.offers.cleared(),
        outcome=outcome,
        ended_at=now,
    )


def heard(
    cached: LoadedTable, version: int, events: Sequence[Mapping[str, Any]]
) -> LoadedTable | None:
    """``cached`` advanced to ``version`` by the bus ``events`` another process published,
    if they are exactly one move from it; else ``None`` (the cache must be dropped).

    The row is the one that move leaves (offers lapsed, the result): the next request reads
    the real row anyway, but the first attempt of a change decides on this. A clocked
    table's moves carry their commit times, which only the store knows: not advanced.
    """
    moves = [e for e in events if e.get("kind") == "move"]
    if (
        not isinstance(cached.time_control, clocks.Unlimited)
        or version != cached.version + 1
        or len(moves) != 1
        or moves[0].get("ply") != cached.ply
    ):
        return None
    event = moves[0]
    try:
        state = cached.game.play(cached.state, str(event["move"]))
    except (GameError, KeyError):
        return None
    played = MoveRow(cached.ply, str(event["move"]), cast(Player, event.get("player")))
    return moved(cached, played, state).after


__all__ = [
    "Decision",
    "abort",
    "answer_draw",
    "decided",
    "ended",
    "flag",
    "heard",
    "moved",
    "offer_draw",
    "out_of_time",
    "play",
    "require_opponent",
    "require_running",
    "require_seat",
    "resign",
    "take_seat",
]
