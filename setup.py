"""Build hook: an opt-in compiled build of the Dots and Boxes engine.

Everything else about the package is in ``pyproject.toml``. By default (and always for the
editable install of ``make install``) the package is pure Python. ``PLAYTABLE_COMPILE=1 pip
install .`` compiles ``playtable/games/dots/game.py`` to a C extension with mypyc; see
``bench/README.md``.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

COMPILED_MODULES = ["playtable/games/dots/game.py"]


def _extensions() -> list[Extension]:
    """The mypyc extensions when ``PLAYTABLE_COMPILE=1``, else none."""
    if os.environ.get("PLAYTABLE_COMPILE", "") in ("", "0"):
        return []
    if "editable_wheel" in sys.argv:
        # An editable install would build the extension next to game.py, where Python
        # imports it instead of the source: every later edit of game.py would be ignored.
        raise SystemExit(
            "PLAYTABLE_COMPILE=1 is for a regular install (pip install .), "
            "not an editable one (pip install -e .)"
        )
    from mypyc.build import mypycify

    return mypycify(COMPILED_MODULES, opt_level="3")


setup(ext_modules=_extensions())
