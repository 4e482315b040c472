"""A returning player's table page opens from the browser's cache: no script is asked for
again (on a phone's network each request is a round trip before the board is drawn)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.e2e.helpers import api_table, wait_ready

pytestmark = pytest.mark.e2e

SCRIPTS = """() => performance.getEntriesByType("resource")
    .filter(e => e.initiatorType === "script" || e.name.includes("/static/js/"))
    .map(e => ({name: e.name, size: e.transferSize}))"""


def test_a_returning_player_gets_every_script_from_the_cache(
    browser: Browser, server_url: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    created = api_table(context, server_url, "dots", {"rows": 3, "cols": 3})
    page.goto(created["seat_url"])
    wait_ready(page)
    first = page.evaluate(SCRIPTS)
    assert len(first) >= 20, first  # the modules the table's script imports, and it
    page.goto("about:blank")
    page.goto(created["seat_url"])
    wait_ready(page)
    again = page.evaluate(SCRIPTS)
    assert {entry["name"] for entry in again} == {entry["name"] for entry in first}
    fetched = [entry["name"] for entry in again if entry["size"] > 0]
    assert fetched == [], f"asked the server again for {fetched}"
    # the board works: a line drawn by the returning player
    page.locator("#board [data-move]").first.click()
    page.locator('#board[data-ply="1"]').wait_for()
    assert errors == []
