"""The typed values the store takes and gives back: a table's row, its moves, a change of
it, a new table, a push subscription and an analysed position's value."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from playtable.games import Player


class Keep(enum.Enum):
    """Marks a field of :class:`Change` that stays as it is."""

    KEEP = 0


KEEP = Keep.KEEP


@dataclass(frozen=True, slots=True)
class AnalysisPoint:
    """One analysed position: red's final margin (Dots and Boxes) or red's share of the
    simulated games (Swaptimum, 0 to 1), and whether it is a proof or an estimate."""

    proved: bool
    red_margin: int | None = None
    red_share: float | None = None


@dataclass(frozen=True, slots=True)
class NewTable:
    id: str
    game: str
    options: Mapping[str, Any]
    invite_hash: str
    seats: Mapping[Player, str]  # player -> token hash
    offers: Mapping[str, Any] = field(default_factory=dict)
    bots: Mapping[Player, str] = field(default_factory=dict)  # player -> bot level
    time_control: str = "-"  # tables/clocks.py spec
    deadline: datetime | None = None
    created_at: datetime | None = None  # default: the store's clock


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    game: str
    options: dict[str, Any]
    version: int
    outcome: dict[str, Any] | None
    invite_hash: str
    offers: dict[str, Any]
    rematch_id: str | None
    created_at: datetime
    seats: dict[Player, str]  # player -> token hash
    bots: dict[Player, str] = field(default_factory=dict)  # player -> level of a computer seat
    time_control: str = "-"  # tables/clocks.py spec
    deadline: datetime | None = None  # when the side to move runs out of time (indexed)
    seated_at: datetime | None = None  # when the second seat was taken
    nicknames: dict[Player, str] = field(default_factory=dict)  # player -> chosen name
    #: When the result was stored: a resignation or an agreement ends the clocks then.
    finished_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class MoveRow:
    ply: int
    move: str
    player: Player
    # The commit time (``moves.created_at``) and the transit credited to the move's clock
    # (tables/clocks.py): facts about the move, not part of what it is.
    at: datetime | None = field(default=None, compare=False)
    lag_ms: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """A browser's Web Push subscription for one seat (RFC 8030 endpoint, RFC 8291 keys)."""

    endpoint: str
    p256dh: str
    auth: str
    lang: str


@dataclass(frozen=True, slots=True)
class Change:
    """One atomic change of a table; it bumps the version by one."""

    append: MoveRow | None = None  # a move played at ``append.ply`` (the current ply)
    drop_ply: int | None = None  # take back the moves from this ply on (the last ones)
    outcome: dict[str, Any] | Keep | None = KEEP
    offers: dict[str, Any] | Keep = KEEP
    rematch_id: str | Keep = KEEP
    seat: tuple[Player, str] | None = None  # (player, token hash) of a newly taken seat
    new_table: NewTable | None = None  # created in the same transaction (a rematch)
    deadline: datetime | Keep | None = KEEP  # the table's clock deadline
    at: datetime | None = None  # the time recorded for the move, seat or result (default: now)
    nickname: tuple[Player, str | None] | None = None  # a seat's new name (None: none)
    rekey: tuple[Player, str] | None = None  # (player, token hash): a seat's new link
