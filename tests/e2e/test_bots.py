"""Playing the computer in the browser, from the home form to the analysis of the game."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.helpers import (
    TIMEOUT,
    create_table,
    outcome,
    ply,
    seat,
    to_move,
    wait_ready,
)

pytestmark = pytest.mark.e2e


def test_a_whole_game_against_the_computer_then_its_analysis(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_page()
    table_url = create_table(
        page,
        server_url,
        "dots",
        seat="red",
        opponent="hard",
        dots_grid="square",
        dots_rows="2",
        dots_cols="2",
        dots_start="swedish",
    )
    assert seat(page) == "red"
    expect(page.locator("#player-blue .player__presence")).to_have_text("Computer (hard)")
    expect(page.locator("#invite")).to_be_hidden()  # nobody is to be invited
    expect(page.locator("#analysis-now-link")).to_be_visible()  # the game so far
    expect(page.locator("#action-draw")).to_be_visible()  # Dots and Boxes can be drawn
    # nobody to greet, and nothing to be told of: the computer answers within seconds
    expect(page.locator("#quick")).to_have_count(0)
    expect(page.locator("#notify-button")).to_have_count(0)
    while outcome(page) is None:
        if to_move(page) == "red":
            before = ply(page)
            page.locator("#board [data-move]").first.click()
            # The computer may answer at once: the board moves on by one move or more.
            expect(page.locator("#board")).not_to_have_attribute(
                "data-ply", str(before), timeout=TIMEOUT
            )
        else:
            # The computer answers by itself, through the server.
            expect(page.locator("#board")).not_to_have_attribute(
                "data-to-move", "blue", timeout=TIMEOUT
            )
    # On the Swedish 2x2 board red's first line hands blue all four boxes.
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#board")).to_have_attribute("data-outcome", "blue")
    # one link to the analysis once the game is over: the result's
    expect(page.locator("#analysis-now-link")).to_be_hidden()

    page.locator("#analysis-link").click()
    page.wait_for_url("**/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=TIMEOUT)
    # the start and four moves: red's one line, then blue's four boxes
    expect(page.locator("#analysis-moves li")).to_have_count(4)
    expect(page.locator("#analysis-graph .graph-point")).to_have_count(5)
    # Red loses by four from the start, whatever red draws: no mistake, blue wins all; the
    # seated player reads it from their side.
    expect(page.locator("#analysis-value")).to_contain_text("You lose by 4 boxes with perfect play")
    expect(page.locator("#analysis-moves li.is-mistake")).to_have_count(0)
    page.get_by_role("button", name="Starting position").click()
    expect(page.locator("#analysis-value")).to_have_text(
        "Starting position: You lose by 4 boxes with perfect play."
    )
    expect(page.locator("#analysis-best")).to_contain_text("Best here:", timeout=TIMEOUT)
    expect(page.locator("#board .best-line").first).to_be_attached()
    shots = os.environ.get("PLAYTABLE_SCREENSHOTS")
    if shots:
        page.screenshot(path=os.path.join(shots, "analysis.png"), full_page=True)

    # Back at the table, a rematch: the computer agrees at once and, red now, opens the game.
    page.goto(table_url)
    page.locator("#action-rematch").click()
    page.wait_for_url(lambda url: url.rstrip("/") != table_url and "/t/" in url, timeout=TIMEOUT)
    wait_ready(page)
    assert seat(page) == "blue"
    expect(page.locator("#player-red .player__presence")).to_have_text("Computer (hard)")
    expect(page.locator("#board")).not_to_have_attribute("data-ply", "0", timeout=TIMEOUT)
    expect(page.locator("#turn")).to_have_attribute("data-state", "yours", timeout=TIMEOUT)


def test_the_computer_thinking_is_shown_as_work_under_way(
    browser: Browser, server_url: str
) -> None:
    """ "The computer is thinking..." looked exactly like "Waiting for Blue" (a review): the
    line above the board is marked as the computer's work under way while it thinks."""
    page = browser.new_page()
    page.add_init_script(
        """window.__turns = [];
        new MutationObserver(() => {
          const turn = document.getElementById("turn");
          if (!turn) return;
          const after = getComputedStyle(turn, "::after").content;
          window.__turns.push([turn.dataset.state, turn.textContent, after !== "none"]);
        }).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-state"]});"""
    )
    create_table(
        page, server_url, "dots", seat="blue", opponent="hard", dots_rows="5", dots_cols="5"
    )
    expect(page.locator("#turn")).to_have_attribute("data-state", "yours", timeout=TIMEOUT)
    turns = page.evaluate("window.__turns")
    # said in words, and marked by a turning ring (table.css) that the other states lack
    assert ["thinking", "The computer is thinking…", True] in turns, turns
    assert all(not marked for state, _, marked in turns if state != "thinking"), turns
