"""The live channel: a dropped connection comes back and catches up; moves are announced."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, WebSocketRoute, expect

from tests.e2e.helpers import create_table, wait_moves_offered, wait_ply, wait_ready

pytestmark = pytest.mark.e2e


def test_a_dropped_connection_reconnects_and_catches_up(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="1", dots_cols="2"
    )
    blue = browser.new_context().new_page()
    sockets: list[WebSocketRoute] = []

    def keep(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    blue.route_web_socket(re.compile(r"/ws$"), keep)
    blue.goto(red.locator("#invite-url").input_value())
    blue.wait_for_url(table_url)
    wait_ready(blue)
    assert len(sockets) == 1

    # blue's connection drops; red plays meanwhile
    sockets[0].close()
    expect(blue.locator("#connection")).to_have_attribute("data-state", "reconnecting")
    move = wait_moves_offered(red)[0]
    red.locator(f'#board [data-move="{move}"]').click()
    wait_ply(red, 1)

    # blue is back within a second, with the move it missed
    expect(blue.locator("#connection")).to_have_attribute("data-state", "connected")
    wait_ply(blue, 1)
    assert len(sockets) == 2
    expect(blue).to_have_title(re.compile(r"^Your turn"))
    expect(blue.locator(f'.line--last[data-line="{move}"]')).to_have_count(1)

    # blue's move is announced to red's screen reader
    reply = wait_moves_offered(blue)[0]
    blue.locator(f'#board [data-move="{reply}"]').click()
    wait_ply(red, 2)
    expect(red.locator("#announcer")).to_contain_text(reply)
    expect(red.locator("#announcer")).to_contain_text("Blue")
