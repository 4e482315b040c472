"""The words on the clocks: a correspondence clock's days."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.test_clocks import api_table

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("lang", "days"), [("/cs", "1\xa0den"), ("", "1\xa0day"), ("/fi", "1\xa0päivä"), ("/ko", "1일")]
)
def test_a_correspondence_clock_has_one_narrow_gap_between_number_and_word(
    browser: Browser, server_url: str, lang: str, days: str
) -> None:
    """In the clocks' monospace font a space is as wide as a letter, and a "1" sits in the
    middle of its letter's width: the Czech clock read "1  den" (a review), and so did every
    language's. The days are words, not a clock face: written in the text's font, with one
    no-break space between the number and the word."""
    context = browser.new_context()
    created = api_table(context, server_url, {"kind": "correspondence", "days": 1})
    page = context.new_page()
    page.goto(created["watch_url"].replace("/t/", f"{lang}/t/", 1))
    clock = page.locator("#clock-red")  # nobody sat down at blue: red waits, with one day
    expect(clock).to_have_text(days)
    assert clock.text_content() == days  # (to_have_text takes any space for any other)
    gap = clock.evaluate(
        """el => {
            const text = el.firstChild, range = document.createRange();
            const at = text.data.search(/\\s/);
            if (at < 0) return 0;
            range.setStart(text, at);
            range.setEnd(text, at + 1);
            return range.getBoundingClientRect().width / parseFloat(getComputedStyle(el).fontSize);
        }"""
    )
    assert gap < 0.4, gap  # a monospace space is 0.6 of the font's size
    context.close()


@pytest.mark.parametrize("width", [1280, 700])
def test_a_deadline_fits_its_box_beside_the_board(
    browser: Browser, server_url: str, width: int
) -> None:
    """In the side panel of a desktop (and the half-width cards of a tablet), a correspondence
    deadline beside the name and the score got 100 to 140 px, and its date ran out of its box
    ("9.12.2026 klo 0." in Finnish, Czech and English): it now has a row of its own."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    created = api_table(context, server_url, {"kind": "correspondence", "days": 3})
    blue = context.new_page()
    blue.goto(created["invite_url"])
    blue.locator("#take-seat").click()
    blue.wait_for_url(re.compile(r"/t/[^/]+$"))
    page = context.new_page()
    for lang in ("", "/fi", "/cs", "/ko"):
        page.goto(created["watch_url"].replace("/t/", f"{lang}/t/", 1))
        clock = page.locator("#clock-red.is-deadline")
        expect(clock).to_be_visible()
        overflow = clock.evaluate("el => el.scrollWidth - el.clientWidth")
        assert overflow <= 0, (lang, width, overflow, clock.text_content())
        card = page.locator("#player-red").bounding_box()
        box = clock.bounding_box()
        assert card and box and box["x"] + box["width"] <= card["x"] + card["width"], (lang, box)
    context.close()
