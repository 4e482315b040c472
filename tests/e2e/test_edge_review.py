"""A curious player at the edges of the table page: names in other scripts.

Defects found and what was measured (Chromium, 1280x800):

- A nickname in Hebrew or Arabic was laid out as part of the English line around it. Red
  named 'שלום!' was shown to both players as 'םולש! (Red)': the exclamation mark right of
  the word (at x=979 px, the Hebrew letters at 940-966 px), where a Hebrew reader expects it
  before the word's last letter, on its left; the name box also kept typed Hebrew in a
  left-to-right line. The name is now isolated in its own direction (``dir="auto"``) and so
  is the name box: '!םולש (Red)'.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import TIMEOUT, api_table, take_both_seats

pytestmark = pytest.mark.e2e

#: The left edge of each character the element shows, in the order of its text.
CHARACTER_LEFTS = """(selector) => {
    const element = document.querySelector(selector);
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            found.push([node.data[i], range.getBoundingClientRect().left]);
        }
    }
    return found;
}"""


def _left_of(page: Page, selector: str, character: str) -> float:
    lefts = dict(page.evaluate(CHARACTER_LEFTS, selector))
    return float(lefts[character])


def test_a_right_to_left_nickname_reads_in_its_own_direction(
    browser: Browser, server_url: str
) -> None:
    red_context, blue_context = browser.new_context(), browser.new_context()
    red, blue = red_context.new_page(), blue_context.new_page()
    created = api_table(red_context, server_url, "dots", {"rows": 2, "cols": 2})
    take_both_seats(red, blue, created)
    red.locator("#nickname").fill("שלום!")
    expect(red.locator("#nickname")).to_have_css("direction", "rtl")
    red.locator("#nickname-form button").click()
    for page, shown in ((blue, "שלום! (Red)"), (red, "שלום! (Red, you)")):
        name = page.locator("#player-red .player__name")
        expect(name).to_have_text(shown, timeout=TIMEOUT)
        exclamation = _left_of(page, "#player-red .player__name", "!")
        first_letter = _left_of(page, "#player-red .player__name", "ש")
        last_letter = _left_of(page, "#player-red .player__name", "ם")
        bracket = _left_of(page, "#player-red .player__name", "(")
        # right to left: 'ש' rightmost, then the letters, then '!' at the word's left end;
        # the colour in its brackets still after the whole name
        assert exclamation < last_letter < first_letter < bracket, (
            exclamation,
            last_letter,
            first_letter,
            bracket,
        )
