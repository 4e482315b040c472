"""The live channel: a dropped connection comes back and catches up; moves are announced."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Response, WebSocketRoute, expect

from tests.e2e.helpers import (
    accept_invitation,
    create_table,
    record_announcements,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

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
    accept_invitation(blue, red.locator("#invite-url").input_value())
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
    record_announcements(red)
    reply = wait_moves_offered(blue)[0]
    blue.locator(f'#board [data-move="{reply}"]').click()
    wait_ply(red, 2)
    a, b = reply.split("-")
    wait_announced(red, f"Blue drew the line from {a} to {b}. Red to move.")


def test_pages_work_under_a_strict_content_security_policy(
    browser: Browser, server_url: str
) -> None:
    """No inline script or style but the import map a page's policy names by its hash: the
    site's policy (no 'unsafe-inline', no 'unsafe-eval') breaks nothing on a page."""
    page = browser.new_context().new_page()
    policies: list[str] = []

    def note_policy(response: Response) -> None:
        if response.request.resource_type == "document":
            policies.append(response.headers.get("content-security-policy", ""))

    page.on("response", note_policy)
    page.add_init_script(
        "window.__violations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    create_table(page, server_url, "swaptimum", seat="red", swaptimum_size="5")
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, 1)
    assert page.evaluate("window.__violations") == []
    page.goto(server_url + "/")
    page.locator("label.tile").nth(1).click()
    assert page.evaluate("window.__violations") == []
    assert policies and all("script-src 'self'" in policy for policy in policies), policies
    assert not any("unsafe" in policy for policy in policies), policies
    assert any("'sha256-" in policy for policy in policies)  # the table page's import map
