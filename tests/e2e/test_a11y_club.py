"""The second accessibility review: a blind player with a screen reader and a keyboard-only
player at the newest pages (the players' links, the projector view, My games' tables set up
for others) and at the table's score, toggles and first-move deadline."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    api_table,
    create_table,
    focused_move,
    take_both_seats,
    to_move,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.i18n_helpers import prefixed
from tests.e2e.positions import play_record
from tests.e2e.test_organiser import set_up_for_two

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 2, "cols": 2, "start": "standard"}
# What the clocks' live region says, from now on.
HEARD = """() => {
    window.heard = [];
    const region = document.getElementById("clock-announcer");
    new MutationObserver(() => window.heard.push(region.textContent)).observe(
        region, {childList: true, characterData: true, subtree: true});
}"""


def test_the_focus_stays_on_the_links_page_when_the_invitation_is_put_away(
    browser: Browser, server_url: str
) -> None:
    """The organiser, on the keyboard, has just copied Blue's invitation when Blue sits down:
    the invitation goes away, and the focus with it fell to the start of the page. It goes
    to the line saying Blue is at the table, read out with it."""
    organiser = browser.new_context(permissions=["clipboard-read", "clipboard-write"]).new_page()
    set_up_for_two(organiser, server_url, "/cs")
    copy = organiser.locator("#blue-links").get_by_role("button", name="Kopírovat")
    copy.focus()
    organiser.keyboard.press("Enter")
    expect(organiser.locator("#blue-status")).to_have_text("Zkopírováno")
    expect(copy).to_be_focused()
    blue = browser.new_context().new_page()
    accept_invitation(blue, organiser.locator("#blue-url").input_value())
    wait_ready(blue)
    expect(organiser.locator("#blue-handout")).to_be_hidden(timeout=TIMEOUT)
    here = organiser.locator("#blue-here")
    expect(here).to_be_focused()
    expect(here).to_have_text("Modrý je u stolu.")
    # and the next Tab goes on from there, to the links under it
    organiser.keyboard.press("Tab")
    expect(organiser.locator("#watch-link")).to_be_focused()


def test_a_screen_reader_hears_what_the_number_beside_a_player_is(
    browser: Browser, server_url: str
) -> None:
    """The players' card read "Red (you) online 1 Blue online 0": the word "Score" was a
    name on a plain span, which screen readers do not read."""
    red = browser.new_context().new_page()
    create_table(red, server_url, "dots", dots_grid="square", dots_rows="2", dots_cols="2")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    play_record({"red": red, "blue": blue}, ["a1-b1", "a1-a2", "b1-b2", "a2-b2"])
    for page, lang in ((red, "cs"), (blue, "ko")):
        page.goto(server_url + prefixed(lang, page.url.removeprefix(server_url)))
        wait_ready(page)
    # Blue closed the box with the fourth line: Blue 1, Red 0, said with the word
    expect(red.locator("#player-blue .player__score")).to_have_text("1")
    for page, other in ((red, "blue"), (blue, "red")):  # each back from its reload
        expect(page.locator(f"#player-{other} .player__presence")).to_have_attribute(
            "data-presence", "online", timeout=TIMEOUT
        )
    red_card = red.get_by_role("region", name="Hráči").aria_snapshot()
    assert "Červený (vy) připojen Skóre 0" in red_card, red_card
    assert "Modrý připojen Skóre 1" in red_card, red_card
    blue_card = blue.get_by_role("region", name="플레이어").aria_snapshot()
    assert "파랑 (나) 접속 중 점수 1" in blue_card, blue_card


def test_a_pressed_toggle_keeps_its_name(browser: Browser, server_url: str) -> None:
    """The tick shown on a pressed toggle was part of its name: "check mark Projector view,
    pressed", and a name that changes as it is pressed. It is seen, not read."""
    red = browser.new_context().new_page()
    create_table(red, server_url, "dots", dots_grid="square", dots_rows="2", dots_cols="2")
    sounds = red.locator("#sound-toggle")
    sounds.focus()
    red.keyboard.press("Enter")
    expect(sounds).to_have_attribute("aria-pressed", "true")
    assert (
        red.locator("#sound-toggle")
        .evaluate("e => getComputedStyle(e, '::before').content")
        .startswith('"✓')
    )  # still seen
    expect(sounds).to_have_accessible_name("Move sounds")
    hall = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    hall.goto(server_url + prefixed("ko", red.url.removeprefix(server_url)) + "/watch")
    wait_ready(hall)
    projector = hall.locator("#projector-toggle")
    projector.focus()
    hall.keyboard.press("Enter")
    expect(projector).to_have_attribute("aria-pressed", "true")
    expect(projector).to_have_accessible_name("프로젝터 화면")


def test_a_screen_reader_is_told_before_a_first_move_runs_out(
    browser: Browser, server_url: str
) -> None:
    """A real-time table is aborted if a player makes no first move within a minute. The
    count down under the board is seen, not read out (it changes every second), and a blind
    player was told nothing until "The table was aborted". The live region for the clocks now
    says it when 30, 10 and 5 seconds are left, as it does of a running clock."""
    context = browser.new_context()
    red = context.new_page()
    red.clock.install()  # the page's own time, moved on below: no waiting half a minute
    created = api_table(context, server_url, "dots", DOTS, {"kind": "realtime", "minutes": 1})
    blue = browser.new_context().new_page()
    take_both_seats(red, blue, created)
    red.goto(server_url + "/cs" + red.url.removeprefix(server_url))
    wait_ready(red)
    red.evaluate(HEARD)
    note = red.locator("#clock-note")
    expect(note).to_contain_text("Musíte zahrát první tah")  # Red's page, to Red
    red.clock.fast_forward(35_000)
    red.wait_for_function("() => window.heard.length > 0", timeout=TIMEOUT)
    assert red.evaluate("window.heard") == [
        "Musíte zahrát první tah, jinak bude stůl zrušen. Zbývající čas: 30 sekund."
    ]
    red.clock.fast_forward(20_000)
    red.wait_for_function("() => window.heard.length > 1", timeout=TIMEOUT)
    assert red.evaluate("window.heard")[1] == (
        "Musíte zahrát první tah, jinak bude stůl zrušen. Zbývající čas: 10 sekund."
    )


