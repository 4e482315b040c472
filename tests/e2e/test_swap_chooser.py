"""Swaptimum's swap chooser cannot misfire: the placement is provisional, the two checkers
of the swap are chosen one at a time among highlighted squares, and only a confirmation
plays the move; everything stays within the viewport, on a desktop, a phone and the keyboard.

The position is the one of issue 15: on 5x5, Red's a4 allows seven swaps, whose arrows used
to cross each other."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from playtable.games import load
from tests.e2e.helpers import (
    accept_invitation,
    create_table,
    focused_move,
    moves_offered,
    ply,
    record_announcements,
    wait_announced,
    wait_ply,
    wait_ready,
)
from tests.e2e.positions import play_record

pytestmark = pytest.mark.e2e

TANGLE_RECORD = "c2 b4 b3 c3 c4:c3-c4 d5 b2 e2 c5 d3 d4:d4-d5 e3 e4 e5:d3-e4 d1 e1 c1 a3"
TANGLE = TANGLE_RECORD.split(" ")
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def tangle(browser: Browser, server_url: str, red_context: dict[str, Any], lang: str = "") -> Page:
    """Red's page (in ``red_context``) at the issue's position, Red to move; Blue's page
    plays from another browser."""
    red = browser.new_context(**red_context).new_page()
    table_url = create_table(red, server_url, "swaptimum", seat="red", swaptimum_size="5")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(table_url)
    wait_ready(blue)
    play_record({"red": red, "blue": blue}, TANGLE)
    if lang:
        red.goto(server_url + f"/{lang}" + table_url.removeprefix(server_url))
        wait_ready(red)
    wait_ply(red, len(TANGLE))
    return red


def expected_swaps() -> list[str]:
    game = load("swaptimum", {"size": 5})
    swaps: list[str] = game.view(game.replay(TANGLE))["placements"]["a4"]
    return swaps


def picks(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#board [data-pick]", "els => els.map(e => e.dataset.pick)"
    )
    return sorted(found)


def chosen(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#board [data-pick][aria-pressed=true]", "els => els.map(e => e.dataset.pick)"
    )
    return sorted(found)


def owner(page: Page, square: str) -> str:
    """The colour the board shows on ``square`` (from the checker's class)."""
    classes: str = page.evaluate(
        """square => [...document.querySelectorAll('#board .checkers .checker')]
            .find(c => c.querySelector('title')?.textContent.startsWith(square + ','))
            ?.getAttribute('class') ?? ''""",
        square,
    )
    return "red" if "checker--red" in classes else "blue" if "checker--blue" in classes else ""


def box_of(page: Page, selector: str) -> Any:
    """The element's box, once it is on the page: a state arriving (a player coming online)
    redraws the board, and for a moment the old element is gone and the new not yet laid out."""
    locator = page.locator(selector)
    for _ in range(40):
        locator.wait_for(state="visible")
        box = locator.bounding_box()
        if box:
            return box
        page.wait_for_timeout(50)
    return None


def assert_in_viewport(page: Page, *selectors: str) -> None:
    size = page.viewport_size
    assert size
    for selector in selectors:
        box = box_of(page, selector)
        assert box, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (selector, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, (selector, box)


def squares_in_viewport(page: Page, names: list[str]) -> None:
    """Every choosable square is on screen and not under the chooser at the foot."""
    chooser = box_of(page, "#swap-chooser")
    assert chooser
    for name in names:
        selector = f'#board [data-pick="{name}"]'
        assert_in_viewport(page, selector)
        box = box_of(page, selector)  # a redraw may come between the two reads
        assert box and box["y"] + box["height"] <= chooser["y"], (name, box, chooser)


def test_the_tangle_on_a_desktop_is_chosen_checker_by_checker(
    browser: Browser, server_url: str
) -> None:
    red = tangle(browser, server_url, DESKTOP)
    swaps = expected_swaps()
    assert len(swaps) == 7
    squares = sorted({s for move in swaps for s in move.split(":")[1].split("-")})

    red.locator('#board [data-move="a4"]').click()
    chooser = red.locator("#swap-chooser")
    expect(chooser).to_be_visible()
    expect(red.locator("#swap-prompt")).to_contain_text("a4")
    # nothing on the board plays a move now: only whole squares to choose, one per checker
    assert moves_offered(red) == []
    assert picks(red) == squares
    expect(red.locator("#swap-confirm")).to_be_disabled()
    # the provisional checker is Red's, in Red's colour, marked with a dashed ring
    provisional = red.locator(".checker--provisional")
    expect(provisional).to_have_count(1)
    expect(provisional).to_have_class(re.compile(r"checker--red"))
    fill = provisional.locator(".checker-disc").evaluate("e => getComputedStyle(e).fill")
    red_fill = red.locator(".board-side--red").first.evaluate("e => getComputedStyle(e).fill")
    assert fill == red_fill
    expect(red.locator(".provisional-square")).to_have_count(1)
    # the board, every choosable square and both buttons fit the 1280x900 screen
    assert_in_viewport(red, "#board svg", "#swap-chooser", "#swap-confirm", "#swap-cancel")
    squares_in_viewport(red, squares)
    # and it stays over the board's column: the side panel's buttons are not hidden
    chooser_box, side_box = chooser.bounding_box(), red.locator(".side").bounding_box()
    assert chooser_box is not None and side_box is not None
    assert chooser_box["x"] + chooser_box["width"] <= side_box["x"], (chooser_box, side_box)

    # a3 first: only its three partners stay choosable, and nothing is played
    red.locator('#board [data-pick="a3"]').click()
    assert chosen(red) == ["a3"]
    assert picks(red) == ["a3", "a4", "b2", "b3"]
    expect(red.locator("#swap-prompt")).to_contain_text("a3")
    expect(red.locator("#swap-confirm")).to_be_disabled()

    # then b3: the pair is shown already swapped, waiting for the confirmation
    red.locator('#board [data-pick="b3"]').click()
    assert chosen(red) == ["a3", "b3"]
    assert owner(red, "a3") == "red" and owner(red, "b3") == "blue"
    expect(red.locator("#swap-confirm")).to_be_enabled()
    assert ply(red) == len(TANGLE)

    # a change of mind: choose b3 again to take it back, then b2
    red.locator('#board [data-pick="b3"]').click()
    assert chosen(red) == ["a3"]
    assert owner(red, "b3") == "red" and owner(red, "a3") == "blue"
    red.locator('#board [data-pick="b2"]').click()
    assert chosen(red) == ["a3", "b2"]
    assert ply(red) == len(TANGLE)

    record_announcements(red)
    red.locator("#swap-confirm").click()
    wait_ply(red, len(TANGLE) + 1)
    expect(red.locator("#move-list li").last).to_contain_text("a4:a3-b2")
    expect(chooser).to_be_hidden()
    # a screen reader hears the move in words, in the live region and in the move list
    wait_announced(red, "Red placed a checker on a4 and swapped a3 and b2.")
    last = red.locator("#move-list li").last
    expect(last.locator(".visually-hidden")).to_have_text(
        "Red placed a checker on a4 and swapped a3 and b2."
    )
    expect(last.locator(".move-text")).to_have_attribute("aria-hidden", "true")


def test_the_tangle_on_a_phone_in_czech_fits_the_screen(browser: Browser, server_url: str) -> None:
    red = tangle(browser, server_url, PHONE, lang="cs")
    red.locator('#board [data-move="a4"]').tap()
    expect(red.locator("#swap-chooser")).to_be_visible()
    expect(red.locator("#swap-confirm")).to_have_text("Potvrdit výměnu")
    squares = picks(red)
    assert len(squares) == 8
    assert_in_viewport(red, "#board svg", "#swap-chooser", "#swap-confirm", "#swap-cancel")
    squares_in_viewport(red, squares)

    # c5 has one partner only: the pair is complete at once, still waiting for the tap
    red.locator('#board [data-pick="c5"]').tap()
    assert chosen(red) == ["b4", "c5"]
    expect(red.locator("#swap-prompt")).to_contain_text("b4")
    assert_in_viewport(red, "#swap-confirm")
    # cancelling the placement brings the squares back, and nothing was played
    red.locator("#swap-cancel").tap()
    expect(red.locator("#swap-chooser")).to_be_hidden()
    assert "a4" in moves_offered(red) and ply(red) == len(TANGLE)
    red.locator('#board [data-move="a4"]').tap()
    red.locator('#board [data-pick="c5"]').tap()
    red.locator("#swap-confirm").tap()
    wait_ply(red, len(TANGLE) + 1)
    expect(red.locator("#move-list li").last).to_contain_text("a4:b4-c5")


def focused_pick(page: Page) -> str | None:
    result: str | None = page.evaluate("() => document.activeElement?.dataset?.pick ?? null")
    return result


def test_the_tangle_with_the_keyboard(browser: Browser, server_url: str) -> None:
    red = tangle(browser, server_url, DESKTOP)
    # Tab into the board and walk to a4 with the arrow keys (a4 is the only square of
    # column a on row 4 that is free)
    red.locator("#board").focus()
    for _ in range(40):
        red.keyboard.press("Tab")
        if focused_move(red):
            break
    for _ in range(12):
        if focused_move(red) == "a4":
            break
        current = focused_move(red) or ""
        key = "ArrowLeft" if current[0] > "a" else ("ArrowUp" if current[1:] < "4" else "ArrowDown")
        red.keyboard.press(key)
    assert focused_move(red) == "a4"
    red.keyboard.press("Enter")
    expect(red.locator("#swap-chooser")).to_be_visible()

    # the focus is on a choosable checker, and the arrows move among those only
    first = focused_pick(red)
    assert first in picks(red)
    seen = {first}
    for key in ["ArrowRight", "ArrowDown", "ArrowRight", "ArrowUp", "ArrowLeft"]:
        red.keyboard.press(key)
        now = focused_pick(red)
        assert now in picks(red), now
        seen.add(now)
    assert len(seen) > 1

    # Enter chooses; the focus goes on to one of its partners
    chosen_first = focused_pick(red)
    assert chosen_first
    red.keyboard.press("Enter")
    assert chosen(red) in ([chosen_first], sorted([chosen_first, *partner_of(chosen_first)]))
    if len(chosen(red)) == 1:
        partner = focused_pick(red)
        assert partner and partner != chosen_first
        red.keyboard.press("Enter")
    pair = chosen(red)
    assert len(pair) == 2
    # both chosen: the focus is on Confirm; Escape steps back one checker, not the placement
    expect(red.locator("#swap-confirm")).to_be_focused()
    red.keyboard.press("Escape")
    assert len(chosen(red)) == 1
    expect(red.locator("#swap-chooser")).to_be_visible()
    assert focused_pick(red) in picks(red)
    # choose again and confirm with Enter
    if focused_pick(red) in chosen(red):
        red.keyboard.press("ArrowRight")
    while focused_pick(red) in chosen(red):
        red.keyboard.press("ArrowDown")
    red.keyboard.press("Enter")
    expect(red.locator("#swap-confirm")).to_be_focused()
    pair = chosen(red)
    red.keyboard.press("Enter")
    wait_ply(red, len(TANGLE) + 1)
    # the swap joined Blue's chain and ended the game: the focus goes to the result, not back
    # to a board with nothing left to play
    expect(red.locator("#board")).to_have_attribute("data-outcome", "blue")
    expect(red.locator("#result")).to_be_focused()
    expect(red.locator("#move-list li").last).to_contain_text(f"a4:{'-'.join(pair)}")


def partner_of(square: str) -> list[str]:
    partners = []
    for move in expected_swaps():
        pair = move.split(":")[1].split("-")
        if square in pair:
            partners.append(pair[1] if pair[0] == square else pair[0])
    return partners


@pytest.mark.parametrize(("size", "context"), [(9, DESKTOP), (13, PHONE), (19, DESKTOP)])
def test_a_crosscut_in_the_bottom_corner_stays_clear_of_the_chooser(
    browser: Browser, server_url: str, size: int, context: dict[str, Any]
) -> None:
    """The bottom row is where the chooser sits: the board shrinks and scrolls above it."""
    red = browser.new_context().new_page()
    table_url = create_table(red, server_url, "swaptimum", seat="red", swaptimum_size=str(size))
    blue = browser.new_context(**context).new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(table_url)
    wait_ready(blue)
    play_record({"red": red, "blue": blue}, ["a1", "b1", "b2"])
    # Both see each other online first: no presence news redraws the board mid-choice.
    for page, other in ((red, "blue"), (blue, "red")):
        presence = page.locator(f"#player-{other} .player__presence")
        expect(presence).to_have_attribute("data-presence", "online")
    blue.locator('#board [data-move="a2"]').click()  # scrolled into view by the click
    expect(blue.locator("#swap-chooser")).to_be_visible()
    squares = picks(blue)
    assert "a1" in squares and "b1" in squares
    assert_in_viewport(blue, "#swap-chooser", "#swap-confirm", "#swap-cancel")
    squares_in_viewport(blue, squares)
