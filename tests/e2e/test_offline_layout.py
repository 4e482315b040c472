"""The notice of a lost connection takes no room in the page (a player's review on a phone):
it sat between the turn line and the board and pushed the board down under a finger the moment
the connection went, and pulled it back up when it came back. The notice floats at the foot of
the screen now, is still an alert for a screen reader, readable in both themes and at 320 px,
and covers neither the clocks nor the turn line."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, FloatRect, Page, expect

from tests.e2e.helpers import (
    TIMEOUT,
    box_of,
    take_both_seats,
    wait_moves_offered,
    wait_ply,
)

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}
CLOCK = {"kind": "realtime", "minutes": 5, "increment": 0}


def seated(browser: Browser, server_url: str, **context: Any) -> Page:
    """Red's page (in a browser context made with ``context``) at a table with clocks, blue
    seated opposite in another, a move each played: a game in progress."""
    red_context = browser.new_context(**context)
    response = red_context.request.post(
        server_url + "/api/tables",
        data=json.dumps({"game": "dots", "options": DOTS, "seat": "red", "time_control": CLOCK}),
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 201, response.text()
    created = response.json()
    red = red_context.new_page()
    blue = browser.new_context().new_page()
    take_both_seats(red, blue, created)
    for page, ply in ((red, 0), (blue, 1)):
        move = wait_moves_offered(page)[0]
        page.locator(f'#board [data-move="{move}"]').click()
        wait_ply(page, ply + 1)
    wait_ply(red, 2)
    expect(red.locator("#player-blue .player__presence")).to_have_attribute(
        "data-presence", "online", timeout=TIMEOUT
    )
    expect(red.locator("#clock-red")).to_have_class(re.compile(r"\bis-running\b"))
    return red


def overlaps(a: FloatRect, b: FloatRect) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def contrast(page: Page, selector: str) -> float:
    """The contrast ratio of an element's text on its own background (WCAG's formula)."""
    colours: list[str] = page.locator(selector).evaluate(
        "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]"
    )

    def luminance(css: str) -> float:
        red, green, blue = (int(float(n)) for n in re.findall(r"[\d.]+", css)[:3])

        def linear(channel: int) -> float:
            c = channel / 255
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)

    light, dark = sorted(map(luminance, colours), reverse=True)
    return (light + 0.05) / (dark + 0.05)


PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
NARROW = {"viewport": {"width": 320, "height": 640}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


@pytest.mark.parametrize(
    ("device", "scheme", "where"),
    [
        pytest.param(PHONE, "light", "page top", id="phone-as-loaded"),
        pytest.param(PHONE, "light", "turn line", id="phone-turn-line-at-top"),
        pytest.param(NARROW, "dark", "turn line", id="320px-dark-turn-line-at-top"),
        pytest.param(DESKTOP, "light", "page top", id="desktop"),
        pytest.param(DESKTOP, "dark", "page top", id="desktop-dark"),
    ],
)
def test_the_board_stays_put_as_the_connection_goes_and_comes_back(
    browser: Browser, server_url: str, device: dict[str, Any], scheme: str, where: str
) -> None:
    red = seated(browser, server_url, color_scheme=scheme, **device)
    if where == "turn line":  # the player looks at the turn line and the board under it
        red.locator("#turn").evaluate("e => e.scrollIntoView({ block: 'start' })")
    board = red.locator("#board")
    top = box_of(board)["y"]
    notice = red.locator("#offline-banner")
    expect(notice).to_be_hidden()

    red.context.set_offline(True)
    expect(notice).to_be_visible()
    expect(red.locator("#turn")).to_have_attribute("data-state", "offline")
    expect(red.locator("#player-blue .player__presence")).to_have_attribute(
        "data-presence", "unknown"
    )
    assert box_of(board)["y"] == pytest.approx(top, abs=1), "the board moved as it went"

    # the notice is seen whole, said as an alert, and hides nothing it should not
    shown = box_of(notice)
    assert shown["width"] > 100 and shown["height"] > 20, shown
    expect(notice).to_be_in_viewport(ratio=1)
    expect(notice).to_have_attribute("role", "alert")
    expect(notice).to_contain_text("Connection lost")
    assert notice.evaluate("e => e.scrollWidth <= e.clientWidth"), "its words run out of it"
    width = device["viewport"]["width"]
    assert red.evaluate("document.documentElement.scrollWidth") <= width, "the page widened"
    assert contrast(red, "#offline-banner") >= 4.5
    for covered in ("#clock-red", "#clock-blue", "#turn"):
        assert not overlaps(shown, box_of(red.locator(covered))), f"it covers {covered}"

    red.context.set_offline(False)
    expect(notice).to_be_hidden(timeout=TIMEOUT)
    expect(red.locator("#connection")).to_have_attribute("data-state", "connected")
    expect(red.locator("#player-blue .player__presence")).to_have_attribute(
        "data-presence", "online", timeout=TIMEOUT
    )
    expect(red.locator("#turn")).to_have_attribute("data-state", "yours")
    assert box_of(board)["y"] == pytest.approx(top, abs=1), "the board moved as it came back"
