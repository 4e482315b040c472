"""A move draws only what it changed on the board (board.js's `morph`): the nodes that did not
change stay in the page, so a slow phone styles and lays out a handful of nodes instead of
thousands (bench/client.py measures it). What the player sees must not differ in any way
from a board drawn afresh: these tests play whole games live and compare the board with the
one a freshly loaded page draws of the same position."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.helpers import api_table, outcome, take_both_seats, wait_ready
from tests.e2e.positions import play_record

pytestmark = pytest.mark.e2e

# The board's markup, less the roving tabindex (which target is in the tab order follows
# where the keyboard was, not the position).
BOARD_MARKUP = """() => {
  const copy = document.getElementById("board").cloneNode(true);
  for (const node of copy.querySelectorAll("[tabindex]")) node.removeAttribute("tabindex");
  return copy.innerHTML;
}"""


def legal_moves(page: Page, server_url: str, table_id: str) -> list[str]:
    state: dict[str, Any] = page.request.get(f"{server_url}/api/tables/{table_id}").json()
    return list(state["legal_moves"])


@pytest.mark.parametrize(
    ("game", "options", "moves"),
    [
        ("dots", {"grid": "square", "rows": 3, "cols": 3}, 40),
        ("dots", {"grid": "triangle", "size": 3}, 40),
        ("dots", {"grid": "hexagon", "size": 2, "misere": True}, 50),
        ("swaptimum", {"size": 6}, 40),
    ],
)
def test_a_board_played_live_is_the_board_a_fresh_page_draws(
    browser: Browser, server_url: str, game: str, options: dict[str, Any], moves: int
) -> None:
    red_context = browser.new_context()
    created = api_table(red_context, server_url, game, options)
    red = red_context.new_page()
    blue = browser.new_context().new_page()
    take_both_seats(red, blue, created)
    seats = {"red": red, "blue": blue}
    table_id = created["id"]
    # a node of the board, marked: a move that drew the board anew would lose the mark
    red.evaluate("() => { document.querySelector('#board svg').kept = true; }")
    chance = random.Random(f"{game}{options}")
    for played in range(1, moves + 1):
        offered = legal_moves(red, server_url, table_id)
        if outcome(red) or not offered:
            break
        play_record(seats, [chance.choice(offered)])
        if played % 12 == 0:  # mid-game too: targets, a last move, boxes half taken
            same_as_fresh(red)
    assert red.evaluate("() => document.querySelector('#board svg').kept === true")
    same_as_fresh(red)
    same_as_fresh(blue)


def same_as_fresh(page: Page) -> None:
    fresh = page.context.new_page()
    fresh.goto(page.url)
    wait_ready(fresh)
    assert fresh.evaluate(BOARD_MARKUP) == page.evaluate(BOARD_MARKUP)
    fresh.close()
