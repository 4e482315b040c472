"""A finished game's result as a spectator reads it ("Red wins 14–11.", "Blue resigned. Red
wins."), for pages made on the server: the same catalog messages as the table page's
``result_words.js`` and ``clock.js``, so both say a result in the same words."""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from typing import Any

from babel.numbers import format_decimal

from playtable.games import other


def result_words(outcome: Mapping[str, Any], catalog: gettext.NullTranslations, lang: str) -> str:
    """``outcome`` (a table's public ``outcome``) in words, in the language of ``catalog``."""
    _ = catalog.gettext
    names = {"red": _("Red"), "blue": _("Blue")}
    winner = outcome.get("winner")
    reason = outcome.get("reason")
    if reason == "aborted":
        return _("The table was aborted: no result.")
    if reason == "score" and isinstance(outcome.get("score"), Mapping):
        score = outcome["score"]
        if winner in names:
            return _("%(winner)s wins %(winner_score)s–%(loser_score)s.") % {
                "winner": names[winner],
                "winner_score": format_decimal(score[winner], locale=lang),
                "loser_score": format_decimal(score[other(winner)], locale=lang),
            }
        return _("Draw, %(score)s–%(score)s.") % {
            "score": format_decimal(score["red"], locale=lang)
        }
    if winner in names:
        loser = names[other(winner)]
        if reason == "resign":
            return _("%(loser)s resigned. %(winner)s wins.") % {
                "loser": loser,
                "winner": names[winner],
            }
        if reason == "timeout":
            return _("%(loser)s ran out of time. %(winner)s wins.") % {
                "loser": loser,
                "winner": names[winner],
            }
        return _("%(winner)s wins.") % {"winner": names[winner]}
    if reason == "no_moves":
        return _("Draw: neither player can move.")
    if reason == "draw_agreed":
        return _("Draw agreed.")
    return _("The game is drawn.")


__all__ = ["result_words"]
