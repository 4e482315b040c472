"""The registry of games: a name in a record or a table form -> its :class:`Game` class."""

from __future__ import annotations

import functools
import importlib
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


# Where each game's class lives; a game's module is imported only once it is asked for, so a
# program that replays Dots and Boxes never imports Swaptimum.
_MODULES = {
    "dots": ("playtable.games.dots.game", "DotsAndBoxes"),
    "swaptimum": ("playtable.games.swaptimum", "Swaptimum"),
}


@functools.cache
def game_class(name: str) -> GameClass:
    """The class of the game ``name`` (a key of ``_MODULES``), imported on first use."""
    module, attribute = _MODULES[name]
    cls: GameClass = getattr(importlib.import_module(module), attribute)
    assert cls.name == name, (cls, name)
    return cls


@functools.cache
def registry() -> dict[str, GameClass]:
    """Every game by its name. Imported on first use so that ``base`` stays import-light."""
    return {name: game_class(name) for name in _MODULES}


# Games built from distinct settings that load() keeps; a site offers a few dozen boards.
LOADED_GAMES = 128


def load(name: str, options: Mapping[str, Any] | None = None) -> Game[Any, Any, Any]:
    """The game ``name`` with the given table options.

    A game is immutable, so one instance serves every caller with the same settings: the
    options are validated each time, and the game built for those settings (its board and
    rule tables) is kept in a bounded cache keyed on the game and its settings value.

    >>> load("dots", {"rows": 3}) is load("dots", {"cols": 5, "rows": 3, "misere": False})
    True

    Raises :class:`SettingsError` for an unknown game or a bad option.
    """
    if options is None:
        options = {}
    # The same options as an earlier call, each value of the same type: the same game. The
    # types are part of the key because validation tells True from 1 while == does not.
    key: tuple[Any, ...] | None
    try:
        key = (name, tuple(options.items()), tuple(map(type, options.values())))
        game = _by_options.get(key)
    except (AttributeError, TypeError):  # not a mapping, or a value that is not hashable
        key = game = None
    if game is not None:
        return game
    if not isinstance(name, str) or name not in _MODULES:
        known = ", ".join(sorted(_MODULES))
        raise SettingsError(f"unknown game {name!r} (known games: {known})")
    cls = game_class(name)
    if not isinstance(options, Mapping):
        raise SettingsError("options must be a JSON object")
    game = _built(cls, cls.parse_settings(options))
    if key is not None:
        if len(_by_options) >= LOADED_GAMES:
            _by_options.clear()
        _by_options[key] = game
    return game


# Games by the exact options they were loaded with (in their order), for load()'s fast path.
_by_options: dict[tuple[Any, ...], Game[Any, Any, Any]] = {}


@functools.lru_cache(maxsize=LOADED_GAMES)
def _built(cls: GameClass, settings: Any) -> Game[Any, Any, Any]:
    """The game of ``cls`` for ``settings`` (a frozen, hashable settings value)."""
    return cls(settings)


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
