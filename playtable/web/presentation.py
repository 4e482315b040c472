"""The games' words in the page's language: titles, board names, settings summaries and
the computer's names, read from the game registry (:data:`playtable.games.forms.FORMS`)."""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from typing import Any

from playtable.games.dots.game import DotsAndBoxes
from playtable.games.forms import FORMS, Phrase
from playtable.tables.events import QUICK_MESSAGES


def say(catalog: gettext.NullTranslations, phrase: Phrase) -> str:
    """``phrase`` translated, with its parameters filled in."""
    if phrase.plural is not None and phrase.count is not None:
        count = phrase.params.get(phrase.count)
        number = count if isinstance(count, int) else 0
        text = catalog.ngettext(phrase.msgid, phrase.plural, number)
    else:
        text = catalog.gettext(phrase.msgid)
    return text % dict(phrase.params) if phrase.params else text


def game_title(game: str, catalog: gettext.NullTranslations) -> str:
    form = FORMS.get(game)
    return catalog.gettext(form.title) if form is not None else game


def board_label(game: str, catalog: gettext.NullTranslations) -> str:
    form = FORMS.get(game)
    return catalog.gettext(form.board_label) if form is not None else game


def settings_summary(
    game: str, options: Mapping[str, Any], catalog: gettext.NullTranslations
) -> str:
    """The table settings in a few words: "5 × 5 boxes · Swedish board · Misère"."""
    form = FORMS.get(game)
    if form is None:
        return ""
    return " · ".join(say(catalog, phrase) for phrase in form.summary(options))


def counts_cells(game: str, options: Mapping[str, Any]) -> bool:
    """Whether the page calls the board's cells "cells" rather than "boxes": a Dots and
    Boxes board on a triangle or hexagon grid (the rules' word; a square grid's are boxes)."""
    return game == DotsAndBoxes.name and options.get("grid", "square") != "square"


def bot_names(catalog: gettext.NullTranslations) -> dict[str, str]:
    """How the page names a computer player of each level."""
    _ = catalog.gettext
    return {
        "easy": _("Computer (easy)"),
        "medium": _("Computer (medium)"),
        "hard": _("Computer (hard)"),
    }


def quick_messages(catalog: gettext.NullTranslations) -> list[tuple[str, str]]:
    """The quick messages a player may send the table, as the page labels them."""
    _ = catalog.gettext
    labels = {
        "good_luck": _("Good luck!"),
        "good_game": _("Good game!"),
        "thanks": _("Thanks!"),
        "oops": _("Oops!"),
        "well_played": _("Well played!"),
    }
    return [(key, labels[key]) for key in QUICK_MESSAGES]


__all__ = [
    "board_label",
    "bot_names",
    "counts_cells",
    "game_title",
    "quick_messages",
    "say",
    "settings_summary",
]
