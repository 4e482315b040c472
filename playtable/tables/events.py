"""What happened at a table, as small typed values: the ``event`` objects of docs/protocol.md.

Each event knows its protocol ``kind`` and turns itself into JSON with one method; the
service publishes them on the bus after the change they describe has committed.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playtable.games import Outcome, Player


class Kind(enum.StrEnum):
    MOVE = "move"
    UNDO = "undo"
    RESIGN = "resign"
    DRAW_OFFERED = "draw_offered"
    DRAW_DECLINED = "draw_declined"
    DRAW_AGREED = "draw_agreed"
    UNDO_REQUESTED = "undo_requested"
    UNDO_DECLINED = "undo_declined"
    REMATCH_OFFERED = "rematch_offered"
    REMATCH_DECLINED = "rematch_declined"
    REMATCH_ACCEPTED = "rematch_accepted"
    SEATED = "seated"
    SEAT_KEY_REPLACED = "seat_key_replaced"  # a seat's link was replaced: old sockets re-check
    PRESENCE = "presence"
    SPECTATORS = "spectators"
    QUICK = "quick"
    NICKNAME = "nickname"
    GAME_OVER = "game_over"
    ABORTED = "aborted"
    TIME_OUT = "time_out"


@dataclass(frozen=True)
class TableEvent:
    """An event with nothing to tell but who did it (an offer, its answer, a resignation)."""

    kind: Kind
    player: Player

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player}


@dataclass(frozen=True)
class MoveEvent:
    """A move was played; ``facts`` are the game's own (``claimed``, ``skipped``)."""

    player: Player
    move: str
    ply: int
    facts: Mapping[str, Any] = field(default_factory=dict)

    kind = Kind.MOVE

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player, "move": self.move,
                "ply": self.ply, **self.facts}  # fmt: skip


@dataclass(frozen=True)
class UndoEvent:
    """Moves were taken back at ``player``'s request: ``move`` is the first of them (the
    requester's own), ``count`` how many plies went (more than one only against the computer,
    whose replies go with the move)."""

    player: Player
    move: str
    count: int = 1

    kind = Kind.UNDO

    def to_json(self) -> dict[str, Any]:
        data = {"kind": self.kind.value, "player": self.player, "move": self.move}
        return data if self.count == 1 else {**data, "count": self.count}


@dataclass(frozen=True)
class RematchAccepted:
    player: Player
    table: str

    kind = Kind.REMATCH_ACCEPTED

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player, "table": self.table}


@dataclass(frozen=True)
class PresenceEvent:
    """A player's first socket opened or last one closed, on any server process."""

    player: Player
    online: bool

    kind = Kind.PRESENCE

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player, "online": self.online}


@dataclass(frozen=True)
class Spectators:
    """How many spectator sockets the table has now, on every process."""

    count: int

    kind = Kind.SPECTATORS

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "count": self.count}


#: The quick messages a player may send the table (the page shows them translated):
#: instead of free chat, which would need moderating.
QUICK_MESSAGES = ("good_luck", "good_game", "thanks", "oops", "well_played")


@dataclass(frozen=True)
class QuickMessage:
    player: Player
    message: str  # one of QUICK_MESSAGES

    kind = Kind.QUICK

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player, "message": self.message}


@dataclass(frozen=True)
class NicknameEvent:
    """A player chose the name the table sees (``None``: back to the colour's name)."""

    player: Player
    nickname: str | None

    kind = Kind.NICKNAME

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player, "nickname": self.nickname}


@dataclass(frozen=True)
class GameOver:
    outcome: Outcome

    kind = Kind.GAME_OVER

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "outcome": self.outcome.to_json()}


@dataclass(frozen=True)
class TimeOut:
    """``player``'s time ran out (or their first move did not come: ``aborted``)."""

    player: Player
    aborted: bool = False

    kind = Kind.TIME_OUT

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player, "aborted": self.aborted}


Event = (
    TimeOut
    | TableEvent
    | MoveEvent
    | UndoEvent
    | RematchAccepted
    | PresenceEvent
    | Spectators
    | QuickMessage
    | NicknameEvent
    | GameOver
)

__all__ = [
    "QUICK_MESSAGES",
    "Event",
    "GameOver",
    "Kind",
    "MoveEvent",
    "NicknameEvent",
    "PresenceEvent",
    "QuickMessage",
    "RematchAccepted",
    "Spectators",
    "TableEvent",
    "TimeOut",
    "UndoEvent",
]
