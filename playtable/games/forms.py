"""How each game appears on the site: its title, its board's name, a one-line summary of a
table's settings, and its part of the home page form.

Adding a game means adding its :class:`GameForm` here (and its fieldset in the home form's
template); the pages and the table service read everything from :data:`FORMS`. The words
are English message ids marked with :func:`N_`, so ``make i18n`` extracts them; the web layer
translates them in the page's language (:class:`Phrase` carries the parameters).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from playtable.games.base import N_, SettingsError
from playtable.games.dots.game import DotsAndBoxes
from playtable.games.swaptimum import Swaptimum


@dataclass(frozen=True)
class Phrase:
    """A message id and its parameters, translated where it is shown. A phrase with a
    ``plural`` takes the form its language gives the number in ``params[count]`` (Czech
    "4 × 4 čtverce" but "5 × 5 čtverců")."""

    msgid: str
    params: Mapping[str, Any] = field(default_factory=dict)
    plural: str | None = None
    count: str | None = None


def ngettext(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with a plural for ``make i18n`` (Babel's ``ngettext`` keyword); it is
    translated where it is shown."""
    return singular, plural


class FormError(SettingsError):
    """A form value that cannot even be handed to the game (not a number, unknown choice);
    like every settings error, a catalog message (:meth:`SettingsError.translate`)."""


def choice(value: Any, allowed: tuple[str, ...], msgid: str) -> str:
    if value not in allowed:
        raise FormError(msgid)
    return str(value)


_WHOLE = re.compile(r"-?[0-9]+")


def whole_number(value: Any, msgid: str, **params: object) -> int:
    """``value`` as a whole number, else :class:`FormError` ``msgid`` (filled by ``params``)."""
    text = str(value).strip()
    # ASCII digits only: "²" and "٣" are digits to str.isdigit(), and int() refuses the first
    if not _WHOLE.fullmatch(text) or len(text) > 4:
        raise FormError(msgid, **params)
    return int(text)


class GameForm(ABC):
    """One game's presentation and its fields of the home form (named ``<game>_<field>``)."""

    name: ClassVar[str]
    title: ClassVar[str]
    board_label: ClassVar[str]
    #: form field -> its value for a first-time visitor
    defaults: ClassVar[Mapping[str, str | bool]]
    #: query parameter of a link to the home page (``/?grid=triangle``) -> form field
    query: ClassVar[Mapping[str, str]]
    #: form fields whose value is one of a fixed set
    choices: ClassVar[Mapping[str, tuple[str, ...]]] = MappingProxyType({})

    @abstractmethod
    def options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The table options the form's values ask for; raises :class:`FormError`. Range
        checks are the game's (it raises :class:`~playtable.games.SettingsError`)."""

    @abstractmethod
    def summary(self, options: Mapping[str, Any]) -> list[Phrase]:
        """The settings in a few words (joined with " · " by the page)."""


class DotsForm(GameForm):
    name = DotsAndBoxes.name
    title = N_("Dots and Boxes")
    board_label = N_("Dots and Boxes board")
    defaults = MappingProxyType(
        {
            "dots_grid": "square",
            "dots_rows": "5",
            "dots_cols": "5",
            "dots_size": "4",
            "dots_start": "standard",
            "dots_misere": False,
        }
    )
    query = MappingProxyType(
        {
            "grid": "dots_grid",
            "rows": "dots_rows",
            "cols": "dots_cols",
            "size": "dots_size",
            "start": "dots_start",
            "misere": "dots_misere",
        }
    )
    choices = MappingProxyType(
        {
            "dots_grid": ("square", "triangle", "hexagon"),
            "dots_start": ("standard", "swedish", "icelandic"),
        }
    )

    def options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        grid = choice(values.get("dots_grid"), self.choices["dots_grid"], N_("Choose a grid."))
        options: dict[str, Any] = {"grid": grid}
        if grid == "square":
            options["rows"] = whole_number(
                values.get("dots_rows"), N_("Rows must be a whole number.")
            )
            options["cols"] = whole_number(
                values.get("dots_cols"), N_("Columns must be a whole number.")
            )
        else:
            options["size"] = whole_number(
                values.get("dots_size"), N_("Size must be a whole number.")
            )
        options["start"] = choice(
            values.get("dots_start"), self.choices["dots_start"], N_("Choose a start.")
        )
        options["misere"] = bool(values.get("dots_misere"))
        return options

    def summary(self, options: Mapping[str, Any]) -> list[Phrase]:
        grid = options.get("grid", "square")
        if grid == "square":
            # the noun agrees with the number next to it: "4 × 1 box", Czech "4 × 4 čtverce"
            one, many = ngettext("%(rows)s × %(cols)s box", "%(rows)s × %(cols)s boxes")
            parts = [
                Phrase(
                    one,
                    {"rows": options.get("rows"), "cols": options.get("cols")},
                    plural=many,
                    count="cols",
                )
            ]
        elif grid == "triangle":
            parts = [Phrase(N_("Triangle grid, side %(size)s"), {"size": options.get("size")})]
        else:
            parts = [Phrase(N_("Hexagon grid, radius %(size)s"), {"size": options.get("size")})]
        starts = {
            "standard": N_("Standard start"),
            "swedish": N_("Swedish board"),
            "icelandic": N_("Icelandic board"),
        }
        start = options.get("start", "standard")
        parts.append(Phrase(starts.get(start, start)))
        if options.get("misere"):
            parts.append(Phrase(N_("Misère")))
        return parts


class SwaptimumForm(GameForm):
    name = Swaptimum.name
    title = N_("Swaptimum")
    board_label = N_("Swaptimum board")
    defaults = MappingProxyType({"swaptimum_size": "9"})
    query = MappingProxyType({"size": "swaptimum_size"})

    def options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        size = whole_number(values.get("swaptimum_size"), N_("Board size must be a whole number."))
        return {"size": size}

    def summary(self, options: Mapping[str, Any]) -> list[Phrase]:
        return [Phrase(N_("%(size)s × %(size)s board"), {"size": options.get("size")})]


#: Every game's form, in the order the home page offers them.
FORMS: dict[str, GameForm] = {form.name: form for form in (DotsForm(), SwaptimumForm())}

__all__ = ["FORMS", "DotsForm", "FormError", "GameForm", "Phrase", "SwaptimumForm"]
