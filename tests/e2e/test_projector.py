"""A spectator's projector view: a club evening's screen shows the board as big as it is and
the players' names and scores readable across the room, nothing else, and keeps doing so
through the game and into the rematch."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import TIMEOUT, seat, wait_ply, wait_ready
from tests.e2e.positions import play_record
from tests.e2e.test_a11y import serious_violations
from tests.e2e.test_spectator_rematch import MOVES, finish_and_rematch, table_id, two_players

pytestmark = pytest.mark.e2e


def font_px(page: Page, selector: str) -> float:
    return float(
        page.locator(selector).first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    )


def test_the_projector_view_fills_the_screen_and_follows_the_game(
    browser: Browser, server_url: str
) -> None:
    red, blue = two_players(browser, server_url)
    hall = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    hall.goto(f"{server_url}/t/{table_id(red)}/watch")
    wait_ready(hall)
    normal_board = hall.locator("#board svg").bounding_box()
    normal_name = font_px(hall, "#player-red .player__name")
    assert normal_board
    # the players have no such button: it is a spectator's
    expect(red.locator("#projector-toggle")).to_have_count(0)
    hall.get_by_role("button", name="Projector view").click()
    expect(hall.locator("#projector-toggle")).to_have_attribute("aria-pressed", "true")
    expect(hall.locator(".site-header")).to_be_hidden()
    expect(hall.locator(".site-footer")).to_be_hidden()
    expect(hall.locator("#links")).to_be_hidden()
    expect(hall.locator("#player-red")).to_be_visible()
    assert "projector=1" in hall.url  # the address to give the hall's computer
    board = hall.locator("#board svg").bounding_box()
    assert board and board["height"] > 0.8 * 1080 > normal_board["height"], (board, normal_board)
    assert board["y"] >= 0 and board["y"] + board["height"] <= 1080  # all of it on the screen
    assert font_px(hall, "#player-red .player__name") > 1.5 * normal_name
    assert not serious_violations(hall)
    # a move shows as it is played; and the view leaves as it came
    play_record({"red": red, "blue": blue}, MOVES[:1])
    wait_ply(hall, 1)
    hall.locator("#projector-toggle").click()
    expect(hall.locator(".site-header")).to_be_visible()
    assert "projector" not in hall.url
    # in full screen, Escape leaves both (a browser that passes the key on, as this one does)
    hall.locator("#projector-toggle").click()
    hall.wait_for_function("() => document.fullscreenElement !== null")
    hall.keyboard.press("Escape")
    expect(hall.locator(".site-header")).to_be_visible()
    assert hall.evaluate("document.fullscreenElement") is None
    # opened from the address, it is a projector again, and into the rematch
    hall.goto(f"{server_url}/t/{table_id(red)}/watch?projector=1")
    wait_ready(hall)
    expect(hall.locator(".site-header")).to_be_hidden()
    hall.keyboard.press("Escape")
    expect(hall.locator(".site-header")).to_be_visible()
    hall.goto(f"{server_url}/t/{table_id(red)}/watch?projector=1")
    wait_ready(hall)
    old = hall.url
    red, blue = finish_and_rematch([red, blue], [hall], MOVES[1:])
    hall.wait_for_url(lambda url: url != old and "projector=1" in url, timeout=TIMEOUT)
    wait_ready(hall)
    assert table_id(hall) == table_id(red) and seat(hall) is None
    expect(hall.locator(".site-header")).to_be_hidden()
