"""The site's header on a phone: one line (the brand, the Beta label and a menu button), the
links, the languages and the theme behind the button, so a table's board is on the first
screen. Before, the header's links and languages wrapped over five lines (195 px at 390 px,
234 at 320) and a seated player's 5x5 board ended 71 px below the screen of a 390x844 phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import accept_invitation, create_table, wait_ready
from tests.e2e.i18n_helpers import LANGUAGES, prefixed

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SMALL_PHONE = {"viewport": {"width": 320, "height": 640}, "is_mobile": True, "has_touch": True}


def header_is_one_line(page: Page) -> None:
    tops = page.evaluate(
        """['.brand', '.beta-label', '#menu-toggle'].map(
            s => document.querySelector(s).getBoundingClientRect())
          .map(r => [Math.round(r.top + r.height / 2), Math.round(r.right)])"""
    )
    middles = [middle for middle, _ in tops]
    assert max(middles) - min(middles) <= 6, tops  # side by side, not wrapped
    width = page.evaluate("innerWidth")
    assert all(right <= width for _, right in tops), tops
    assert page.locator(".site-header").bounding_box()["height"] <= 64  # type: ignore[index]


@pytest.mark.parametrize(
    ("game", "fields"),
    [
        ("dots", {"dots_grid": "square", "dots_rows": "5", "dots_cols": "5"}),
        ("swaptimum", {}),
    ],
)
def test_a_seated_player_sees_the_whole_board_on_a_phone_s_first_screen(
    browser: Browser, server_url: str, game: str, fields: dict[str, str]
) -> None:
    red = browser.new_context(**PHONE).new_page()
    url = create_table(red, server_url, game, seat="red", **fields)
    blue = browser.new_context(**PHONE).new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    for page, address in ((red, url), (blue, blue.url)):
        for lang in ("en", "fi"):
            page.goto(re.sub(r"\?.*$", "", address) + f"?lang={lang}")
            wait_ready(page)
            header_is_one_line(page)
            board = page.locator("#board").bounding_box()
            assert board is not None
            assert board["y"] + board["height"] <= 844, (game, lang, board)
            expect(page.locator("#turn")).to_be_in_viewport()


def test_the_menu_opens_closes_and_shows_every_link_and_language(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_context(**PHONE).new_page()
    page.goto(server_url + "/")
    button = page.locator("#menu-toggle")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".site-nav")).to_be_hidden()
    expect(page.locator(".language-switcher")).to_be_hidden()
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    for link in ("New table", "My games", "Dots and Boxes rules", "Swaptimum rules", "Variants"):
        box = page.locator(".site-nav").get_by_role("link", name=link).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (link, box)
    expect(page.locator("#theme-toggle")).to_be_visible()
    # Escape folds it again and gives the focus back to the button
    page.locator(".site-nav").get_by_role("link", name="Variants").focus()
    page.keyboard.press("Escape")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(button).to_be_focused()
    expect(page.locator(".site-nav")).to_be_hidden()
    # the keyboard alone: the button opens it, and a language is one tab away
    page.keyboard.press("Enter")
    expect(button).to_have_attribute("aria-expanded", "true")
    page.locator(".language-switcher").get_by_role("link", name="Suomi").click()
    expect(page.locator("html")).to_have_attribute("lang", "fi")
    expect(page.locator("#menu-toggle")).to_have_text("Valikko")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_header_is_one_line_on_the_smallest_phone_in_every_language(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_context(**SMALL_PHONE).new_page()
    for lang in LANGUAGES:
        page.goto(server_url + prefixed(lang, "/"))
        header_is_one_line(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= 320, lang


def test_a_wide_screen_shows_the_links_without_a_menu_button(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(server_url + "/")
    expect(page.locator("#menu-toggle")).to_be_hidden()
    expect(page.locator(".site-nav").get_by_role("link", name="Variants")).to_be_visible()
    expect(page.locator(".language-switcher").get_by_role("link", name="한국어")).to_be_visible()


def test_without_scripts_a_phone_shows_every_link(browser: Browser, server_url: str) -> None:
    page = browser.new_context(**PHONE, java_script_enabled=False).new_page()
    page.goto(server_url + "/")
    expect(page.locator("#menu-toggle")).to_be_hidden()
    expect(page.locator(".site-nav").get_by_role("link", name="Variants")).to_be_visible()
    expect(page.locator(".language-switcher").get_by_role("link", name="Suomi")).to_be_visible()
