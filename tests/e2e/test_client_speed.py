"""The table page drawn again at each move without making what did not change again
(bench/client.py measures how long it takes on a slow phone; these tests check behaviour)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import TIMEOUT, to_move, wait_moves_offered
from tests.e2e.positions import play_record
from tests.e2e.test_table_layout import PHONE, seated_pair

pytestmark = pytest.mark.e2e


def play_some(seats: dict[str, Page], count: int) -> list[str]:
    played = []
    for _ in range(count):
        mover = seats[to_move(seats["red"])]
        move = wait_moves_offered(mover)[0]
        play_record(seats, [move])
        played.append(move)
    return played


def test_a_selection_in_the_move_list_stays_when_a_move_arrives(
    browser: Browser, server_url: str
) -> None:
    """A player selecting moves in the list to copy them keeps the selection while the
    opponent plays: the list was made anew at every move, and the selection went with it."""
    red, blue = seated_pair(browser, server_url, PHONE)
    seats = {"red": red, "blue": blue}
    played = play_some(seats, 3)
    expect(red.locator("#move-list li")).to_have_count(3, timeout=TIMEOUT)
    red.evaluate(
        "() => getSelection().selectAllChildren(document.querySelector('#move-list .move-text'))"
    )
    assert red.evaluate("() => getSelection().toString()") == played[0]
    more = play_some(seats, 1)
    expect(red.locator("#move-list li")).to_have_count(4, timeout=TIMEOUT)
    assert red.evaluate("() => getSelection().toString()") == played[0]
    # the list is the game's, its last move marked
    texts = red.locator("#move-list .move-text").all_text_contents()
    assert texts == played + more
    expect(red.locator("#move-list li.is-last")).to_have_count(1)
    last = red.locator("#move-list li").last
    expect(last).to_have_class(re.compile(r"\bis-last\b"), timeout=TIMEOUT)
