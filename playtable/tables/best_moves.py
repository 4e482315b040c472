"""The answers to best-move requests, kept per position, and what each one cost.

A position's best moves are a fact of the position alone (the game's settings and the moves
before it), whatever table it was reached at, so this process keeps the last
:data:`KEPT` answers: a player stepping back and forth through a game, a second viewer of the
same analysis, or an address repeating one expensive request is answered without the
solver. An answer the solver could not prove within its budget is kept for
:data:`UNPROVED_FOR_S` only (on a quieter machine, or with more time, it may be proved).
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

KEPT = 2048
UNPROVED_FOR_S = 600.0

Position = tuple[str, str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class BestMoves:
    """A best-move answer (docs/protocol.md) and the seconds it held a solver's worker (0
    when it was kept from an earlier request)."""

    answer: dict[str, Any]
    solver_s: float = 0.0


def position(game: str, options: Mapping[str, Any], moves: Sequence[str]) -> Position:
    """The key of the position after ``moves`` in ``game`` played with ``options``."""
    return game, json.dumps(options, sort_keys=True, separators=(",", ":")), tuple(moves)


class KeptAnswers:
    """The last :data:`KEPT` answers by position, the unproved ones for a while only."""

    def __init__(self, kept: int = KEPT, unproved_for_s: float = UNPROVED_FOR_S) -> None:
        self.kept = kept
        self.unproved_for_s = unproved_for_s
        self._answers: OrderedDict[Position, tuple[dict[str, Any], float]] = OrderedDict()

    def get(self, key: Position, now: float | None = None) -> dict[str, Any] | None:
        found = self._answers.get(key)
        if found is None:
            return None
        answer, until = found
        if until < (time.monotonic() if now is None else now):
            del self._answers[key]
            return None
        self._answers.move_to_end(key)
        return answer

    def put(self, key: Position, answer: dict[str, Any], now: float | None = None) -> None:
        start = time.monotonic() if now is None else now
        until = float("inf") if answer.get("proved") else start + self.unproved_for_s
        self._answers[key] = (answer, until)
        self._answers.move_to_end(key)
        while len(self._answers) > self.kept:
            self._answers.popitem(last=False)

    def __len__(self) -> int:
        return len(self._answers)


__all__ = ["KEPT", "UNPROVED_FOR_S", "BestMoves", "KeptAnswers", "Position", "position"]
