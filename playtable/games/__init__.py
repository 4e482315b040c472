"""The registry of games: a name in a record or a table form -> its :class:`Game` class."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from playtable.games.base import (
    PLAYERS,
    Game,
    GameError,
    IllegalMove,
    NotationError,
    Outcome,
    Player,
    SettingsError,
    Termination,
    other,
)

GameClass = type[Game[Any, Any, Any]]


@functools.cache
def registry() -> dict[str, GameClass]:
    """Every game by its name. Imported on first use so that ``base`` stays import-light."""
    from playtable.games.dots.game import DotsAndBoxes
    from playtable.games.swaptimum import Swaptimum

    return {DotsAndBoxes.name: DotsAndBoxes, Swaptimum.name: Swaptimum}


def load(name: str, options: Mapping[str, Any] | None = None) -> Game[Any, Any, Any]:
    """The game ``name`` with the given table options.

    Raises :class:`SettingsError` for an unknown game or a bad option.
    """
    games = registry()
    if not isinstance(name, str) or name not in games:
        known = ", ".join(sorted(games))
        raise SettingsError(f"unknown game {name!r} (known games: {known})")
    cls = games[name]
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise SettingsError("options must be a JSON object")
    return cls.from_options(options)


__all__ = [
    "PLAYERS",
    "Game",
    "GameError",
    "IllegalMove",
    "NotationError",
    "Outcome",
    "Player",
    "SettingsError",
    "Termination",
    "load",
    "other",
    "registry",
]
