"""The examples in the games' docstrings are part of their documentation: they must run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "playtable.games.base",
    "playtable.games.dots.geometry",
    "playtable.games.dots.game",
    "playtable.games.records",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
