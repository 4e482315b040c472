"""A game's positions, replayed from its record: what a picture or the replay draws.

>>> from playtable.games.records import GameRecord
>>> record = GameRecord("dots", {"grid": "square", "rows": 1, "cols": 1},
...                     ("a1-b1", "a1-a2", "b1-b2", "a2-b2"))
>>> last = position_at(record, 4)
>>> last.movers, last.closed, last.view["score"]
(('red', 'blue', 'red', 'blue'), (0,), {'red': 0, 'blue': 1})
>>> position_at(record, 5)
Traceback (most recent call last):
...
playtable.pictures.positions.NoSuchPly: the game has 4 moves: ply 5 does not exist
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from playtable.games import Game, load
from playtable.games.records import GameRecord


class NoSuchPly(ValueError):
    """A ply outside the game (0 to the number of moves)."""


@dataclass(frozen=True)
class Position:
    """The position after the first ``ply`` moves, with who played each of them."""

    game: str
    ply: int
    moves: tuple[str, ...]  # the moves before this position
    movers: tuple[str, ...]  # movers[i] played moves[i]
    view: dict[str, Any]  # Game.view, without the legal moves (nobody plays a past position)
    closed: tuple[int, ...] = ()  # dots: the cells the last move claimed
    final: bool = False  # the last position of a finished game

    @property
    def last_move(self) -> str | None:
        return self.moves[-1] if self.moves else None

    def to_json(self) -> dict[str, Any]:
        """The position as ``GET /t/{id}/position.json`` sends it (docs/protocol.md)."""
        return {
            "ply": self.ply,
            "moves": list(self.moves),
            "movers": list(self.movers),
            "closed": list(self.closed),
            "view": self.view,
        }


def digest(moves: tuple[str, ...]) -> str:
    """A short, stable name of a move sequence (an ETag: a take-back changes it)."""
    return hashlib.sha256("\n".join(moves).encode()).hexdigest()[:32]


def _still(view: dict[str, Any]) -> dict[str, Any]:
    still = dict(view)
    if "legal_moves" in still:
        still["legal_moves"] = []
    if "placements" in still:
        still["placements"] = {}
    return still


def _owners(view: dict[str, Any]) -> list[Any]:
    return [cell["owner"] for cell in view.get("cells", ())]


def positions(record: GameRecord, upto: int | None = None) -> Iterator[Position]:
    """Every position of the game from the start to ply ``upto`` (default: the last)."""
    game: Game[Any, Any, Any] = load(record.game, record.options)
    last = len(record.moves) if upto is None else upto
    state = game.initial()
    movers: list[str] = []
    view = game.view(state)
    yield Position(record.game, 0, (), (), _still(view), final=last == 0 and _over(record))
    for index, text in enumerate(record.moves[:last]):
        mover = game.to_move(state)
        state = game.play(state, text)
        movers.append(str(mover))
        before = _owners(view)
        view = game.view(state)
        after = _owners(view)
        closed = tuple(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
        ply = index + 1
        yield Position(
            record.game,
            ply,
            record.moves[:ply],
            tuple(movers),
            _still(view),
            closed,
            final=ply == len(record.moves) and _over(record),
        )


def _over(record: GameRecord) -> bool:
    return record.result is not None


def position_at(record: GameRecord, ply: int) -> Position:
    """The position after ``ply`` moves; raises :class:`NoSuchPly` outside the game.

    Only the rules play the moves before it: the views (a Swaptimum view lists every legal
    move) are built for this position and, for the boxes its last move closed, the one before.
    """
    if not 0 <= ply <= len(record.moves):
        raise NoSuchPly(f"the game has {len(record.moves)} moves: ply {ply} does not exist")
    game: Game[Any, Any, Any] = load(record.game, record.options)
    state = game.initial()
    before = state
    movers: list[str] = []
    for text in record.moves[:ply]:
        movers.append(str(game.to_move(state)))
        before = state
        state = game.play(state, text)
    view = game.view(state)
    closed: tuple[int, ...] = ()
    if ply and "cells" in view:
        was = _owners(game.view(before))
        closed = tuple(i for i, (a, b) in enumerate(zip(was, _owners(view), strict=True)) if a != b)
    final = ply == len(record.moves) and _over(record)
    return Position(
        record.game, ply, record.moves[:ply], tuple(movers), _still(view), closed, final
    )
