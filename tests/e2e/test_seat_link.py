"""A seat link seen by someone else, replaced on the continue page: the page open with the
old link says so and becomes a spectator's; the player's own pages play on."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, WebSocketRoute, expect

from tests.e2e.helpers import TIMEOUT, accept_invitation, create_table, seat, wait_ready


def test_a_page_open_with_the_replaced_link_says_so_and_only_watches(
    browser: Browser, server_url: str
) -> None:
    red = browser.new_context().new_page()
    create_table(red, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    # Red's own second tab at the table, then red's link, seen on a screen: someone else
    # opens it (in Finnish, as it happens).
    red_tab = red.context.new_page()
    red_tab.goto(red.url)
    wait_ready(red_tab)
    red_tab.evaluate("window.beforeTheNewLink = true")
    red.locator("#continue-link").click()
    seen = red.locator("#seat-url").input_value()
    other = browser.new_context(locale="fi-FI").new_page()
    other.goto(seen)
    wait_ready(other)
    assert seat(other) == "red"
    other.evaluate("window.beforeTheNewLink = true")
    red.get_by_role("button", name="Make a new seat link").click()
    expect(red.locator("#renewed")).to_be_visible(timeout=TIMEOUT)
    # The other page loads again by itself, says why, and watches: no seat, no moves. (The
    # notice shows before the reload too: the page read before it would still be seated.)
    other.wait_for_function("() => window.beforeTheNewLink === undefined", timeout=TIMEOUT)
    notice = other.locator("#notice")
    expect(notice).to_contain_text("uusi linkki", timeout=TIMEOUT)
    wait_ready(other)
    assert seat(other) is None
    # Red's tab loaded again too (its socket held the old key) and plays on, told nothing.
    red_tab.wait_for_function("() => window.beforeTheNewLink === undefined", timeout=TIMEOUT)
    expect(red_tab.locator("#notice")).to_be_hidden()
    wait_ready(red_tab)
    assert seat(red_tab) == "red"
    red_tab.close()  # and then only the other page is open: it is not Red for Blue
    expect(blue.locator("#player-red .player__presence")).to_have_attribute(
        "data-presence", "offline", timeout=TIMEOUT
    )
    # The player, back at the table from the continue page, plays on.
    red.get_by_role("link", name="Back to the table").click()
    wait_ready(red)
    assert seat(red) == "red"


def test_a_page_away_while_its_link_was_replaced_finds_out_when_it_is_back(
    browser: Browser, server_url: str
) -> None:
    """A review: a phone asleep (offline) while its seat link was replaced came back as a
    spectator that still said 'Your turn' and showed the players' buttons."""
    red = browser.new_context().new_page()
    create_table(red, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    red.locator("#continue-link").click()
    phone = browser.new_context(viewport={"width": 375, "height": 667}).new_page()
    phone.goto(red.locator("#seat-url").input_value())
    wait_ready(phone)
    assert seat(phone) == "red"
    phone.evaluate("window.beforeTheNewLink = true")
    phone.context.set_offline(True)
    expect(phone.locator("#connection")).not_to_have_attribute("data-state", "connected")
    red.get_by_role("button", name="Make a new seat link").click()
    expect(red.locator("#renewed")).to_be_visible(timeout=TIMEOUT)
    phone.context.set_offline(False)
    # it loads again (the notice shows just before that too, on the page still seated)
    phone.wait_for_function("() => window.beforeTheNewLink === undefined", timeout=TIMEOUT)
    expect(phone.locator("#notice")).to_contain_text("new link", timeout=TIMEOUT)
    wait_ready(phone)
    assert seat(phone) is None
    expect(phone.locator("#action-resign")).to_be_hidden()


def test_a_page_whose_socket_disagrees_for_good_reloads_once_and_says_why(
    browser: Browser, server_url: str
) -> None:
    """A code review: a page rendered seated whose socket is a spectator's for good (a proxy
    that rewrites Host makes the socket's origin check fail) would reload for ever. Here
    the socket's answers are rewritten to say so."""
    red = browser.new_context().new_page()
    create_table(red, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
    loads: list[str] = []
    red.on("load", lambda page: loads.append(page.url))

    def as_a_spectator(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        server.on_message(
            lambda message: socket.send(
                message.replace('"you":"red"', '"you":null')
                if isinstance(message, str)
                else message
            )
        )

    red.route_web_socket(re.compile(r"/ws$"), as_a_spectator)
    red.reload()
    expect(red.locator("#notice")).to_contain_text("new link", timeout=TIMEOUT)
    red.wait_for_timeout(3000)  # a loop would have loaded the page again by now, and again
    assert len(loads) == 2, loads  # the reload asked for, and the page's one of its own
