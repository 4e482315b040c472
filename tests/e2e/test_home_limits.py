"""A board size out of range is said under its field as a sentence, in the page's language.

Before, home.js showed the engine's API fragment with its first letter raised: 'Rivien
määrän on oltava kokonaisluku 1–12' and '크기는 1에서 6 사이의 정수여야 합니다', no full stop,
where every other message of the form ('Minuutit: 1–180.') is a sentence."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.e2e


def choose(page: Page, name: str, value: str) -> None:
    page.locator("label", has=page.locator(f'input[name="{name}"][value="{value}"]')).click()


def submit(page: Page) -> None:
    page.locator("#table-form button[type=submit]").click()


def test_out_of_range_sizes_are_said_as_sentences_in_finnish(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_context().new_page()
    page.goto(server_url + "/fi/")
    choose(page, "game", "dots")
    page.locator("#dots_cols").fill("0")
    submit(page)
    expect(page.locator("#dots_cols-error")).to_have_text(
        "Sarakkeiden määrän on oltava kokonaisluku 1–12."
    )
    expect(page.locator("#dots_cols")).to_be_focused()
    # the triangle's range, then the hexagon's, each from its own grid
    page.locator("#dots_cols").fill("5")
    choose(page, "dots_grid", "triangle")
    size = page.locator("#dots_size")
    size.fill("11")
    submit(page)
    expect(page.locator("#dots_size-error")).to_have_text("Koon on oltava kokonaisluku 1–10.")
    choose(page, "game", "swaptimum")
    page.locator("#swaptimum_size").fill("27")
    submit(page)
    expect(page.locator("#swaptimum_size-error")).to_have_text(
        "Laudan koon on oltava kokonaisluku 2–26."
    )
    assert page.url.rstrip("/").endswith("/fi")  # nothing was sent


def test_out_of_range_sizes_are_said_as_sentences_in_korean(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_context().new_page()
    page.goto(server_url + "/ko/")
    choose(page, "game", "dots")
    choose(page, "dots_grid", "hexagon")
    size = page.locator("#dots_size")
    size.fill("7")
    submit(page)
    error = page.locator("#dots_size-error")
    expect(error).to_have_text("크기는 1에서 6 사이의 정수여야 합니다.")
    expect(size).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#size-hint-hexagon")).to_have_text(
        "육각형의 반지름, 1~6 (반지름이 2이면 육각형 7개, 3이면 19개)."
    )
    # the message follows the typing and goes once the value is in range
    size.fill("6")
    expect(error).to_be_hidden()
    submit(page)
    page.wait_for_url("**/ko/t/*")