def reachable_by_arrows(page: Page) -> set[str]:
    """Every move a keyboard player reaches with the arrow keys from the board's target in
    the tab order, as they would try them one after another."""
    start = page.locator('#board .target[tabindex="0"]').get_attribute("data-move") or ""
    seen, todo = {start}, [start]
    while todo:
        move = todo.pop()
        for key in ("ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown"):
            page.locator(f'#board [data-move="{move}"]').focus()
            page.keyboard.press(key)
            reached = focused_move(page)
            if reached and reached not in seen:
                seen.add(reached)
                todo.append(reached)
    return seen


@pytest.mark.parametrize(
    ("options", "moves", "line"),
    [
        # b2-b3 between four undrawn lines, its neighbours in its row and column drawn
        (
            {"grid": "square", "rows": 3, "cols": 3},
            ["a2-a3", "c2-c3", "d2-d3", "b1-b2", "b3-b4"],
            "b2-b3",
        ),
        # two lines drawn, and the one between them was out of reach
        ({"grid": "hexagon", "size": 2}, ["b6-b7", "f6-f7"], "d6-d7"),
        ({"grid": "triangle", "size": 5}, ["b2-d2", "f2-h2"], "d2-f2"),
    ],
)
def test_the_arrow_keys_reach_every_line_left_to_draw(
    browser: Browser, server_url: str, options: dict[str, Any], moves: list[str], line: str
) -> None:
    """A keyboard player could not draw some lines: the arrow keys went from each line to
    the nearest one in that direction, and a line whose neighbours were drawn was never the
    nearest from anywhere (the board's single tab stop leaves no other way to it). Left and
    Right now walk the board's rows in reading order, Up and Down as before."""
    red_context = browser.new_context()
    created = api_table(red_context, server_url, "dots", {**options, "start": "standard"})
    red, blue = red_context.new_page(), browser.new_context().new_page()
    take_both_seats(red, blue, created)
    play_record({"red": red, "blue": blue}, moves)
    mover = {"red": red, "blue": blue}[to_move(red)]
    offered = set(wait_moves_offered(mover))
    assert line in offered
    assert reachable_by_arrows(mover) == offered


def test_the_projector_view_stays_on_the_game_under_the_keyboard(
    browser: Browser, server_url: str
) -> None:
    """The replay's keys still stepped the game in the projector view, which hides the
    replay: an arrow pressed at the hall's computer left the room's screen on an earlier
    position as the game went on, with no way back shown. And a spectator who was looking
    at an earlier position took it into the view."""
    red_context = browser.new_context()
    created = api_table(red_context, server_url, "dots", DOTS)
    red, blue = red_context.new_page(), browser.new_context().new_page()
    take_both_seats(red, blue, created)
    seats = {"red": red, "blue": blue}
    play_record(seats, ["a1-b1", "a1-a2"])
    hall = browser.new_context(viewport={"width": 1600, "height": 900}).new_page()
    hall.goto(server_url + "/ko" + created["watch_url"].removeprefix(server_url))
    wait_ready(hall)
    board, replay = hall.locator("#board"), hall.locator("#replay")
    # looking back at the first move, then into the projector view: the game as it stands
    hall.keyboard.press("ArrowLeft")
    expect(board).to_have_attribute("data-past", "true")
    toggle = hall.get_by_role("button", name="프로젝터 화면")
    toggle.focus()
    hall.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(board).to_have_attribute("data-past", "false")
    expect(replay).to_have_attribute("data-live", "true")
    # the keys no longer step it back, and the next move shows
    for key in ("ArrowLeft", "Home"):
        hall.keyboard.press(key)
    play_record(seats, ["b1-b2"])
    wait_ply(hall, 3)
    expect(board).to_have_attribute("data-past", "false")
    expect(hall.locator('#board .line--last[data-line="b1-b2"]')).to_have_count(1)
    # out of the view, the replay's keys are the replay's again
    hall.keyboard.press("Escape")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    hall.keyboard.press("ArrowLeft")
    expect(board).to_have_attribute("data-past", "true")


def test_my_games_tells_one_tables_links_from_anothers(browser: Browser, server_url: str) -> None:
    """An organiser's evening: every table set up for others has "Links for the players"
    and "Projector view", and a screen reader's list of links read them over and over with
    nothing to tell which table each was for. Each is described by its table's players."""
    organiser = browser.new_context().new_page()
    for name in ("Jana", "Petr"):
        set_up_for_two(organiser, server_url, "/cs")
        red = browser.new_context().new_page()
        accept_invitation(red, organiser.locator("#red-url").input_value())
        wait_ready(red)
        red.locator("#nickname").fill(name)
        red.locator("#nickname").press("Enter")
        expect(red.locator("#player-red .player__name")).to_contain_text(name)
    organiser.goto(server_url + "/cs/games")
    rows = organiser.locator("#organised-list > li")
    expect(rows).to_have_count(2)
    for name in ("Jana", "Petr"):
        row = rows.filter(has_text=name)
        for link in ("Zobrazení pro projektor", "Odkazy pro hráče"):
            expect(row.get_by_role("link", name=link)).to_have_accessible_description(
                re.compile(rf"^{name} \(Červený\).*Modrý")
            )
