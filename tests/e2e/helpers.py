"""What a player does in the browser, in a few words each."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from playwright.sync_api import BrowserContext, FloatRect, Locator, Page, expect

TIMEOUT = 10_000  # ms; every wait in these tests is for the server's answer


def create_table(
    page: Page,
    server_url: str,
    game: str,
    seat: str = "red",
    opponent: str | None = None,
    **fields: str,
) -> str:
    """Fill in the home form as a visitor would and create the table; returns its address."""
    page.goto(server_url + "/")
    page.locator("label.tile", has=page.locator(f'input[value="{game}"]')).click()
    grid = fields.pop("dots_grid", None)
    if grid:
        page.locator(".segmented label", has=page.locator(f'input[value="{grid}"]')).click()
    for name, value in fields.items():
        field = page.locator(f'[name="{name}"]')
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        elif field.get_attribute("type") == "checkbox":
            field.set_checked(value == "1")
        else:
            field.fill(value)
    page.locator(
        ".segmented label", has=page.locator(f'input[name="seat"][value="{seat}"]')
    ).click()
    if opponent is not None:
        page.locator(
            ".segmented label", has=page.locator(f'input[name="opponent"][value="{opponent}"]')
        ).click()
    page.get_by_role("button", name="Create table").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    wait_ready(page)
    return page.url


def box_of(locator: Locator) -> FloatRect:
    """The element's box once it is drawn. The board is redrawn as news arrives, and a
    measure taken as its old drawing leaves the page finds nothing (None): measure again."""
    deadline = time.monotonic() + TIMEOUT / 1000
    while True:
        box = locator.bounding_box()
        if box is not None:
            return box
        if time.monotonic() > deadline:
            raise AssertionError(f"{locator} never drawn")
        time.sleep(0.05)


def wait_ready(page: Page) -> None:
    """The board is drawn and the socket is connected."""
    page.locator("#board svg").wait_for()
    expect(page.locator("#connection")).to_have_attribute("data-state", "connected")


def seat(page: Page) -> Any:
    return json.loads(page.locator("#table-data").text_content() or "null")["you"]


def ply(page: Page) -> int:
    return int(page.locator("#board").get_attribute("data-ply") or "0")


def wait_ply(page: Page, n: int) -> None:
    expect(page.locator("#board")).to_have_attribute("data-ply", str(n), timeout=TIMEOUT)


def to_move(page: Page) -> str:
    return page.locator("#board").get_attribute("data-to-move") or ""


def outcome(page: Page) -> str | None:
    return page.locator("#board").get_attribute("data-outcome")


def moves_offered(page: Page) -> list[str]:
    result: list[str] = page.eval_on_selector_all(
        "#board [data-move]", "els => els.map(e => e.dataset.move)"
    )
    return result


def wait_moves_offered(page: Page) -> list[str]:
    page.locator("#board [data-move]").first.wait_for(timeout=TIMEOUT)
    return moves_offered(page)


def focused_move(page: Page) -> str | None:
    result: str | None = page.evaluate("() => document.activeElement?.dataset?.move ?? null")
    return result


def tab_into_board(page: Page, limit: int = 40) -> None:
    """Press Tab until the focus is on a board element, as a keyboard user would."""
    for _ in range(limit):
        if focused_move(page):
            return
        page.keyboard.press("Tab")
    raise AssertionError("Tab never reached the board")


def record_announcements(page: Page) -> None:
    """Keep everything the ARIA live region says from now on (it says one thing at a time)."""
    page.evaluate(
        """() => {
            const region = document.getElementById("announcer");
            window.__said = [];
            new MutationObserver(() => {
                if (region.textContent) window.__said.push(region.textContent);
            }).observe(region, { childList: true, characterData: true, subtree: true });
        }"""
    )


def wait_announced(page: Page, text: str) -> None:
    page.wait_for_function(
        "text => window.__said.some(said => said.includes(text))", arg=text, timeout=TIMEOUT
    )


def accept_invitation(page: Page, link: str) -> None:
    """Open the invitation link as the friend would, and take the free seat with its button."""
    page.goto(link)
    page.locator("#take-seat").click()
    page.wait_for_url(re.compile(r"/t/[^/]+$"), timeout=TIMEOUT)


def take_both_seats(red: Page, blue: Page, created: dict[str, Any]) -> None:
    """The creator opens their seat link (``created`` by ``POST /api/tables``) on ``red``,
    the friend takes the invitation on ``blue``, a browser of their own: both pages ready."""
    red.goto(created["seat_url"])
    wait_ready(red)
    accept_invitation(blue, created["invite_url"])
    wait_ready(blue)


def api_table(
    context: BrowserContext,
    server_url: str,
    game: str,
    options: dict[str, Any],
    clock: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A table made through ``POST /api/tables`` from ``context``, the creator Red (with
    ``clock``, a time control): the API's answer (its seat, invitation and watch links)."""
    body: dict[str, Any] = {"game": game, "options": options, "seat": "red"}
    if clock:
        body["time_control"] = clock
    response = context.request.post(
        server_url + "/api/tables",
        data=json.dumps(body),
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 201, response.text()
    created: dict[str, Any] = response.json()
    return created
