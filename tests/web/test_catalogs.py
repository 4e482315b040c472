"""The Finnish, Czech and Korean catalogs are complete, current and consistent with English."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "playtable" / "i18n"
LANGUAGES = ("fi", "cs", "ko")
#: the number of plural forms each language needs (Czech: 1 / 2-4 / 5+, Korean: one form)
PLURALS = {"fi": 2, "cs": 3, "ko": 1}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")
TAG = re.compile(r"</?([a-z]+)")


def catalog(lang: str) -> Catalog:
    with (I18N / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=lang)


def template() -> Catalog:
    with (I18N / "messages.pot").open("rb") as pot:
        return read_po(pot)


def key(message: Message) -> str:
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return f"{message.context}\x04{msgid}" if message.context else msgid


def forms(message: Message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def problems(lang: str) -> list[str]:
    """Everything wrong with one catalog, as readable lines (empty when it is complete)."""
    found: list[str] = []
    expected = {key(m): m for m in template() if m.id}
    translated = {key(m): m for m in catalog(lang) if m.id}
    for missing in sorted(set(expected) - set(translated)):
        found.append(f"missing: {missing!r}")
    for msgid, message in translated.items():
        if msgid not in expected:
            found.append(f"obsolete: {msgid!r}")
            continue
        if message.fuzzy:
            found.append(f"fuzzy: {msgid!r}")
        strings = forms(message)
        if not all(s.strip() for s in strings):
            found.append(f"untranslated: {msgid!r}")
            continue
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        if isinstance(message.id, tuple) and len(strings) != PLURALS[lang]:
            found.append(f"{len(strings)} plural forms instead of {PLURALS[lang]}: {msgid!r}")
        wanted = set(PLACEHOLDER.findall(sources[-1]))
        tags = sorted(TAG.findall(sources[0]))
        for string in strings:
            if set(PLACEHOLDER.findall(string)) != wanted:
                found.append(f"placeholders differ: {msgid!r} -> {string!r}")
            if sorted(TAG.findall(string)) != tags:
                found.append(f"markup differs: {msgid!r} -> {string!r}")
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_translated_with_its_placeholders_and_markup(lang: str) -> None:
    found = problems(lang)
    assert not found, f"{lang}: run `make i18n` and translate:\n" + "\n".join(found)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_plural_rule_fits_the_language(lang: str) -> None:
    translations = catalog(lang)
    assert translations.num_plurals == PLURALS[lang]
    assert not translations.fuzzy
    assert any(isinstance(m.id, tuple) for m in translations), "counts use ngettext"


def test_czech_counts_take_the_right_form() -> None:
    from playtable.web.templating import translations

    czech = translations("cs")
    one = "One move per line: %(num)d move on a 4×4 board."
    many = "One move per line: %(num)d moves on a 4×4 board."
    assert czech.ngettext(one, many, 1) % {"num": 1} == "Jeden tah na čáru: 1 tah na 4×4."
    assert czech.ngettext(one, many, 3) % {"num": 3} == "Jeden tah na čáru: 3 tahy na 4×4."
    assert czech.ngettext(one, many, 40) % {"num": 40} == "Jeden tah na čáru: 40 tahů na 4×4."
    korean = translations("ko")
    assert korean.ngettext(one, many, 1) == korean.ngettext(one, many, 40)


@pytest.mark.parametrize("lang", ["fi", "cs", "ko"])
def test_every_reason_a_game_refuses_a_move_is_translated(lang: str) -> None:
    """The games' move errors reach a page as their catalog message and values."""
    from playtable.games import IllegalMove, load, registry
    from playtable.web.templating import translations

    catalog = translations(lang)
    for cls in registry().values():
        assert cls.move_errors
        for reason in cls.move_errors:
            assert catalog.gettext(reason) != reason, (lang, reason)
    dots = load("dots", {"rows": 2, "cols": 2})
    with pytest.raises(IllegalMove) as refused:
        dots.play(dots.play(dots.initial(), "a1-b1"), "b1-a1")
    said = refused.value.translate(catalog.gettext)
    assert "a1-b1" in said and said != str(refused.value)


