"""The interface every game implements.

A game is plain data and pure functions, in the spirit of OpenSpiel and boardgame.io: a
:class:`Game` is built from validated, immutable settings and never changes; positions are
immutable, hashable ``State`` values; ``apply`` returns a new state or raises
:class:`IllegalMove` with a reason a player can read.

The server, the bots, the records and the tests use only this interface, so they treat
every game alike.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

if TYPE_CHECKING:
    import random

Player = Literal["red", "blue"]
PLAYERS: tuple[Player, Player] = ("red", "blue")


def other(player: Player) -> Player:
    """The opponent of ``player``.

    >>> other("red")
    'blue'
    """
    return "blue" if player == "red" else "red"


def owner_of(red: int, blue: int, index: int) -> Player | None:
    """Which player's bit mask holds bit ``index`` (both games keep one mask per player).

    >>> owner_of(0b10, 0b01, 0), owner_of(0b10, 0b01, 1), owner_of(0b10, 0b01, 2)
    ('blue', 'red', None)
    """
    if red >> index & 1:
        return "red"
    if blue >> index & 1:
        return "blue"
    return None


def N_(message: str) -> str:
    """Mark ``message`` for the catalogs (``make i18n`` extracts it) without translating it:
    the games know no language; whoever shows the message translates it."""
    return message


class GameError(ValueError):
    """Base class of every error a player or a script can cause.

    ``message`` is an English sentence with ``%(name)s`` placeholders, a catalog message id
    (marked with :func:`N_`), and ``params`` fill it: ``str()`` is the English text (the API
    and the command line say it), :meth:`translate` says it in a page's language.

    >>> error = SettingsError(N_("size must be a whole number from %(low)s to %(high)s"),
    ...                       low=2, high=26)
    >>> str(error)
    'size must be a whole number from 2 to 26'
    >>> error.translate(lambda text: text.replace("size", "SIZE"))
    'SIZE must be a whole number from 2 to 26'
    """

    def __init__(self, message: str, **params: object) -> None:
        self.message = message
        self.params = params
        super().__init__(message % params if params else message)

    def translate(self, gettext: Callable[[str], str]) -> str:
        """The message in the language of ``gettext`` (a catalog's ``gettext``)."""
        text = gettext(self.message)
        return text % self.params if self.params else text


class SettingsError(GameError):
    """A table setting is unknown or out of range; the message names it."""


class IllegalMove(GameError):
    """A move that the rules do not allow here; the message says why.

    The games raise it with the catalog messages of their ``move_errors``, so a page can
    say why in its language; a ``params`` value that a player typed is cut by :func:`shown`.
    """


def shown(value: object, limit: int = 24) -> str:
    """A value a player sent, as an error quotes it: its ``repr``, at most ``limit``
    characters (a 16 KB move text is not echoed whole).

    >>> shown("a1-b1")
    "'a1-b1'"
    >>> shown("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxx…"
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class NotationError(IllegalMove):
    """A move text that does not parse."""


class Termination(enum.StrEnum):
    """Why a game ended (as python-chess's ``Termination``); the value is the protocol's."""

    SCORE = "score"  # Dots and Boxes: every line drawn
    CONNECTION = "connection"  # Swaptimum: a connecting path
    NO_MOVES = "no_moves"  # Swaptimum: neither side can move
    RESIGN = "resign"
    DRAW_AGREED = "draw_agreed"
    TIMEOUT = "timeout"  # the side to move ran out of time (tables/clocks.py)
    ABORTED = "aborted"  # ended before both players had moved: no result


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winner (``None`` for a draw), why, and the score if kept.

    >>> Outcome("red", Termination.RESIGN).to_json()
    {'winner': 'red', 'reason': 'resign'}
    >>> Outcome.from_json({"winner": None, "reason": "score", "score": {"red": 2, "blue": 2}})
    Outcome(winner=None, reason=<Termination.SCORE: 'score'>, score=(2, 2))
    """

    winner: Player | None
    reason: Termination
    score: tuple[int, int] | None = None  # (red, blue)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"winner": self.winner, "reason": self.reason.value}
        if self.score is not None:
            data["score"] = {"red": self.score[0], "blue": self.score[1]}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        """The inverse of :meth:`to_json` (a stored result); raises ``ValueError`` if malformed."""
        winner = data.get("winner")
        if winner is not None and winner not in PLAYERS:
            raise ValueError(f"not a player: {winner!r}")
        score = data.get("score")
        return cls(
            winner,
            Termination(str(data.get("reason"))),
            None if score is None else (int(score["red"]), int(score["blue"])),
        )


SettingsT = TypeVar("SettingsT")
StateT = TypeVar("StateT")
MoveT = TypeVar("MoveT")


class Game(ABC, Generic[SettingsT, StateT, MoveT]):
    """One game with its settings fixed: a board size, a variant.

    Subclasses define ``name``, a ``parse_settings`` class method and the abstract methods.
    """

    name: ClassVar[str]
    # The catalog messages the game's IllegalMove errors use (a page has their translations).
    move_errors: ClassVar[tuple[str, ...]] = ()
    settings: SettingsT

    # -- settings --------------------------------------------------------------------------
    @classmethod
    @abstractmethod
    def parse_settings(cls, options: Mapping[str, Any]) -> SettingsT:
        """Validate the options of a table form or a record; raise :class:`SettingsError`."""

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Game[SettingsT, StateT, MoveT]:
        return cls(cls.parse_settings(options))

    @abstractmethod
    def __init__(self, settings: SettingsT) -> None: ...

    @abstractmethod
    def options(self) -> dict[str, Any]:
        """The settings as a complete, canonical JSON object (every option present)."""

    # -- play -------------------------------------------------------------------------------
    @abstractmethod
    def initial(self) -> StateT:
        """The starting position."""

    @abstractmethod
    def to_move(self, state: StateT) -> Player | None:
        """Who moves next, or ``None`` once the game is over."""

    @abstractmethod
    def legal_moves(self, state: StateT) -> list[MoveT]:
        """Every legal move of the side to move (empty once the game is over)."""

    def random_move(self, state: StateT, rng: random.Random) -> MoveT:
        """A legal move drawn uniformly at random, for random playouts; games whose
        ``legal_moves`` is costly draw one without listing them all."""
        return rng.choice(self.legal_moves(state))

    @abstractmethod
    def apply(self, state: StateT, move: MoveT) -> StateT:
        """The position after ``move``; raises :class:`IllegalMove` and changes nothing."""

    @abstractmethod
    def outcome(self, state: StateT) -> Outcome | None:
        """``None`` while the game runs."""

    @abstractmethod
    def ply(self, state: StateT) -> int:
        """How many moves have been played to reach ``state``."""

    def score(self, state: StateT) -> tuple[int, int] | None:
        """(red, blue) for games that keep a score, else ``None``."""
        return None

    # -- notation ---------------------------------------------------------------------------
    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """Read a move in the notation of ``docs/notation.md``; raises :class:`NotationError`."""

    @abstractmethod
    def format_move(self, move: MoveT) -> str:
        """The move's text; ``parse_move(format_move(m)) == m``."""

    def sort_key(self, move: MoveT) -> Any:
        """The order in which legal moves are listed (by text unless a game says otherwise)."""
        return self.format_move(move)

    def legal_move_texts(self, state: StateT) -> list[str]:
        return [self.format_move(m) for m in sorted(self.legal_moves(state), key=self.sort_key)]

    def play(self, state: StateT, text: str) -> StateT:
        """Parse and apply one move text."""
        return self.apply(state, self.parse_move(text))

    def replay(self, texts: Sequence[str]) -> StateT:
        """The position after the given move texts from the start; the only truth of a game."""
        state = self.initial()
        for text in texts:
            state = self.play(state, text)
        return state

    # -- the browser -----------------------------------------------------------------------
    @abstractmethod
    def view(self, state: StateT) -> dict[str, Any]:
        """Everything the browser needs to draw the position and offer the legal moves."""

    def closed_view(self, state: StateT) -> dict[str, Any]:
        """The view of a position where nobody may move any more although the rules would
        allow it (the game ended by resignation or agreement): no legal moves offered."""
        view = dict(self.view(state))
        for key in ("legal_moves", "to_move"):
            if key in view:
                view[key] = [] if key == "legal_moves" else None
        return view

    def view_after(
        self, view: Mapping[str, Any], move: MoveT, after: StateT
    ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """``view`` (the :meth:`view` of the position before ``move``) brought to ``after``,
        and what changed as JSON Patch operations relative to the view (``replace``, ``add``,
        ``remove``), made from the move alone instead of drawing the whole board again and
        comparing; ``None`` where a game has no such shortcut (the caller then compares).
        The result equals ``view(after)``, and the operations turn ``view`` into it."""
        return None

    def move_facts(self, before: StateT, after: StateT) -> dict[str, Any]:
        """What a move event tells beside the move itself (``docs/protocol.md``): by default
        the cells it claimed, in a game that keeps a score."""
        old, new = self.score(before), self.score(after)
        if old is None or new is None:
            return {}
        return {"claimed": sum(new) - sum(old)}

    @abstractmethod
    def diagram(self, state: StateT) -> str:
        """A plain-text picture of the position for terminals and records."""
