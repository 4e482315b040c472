"""A move on a slow or failing network, as a phone sees it: "Sending…" holds until the move
is answered, a move the connection dropped is accounted for, and a network that comes back
is used at once."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, Locator, Page, WebSocketRoute, expect

from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e


class HeldMoves:
    """Red's socket through a route that can hold the moves the page sends (a slow uplink)."""

    def __init__(self) -> None:
        self.holding = False
        self.deaf: int | None = None  # this socket's messages to the page are lost
        self.held: list[str | bytes] = []
        self.servers: list[WebSocketRoute] = []

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        self.servers.append(server)
        index = len(self.servers) - 1

        def to_page(message: str | bytes) -> None:
            if self.deaf != index:
                ws.send(message)

        server.on_message(to_page)

        def from_page(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            if self.holding and '"type":"move"' in text:
                self.held.append(message)
            else:
                server.send(message)

        ws.on_message(from_page)

    def deliver(self) -> None:
        """The network gives the held moves at last, on the socket that is open now."""
        self.holding = False
        for message in self.held:
            self.servers[-1].send(message)
        self.held.clear()


def seated(browser: Browser, server_url: str, held: HeldMoves) -> tuple[Page, Page]:
    red = browser.new_context().new_page()
    red.route_web_socket(re.compile(r"/ws$"), held.route)
    create_table(red, server_url, "dots", seat="red", dots_grid="square", dots_rows="3")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    wait_ready(red)
    expect(red.locator("#turn")).to_have_text("Your turn", timeout=TIMEOUT)
    return red, blue


def move_held(red: Page, held: HeldMoves) -> tuple[str, Locator]:
    """Red plays a move that the network holds; the move, and red's notice line."""
    held.holding = True
    move = wait_moves_offered(red)[0]
    red.locator(f'#board [data-move="{move}"]').click()
    return move, red.locator("#notice")


def test_sending_holds_while_other_news_arrives(browser: Browser, server_url: str) -> None:
    """Red's move is slow to reach the server; meanwhile blue sends a quick message. The page
    used to drop "Sending…" at any news and offer the old board again (a second move was
    then refused as stale)."""
    held = HeldMoves()
    red, blue = seated(browser, server_url, held)
    held.holding = True
    move = wait_moves_offered(red)[0]
    red.locator(f'#board [data-move="{move}"]').click()
    expect(red.locator("#turn")).to_have_text("Sending…")
    said = blue.locator("button[data-say]").first
    words = said.inner_text()
    said.click()
    expect(red.locator("body")).to_contain_text(words, timeout=TIMEOUT)
    red.wait_for_timeout(300)
    expect(red.locator("#turn")).to_have_text("Sending…")
    expect(red.locator("#board [data-move]")).to_have_count(0)  # nothing offered meanwhile
    held.deliver()
    wait_ply(red, 1)
    wait_ply(blue, 1)
    expect(red.locator("#notice")).to_be_hidden()


def test_a_move_the_connection_dropped_is_accounted_for(browser: Browser, server_url: str) -> None:
    """The network swallows red's move and the page gives the silent socket up. The page
    used to clear "Sending…" without a word: the move was gone, or came in later anyway.
    Now it says the move was not confirmed, then, after the rejoin, that it did not reach
    the table; played again, it goes through once."""
    held = HeldMoves()
    red, _blue = seated(browser, server_url, held)
    move, notice = move_held(red, held)
    # 6 s without a word after a move: the socket is given up, and the page reconnects
    expect(notice).to_contain_text(f"before your move {move} was confirmed", timeout=TIMEOUT)
    held.holding = False
    held.held.clear()  # lost for good
    expect(notice).to_contain_text(f"Your move {move} did not reach the table", timeout=TIMEOUT)
    expect(red.locator("#turn")).to_have_text("Your turn")
    red.locator(f'#board [data-move="{move}"]').click()
    wait_ply(red, 1)
    expect(notice).to_be_hidden()


def test_a_move_that_arrives_late_after_all_clears_the_notice(
    browser: Browser, server_url: str
) -> None:
    """The network held the move, not lost it: it reaches the table after the page said it
    did not. The page shows it played and takes the notice away."""
    held = HeldMoves()
    red, blue = seated(browser, server_url, held)
    move, notice = move_held(red, held)
    expect(notice).to_contain_text(f"Your move {move} did not reach the table", timeout=TIMEOUT)
    held.deliver()
    wait_ply(red, 1)
    wait_ply(blue, 1)
    expect(notice).to_be_hidden()


def test_a_move_whose_answer_was_lost_is_found_played_and_the_notice_goes(
    browser: Browser, server_url: str
) -> None:
    """The move reached the table but its answer never came back: the page gave the socket
    up and said it was checking. The rejoin shows the move played; the notice used to stay
    ("Checking…") until the player sent something else."""
    held = HeldMoves()
    red, blue = seated(browser, server_url, held)
    move = wait_moves_offered(red)[0]
    held.deaf = len(held.servers) - 1  # red's socket as it is: a new one hears again
    red.locator(f'#board [data-move="{move}"]').click()
    wait_ply(blue, 1)  # the table has it
    notice = red.locator("#notice")
    expect(notice).to_contain_text(f"before your move {move} was confirmed", timeout=TIMEOUT)
    wait_ply(red, 1)
    expect(notice).to_be_hidden()


def test_the_network_coming_back_is_used_at_once(browser: Browser, server_url: str) -> None:
    """Offline for 16 s (a train's tunnel), the page's retries backed off to 15 s apart: it
    stayed "offline" up to 15 s after the network was back, the player's clock running.
    Going offline was noticed only by the next ping, up to 35 s later."""
    held = HeldMoves()
    red, _blue = seated(browser, server_url, held)
    connection = red.locator("#connection")
    red.context.set_offline(True)
    expect(connection).to_have_attribute("data-state", "reconnecting", timeout=2000)
    red.wait_for_timeout(16_000)
    red.context.set_offline(False)
    back = time.monotonic()
    expect(connection).to_have_attribute("data-state", "connected", timeout=TIMEOUT)
    assert time.monotonic() - back < 3, "the page waited out its back-off"
    move = wait_moves_offered(red)[0]
    red.locator(f'#board [data-move="{move}"]').click()
    wait_ply(red, 1)
