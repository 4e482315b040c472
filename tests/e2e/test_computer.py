"""Against the computer: the page says it is thinking (not "Waiting for Blue"), the
take-back is offered whenever you have moved, and a take-back of several plies (your move
and the computer's replies) is announced as such, in the page's language."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.e2e.helpers import (
    TIMEOUT,
    create_table,
    record_announcements,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e


def record_turn_lines(page: Page) -> None:
    page.evaluate(
        """() => {
            const turn = document.getElementById("turn");
            window.__turns = [turn.textContent];
            new MutationObserver(() => window.__turns.push(turn.textContent))
                .observe(turn, { childList: true, characterData: true, subtree: true });
        }"""
    )


def movers(page: Page) -> list[str]:
    result: list[str] = page.eval_on_selector_all(
        "#move-list li", "els => els.map(e => e.dataset.player)"
    )
    return result


def test_the_computer_thinks_aloud_and_allows_a_take_back(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_context().new_page()
    create_table(page, server_url, "swaptimum", seat="red", opponent="medium", swaptimum_size="5")
    record_turn_lines(page)
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, 2)
    expect(page.locator("#turn")).to_have_text("Your turn")
    turns: list[str] = page.evaluate("window.__turns")
    assert "The computer is thinking…" in turns, turns
    assert not any(t.startswith("Waiting for") for t in turns), turns

    # the last move is the computer's, and the take-back is still there
    assert movers(page)[-1] == "blue"
    undo = page.locator("#action-undo")
    expect(undo).to_be_visible()
    # the computer never agrees to a draw in Swaptimum: no offer to make
    expect(page.locator("#action-resign")).to_be_visible()
    expect(page.locator("#action-draw")).to_be_hidden()
    record_announcements(page)
    undo.click()
    # the server takes back your move and the computer's reply after it (docs/protocol.md)
    expect(page.locator("#board")).to_have_attribute("data-ply", "0", timeout=TIMEOUT)
    expect(page.locator("#notice")).to_be_hidden()
    wait_announced(page, "Red took back 2 moves.")
    expect(undo).to_be_hidden()


def test_a_take_back_of_several_plies_is_announced_in_czech(
    browser: Browser, server_url: str
) -> None:
    """The counted announcement with Czech's three plural forms (1 / 2-4 / 5+): the
    server's `undo` events with `count` are given to the page over its real socket."""
    page = browser.new_context().new_page()
    sockets: list[WebSocketRoute] = []

    def keep(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws$"), keep)
    url = create_table(page, server_url, "dots", seat="red", opponent="easy", dots_rows="2")
    page.goto(server_url + "/cs" + url.removeprefix(server_url))
    wait_ready(page)
    record_announcements(page)
    table_id = url.removeprefix(server_url).split("/")[2]
    with urllib.request.urlopen(f"{server_url}/api/tables/{table_id}", timeout=10) as answer:
        version = json.load(answer)["version"]
    for count, words in ((2, "vzal zpět 2 tahy"), (5, "vzal zpět 5 tahů")):
        event = {"kind": "undo", "player": "red", "move": "a1-b1", "count": count}
        # A change that alters nothing but tells of the event, as the server sends them.
        change = {"type": "change", "version": version, "base": version, "events": [event]}
        sockets[-1].send(json.dumps({**change, "patch": []}))
        wait_announced(page, f"Červený {words}.")
    expect(page.locator("#feedback")).to_have_text("Červený vzal zpět 5 tahů.")
