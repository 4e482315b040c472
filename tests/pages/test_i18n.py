"""Every user-visible string goes through the catalogs, in templates and in scripts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from starlette.requests import Request

from playtable.web import templating
from playtable.web.client_strings import client_strings

ROOT = Path(__file__).resolve().parents[2]
JS_DIR = ROOT / "playtable" / "web" / "static" / "js"
# English is the source language: its strings are the msgids, so it has no catalog of its
# own; the template every language's catalog is merged from must hold every string.
TEMPLATE = ROOT / "playtable" / "i18n" / "messages.pot"


def extracted_ids() -> set[str]:
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    ids: set[str] = set()
    for _filename, _lineno, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, options_map, comment_tags=("Translators:",)
    ):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


def test_the_catalogs_hold_every_string_of_the_sources() -> None:
    with TEMPLATE.open("rb") as po:
        catalog = read_po(po)
    # a plural message's id is its (singular, plural) pair; the extractor yields the singular
    in_catalog = {
        message.id if isinstance(message.id, str) else message.id[0]
        for message in catalog
        if message.id
    }
    missing = extracted_ids() - in_catalog
    assert not missing, f"run `make i18n`: strings missing from the catalogs: {sorted(missing)}"


def test_scripts_look_up_only_keys_that_exist() -> None:
    keys = set(client_strings(templating.translations("en")))
    used: set[str] = set()
    for path in JS_DIR.glob("*.js"):
        used |= set(re.findall(r"\bt\(\s*\"([a-z_]+)\"", path.read_text()))
    assert used, "the scripts use t()"
    assert used <= keys, sorted(used - keys)
    # keys built at run time
    for player in ("red", "blue"):
        assert f"{player}_initial" in keys
    for kind in ("draw_offered", "draw_declined", "undo_requested", "undo_declined"):
        assert f"ann_{kind}" in keys
    assert "ann_rematch_offered" in keys
    assert "ann_rematch_accepted" in keys and "ann_seated" in keys


def test_scripts_hold_no_text_of_their_own() -> None:
    for path in JS_DIR.glob("*.js"):
        source = path.read_text()
        literal = re.search(r"(textContent|innerText|innerHTML|title)\s*=\s*[\"'`][^\"'`]", source)
        assert not literal, f"{path.name} shows a literal string: {literal.group(0)}"
        assert not re.search(r"\b(alert|confirm|prompt)\(", source), path.name


def _request(lang: str | None) -> Request:
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], "state": {}})
    if lang:
        request.state.lang = lang
    return request


def test_a_language_catalog_translates_pages_and_script_strings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = tmp_path / "xx" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    (messages / "messages.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Skip to main content"\nmsgstr "Hyppää sisältöön"\n\n'
        'msgid "Your turn"\nmsgstr "Sinun vuorosi"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(templating, "LOCALES_DIR", tmp_path)
    templating.available_languages.cache_clear()
    templating.translations.cache_clear()
    templating.environment.cache_clear()
    try:
        assert templating.language_of(_request("xx")) == "xx"
        assert templating.language_of(_request("zz")) == "en"
        html = templating.render(
            _request("xx"), "error.html", {"status_code": 404, "heading": "h", "message": "m"}
        ).body.decode()
        assert '<html lang="xx">' in html
        assert "Hyppää sisältöön" in html
        assert client_strings(templating.translations("xx"))["your_turn"] == "Sinun vuorosi"
        # untranslated strings fall back to English
        assert "No registration. Share a link and start playing." in html
    finally:
        templating.available_languages.cache_clear()
        templating.translations.cache_clear()
        templating.environment.cache_clear()


def test_commit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYTABLE_COMMIT", "abc1234")
    templating.commit.cache_clear()
    try:
        assert templating.commit() == "abc1234"
    finally:
        templating.commit.cache_clear()


def test_links_follow_a_language_prefix() -> None:
    request = _request("en")
    request.state.url_prefix = "/fi"
    html = templating.render(
        request, "error.html", {"status_code": 404, "heading": "h", "message": "m"}
    ).body.decode()
    assert 'class="brand" href="/fi/"' in html
    # only the language switcher and the hreflang alternates lead out of the prefix
    site = re.sub(r'<nav class="language-switcher".*?</nav>', "", html, flags=re.S)
    site = re.sub(r'<link rel="alternate"[^>]*>', "", site)
    assert 'href="/"' not in site
