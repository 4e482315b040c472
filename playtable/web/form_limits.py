"""The numbers of the home form's board sizes, from the engines: each number field's range
(its ``min`` and ``max``, which home.js checks), the sentence shown under the field when a
value is outside it, and the numbers its hint says, in the page's language.

A limit changed in an engine (``SQUARE_MAX``, ``TRIANGLE_MAX``, ``HEXAGON_MAX`` in
``games/dots/geometry.py``, ``MIN_SIZE``/``MAX_SIZE`` in ``games/swaptimum.py``, read through
:func:`playtable.web.guides.size_limits`) changes the form, its messages and its checks
together. The words of the hints are in the template.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass

from babel.numbers import format_decimal

from playtable.games.base import N_
from playtable.games.dots import geometry
from playtable.web import guides

#: The sentence under a field whose value is out of range. The engines' own messages
#: ("rows must be a whole number from 1 to 12") are fragments, made to follow a field name
#: in the API's errors; under a field a player reads a sentence.
_SENTENCES = {
    "rows": N_("Rows must be a whole number from %(low)s to %(high)s."),
    "cols": N_("Columns must be a whole number from %(low)s to %(high)s."),
    "triangle": N_("Size must be a whole number from %(low)s to %(high)s."),
    "hexagon": N_("Size must be a whole number from %(low)s to %(high)s."),
    "swaptimum": N_("Board size must be a whole number from %(low)s to %(high)s."),
}
#: which board's limits each field takes (``guides.size_limits``)
_BOARDS = {"rows": "square", "cols": "square", "triangle": "triangle", "hexagon": "hexagon"}
#: the hexagons the hint gives as examples of a radius and its number of cells
_EXAMPLE_RADII = (2, 3)


@dataclass(frozen=True)
class NumberLimits:
    """One number field's range: ``low`` and ``high`` for its attributes, the same numbers
    as the page's language writes them (``shown``), and the out-of-range sentence."""

    low: int
    high: int
    shown: dict[str, str]
    invalid: str


def form_limits(catalog: gettext.NullTranslations, lang: str) -> dict[str, object]:
    """The home form's ranges by field (``rows``, ``cols``, ``triangle``, ``hexagon``,
    ``swaptimum``) and ``hexagon_examples``: a radius and its cells as the engine builds them,
    for the radii of ``_EXAMPLE_RADII`` the hexagon grid allows (as numbers in ``lang``)."""
    limits = guides.size_limits()

    def number(value: int) -> str:
        return format_decimal(value, locale=lang)

    fields: dict[str, object] = {}
    for name, sentence in _SENTENCES.items():
        low, high = limits[_BOARDS.get(name, name)]
        shown = {"low": number(low), "high": number(high)}
        fields[name] = NumberLimits(low, high, shown, catalog.gettext(sentence) % shown)
    low, high = limits["hexagon"]
    fields["hexagon_examples"] = [
        {"radius": number(radius), "cells": number(len(geometry.hexagon(radius).cells))}
        for radius in _EXAMPLE_RADII
        if low <= radius <= high
    ]
    return fields


__all__ = ["NumberLimits", "form_limits"]
