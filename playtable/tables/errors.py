"""What the table service refuses, each with the protocol's error code and a readable reason."""

from __future__ import annotations


class TableError(Exception):
    """A refused request; nothing changed. ``code`` is the error code of docs/protocol.md."""

    code = "illegal"

    def __init__(self, message: str, *, version: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.version = version


class TableNotFound(TableError, LookupError):
    code = "not_found"


class NotSeated(TableError):
    code = "not_seated"


class NotYourTurn(TableError):
    code = "not_your_turn"


class Stale(TableError):
    code = "stale"


class Illegal(TableError):
    code = "illegal"


class GameOver(TableError):
    code = "game_over"


class NoOffer(TableError):
    code = "no_offer"


class Busy(TableError):
    """Too many writers raced for one table; the client may simply try again."""

    code = "busy"


class AnalysisRefused(TableError):
    """The analysis is not offered for this table (yet): see docs/protocol.md."""

    code = "not_available"
