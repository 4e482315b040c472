"""What the table service refuses, each with the protocol's error code and a readable reason."""

from __future__ import annotations

from playtable.games.base import N_

# Why the table refuses an action, as the server says it (English, in the error's "message");
# catalog messages, so a page shows each in its language (web/client_strings.py "refusals").
NO_OPPONENT = N_("Nobody is seated opposite you yet.")
DRAW_ALREADY_OFFERED = N_("You have already offered a draw.")
NO_DRAW_OFFER = N_("There is no draw offer to answer.")
UNDO_NOT_YOURS = N_("You can take back only your own last move, right after playing it.")
UNDO_ALREADY_ASKED = N_("You have already asked to take it back.")
NO_UNDO_REQUEST = N_("There is no take-back request to answer.")
ABORT_TOO_LATE = N_("A table can be aborted only before both players have moved.")
REMATCH_TOO_EARLY = N_("A rematch can be proposed once the game is over.")
REMATCH_PENDING = N_("You have proposed a rematch; your opponent has not answered yet.")
NO_REMATCH_OFFER = N_("There is no rematch proposal to answer.")
REASONS = (
    NO_OPPONENT,
    DRAW_ALREADY_OFFERED,
    NO_DRAW_OFFER,
    UNDO_NOT_YOURS,
    UNDO_ALREADY_ASKED,
    NO_UNDO_REQUEST,
    ABORT_TOO_LATE,
    REMATCH_TOO_EARLY,
    REMATCH_PENDING,
    NO_REMATCH_OFFER,
)


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


class AnalysisBusy(TableError):
    """The analysis has as much work queued as it takes; ``retry_after`` seconds from now
    there is room again."""

    code = "busy"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
