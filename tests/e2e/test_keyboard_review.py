"""Two places a keyboard player was left behind: the focus on a board with nothing left to play
once the game ended on a move, and the analysis board's evaluation graph, which only a pointer
could step through."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.games import play_game
from tests.e2e.helpers import TIMEOUT, accept_invitation, create_table, wait_ply, wait_ready
from tests.e2e.positions import play_record
from tests.e2e.test_a11y import serious_violations

pytestmark = pytest.mark.e2e


def swaptimum_pair(browser: Browser, server_url: str) -> dict[str, Page]:
    red = browser.new_context().new_page()
    create_table(red, server_url, "swaptimum", seat="red", swaptimum_size="3")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    return {"red": red, "blue": blue}


def test_the_focus_goes_to_the_result_when_a_keyboard_move_ends_the_game(
    browser: Browser, server_url: str
) -> None:
    seats = swaptimum_pair(browser, server_url)
    red, blue = seats["red"], seats["blue"]
    play_record(seats, ["a1", "b1", "a2"])
    # Blue plays with the keyboard, and waits on the board; Red then joins both sides
    blue.locator('#board [data-move="b2"]').focus()
    blue.keyboard.press("Enter")
    wait_ply(red, 4)
    red.locator('#board [data-move="a3"]').focus()
    red.keyboard.press("Enter")
    wait_ply(red, 5)
    for page in (red, blue):
        expect(page.locator("#result")).to_be_focused()
        expect(page.locator("#result")).to_have_accessible_name("Game over")
    expect(red.locator("#result")).to_have_accessible_description(
        "You win: your chain joins both sides."
    )
    # the rematch is the next Tab away
    red.keyboard.press("Tab")
    expect(red.locator("#action-rematch")).to_be_focused()


def test_a_tap_that_ends_the_game_leaves_the_focus_where_it_was(
    browser: Browser, server_url: str
) -> None:
    seats = swaptimum_pair(browser, server_url)
    red = seats["red"]
    play_record(seats, ["a1", "b1", "a2", "b2"])
    red.locator('#board [data-move="a3"]').click()
    wait_ply(red, 5)
    expect(red.locator("#result")).to_be_visible()
    expect(red.locator("#result")).not_to_be_focused()


def test_the_evaluation_graph_steps_through_the_game_by_keyboard(
    browser: Browser, server_url: str
) -> None:
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=5, game="dots")
    total = len(game.moves)
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    graph = page.get_by_role("slider", name="Evaluation graph")
    expect(graph).to_have_attribute("aria-valuemax", str(total))
    expect(graph).to_have_accessible_description(
        "Evaluation graph: the value after each move. Up: Red wins, down: Blue wins; filled "
        "points are proved with perfect play, hollow points on a dashed line are estimates, "
        "and ? is not analysed yet. Click a point, or use the arrow keys on the graph, to see "
        "that position."
    )
    # reached with Tab, as any control
    for _ in range(60):
        if page.evaluate("document.activeElement?.id") == "analysis-graph":
            break
        page.keyboard.press("Tab")
    expect(graph).to_be_focused()
    graph.press("Home")
    expect(page.locator("#board")).to_have_attribute("data-ply", "0")
    expect(graph).to_have_attribute("aria-valuenow", "0")
    expect(graph).to_have_attribute("aria-valuetext", f"Starting position ({total} moves played).")
    graph.press("ArrowRight")  # one step, not two (the page's own arrow keys too)
    expect(page.locator("#board")).to_have_attribute("data-ply", "1")
    expect(graph).to_have_attribute("aria-valuetext", f"After move 1 of {total}.")
    expect(page.locator("#analysis-value")).to_contain_text("After move 1 ")
    graph.press("ArrowUp")
    expect(page.locator("#board")).to_have_attribute("data-ply", "2")
    graph.press("ArrowLeft")
    expect(page.locator("#board")).to_have_attribute("data-ply", "1")
    graph.press("End")
    expect(page.locator("#board")).to_have_attribute("data-ply", str(total))
    expect(graph).to_have_attribute("aria-valuenow", str(total))
    graph.press("PageDown")
    expect(page.locator("#board")).to_have_attribute("data-ply", str(max(0, total - 10)))
    # the focus stays on the graph as it is drawn again
    expect(graph).to_be_focused()
    assert not serious_violations(page)  # axe-core: a slider with its name and values
    expect(graph.locator("svg")).to_have_attribute("aria-hidden", "true", timeout=TIMEOUT)
