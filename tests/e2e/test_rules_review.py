"""The rules review at the table: a Swaptimum turn skipped, as each seat and a spectator read
it (the position of tests/games/test_swaptimum.py's SKIP, reached by placements alone)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import (
    TIMEOUT,
    api_table,
    record_announcements,
    take_both_seats,
    wait_announced,
    wait_ply,
    wait_ready,
)
from tests.e2e.positions import play_record

pytestmark = pytest.mark.e2e

# 17 checkers each on a 6x6 board; a6 and c3 empty, Red to move. Red's a6 leaves c3, which
# forms a crosscut for Blue that no swap can undo (the placement restriction): Blue has no
# legal move, and Red moves again.
RED = ["b1", "c1", "d1", "f1", "a2", "b2", "d2", "d3", "e3", "f3", "b4", "c4", "c5", "e5", "f5"]
RED += ["c6", "e6"]
BLUE = ["a1", "e1", "c2", "e2", "f2", "a3", "b3", "a4", "d4", "e4", "f4", "a5", "b5", "d5", "b6"]
BLUE += ["d6", "f6"]


def tap(page: Page, square: str) -> None:
    """A tap on the square's middle, as a finger or a mouse gives it."""
    box = page.locator(f'#board [data-key="{square}"]').bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def skip_table(browser: Browser, server_url: str, prefix: str = "") -> dict[str, Page]:
    red_context, blue_context = browser.new_context(), browser.new_context()
    created = api_table(red_context, server_url, "swaptimum", {"size": 6})
    if prefix:
        for key in ("seat_url", "invite_url", "watch_url"):
            created[key] = created[key].replace(server_url, server_url + prefix, 1)
    red, blue = red_context.new_page(), blue_context.new_page()
    take_both_seats(red, blue, created)
    watcher = browser.new_context().new_page()
    watcher.goto(created["watch_url"])
    wait_ready(watcher)
    pages = {"red": red, "blue": blue}
    play_record(pages, [move for pair in zip(RED, BLUE, strict=True) for move in pair])
    record_announcements(blue)
    tap(red, "a6")
    for page in (red, blue, watcher):
        wait_ply(page, 35)
    return {**pages, "watcher": watcher}


def test_a_skipped_turn_is_said_to_each_seat_in_its_own_words(
    browser: Browser, server_url: str
) -> None:
    """The note beside the turn said 'Blue has no legal move: the turn is skipped.' to every
    reader: Blue read their own colour in the third person, and Red was not told that the
    move was theirs again. Now Blue reads that their turn is skipped, Red that they move
    again; a spectator still reads the plain rule."""
    pages = skip_table(browser, server_url)
    expect(pages["blue"].locator("#turn-note")).to_have_text(
        "You have no legal move: your turn is skipped.", timeout=TIMEOUT
    )
    expect(pages["red"].locator("#turn-note")).to_have_text(
        "Blue has no legal move: you move again."
    )
    expect(pages["watcher"].locator("#turn-note")).to_have_text(
        "Blue has no legal move: the turn is skipped."
    )
    expect(pages["red"].locator("#turn")).to_have_text("Your turn")
    expect(pages["blue"].locator("#turn")).to_have_text("Waiting for Red")
    # Blue, whose turn was skipped, heard it too (Red made the move and heard nothing).
    wait_announced(pages["blue"], "You have no legal move: your turn is skipped.")


def test_a_skipped_turn_in_korean(browser: Browser, server_url: str) -> None:
    pages = skip_table(browser, server_url, "/ko")
    expect(pages["blue"].locator("#turn-note")).to_have_text(
        "둘 수 있는 수가 없어 내 차례를 건너뜁니다.", timeout=TIMEOUT
    )
    expect(pages["red"].locator("#turn-note")).to_have_text(
        "파랑에게 둘 수 있는 수가 없어 내가 한 번 더 둡니다."
    )
