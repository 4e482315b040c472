"""Dots and Boxes in the browser: two players and a spectator, from the form to a rematch."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    focused_move,
    moves_offered,
    outcome,
    record_announcements,
    seat,
    tab_into_board,
    to_move,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e


def test_a_full_game_with_a_spectator_a_reload_and_a_rematch(
    browser: Browser, server_url: str
) -> None:
    red_context = browser.new_context()
    red_context.grant_permissions(["clipboard-read", "clipboard-write"])
    red = red_context.new_page()
    table_url = create_table(
        red,
        server_url,
        "dots",
        seat="red",
        dots_grid="square",
        dots_rows="2",
        dots_cols="2",
        dots_start="swedish",
    )
    assert seat(red) == "red"
    invite = red.locator("#invite-url").input_value()
    watch = red.locator("#watch-url").input_value()
    assert "/join/" in invite and watch.endswith("/watch")
    copy = red.locator('button[data-copy="invite-url"]')
    copy.click()
    expect(copy).to_have_text("Copied")
    assert red.evaluate("navigator.clipboard.readText()") == invite
    # the eight outline lines of the Swedish board are drawn, dashed, before any move
    expect(red.locator(".line--predrawn")).to_have_count(8)
    # red may open the game before anyone has joined, and is told to send the invitation
    expect(red.locator("#turn")).to_have_attribute("data-state", "yours")
    expect(red.locator("#turn-note")).to_be_visible()

    record_announcements(red)
    blue = browser.new_context().new_page()
    accept_invitation(blue, invite)
    blue.wait_for_url(table_url)
    wait_ready(blue)
    assert seat(blue) == "blue"
    expect(red.locator("#invite")).to_be_hidden()
    expect(red.locator("#turn-note")).to_be_hidden()
    wait_announced(red, "Blue took the free seat")
    expect(red.locator("#player-blue .player__presence")).to_have_attribute(
        "data-presence", "online"
    )

    watcher = browser.new_context().new_page()
    watcher.clock.install()  # its own time, moved on to the rematch's follow below
    watcher.goto(watch)
    wait_ready(watcher)
    assert seat(watcher) is None
    expect(watcher.locator("#actions")).to_have_count(0)
    assert moves_offered(watcher) == []

    players = {"red": red, "blue": blue}
    expect(red).to_have_title(re.compile(r"^Your turn"))
    expect(blue).not_to_have_title(re.compile(r"^Your turn"))
    played = 0
    while outcome(red) is None:
        mover = to_move(red)
        page = players[mover]
        expect(page).to_have_title(re.compile(r"^Your turn"))
        if mover == "red":
            move = wait_moves_offered(page)[0]
            page.locator(f'#board [data-move="{move}"]').click()
        else:
            # blue plays with the keyboard: Tab into the board, an arrow, Enter
            wait_moves_offered(page)
            tab_into_board(page)
            page.keyboard.press("ArrowRight")
            move = focused_move(page) or ""
            assert move in moves_offered(page)
            page.keyboard.press("Enter")
        played += 1
        for viewer in (red, blue, watcher):
            wait_ply(viewer, played)
        # the spectator sees the line drawn, highlighted as the last move
        expect(watcher.locator(f'.line--last[data-line="{move}"]')).to_have_count(1)
        assert played <= 4, "a Swedish 2x2 board has four moves"
    assert played == 4

    result = outcome(red)
    assert result in ("red", "blue", "draw")
    for viewer in (blue, watcher):
        expect(viewer.locator("#board")).to_have_attribute("data-outcome", result)
        expect(viewer.locator("#result")).to_be_visible()
    expect(red.locator("#result-text")).to_contain_text("4")
    expect(watcher.locator("#move-list li")).to_have_count(4)
    expect(red.locator("#record-link")).to_have_attribute("href", re.compile(r"/record$"))
    assert not red.title().startswith("Your turn")

    # a reload keeps the seat (the cookie), and the finished game
    red.reload()
    wait_ready(red)
    assert seat(red) == "red"
    expect(red.locator("#board")).to_have_attribute("data-outcome", result)

    # rematch: both ask, both land seated at a new table with the colours swapped
    red.locator("#action-rematch").click()
    expect(blue.locator("#offer-rematch")).to_be_visible()
    expect(blue.locator("#accept-rematch")).to_have_text("Accept rematch")
    blue.locator("#accept-rematch").click()
    for page in (red, blue):
        page.wait_for_url(lambda url: url.rstrip("/") != table_url and "/t/" in url)
        wait_ready(page)
    assert red.url == blue.url
    assert seat(red) == "blue" and seat(blue) == "red"
    # back at the old table, the finished game stays on screen with a link to the new one
    red.goto(table_url)
    wait_ready(red)
    expect(red.locator("#rematch-seat-link")).to_be_visible()
    assert red.url == table_url
    red.locator("#rematch-seat-link").click()
    red.wait_for_url(blue.url)
    wait_ready(red)
    assert seat(red) == "blue"

    # the spectator, left at the final position, follows the players to the new table
    expect(watcher.locator("#rematch-follow")).to_be_visible(timeout=TIMEOUT)
    watcher.clock.fast_forward(21_000)  # the 20 s to stay
    watcher.wait_for_url(red.url + "/watch", timeout=TIMEOUT)
    wait_ready(watcher)
    expect(blue).to_have_title(re.compile(r"^Your turn"))
