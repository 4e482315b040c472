"""The analysis board's margins name their unit with the language's plurals: "Mistake: Red
gave away 1." and "Blue wins by 3" had none (Czech "ztratil 1"); boxes on a square grid,
cells on a triangle or hexagon grid, as the rest of the site says."""

from __future__ import annotations

import pytest
from babel import Locale

from playtable.web.client_strings import client_strings
from playtable.web.templating import translations

#: the keys of the analysis board's margins, each a counted message
MARGINS = (
    "eval_wins",
    "eval_you_win",
    "eval_you_lose",
    "eval_about",
    "eval_about_you_win",
    "eval_about_you_lose",
    "eval_mistake",
    "eval_mistake_misere",
)
#: each language's unit for 1, 3 and 5: a box, then a triangle's or hexagon's cell
UNITS = {
    "en": (
        ("%(count)s box", "%(count)s boxes", "%(count)s boxes"),
        ("%(count)s cell", "%(count)s cells", "%(count)s cells"),
    ),
    "fi": (("laatikolla", "laatikolla", "laatikolla"), ("ruudulla", "ruudulla", "ruudulla")),
    "cs": (("čtverec", "čtverce", "čtverců"), ("políčko", "políčka", "políček")),
    "ko": (("상자 %(count)s개",) * 3, ("%(count)s칸",) * 3),
}
#: the mistake's unit, where its grammatical case differs from the margins'
MISTAKE = {
    "fi": (("laatikon", "laatikkoa", "laatikkoa"), ("ruudun", "ruutua", "ruutua")),
}


def form(strings: object, lang: str, count: int) -> str:
    """The form i18n.js's ``tn`` picks for ``count`` (CLDR's category, as Intl.PluralRules)."""
    assert isinstance(strings, dict), strings
    category = Locale.parse(lang).plural_form(count)
    text = strings.get(category, strings["other"])
    assert "%(count)s" in text, text
    return str(text)


@pytest.mark.parametrize("lang", ["en", "fi", "cs", "ko"])
@pytest.mark.parametrize("cells", [False, True])
def test_every_margin_names_its_unit_in_the_plural_the_count_asks(lang: str, cells: bool) -> None:
    strings = client_strings(translations(lang), cells)
    for key in MARGINS:
        table = MISTAKE if key.startswith("eval_mistake") and lang in MISTAKE else UNITS
        for count, unit in zip((1, 3, 5), table[lang][cells], strict=True):
            text = form(strings[key], lang, count)
            # Korean's "about" goes between the noun and its count: "상자 약 3개"
            assert unit in text.replace("약 ", ""), (lang, cells, key, count, text)


def test_the_english_and_czech_mistakes_read_as_a_sentence() -> None:
    english = client_strings(translations("en"))["eval_mistake"]
    assert form(english, "en", 1) == "Mistake: %(player)s gave away %(count)s box."
    assert form(english, "en", 2) == "Mistake: %(player)s gave away %(count)s boxes."
    czech = client_strings(translations("cs"), True)["eval_mistake"]
    assert form(czech, "cs", 2) == "Chyba: %(player)s přenechal soupeři %(count)s políčka."


#: a step's heading after a move that claimed 1 or 2 boxes, then cells: "claimed 2 boxes"
CLAIMS = {
    "en": (("%(count)s box", "%(count)s boxes"), ("%(count)s cell", "%(count)s cells")),
    "fi": (("%(count)s laatikon", "%(count)s laatikkoa"), ("%(count)s ruudun", "%(count)s ruutua")),
    "cs": (("%(count)s čtverec", "%(count)s čtverce"), ("%(count)s políčko", "%(count)s políčka")),
    "ko": (("상자 %(count)s개",) * 2, ("%(count)s칸",) * 2),
}


@pytest.mark.parametrize("lang", ["en", "fi", "cs", "ko"])
@pytest.mark.parametrize("cells", [False, True])
def test_a_steps_heading_counts_what_its_move_claimed(lang: str, cells: bool) -> None:
    strings = client_strings(translations(lang), cells)
    for count, unit in zip((1, 2), CLAIMS[lang][cells], strict=True):
        text = form(strings["eval_position_claim"], lang, count)
        assert unit in text, (lang, cells, count, text)
        assert all(f"%({name})s" in text for name in ("ply", "player", "move", "value")), text
