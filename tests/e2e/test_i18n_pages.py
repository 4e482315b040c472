"""Every page in every language in a real browser: translated throughout (including what the
scripts write), diagrams drawn, and a language switcher that keeps you where you are."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.e2e.helpers import create_table, seat, wait_moves_offered, wait_ply, wait_ready
from tests.e2e.i18n_helpers import LANGUAGES, english_fragments, english_on_page, prefixed

pytestmark = pytest.mark.e2e

GUIDES = (
    "/rules/dots-and-boxes",
    "/rules/swaptimum",
    "/variants",
    "/variants/swedish-board",
    "/variants/icelandic-board",
    "/variants/misere",
    "/variants/triangle-grid",
    "/variants/hexagon-grid",
)
DIAGRAMS = {"/": 0, "/rules/dots-and-boxes": 1, "/rules/swaptimum": 5, "/variants": 5}


def watch_console(page: Page) -> list[str]:
    said: list[str] = []

    def keep(message: ConsoleMessage) -> None:
        if message.type in ("warning", "error"):
            said.append(message.text)

    page.on("console", keep)
    page.on("pageerror", lambda error: said.append(str(error)))
    return said


def assert_translated(page: Page, lang: str) -> None:
    expect(page.locator("html")).to_have_attribute("lang", lang)
    if lang == "en":
        return
    text = page.locator("body").inner_text() + " " + page.title()
    leaks = english_on_page(lang, text)
    assert not leaks, f"{lang} {page.url}: English left on the page: {leaks}"


def test_the_leak_check_can_fail() -> None:
    assert "Set up a table, share the link, play" in english_fragments("fi")
    assert english_on_page("ko", "… Waiting for an opponent to join …")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_renders_in_the_language(browser: Browser, server_url: str, lang: str) -> None:
    page = browser.new_context(locale="en-GB").new_page()
    problems = watch_console(page)
    for path in ("/", *GUIDES):
        page.goto(server_url + prefixed(lang, path))
        expected = DIAGRAMS.get(path, 1)
        expect(page.locator('.diagram__board[data-drawn="true"] svg')).to_have_count(expected)
        assert_translated(page, lang)
    # the table page, with everything its script writes
    page.goto(server_url + prefixed(lang, "/?game=dots&rows=2&cols=2&seat=red"))
    page.locator("#table-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    wait_ready(page)
    expect(page.locator("#turn")).to_have_attribute("data-state", "yours")
    expect(page.locator("#turn-note")).to_be_visible()
    assert_translated(page, lang)
    assert not [p for p in problems if "favicon" not in p], problems


def test_the_switcher_keeps_you_on_the_page_and_in_your_seat(
    browser: Browser, server_url: str
) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(red, server_url, "swaptimum", seat="red", swaptimum_size="5")
    path = table_url.removeprefix(server_url)
    move = wait_moves_offered(red)[0]
    red.locator(f'#board [data-move="{move}"]').click()
    wait_ply(red, 1)
    for lang, name, turn in (
        ("fi", "Suomi", "Odotetaan vastustajaa"),
        ("cs", "Čeština", "Čeká se, až se připojí soupeř"),
        ("ko", "한국어", "상대가 들어오기를 기다리는 중입니다"),
        ("en", "English", "Waiting for an opponent to join"),
    ):
        red.locator(".language-switcher").get_by_role("link", name=name).click()
        red.wait_for_url(server_url + prefixed(lang, path))
        wait_ready(red)
        assert seat(red) == "red"
        wait_ply(red, 1)
        expect(red.locator("html")).to_have_attribute("lang", lang)
        expect(red.locator("#turn")).to_have_text(turn)
        expect(red.locator('.language-switcher [aria-current="true"]')).to_have_text(name)

    page = browser.new_context(locale="ko-KR").new_page()
    # the bare home page follows the browser's language ...
    page.goto(server_url + "/")
    page.wait_for_url(server_url + "/ko/")
    # ... and the switcher's choice from then on
    page.goto(server_url + "/ko/variants/misere")
    page.locator(".language-switcher").get_by_role("link", name="English").click()
    page.wait_for_url(server_url + "/variants/misere")
    expect(page.locator("h1")).to_have_text("Misère")
    page.locator(".site-nav").get_by_role("link", name="New table").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert page.url.rstrip("/") == server_url
    page.locator(".language-switcher").get_by_role("link", name="Čeština").click()
    page.wait_for_url(server_url + "/cs/")
    page.locator(".site-nav").get_by_role("link", name="Varianty").click()
    page.get_by_role("link", name="Švédská deska").click()
    page.wait_for_url(server_url + "/cs/variants/swedish-board")
    page.get_by_role("link", name="Hrát na švédské desce").click()
    expect(page.locator('select[name="dots_start"]')).to_have_value("swedish")
    expect(page.locator("html")).to_have_attribute("lang", "cs")