def test_the_checks_catch_a_bad_translation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks above can fail: a copy of the Finnish catalog with known faults."""
    import tests.web.test_catalogs as me

    source = (I18N / "locales" / "fi" / "LC_MESSAGES" / "messages.po").read_text("utf-8")
    broken = source.replace('msgstr "Sinun vuorosi"', 'msgstr ""', 1)
    broken = broken.replace('msgstr "Viimeisin siirto: %(move)s"', 'msgstr "Viimeisin siirto"', 1)
    broken = broken.replace('msgid "Copy"\nmsgstr', '#, fuzzy\nmsgid "Copy"\nmsgstr', 1)
    assert broken.count('msgstr ""') > source.count('msgstr ""')
    target = tmp_path / "locales" / "fi" / "LC_MESSAGES"
    target.mkdir(parents=True)
    (target / "messages.po").write_text(broken, "utf-8")
    (tmp_path / "messages.pot").write_bytes((I18N / "messages.pot").read_bytes())
    monkeypatch.setattr(me, "I18N", tmp_path)
    found = "\n".join(problems("fi"))
    assert "untranslated: 'Your turn'" in found
    assert "placeholders differ: 'Last move: %(move)s'" in found
    assert "fuzzy: 'Copy'" in found


def test_an_installed_package_reads_its_compiled_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build compiles ``.mo`` files (setup.py); a newer ``.po`` (a checkout being edited)
    wins over a stale ``.mo``."""
    import os

    from babel.messages.mofile import write_mo

    from playtable.web import templating

    messages = tmp_path / "fi" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    po = messages / "messages.po"
    po.write_text('msgid ""\nmsgstr ""\n\nmsgid "Copy"\nmsgstr "Kopioi"\n', "utf-8")
    compiled = Catalog(locale="fi")
    compiled.add("Copy", "Kopioi (käännetty)")
    with (messages / "messages.mo").open("wb") as mo:
        write_mo(mo, compiled)
    monkeypatch.setattr(templating, "LOCALES_DIR", tmp_path)
    templating.translations.cache_clear()
    try:
        os.utime(po, (1, 1))
        assert templating.translations("fi").gettext("Copy") == "Kopioi (käännetty)"
        templating.translations.cache_clear()
        os.utime(po, None)
        os.utime(messages / "messages.mo", (1, 1))
        assert templating.translations("fi").gettext("Copy") == "Kopioi"
    finally:
        templating.translations.cache_clear()


def test_every_error_code_of_the_protocol_has_a_sentence_in_every_language() -> None:
    from playtable.web.client_strings import ERROR_CODES, client_strings
    from playtable.web.templating import translations

    protocol = (ROOT / "docs" / "protocol.md").read_text("utf-8")
    listed = re.search(r"Error codes: (.*?)\.\n", protocol, re.S)
    assert listed, "docs/protocol.md lists the error codes"
    codes = re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", listed.group(1)))
    assert set(codes) == set(ERROR_CODES)
    english = client_strings(translations("en"))
    for lang in LANGUAGES:
        strings = client_strings(translations(lang))
        for code in ERROR_CODES:
            assert strings[f"error_{code}"] != english[f"error_{code}"], (lang, code)


def test_every_reason_the_table_gives_for_a_refusal_is_said_in_every_language() -> None:
    """The table service's reasons are English sentences in the error's "message"; the
    page looks each up in its strings ("refusals"), so each must be translated."""
    from playtable.tables.errors import REASONS
    from playtable.web.client_strings import client_strings
    from playtable.web.templating import translations

    assert len(set(REASONS)) == len(REASONS) >= 10
    for lang in LANGUAGES:
        refusals = client_strings(translations(lang))["refusals"]
        assert isinstance(refusals, Mapping)
        for reason in REASONS:
            assert refusals[reason] and refusals[reason] != reason, (lang, reason)
