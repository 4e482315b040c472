"""Build hook: compile the translation catalogs (``.po`` -> ``.mo``) into every built package.

Everything else about the package is in ``pyproject.toml``. Compiled catalogs are never
committed; a source checkout (and an editable install) compiles them in memory instead, see
``playtable.web.templating.translations``.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


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


setup(cmdclass={"build_py": BuildWithCatalogs})
