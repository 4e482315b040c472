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
    module = importlib.import_module(name)
    if not (module.__file__ or "").endswith(".py"):
        # make test-compiled: doctest cannot see into a C extension; the source build runs
        # the same examples.
        pytest.skip("compiled module: its examples run in the source build")
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
