"""The words on the clocks: a correspondence clock's days."""

from __future__ import annotations

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
