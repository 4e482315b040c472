"""Swaptimum in the browser: a phone player by touch, a keyboard-only player, swaps."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from playtable.games import load
from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    box_of,
    create_table,
    focused_move,
    moves_offered,
    outcome,
    ply,
    seat,
    tab_into_board,
    to_move,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def keyboard_turn(page: Page, presses: list[str]) -> None:
    """Play one move with the keyboard alone: a few arrow presses, Enter, and Enter again
    on the first offered swap when the placement forms a crosscut."""
    page.wait_for_function(
        "() => document.activeElement?.closest('#board .target[data-move]')", timeout=TIMEOUT
    )
    for key in presses:
        page.keyboard.press(key)
    placement = focused_move(page)
    assert placement and placement in moves_offered(page)
    page.keyboard.press("Enter")
    if page.locator("#swap-chooser").is_visible():
        # the first checker of the swap, then (unless it has one partner only) the second,
        # then the confirmation, which has the focus by then
        page.keyboard.press("Enter")
        if not page.locator("#swap-confirm").is_enabled():
            page.keyboard.press("Enter")
        expect(page.locator("#swap-confirm")).to_be_focused()
        page.keyboard.press("Enter")


def test_a_phone_player_against_a_keyboard_player_with_a_spectator(
    browser: Browser, server_url: str
) -> None:
    red = browser.new_context(**PHONE).new_page()
    table_url = create_table(red, server_url, "swaptimum", seat="red", swaptimum_size="4")
    blue = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(table_url)
    wait_ready(blue)
    watcher = browser.new_context().new_page()
    watcher.goto(red.locator("#watch-url").input_value())
    wait_ready(watcher)

    # the whole board fits the phone's width
    box = box_of(red.locator("#board svg"))
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    expect(red.locator(".board-side--red")).to_have_count(2)
    expect(red.locator(".board-side--blue")).to_have_count(2)

    # blue starts from the top of the page and uses only the keyboard: Tab into the board
    # once it is blue's turn, then arrows and Enter for every move.
    arrows = ["ArrowRight", "ArrowUp", "ArrowLeft", "ArrowDown"]
    played = 0
    tabbed_in = False
    while outcome(red) is None:
        assert played < 16, "a 4x4 board holds 16 checkers"
        if to_move(red) == "red":
            options = wait_moves_offered(red)
            # a placement with swaps takes more taps: the square, the swap's two checkers
            # (one, if it has a single partner), then the confirmation
            placement = options[len(options) // 2]
            red.locator(f'#board [data-move="{placement}"]').tap()
            if red.locator("#swap-chooser").is_visible():
                red.locator("#board [data-pick]").first.tap()
                if not red.locator("#swap-confirm").is_enabled():
                    red.locator('#board [data-pick][aria-pressed="false"]').first.tap()
                red.locator("#swap-confirm").tap()
        else:
            expect(blue).to_have_title(re.compile(r"^Your turn"))
            if not tabbed_in:
                tab_into_board(blue)
                tabbed_in = True
            keyboard_turn(blue, [arrows[played % 4]] * (played % 3))
        played += 1
        for viewer in (red, blue, watcher):
            wait_ply(viewer, played)

    result = outcome(red)
    assert result in ("red", "blue")
    for viewer in (blue, watcher):
        expect(viewer.locator("#board")).to_have_attribute("data-outcome", result)
    expect(watcher.locator("#result-text")).to_contain_text("wins")
    expect(watcher.locator(".sq--path").first).to_be_visible()
    # the record of the moves the browsers made replays to the same winner
    moves = [m.strip() for m in watcher.locator("#move-list .move-text").all_text_contents()]
    game = load("swaptimum", {"size": 4})
    final = game.outcome(game.replay(moves))
    assert final is not None and final.winner == result


def test_a_crosscut_offers_the_swaps_and_can_be_taken_back(
    browser: Browser, server_url: str
) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(red, server_url, "swaptimum", seat="red", swaptimum_size="3")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(table_url)
    wait_ready(blue)

    for n, (page, move) in enumerate([(red, "a1"), (blue, "b1"), (red, "b2")], start=1):
        page.locator(f'#board [data-move="{move}"]').click()
        wait_ply(red, n)
        wait_ply(blue, n)

    game = load("swaptimum", {"size": 3})
    expected = game.view(game.replay(["a1", "b1", "b2"]))["placements"]["a2"]
    assert len(expected) > 1, "a2 forms a crosscut: red a1 and b2, blue b1 and a2"

    # the placement is shown provisionally with every legal swap to choose from
    blue.locator('#board [data-move="a2"]').click()
    expect(blue.locator("#swap-chooser")).to_be_visible()
    expect(blue.locator(".checker--provisional")).to_have_count(1)
    expect(blue.locator(".crosscut")).to_have_count(1)
    squares = {s for m in expected for s in m.split(":")[1].split("-")}
    offered = blue.eval_on_selector_all("#board [data-pick]", "els => els.map(e => e.dataset.pick)")
    assert sorted(offered) == sorted(squares)
    assert moves_offered(blue) == [], "other placements wait until this one is settled"

    # Escape takes it back
    blue.keyboard.press("Escape")
    expect(blue.locator("#swap-chooser")).to_be_hidden()
    expect(blue.locator(".checker--provisional")).to_have_count(0)
    expect(blue.locator('#board [data-move="c3"]')).to_have_count(1)

    # so does the Cancel button
    blue.locator('#board [data-move="a2"]').click()
    blue.locator("#swap-cancel").click()
    expect(blue.locator("#swap-chooser")).to_be_hidden()
    assert ply(blue) == 3 and ply(red) == 3

    # and a swap chosen on the board, then confirmed, plays the whole move
    blue.locator('#board [data-move="a2"]').click()
    choice = expected[-1]
    first, second = choice.split(":")[1].split("-")
    blue.locator(f'#board [data-pick="{first}"]').click()
    if not blue.locator("#swap-confirm").is_enabled():
        blue.locator(f'#board [data-pick="{second}"]').click()
    assert ply(blue) == 3, "nothing is played before the confirmation"
    blue.locator("#swap-confirm").click()
    wait_ply(red, 4)
    wait_ply(blue, 4)
    expect(red.locator("#move-list li").last).to_contain_text(choice)
    expect(blue.locator("#swap-chooser")).to_be_hidden()
    assert to_move(red) == "red" or outcome(red) is not None
    assert seat(blue) == "blue"
