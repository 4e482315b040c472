"""A new table, as a pure plan: the game and its settings checked, the creator's seat, the
computer's, the time control and the first deadline. The service only adds a free id."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from playtable import games
from playtable.ai import LEVELS
from playtable.games import PLAYERS, Player, SettingsError, other
from playtable.store import NewTable
from playtable.tables import clocks, invitations, tokens

SEAT_CHOICES = ("red", "blue", "random")


@dataclass(frozen=True)
class TablePlan:
    """Everything about a new table but its id and invitation."""

    game: str
    options: Mapping[str, Any]
    player: Player | None  # the creator's seat (None: set up for two others)
    token: str | None  # the creator's seat token
    seats: Mapping[Player, str]
    bots: Mapping[Player, str]
    time_control: clocks.TimeControl
    deadline: Any  # datetime | None: against the computer the first move's window starts now
    now: datetime

    def table(self, table_id: str, invite_hash: str) -> NewTable:
        """The stored table; set up for two others, with no table invitation's hash."""
        return NewTable(
            id=table_id,
            game=self.game,
            options=self.options,
            invite_hash=invite_hash if self.player is not None else invitations.FOR_OTHERS,
            seats=self.seats,
            bots=self.bots,
            time_control=self.time_control.spec(),
            deadline=self.deadline,
            created_at=self.now,
        )


def plan(
    game: str,
    options: Mapping[str, Any],
    seat: str,
    bot: str | None,
    time_control: clocks.TimeControl,
    now: datetime,
) -> TablePlan:
    """A new table with its creator in ``seat``; raises :class:`SettingsError`.

    With ``bot`` (a level of :data:`playtable.ai.LEVELS`) the computer takes the other seat
    at once (both seats are taken, so a clock's first-move window starts now).
    """
    loaded = games.load(game, options)
    if seat not in SEAT_CHOICES:
        raise SettingsError(f"seat must be one of red, blue, random (not {seat!r})")
    if bot is not None and bot not in LEVELS:
        raise SettingsError(f"the computer's level must be one of {', '.join(LEVELS)}")
    player: Player = secrets.choice(PLAYERS) if seat == "random" else cast(Player, seat)
    token = tokens.new_token()
    seats: dict[Player, str] = {player: tokens.hash_token(token)}
    bots: dict[Player, str] = {}
    if bot is not None:
        # The hash of a token thrown away at once: nobody can ever sit in the bot's seat.
        seats[other(player)] = tokens.hash_token(tokens.new_token())
        bots[other(player)] = bot
    first = loaded.to_move(loaded.initial())
    deadline = clocks.derive(time_control, [], first, now if bots else None).deadline
    return TablePlan(
        loaded.name, loaded.options(), player, token, seats, bots, time_control, deadline, now
    )


def for_others(
    game: str, options: Mapping[str, Any], time_control: clocks.TimeControl, now: datetime
) -> TablePlan:
    """A new table for two other players (a club's organiser sets it up): both seats free,
    each to be taken with its own invitation; raises :class:`SettingsError`."""
    loaded = games.load(game, options)
    return TablePlan(loaded.name, loaded.options(), None, None, {}, {}, time_control, None, now)


__all__ = ["SEAT_CHOICES", "TablePlan", "for_others", "plan"]
