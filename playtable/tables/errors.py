"""What the table service refuses, each with the protocol's error code and a readable reason."""

from __future__ import annotations

from collections.abc import Mapping

from playtable.games.base import N_, GameError

# Why the table refuses an action, as the server says it (English, in the error's "message");
# catalog messages, so a page shows each in its language (web/client_strings.py "refusals").
NO_OPPONENT = N_("Nobody is seated opposite you yet.")
DRAW_ALREADY_OFFERED = N_("You have already offered a draw.")
DRAW_DECLINED = N_("Your draw offer was declined; you can offer again after the next move.")
NO_DRAW_OFFER = N_("There is no draw offer to answer.")
UNDO_NOT_YOURS = N_("You can take back only your own last move, right after playing it.")
UNDO_ALREADY_ASKED = N_("You have already asked to take it back.")
UNDO_DECLINED = N_("Your take-back request was declined; you cannot ask again for this move.")
NO_UNDO_REQUEST = N_("There is no take-back request to answer.")
ABORT_TOO_LATE = N_("A table can be aborted only before both players have moved.")
REMATCH_TOO_EARLY = N_("A rematch can be proposed once the game is over.")
REMATCH_PENDING = N_("You have proposed a rematch; your opponent has not answered yet.")
NO_REMATCH_OFFER = N_("There is no rematch proposal to answer.")
COMPUTER_NAME = N_("The computer keeps its name.")
NOT_A_QUICK_MESSAGE = N_("That is not one of the quick messages.")
REASONS = (
    NO_OPPONENT,
    DRAW_ALREADY_OFFERED,
    DRAW_DECLINED,
    NO_DRAW_OFFER,
    UNDO_NOT_YOURS,
    UNDO_ALREADY_ASKED,
    UNDO_DECLINED,
    NO_UNDO_REQUEST,
    ABORT_TOO_LATE,
    REMATCH_TOO_EARLY,
    REMATCH_PENDING,
    NO_REMATCH_OFFER,
    COMPUTER_NAME,
    NOT_A_QUICK_MESSAGE,
)


class TableError(Exception):
    """A refused request; nothing changed. ``code`` is the error code of docs/protocol.md."""

    code = "illegal"

    def __init__(
        self,
        message: str,
        *,
        version: int | None = None,
        reason: str | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.version = version
        # The catalog message ``message`` was made from, with the values that fill it (a
        # game's move errors); None when ``message`` is itself one (REASONS) or no catalog's.
        self.reason = reason
        self.params = {name: str(value) for name, value in (params or {}).items()}


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

    @classmethod
    def of(cls, error: GameError, version: int) -> Illegal:
        """A game's refusal of a move, with its catalog message and values."""
        return cls(str(error), version=version, reason=error.message, params=error.params)


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
