"""Build hooks: translation catalogs in every built package; an opt-in compiled engine.

Everything else about the package is in ``pyproject.toml``.

- The translation catalogs (``.po`` -> ``.mo``) are compiled into every built package. Compiled
  catalogs are never committed; a source checkout (and an editable install) compiles them in
  memory instead, see ``playtable.web.templating.translations``.
- The C search of the Dots and Boxes solver (``playtable/ai/_dotscore.c``) is built by
  every install, the editable one included (next to its source); if no C compiler is there,
  the install goes on and the solver runs in pure Python.
- ``PLAYTABLE_COMPILE=1 pip install .`` also compiles ``COMPILED_MODULES`` (the Dots and Boxes
  engine, the solver and its chains-and-loops game) into C extensions with mypyc (see
  ``bench/README.md``). Without it, and always for the editable install of ``make install``,
  those modules run as Python source.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

COMPILED_MODULES = [
    "playtable/games/dots/game.py",
    "playtable/ai/strings.py",
    "playtable/ai/dots_solver.py",
]


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po_path in Path(self.build_lib, "playtable", "i18n", "locales").glob(
            "*/LC_MESSAGES/messages.po"
        ):
            with po_path.open("rb") as po_file:
                catalog = read_po(po_file, locale=po_path.parents[1].name)
            with po_path.with_suffix(".mo").open("wb") as mo_file:
                write_mo(mo_file, catalog)


# The C search of the Dots and Boxes solver (playtable/ai/_dotscore.c), always built. Optional:
# without a C compiler the install still succeeds and the solver searches in pure Python.
# Every x86-64 processor since 2008 counts bits in one instruction (POPCNT); the search counts
# the free lines of every cell at every node.
_X86 = platform.machine().lower() in ("x86_64", "amd64")
NATIVE = Extension(
    "playtable.ai._dotscore",
    ["playtable/ai/_dotscore.c"],
    extra_compile_args=["-O3", *(["-mpopcnt"] if _X86 else [])],
    optional=True,
)


def _extensions() -> list[Extension]:
    """The C search, plus the mypyc extensions when ``PLAYTABLE_COMPILE=1``."""
    if os.environ.get("PLAYTABLE_COMPILE", "") in ("", "0"):
        return [NATIVE]
    if "editable_wheel" in sys.argv:
        # An editable install would build the extension next to game.py, where Python
        # imports it instead of the source: every later edit of game.py would be ignored.
        raise SystemExit(
            "PLAYTABLE_COMPILE=1 is for a regular install (pip install .), "
            "not an editable one (pip install -e .)"
        )
    from mypyc.build import mypycify

    return [*mypycify(COMPILED_MODULES, opt_level="3"), NATIVE]


setup(cmdclass={"build_py": BuildWithCatalogs}, ext_modules=_extensions())
