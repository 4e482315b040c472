"""What happens at the table is shown, not only said to screen readers: a declined draw or
take-back, an offer that lapsed, the friend sitting down, and a lost connection (a banner,
the turn line never says "Your turn", the opponent's presence unknown). In Finnish."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    record_announcements,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e


def in_finnish(page: Page, server_url: str) -> None:
    page.goto(server_url + "/fi" + page.url.removeprefix(server_url))
    wait_ready(page)


def seated_in_finnish(
    browser: Browser, server_url: str, red: Page, route: Callable[[WebSocketRoute], None]
) -> Page:
    """Red's 2x2 table with its sockets through ``route``, the friend seated, red's page in
    Finnish and red to move; the friend's page."""
    red.route_web_socket(re.compile(r"/ws$"), route)
    create_table(red, server_url, "dots", seat="red", dots_grid="square", dots_rows="2")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    in_finnish(red, server_url)
    expect(red.locator("#turn")).to_have_text("Sinun vuorosi")
    return blue


def play_one(page: Page, ply: int) -> None:
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, ply)


def test_answers_lapses_and_the_friend_joining_are_shown(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    create_table(red, server_url, "dots", seat="red", dots_grid="square", dots_rows="3")
    in_finnish(red, server_url)
    invite = red.locator("#invite-url").input_value()
    feedback = red.locator("#feedback")
    expect(feedback).to_be_hidden()

    blue = browser.new_context().new_page()
    accept_invitation(blue, invite)
    wait_ready(blue)
    in_finnish(blue, server_url)
    # the friend sat down: seen on the page, in Finnish
    expect(feedback).to_be_visible()
    expect(feedback).to_have_text("Sininen istuutui vapaalle paikalle.")

    # a draw offer declined
    red.locator("#action-draw").click()
    blue.locator("#offer-draw").get_by_role("button", name="Hylkää").click()
    expect(feedback).to_have_text("Sininen hylkäsi tasapelin.")
    expect(red.locator("#offer-draw")).to_be_hidden()

    # a take-back declined
    play_one(red, 1)
    wait_ply(blue, 1)
    red.locator("#action-undo").click()
    blue.locator("#offer-undo").get_by_role("button", name="Hylkää").click()
    expect(feedback).to_have_text("Sininen kieltäytyi siirron perumisesta.")

    # blue offers a draw and then moves: the offer lapses, and both are told
    blue.locator("#action-draw").click()
    expect(red.locator("#offer-draw")).to_be_visible()
    play_one(blue, 2)
    wait_ply(red, 2)
    for page in (red, blue):
        expect(page.locator("#feedback")).to_have_text(
            "Tasapelitarjous raukesi, koska siirto pelattiin."
        )
    expect(red.locator("#offer-draw")).to_be_hidden()

    # an accepted take-back is seen too: the position simply goes back otherwise
    blue.locator("#action-undo").click()
    red.locator('#offer-undo [data-accept="true"]').click()
    expect(feedback).to_have_text(re.compile(r"^Sininen perui siirron "))
    wait_ply(red, 1)
    # a message stays a few seconds, then the game moving on takes it away
    red.wait_for_timeout(3200)
    play_one(blue, 2)
    expect(feedback).to_be_hidden()

    # an offer cleared by the end of the game did not lapse: the result says what happened
    blue.locator("#action-draw").click()
    expect(red.locator("#offer-draw")).to_be_visible()
    record_announcements(red)
    red.locator("#action-resign").click()
    red.locator("#resign-confirm").click()
    expect(red.locator("#result")).to_be_visible()
    expect(feedback).to_be_hidden()  # the result says what happened
    wait_announced(red, "Luovutit. Sininen voittaa.")  # said to Red: "You resigned. Blue wins."
    said = red.evaluate("window.__said")
    assert not any("raukesi" in text for text in said), said


def test_a_lost_connection_is_unmistakable(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    sockets: list[WebSocketRoute] = []
    allow = {"reconnect": True}

    def route(ws: WebSocketRoute) -> None:
        if not allow["reconnect"]:
            ws.close()  # the network is down: the page's socket never opens
            return
        ws.connect_to_server()
        sockets.append(ws)

    seated_in_finnish(browser, server_url, red, route)
    expect(red.locator("#player-blue .player__presence")).to_have_attribute(
        "data-presence", "online"
    )
    banner = red.locator("#offline-banner")
    expect(banner).to_be_hidden()

    allow["reconnect"] = False
    sockets[-1].close()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Yhteys katkesi")
    turn = red.locator("#turn")
    expect(turn).to_have_attribute("data-state", "offline")
    expect(turn).not_to_have_text("Sinun vuorosi")
    expect(red).not_to_have_title(re.compile("^Sinun vuorosi"))
    presence = red.locator("#player-blue .player__presence")
    expect(presence).to_have_attribute("data-presence", "unknown")
    expect(presence).not_to_have_text("paikalla")
    # what the page does know: its own player is offline
    own = red.locator("#player-red .player__presence")
    expect(own).to_have_attribute("data-presence", "offline")
    # nothing on the board can be played meanwhile
    expect(red.locator("#board [data-move]")).to_have_count(0)

    allow["reconnect"] = True
    expect(banner).to_be_hidden(timeout=20_000)
    expect(red.locator("#feedback")).to_have_text("Yhteys palasi.")
    expect(turn).to_have_text("Sinun vuorosi")
    expect(presence).to_have_attribute("data-presence", "online")


def test_a_connection_gone_silent_is_given_up_not_left_sending(
    browser: Browser, server_url: str
) -> None:
    """A phone that changed networks: its socket stays open but nothing gets through, and
    the browser is not told for minutes. The page must not sit at "Sending…" saying it is
    connected: it gives the socket up, shows the banner, and connects again."""
    red = browser.new_context().new_page()
    silent = {"on": False}

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if not silent["on"]:
                server.send(message)

        def to_page(message: str | bytes) -> None:
            if not silent["on"]:
                ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    blue = seated_in_finnish(browser, server_url, red, route)
    turn = red.locator("#turn")
    move = wait_moves_offered(red)[0]
    silent["on"] = True
    red.locator(f'#board [data-move="{move}"]').click()
    banner = red.locator("#offline-banner")
    expect(banner).to_be_visible(timeout=15_000)
    expect(turn).to_have_attribute("data-state", "offline")
    silent["on"] = False  # the network is back
    expect(banner).to_be_hidden(timeout=20_000)
    expect(turn).to_have_text("Sinun vuorosi")  # the move never arrived: it is still red's
    wait_ply(blue, 0)
    red.locator(f'#board [data-move="{move}"]').click()
    wait_ply(red, 1)
    wait_ply(blue, 1)


def test_the_tables_reason_for_a_refusal_is_said_in_the_pages_language(
    browser: Browser, server_url: str
) -> None:
    """A refusal the page's buttons do not lead to (two tabs, a replayed message): the
    server's reason is English, and the page says that reason in its own language, not
    only the sentence of its code."""
    red = browser.new_context().new_page()
    servers: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        servers.append(ws.connect_to_server())

    seated_in_finnish(browser, server_url, red, route)
    servers[-1].send(json.dumps({"type": "offer_draw"}))  # as if a second tab had offered
    expect(red.locator("#offer-draw")).to_be_hidden()
    expect(red.locator("#action-draw")).to_be_hidden(timeout=TIMEOUT)
    servers[-1].send(json.dumps({"type": "offer_draw"}))  # and offered again
    expect(red.locator("#notice")).to_contain_text("Olet jo tarjonnut tasapeliä.")
    # a move the rules refuse (as a script or a stale tab might send it): the game's own
    # reason, with its squares, in Finnish
    servers[-1].send(json.dumps({"type": "move", "ply": 0, "move": "a1-c1"}))
    expect(red.locator("#notice")).to_contain_text("Pisteet a1 ja c1 eivät ole vierekkäisiä.")
