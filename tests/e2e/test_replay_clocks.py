"""The replay of a finished timed game shows each side's time at the position shown (the
record's [%clk]), in the clock faces and in their names for screen readers; while the game
runs the replay leaves the clocks live."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import TIMEOUT, api_table, take_both_seats, wait_ply, wait_ready

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}
# Four lines far apart: no box closed, so the turns alternate red, blue, red, blue.
MOVES = ["a1-b1", "c1-d1", "a4-b4", "c4-d4"]
MOVERS = ["red", "blue", "red", "blue"]
START_S = 15.0  # a quarter of a minute: every time in tenths, written as each language does


def clk_values(record: str) -> list[float]:
    return [
        int(h) * 3600 + int(m) * 60 + float(s)
        for h, m, s in re.findall(r"\[%clk (\d+):(\d\d):(\d\d(?:\.\d+)?)\]", record)
    ]


def times_at(history: list[float], ply: int) -> dict[str, float]:
    """Each side's time after ``ply`` moves: the mover's after its move, the other's after
    its own last move before (or the starting time)."""
    times = {"red": START_S, "blue": START_S}
    for index in range(ply):
        times[MOVERS[index]] = history[index]
    return times


def face(seconds: float, decimal: str) -> str:
    return f"{seconds:.1f}".replace(".", decimal)


def shown(page: Page, ply: int) -> None:
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(ply), timeout=TIMEOUT)


def test_the_replay_of_a_finished_timed_game_shows_the_clocks_of_each_position(
    browser: Browser, server_url: str
) -> None:
    red_context, blue_context = browser.new_context(), browser.new_context()
    control = {"kind": "realtime", "minutes": START_S / 60, "increment": 0}
    created = api_table(red_context, server_url, "dots", DOTS, control)
    red, blue = red_context.new_page(), blue_context.new_page()
    take_both_seats(red, blue, created)
    finnish = browser.new_context().new_page()  # a spectator reading Finnish
    finnish.goto(created["watch_url"].replace("/t/", "/fi/t/", 1))
    wait_ready(finnish)

    for ply, move in enumerate(MOVES):
        page = red if MOVERS[ply] == "red" else blue
        if ply >= 2:
            page.wait_for_timeout(700 * ply)  # each side's clock runs from its second move
        page.locator(f'#board [data-move="{move}"]').click()
        for each in (red, blue, finnish):
            wait_ply(each, ply + 1)

    # While the game runs, an earlier position leaves the clocks live: Red's is running.
    red.locator("h1").click()
    red.keyboard.press("ArrowLeft")
    shown(red, 3)
    expect(red.locator("#clock-red")).to_have_class(re.compile(r"\bis-running\b"))
    expect(red.locator("#clock-red")).not_to_have_class(re.compile(r"\bis-past\b"))
    red.keyboard.press("End")
    shown(red, 4)

    red.wait_for_timeout(800)
    dialog = red.locator("#resign-dialog")
    red.locator("#action-resign").click()
    dialog.get_by_role("button", name="Resign").click()
    for page in (red, blue, finnish):
        expect(page.locator("#board")).to_have_attribute("data-outcome", "blue")
    final = {p: red.locator(f"#clock-{p}").text_content() for p in ("red", "blue")}
    assert final["red"] != face(START_S, ".")  # Red's time ran at the end

    record = red.request.get(created["watch_url"].replace("/watch", "/record")).text()
    history = clk_values(record)
    assert len(history) == 4
    assert history[0] == history[1] == START_S  # the first moves are free
    assert history[2] < START_S and history[3] < START_S

    for page, decimal in ((red, "."), (finnish, ",")):
        page.locator("h1").click()
        page.keyboard.press("Home")
        for ply in range(len(MOVES) + 1):
            if ply:
                page.keyboard.press("ArrowRight")
            shown(page, ply)
            if ply == len(MOVES):
                break
            times = times_at(history, ply)
            for player in ("red", "blue"):
                clock = page.locator(f"#clock-{player}")
                expect(clock).to_have_text(face(times[player], decimal))
                expect(clock).to_have_class(re.compile(r"\bis-past\b"))
                expect(clock).not_to_have_class(re.compile(r"\bis-running\b"))
                label = clock.get_attribute("aria-label") or ""
                assert label.endswith(f": {face(times[player], decimal)}"), label
        # back at the end: the final clocks, as before the replay
        for player in ("red", "blue"):
            clock = page.locator(f"#clock-{player}")
            expect(clock).to_have_text(final[player].replace(".", decimal))  # type: ignore[union-attr]
            expect(clock).not_to_have_class(re.compile(r"\bis-past\b"))

    # What a screen reader hears: whose time, at which position, and the time then.
    red.keyboard.press("Home")
    shown(red, 0)
    expect(red.locator("#clock-blue")).to_have_attribute(
        "aria-label", "Time left for Blue in the starting position: 15.0"
    )
    red.keyboard.press("ArrowRight")
    red.keyboard.press("ArrowRight")
    red.keyboard.press("ArrowRight")
    shown(red, 3)
    expect(red.locator("#clock-red")).to_have_attribute(
        "aria-label", f"Time left for Red after move 3: {face(history[2], '.')}"
    )
    finnish.keyboard.press("Home")
    finnish.keyboard.press("ArrowRight")
    finnish.keyboard.press("ArrowRight")
    shown(finnish, 2)
    expect(finnish.locator("#clock-blue")).to_have_attribute(
        "aria-label", "Pelaajan Sininen aikaa jäljellä siirron 2 jälkeen: 15,0"
    )
