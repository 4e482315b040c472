"""Playing the computer as a player would (a review of the computer and the analysis):
what the page says and what a screen reader hears while the computer plays."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.e2e.games import line_words
from tests.e2e.helpers import TIMEOUT, create_table, ply, wait_moves_offered, wait_ply

pytestmark = pytest.mark.e2e

# Everything the live region says, from the first moment of the page (its first state
# after the join included), kept in window.__said.
RECORD_FROM_THE_START = """
    window.__said = [];
    new MutationObserver(() => {
        const region = document.getElementById("announcer");
        const text = region && region.textContent;
        if (text && window.__said[window.__said.length - 1] !== text) window.__said.push(text);
    }).observe(document, { childList: true, characterData: true, subtree: true });
"""


def api_get(server_url: str, path: str) -> Any:
    with urllib.request.urlopen(server_url + path, timeout=10) as answer:
        return json.load(answer)


def said(page: Page) -> list[str]:
    result: list[str] = page.evaluate("window.__said")
    return result


class HeldSocket:
    """A page's socket held back from the server until :meth:`release`: the page opens it
    and sends its join, and the server hears it, and answers, only then (a slow network)."""

    def __init__(self, page: Page) -> None:
        self.route: WebSocketRoute | None = None
        self.server: Any = None
        self.held: list[str | bytes] = []
        page.route_web_socket(re.compile(r"/ws$"), self._open)

    def _open(self, route: WebSocketRoute) -> None:
        self.route = route
        route.on_message(self._from_page)

    def _from_page(self, message: str | bytes) -> None:
        if self.server is None:
            self.held.append(message)
        else:
            self.server.send(message)

    def release(self) -> None:
        assert self.route is not None, "the page never opened its socket"
        self.server = self.route.connect_to_server()
        for message in self.held:
            self.server.send(message)


def test_the_computers_move_made_while_the_page_loaded_is_announced(
    browser: Browser, server_url: str
) -> None:
    """A page loaded just before the computer's move (the computer moving first at a new
    table, or answering while the player reloads) gets that move in its first state after
    the join: the board changed, and a screen reader heard nothing (not the computer's
    line, not whose turn it is). Now it hears it, as after a reconnect, without the
    'Connected again'."""
    context = browser.new_context()
    player = context.new_page()
    url = create_table(player, server_url, "dots", seat="red", opponent="hard", dots_rows="3")
    table_id = url.rsplit("/", 1)[1]
    # The same seat in a second tab, loaded now (Red to move), whose socket reaches the
    # server only once the computer has answered Red's move.
    reloaded = context.new_page()
    socket = HeldSocket(reloaded)
    reloaded.add_init_script(RECORD_FROM_THE_START)
    reloaded.goto(url)
    reloaded.locator("#board svg").wait_for()
    assert ply(reloaded) == 0

    move = wait_moves_offered(player)[0]
    player.locator(f'#board [data-move="{move}"]').click()
    wait_ply(player, 2)
    table = api_get(server_url, f"/api/tables/{table_id}")
    assert table["ply"] == 2, table  # the computer's reply, a line that claimed nothing
    reply = table["moves"][1]

    socket.release()
    wait_ply(reloaded, 2)
    expected = f"{line_words('blue', reply, 0)} Red to move."
    reloaded.wait_for_function(
        "text => window.__said.some(s => s.includes(text))", arg=expected, timeout=TIMEOUT
    )
    assert not any("Connected again" in s for s in said(reloaded)), said(reloaded)


def test_a_misere_mistake_on_the_analysis_board_says_the_boxes_were_taken(
    browser: Browser, server_url: str
) -> None:
    """In misère the fewer boxes win, so a move that makes the mover's result worse leaves
    them with more boxes: the analysis board called it 'Mistake: Red gave away 1 box.', the
    very thing a misère player tries to do (Finnish 'luovutti', Czech 'přenechal soupeři',
    Korean '내주었습니다' alike). It says the boxes the player took too many now."""
    page = browser.new_context().new_page()
    url = create_table(
        page,
        server_url,
        "dots",
        seat="red",
        opponent="easy",
        dots_rows="2",
        dots_cols="2",
        dots_misere="1",
    )
    # a2-b2, the middle line of the left column: one box more for Red with perfect play
    page.locator('#board [data-move="a2-b2"]').click()
    wait_ply(page, 2)
    mistakes = page.locator("#analysis-moves .analysis-move__mistake")
    for prefix, words in (
        ("", "Mistake: Red took 1 box too many."),
        ("/fi", "Virhe: Punainen otti 1 laatikon liikaa."),
    ):
        page.goto(server_url + prefix + url.removeprefix(server_url) + "/analysis")
        expect(mistakes.first).to_have_text(words, timeout=TIMEOUT)
