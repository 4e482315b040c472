"""Take-backs, draw offers, resigning, and the server's refusals shown on the page."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.e2e.helpers import (
    accept_invitation,
    create_table,
    outcome,
    ply,
    record_announcements,
    seat,
    to_move,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e


def play_first(page: Page) -> str:
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    return move


def test_take_back_draw_offers_refusals_and_resigning(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="2", dots_cols="2"
    )
    blue_context = browser.new_context()
    blue = blue_context.new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(table_url)
    wait_ready(blue)

    # a take-back: asked for, then allowed
    play_first(red)
    wait_ply(blue, 1)
    expect(blue.locator("#action-undo")).to_be_hidden()
    red.locator("#action-undo").click()
    expect(blue.locator("#offer-undo")).to_be_visible()
    expect(red.locator("#offer-undo .offer__buttons")).to_be_hidden()
    blue.get_by_role("button", name="Allow take-back").click()
    wait_ply(red, 0)
    wait_ply(blue, 0)
    assert to_move(red) == "red"
    expect(red.locator("#offer-undo")).to_be_hidden()

    play_first(red)
    wait_ply(blue, 1)

    # a draw offer, declined
    record_announcements(red)
    blue.locator("#action-draw").click()
    expect(red.locator("#offer-draw")).to_be_visible()
    wait_announced(red, "Blue offers a draw")
    red.locator("#offer-draw").get_by_role("button", name="Decline").click()
    expect(blue.locator("#offer-draw")).to_be_hidden()
    assert outcome(blue) is None
    # offered again at once: Blue is told why not, and Red sees no offer (before, Red was
    # shown it again, as often as Blue liked, while Red's clock ran)
    blue.locator("#action-draw").click()
    expect(blue.locator("#notice-text")).to_contain_text(
        "Your draw offer was declined; you can offer again after the next move."
    )
    red.wait_for_timeout(300)
    expect(red.locator("#offer-draw")).to_be_hidden()

    # the server's refusal is shown, not swallowed: a second tab of blue's seat sends a
    # move with a stale ply
    def stale_moves(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "move":
                data["ply"] = 0
            server.send(json.dumps(data))

        ws.on_message(to_server)

    blue_tab = blue_context.new_page()
    blue_tab.route_web_socket(re.compile(r"/ws$"), stale_moves)
    blue_tab.goto(table_url)
    wait_ready(blue_tab)
    assert seat(blue_tab) == "blue"
    play_first(blue_tab)
    expect(blue_tab.locator("#notice")).to_be_visible()
    expect(blue_tab.locator("#notice")).not_to_be_empty()
    assert ply(blue_tab) == 1 and ply(red) == 1
    blue_tab.close()

    # a draw offer, accepted (a move later)
    play_first(blue)
    wait_ply(red, 2)
    blue.locator("#action-draw").click()
    red.get_by_role("button", name="Accept draw").click()
    for page in (red, blue):
        expect(page.locator("#board")).to_have_attribute("data-outcome", "draw")
        expect(page.locator("#result-text")).to_have_text("Draw agreed.")

    # rematch, then resign (after thinking better of it once)
    red.locator("#action-rematch").click()
    blue.locator("#accept-rematch").click()
    for page in (red, blue):
        page.wait_for_url(lambda url: url.rstrip("/") != table_url and "/t/" in url)
        wait_ready(page)
    dialog = blue.locator("#resign-dialog")
    blue.locator("#action-resign").click()
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Keep playing").click()
    expect(dialog).to_be_hidden()
    assert outcome(blue) is None
    blue.locator("#action-resign").click()
    dialog.get_by_role("button", name="Resign").click()
    loser = seat(blue)
    winner = "red" if loser == "blue" else "blue"
    for page in (red, blue):
        expect(page.locator("#board")).to_have_attribute("data-outcome", winner)
        expect(page.locator("#result-text")).to_contain_text("resigned")
