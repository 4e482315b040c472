"""The interface every game implements.

A game is plain data and pure functions, in the spirit of OpenSpiel and boardgame.io: a
:class:`Game` is built from validated, immutable settings and never changes; positions are
immutable, hashable ``State`` values; ``apply`` returns a new state or raises
:class:`IllegalMove` with a reason a player can read.

The server, the bots, the records and the tests use only this interface, so they treat
every game alike.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
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


class GameError(ValueError):
    """Base class of every error a player or a script can cause."""


class SettingsError(GameError):
    """A table setting is unknown or out of range; the message names it."""


class IllegalMove(GameError):
    """A move that the rules do not allow here; the message says why."""


class NotationError(IllegalMove):
    """A move text that does not parse."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winner (``None`` for a draw), why, and the score if kept."""

    winner: Player | None
    reason: str
    score: tuple[int, int] | None = None  # (red, blue)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"winner": self.winner, "reason": self.reason}
        if self.score is not None:
            data["score"] = {"red": self.score[0], "blue": self.score[1]}
        return data


SettingsT = TypeVar("SettingsT")
StateT = TypeVar("StateT")
MoveT = TypeVar("MoveT")


class Game(ABC, Generic[SettingsT, StateT, MoveT]):
    """One game with its settings fixed: a board size, a variant.

    Subclasses define ``name``, a ``parse_settings`` class method and the abstract methods.
    """

    name: ClassVar[str]
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

    @abstractmethod
    def diagram(self, state: StateT) -> str:
        """A plain-text picture of the position for terminals and records."""
