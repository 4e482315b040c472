"""The table page on a phone (390x844) and a small phone (320x640, an iPhone SE of the first
generation): a seated player sees the whole board on the first screen, with whose turn it is,
the scores and the clocks. Before, the title, the players' card with the name's form and the
note on the first move came first, and at 320x640 a 5x5 Dots and Boxes board ended at y=662
without a clock, 783 with a real-time clock and 922 with a correspondence one (a 9x9 Swaptimum
board: 743 and 865 with a clock; without one it already fitted, at 617). At 390x844 the
small phone's rules did not apply and a 5x5 board ended at 830 with a real-time clock and 976
with a correspondence one (9x9 Swaptimum: 919 with a correspondence clock)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.e2e.games import play_game
from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    api_table,
    box_of,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e

SMALL_PHONE = ViewportSize(width=320, height=640)
PHONE = ViewportSize(width=390, height=844)
PHONES = pytest.mark.parametrize("viewport", [SMALL_PHONE, PHONE], ids=["320x640", "390x844"])
GAMES = {
    "dots": {"grid": "square", "rows": 5, "cols": 5, "start": "standard"},
    "swaptimum": {},  # the default board (9x9)
}
CLOCKS = {
    "no-clock": None,
    "realtime": {"kind": "realtime", "minutes": 5, "increment": 3},
    "correspondence": {"kind": "correspondence", "days": 3},
}


def on_phone(browser: Browser, viewport: ViewportSize) -> BrowserContext:
    return browser.new_context(viewport=viewport, is_mobile=True, has_touch=True)


def seated_pair(
    browser: Browser, server_url: str, game: str, clock: Any, viewport: ViewportSize = SMALL_PHONE
) -> list[Page]:
    """Red's and Blue's pages on phones, both seated: the game is on, Red to move."""
    red_context = on_phone(browser, viewport)
    created = api_table(red_context, server_url, game, GAMES[game], clock)
    blue = on_phone(browser, viewport).new_page()
    accept_invitation(blue, created["invite_url"])
    red = red_context.new_page()
    red.goto(created["seat_url"])
    for page in (red, blue):
        wait_ready(page)
        expect(page.locator("#player-blue .player__presence")).to_have_attribute(
            "data-presence", "online", timeout=TIMEOUT
        )
    return [red, blue]


def within_screen(page: Page, selector: str) -> None:
    box = box_of(page.locator(selector))
    screen = page.viewport_size
    assert screen is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= screen["width"], (selector, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= screen["height"], (selector, box)


@PHONES
@pytest.mark.parametrize("clock", list(CLOCKS), ids=list(CLOCKS))
@pytest.mark.parametrize("game", list(GAMES))
def test_a_seated_player_sees_the_whole_board_on_a_phone_s_first_screen(
    browser: Browser, server_url: str, game: str, clock: str, viewport: ViewportSize
) -> None:
    for page in seated_pair(browser, server_url, game, CLOCKS[clock], viewport):
        assert page.evaluate("scrollY") == 0
        # what a player needs during play: the board, whose turn it is, the scores, the clocks
        for selector in ("#board svg", "#turn", "#player-red", "#player-blue"):
            within_screen(page, selector)
        if CLOCKS[clock]:
            within_screen(page, "#clock-red")
            within_screen(page, "#clock-blue")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        # the name's form (not needed during play) is there, under the board
        board = box_of(page.locator("#board svg"))
        assert box_of(page.locator("#nickname-form"))["y"] > board["y"] + board["height"]


@PHONES
@pytest.mark.parametrize("clock", ["realtime", "correspondence"])
def test_the_board_stays_where_it_is_as_the_first_moves_are_played(
    browser: Browser, server_url: str, clock: str, viewport: ViewportSize
) -> None:
    """The note on the first move ("Red must make a first move by ...") sat above the board
    and went after the first moves, and the board moved up under a finger; under the board
    now. With a deadline, the two players' lines swap as the turn passes, the same height."""
    pages = seated_pair(browser, server_url, "dots", CLOCKS[clock], viewport)
    expect(pages[0].locator("#clock-note")).to_be_visible()
    tops = [box_of(page.locator("#board svg"))["y"] for page in pages]
    for ply, mover in enumerate([pages[0], pages[1], pages[0]]):
        move = wait_moves_offered(mover)[0]
        mover.locator(f'#board [data-move="{move}"]').tap()
        for page, top in zip(pages, tops, strict=True):
            wait_ply(page, ply + 1)
            assert box_of(page.locator("#board svg"))["y"] == pytest.approx(top, abs=0.5), ply
            within_screen(page, "#board svg")
    for page in pages:
        expect(page.locator("#clock-note")).to_be_hidden()


@pytest.mark.parametrize(
    "viewport",
    [PHONE, SMALL_PHONE],
    ids=["390x844", "320x640"],
)
def test_the_replay_s_line_sits_over_both_players_on_a_phone(
    browser: Browser, server_url: str, viewport: ViewportSize
) -> None:
    """The line saying which step the replay shows ("Starting position (3 moves played).")
    took a cell of the players' two columns: Red went beside it and Blue a row lower (with
    clocks, the board 110 px lower at 390x844). It spans both columns now, the players side
    by side under it."""
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=3, plies=3)
    page = on_phone(browser, viewport).new_page()
    page.goto(f"{server_url}/t/{game.id}/watch")
    wait_ready(page)
    page.locator("#replay button").first.tap()
    caption = page.locator("#players-replay")
    expect(caption).to_have_text("Starting position (3 moves played).")
    line, red, blue = (
        box_of(page.locator(s)) for s in ("#players-replay", "#player-red", "#player-blue")
    )
    assert red["y"] == pytest.approx(blue["y"], abs=1), (red, blue)
    assert line["y"] + line["height"] <= red["y"], (line, red)
    assert line["width"] > red["width"] + blue["width"], (line, red, blue)
