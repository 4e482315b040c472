"""games.load: one game per settings, whatever way the options are written."""

from __future__ import annotations

import pytest

from playtable.games import LOADED_GAMES, SettingsError, load
from playtable.games.dots.game import DotsAndBoxes


def test_the_same_settings_give_the_same_game() -> None:
    first = load("dots", {"rows": 3, "cols": 4})
    assert load("dots", {"cols": 4, "rows": 3}) is first
    assert load("dots", {"grid": "square", "rows": 3, "cols": 4, "misere": False}) is first
    assert load("dots", {"rows": 4, "cols": 3}) is not first
    assert load("swaptimum", {}) is load("swaptimum", {"size": 9})


def test_the_cache_never_accepts_what_validation_refuses() -> None:
    load("dots", {"misere": True})
    with pytest.raises(SettingsError, match="misere"):
        load("dots", {"misere": 1})  # == True, but not a boolean
    load("dots", {"rows": 2})
    with pytest.raises(SettingsError, match="rows"):
        load("dots", {"rows": 2.0})
    with pytest.raises(SettingsError):
        load("dots", {"rows": [2]})  # not hashable: validated, refused
    with pytest.raises(SettingsError, match="unknown game"):
        load("chess", {})


def test_the_cache_is_bounded_and_stays_right() -> None:
    games = {size: load("swaptimum", {"size": size}) for size in range(2, 27)}
    for rows in range(1, 13):
        for cols in range(1, 13):
            game = load("dots", {"rows": rows, "cols": cols})
            assert isinstance(game, DotsAndBoxes)
            assert game.board.dimensions == (rows, cols)
    assert LOADED_GAMES < 25 + 144  # more boards than the cache holds
    for size, game in games.items():
        again = load("swaptimum", {"size": size})
        assert again.options() == game.options() == {"size": size}
