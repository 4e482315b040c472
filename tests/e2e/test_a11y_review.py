"""The accessibility review's defects, as a keyboard, screen-reader or phone user meets them:
where the focus lands after an action, what the board says of its position, what the live
regions say and how often, and the layout at 320 px, at a 200 % text size, on a phone and
in forced colours."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.games import play_game
from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    record_announcements,
    seat,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.i18n_helpers import prefixed
from tests.e2e.positions import play_record

pytestmark = pytest.mark.e2e

# Every change of every live region (aria-live, role=status/alert/log), as a screen reader
# would be handed it; installed before the page's own scripts run.
LIVE_RECORDER = """(() => {
    window.__live = [];
    const regionOf = (node) => {
        for (let el = node.nodeType === 1 ? node : node.parentElement; el; el = el.parentElement) {
            const live = el.getAttribute("aria-live");
            if (live && live !== "off") return el;
            if (["status", "alert", "log"].includes(el.getAttribute("role"))) return el;
        }
        return null;
    };
    const observer = new MutationObserver((mutations) => {
        const regions = new Set(mutations.map((m) => regionOf(m.target)).filter(Boolean));
        for (const region of regions) {
            const text = region.textContent.trim();
            if (text && !region.hidden) window.__live.push({ id: region.id, text });
        }
    });
    document.addEventListener("DOMContentLoaded", () => observer.observe(document.body, {
        subtree: true, childList: true, characterData: true,
    }));
})()"""


def pair(
    browser: Browser, server_url: str, game: str = "dots", script: str = "", **fields: str
) -> dict[str, Page]:
    """Red creates the table, Blue takes the invitation: both pages connected. `script`
    runs in Red's pages before theirs."""
    if game == "dots":
        fields = {"dots_grid": "square", "dots_rows": "2", "dots_cols": "2", **fields}
    context = browser.new_context()
    if script:
        context.add_init_script(script)
    red = context.new_page()
    create_table(red, server_url, game, seat="red", **fields)
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    return {"red": red, "blue": blue}


def press(page: Page, selector: str) -> None:
    """Focus a control and press Enter on it, as a keyboard user does."""
    page.locator(selector).focus()
    page.keyboard.press("Enter")


def focus_in_board(page: Page) -> None:
    page.wait_for_function(
        "() => document.getElementById('board').contains(document.activeElement)",
        timeout=TIMEOUT,
    )


def play_first(page: Page) -> str:
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    return move


def live(page: Page) -> list[dict[str, str]]:
    said: list[dict[str, str]] = page.evaluate("window.__live")
    return said


# -- 1: the focus after table actions --------------------------------------------------------
def test_focus_goes_somewhere_meaningful_after_each_table_action(
    browser: Browser, server_url: str
) -> None:
    seats = pair(browser, server_url)
    red, blue = seats["red"], seats["blue"]
    play_first(red)
    wait_ply(blue, 1)

    # a take-back asked for: the focus is on the request, which says it waits for an answer
    press(red, "#action-undo")
    expect(red.locator("#offer-undo")).to_be_focused()
    expect(red.locator("#offer-undo")).to_have_accessible_name(
        "You asked to take back your last move. Waiting for an answer."
    )
    # allowed: the allowing player is back on the board
    press(blue, "#offer-undo [data-accept='true']")
    wait_ply(blue, 0)
    focus_in_board(blue)

    play_first(red)
    wait_ply(blue, 1)
    # a draw offered, then declined: the offer, then the board
    press(blue, "#action-draw")
    expect(blue.locator("#offer-draw")).to_be_focused()
    expect(blue.locator("#offer-draw")).to_have_accessible_name(
        "You offered a draw. Waiting for an answer."
    )
    expect(red.locator("#offer-draw")).to_be_visible()
    press(red, "#offer-draw [data-accept='false']")
    expect(red.locator("#offer-draw")).to_be_hidden()
    focus_in_board(red)
    expect(blue.locator("#offer-draw")).to_be_hidden()
    focus_in_board(blue)  # the offer it was on went away with the answer

    # a draw accepted: the result, named and described (a declined offer is made again only
    # after the next move)
    play_first(blue)
    wait_ply(red, 2)
    press(blue, "#action-draw")
    expect(red.locator("#offer-draw")).to_be_visible()  # the offer arrived: its answers
    press(red, "#offer-draw [data-accept='true']")
    expect(red.locator("#result")).to_be_focused()
    expect(red.locator("#result")).to_have_accessible_name("Game over")
    expect(red.locator("#result")).to_have_accessible_description("Draw agreed.")

    # a rematch proposed: the proposal, waiting for an answer
    press(red, "#action-rematch")
    expect(red.locator("#offer-rematch")).to_be_focused()
    expect(red.locator("#offer-rematch")).to_have_accessible_name(
        "You proposed a rematch. Waiting for an answer."
    )
    old = red.url
    expect(blue.locator("#offer-rematch")).to_be_visible()
    press(blue, "#accept-rematch")  # both go to the new table
    for page in (red, blue):
        page.wait_for_url(lambda url: "/t/" in url and url.rstrip("/") != old, timeout=TIMEOUT)
        wait_ready(page)

    # resigning with the keyboard through the dialog: the result, not <body>
    press(blue, "#action-resign")
    expect(blue.locator("#resign-dialog")).to_be_visible()
    blue.locator("#resign-confirm").focus()
    blue.keyboard.press("Enter")
    expect(blue.locator("#board")).to_have_attribute(
        "data-outcome", "red" if seat(blue) == "blue" else "blue"
    )
    expect(blue.locator("#result")).to_be_focused()


# -- 2: the position readable on the board ---------------------------------------------------
def test_a_screen_reader_reads_the_lines_boxes_and_checkers_on_the_board(
    browser: Browser, server_url: str
) -> None:
    seats = pair(browser, server_url)
    red = seats["red"]
    # Blue closes the box a1-b2 with the fourth move
    play_record(seats, ["a1-b1", "a1-a2", "b1-b2", "a2-b2"])
    board = red.locator("#board")
    items = board.get_by_role("listitem")
    texts = items.all_text_contents()
    assert "Box claimed by Blue: a1-b1-b2-a2" in texts, texts
    # and how many sides each open box has: the decision of the game
    assert "Open box b1-c1-c2-b2: 1 of 4 sides drawn" in texts, texts
    assert "Open box a2-b2-b3-a3: 1 of 4 sides drawn" in texts, texts
    for words in (
        "Red drew the line from a1 to b1.",
        "Blue drew the line from a1 to a2.",
        "Red drew the line from b1 to b2.",
        "Blue drew the line from a2 to b2.",
    ):
        assert words in texts, texts
    # it is read from the board's group while Red waits, and no target carries it along
    wait_ply(red, 4)
    snapshot = board.aria_snapshot()
    assert 'group "Dots and Boxes board"' in snapshot and "Box claimed by Blue" in snapshot
    expect(seats["blue"].locator('#board [data-move="b2-c2"]')).to_have_accessible_name(
        "Draw line b2-c2"
    )
    expect(seats["blue"].locator('#board [data-move="b2-c2"]')).to_have_accessible_description("")

    swap = pair(browser, server_url, "swaptimum", swaptimum_size="3")
    play_record(swap, ["b2", "a1"])
    squares = swap["red"].locator("#board").get_by_role("listitem")
    expect(squares).to_have_text(["a1, Blue checker", "b2, Red checker"])


# -- 3: the Swaptimum result announced -------------------------------------------------------
def test_a_plain_winning_placement_is_announced_as_the_result_shows_it(
    browser: Browser, server_url: str
) -> None:
    seats = pair(browser, server_url, "swaptimum", swaptimum_size="3")
    red = seats["red"]
    play_record(seats, ["a1", "b1", "a2", "b2"])
    # the moves so far read out (moves arriving within 50 ms are read as one message)
    expect(red.locator("#announcer")).to_contain_text("checker on b2")
    record_announcements(red)
    play_record(seats, ["a3"])
    shown = "You win: your chain joins both sides."  # said to Red, the winner
    expect(red.locator("#result-text")).to_have_text(shown)
    wait_announced(red, shown)
    said = red.evaluate("window.__said")
    assert said[-1] == f"Red placed a checker on a3. {shown}", said
    assert not any("swap completed" in words for words in said), said


# -- 4: the arrow keys on the board's root while waiting -------------------------------------
def test_arrow_keys_on_the_waiting_board_do_not_rewind_the_game(
    browser: Browser, server_url: str
) -> None:
    seats = pair(browser, server_url)
    red, blue = seats["red"], seats["blue"]
    wait_moves_offered(red)
    red.locator("#board [data-move]").first.focus()
    red.keyboard.press("Enter")  # the move sent: the focus stays on the board's root
    wait_ply(red, 1)
    focus_in_board(red)
    for key in ("ArrowLeft", "Home", "ArrowUp"):
        red.keyboard.press(key)
    expect(red.locator("#replay")).to_have_attribute("data-live", "true")
    expect(red.locator("#board")).to_have_attribute("data-past", "false")
    # when the turn comes round, the focus is on a line to draw
    play_first(blue)
    wait_ply(red, 2)
    red.wait_for_function("() => Boolean(document.activeElement?.dataset?.move)", timeout=TIMEOUT)


# -- 5: no chatter in the live regions -------------------------------------------------------
def test_a_move_is_announced_once_and_a_replay_step_once(browser: Browser, server_url: str) -> None:
    seats = pair(browser, server_url, script=LIVE_RECORDER)
    red, blue = seats["red"], seats["blue"]
    expect(red.locator("#player-blue .player__presence")).to_have_text("online")
    red.wait_for_timeout(400)  # Blue's arrival, announced
    red.evaluate("window.__live = []")
    move = play_first(red)
    wait_ply(blue, 1)
    reply = play_first(blue)
    wait_ply(red, 2)
    a, b = reply.split("-")
    red.wait_for_function("() => window.__live.length >= 2", timeout=TIMEOUT)
    red.wait_for_timeout(400)  # anything else that would follow
    c, d = move.split("-")
    assert live(red) == [
        {"id": "announcer", "text": f"Red drew the line from {c} to {d}. Blue to move."},
        {"id": "announcer", "text": f"Blue drew the line from {a} to {b}. Red to move."},
    ]
    # a step back is read once, with its words
    red.evaluate("window.__live = []")
    red.get_by_role("button", name="Previous move").click()
    red.wait_for_function("() => window.__live.length >= 1", timeout=TIMEOUT)
    red.wait_for_timeout(400)
    assert live(red) == [
        {
            "id": "replay-said",
            "text": f"After move 1 of 2. Red drew the line from {c} to {d}. Score: Red 0, Blue 0.",
        }
    ]


def test_a_step_on_the_analysis_board_is_read_once(browser: Browser, server_url: str) -> None:
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=5, game="dots")
    context = browser.new_context()
    context.add_init_script(LIVE_RECORDER)
    page = context.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    page.wait_for_timeout(1000)
    page.evaluate("window.__live = []")
    page.keyboard.press("Home")
    expect(page.locator("#analysis-best")).not_to_have_text("Thinking…", timeout=TIMEOUT)
    page.wait_for_timeout(800)
    said = live(page)
    value = page.locator("#analysis-value").text_content()
    assert said[0] == {"id": "replay-said", "text": value}, said
    # then, once they are known, the value again with the first best moves (a replacement
    # that dropped the value was cut off by them); nothing else, and never "Thinking…"
    assert len(said) == 2, said
    assert said[1]["text"].startswith(f"{value} Best here: "), said
    assert said[1]["text"].endswith(" and 5 more (dashed green on the board)."), said


# -- 6: a resignation and an agreed draw said once -------------------------------------------
def test_a_resignation_and_an_agreed_draw_are_announced_once(
    browser: Browser, server_url: str
) -> None:
    seats = pair(browser, server_url)
    red, blue = seats["red"], seats["blue"]
    for page in (red, blue):
        record_announcements(page)
    blue.locator("#action-draw").click()
    wait_announced(red, "Blue offers a draw.")
    red.get_by_role("button", name="Accept draw").click()
    for page in (red, blue):
        wait_announced(page, "Draw agreed.")
        page.wait_for_timeout(300)
        assert page.evaluate("window.__said")[-1] == "Draw agreed."

    seats = pair(browser, server_url)
    red, blue = seats["red"], seats["blue"]
    for page in (red, blue):
        record_announcements(page)
    red.locator("#action-resign").click()
    red.locator("#resign-confirm").click()
    # each player hears the result once, in the words the result card shows them
    for page, said in ((red, "You resigned. Blue wins."), (blue, "Red resigned. You win.")):
        wait_announced(page, said)
        page.wait_for_timeout(300)
        assert page.evaluate("window.__said")[-1] == said
        expect(page.locator("#result-text")).to_have_text(said)


# -- 7: the replay buttons keep the focus ----------------------------------------------------
def test_the_replay_buttons_keep_the_focus(browser: Browser, server_url: str) -> None:
    seats = pair(browser, server_url)
    red, blue = seats["red"], seats["blue"]
    play_first(red)
    wait_ply(blue, 1)
    play_first(blue)
    wait_ply(red, 2)
    start = red.get_by_role("button", name="Starting position")
    press(red, "#replay [data-replay='start']")
    expect(red.locator("#replay")).to_have_attribute("data-ply", "0")
    expect(start).to_be_focused()
    expect(start).to_have_attribute("aria-disabled", "true")
    red.keyboard.press("Enter")  # pressed again: nothing happens, and the focus stays
    expect(start).to_be_focused()
    press(red, "#replay [data-replay='end']")
    expect(red.locator("#replay")).to_have_attribute("data-live", "true")
    expect(red.get_by_role("button", name="Latest position")).to_be_focused()
    # "Back to the game" goes away: the player lands on the board, where it is their turn
    red.get_by_role("button", name="Previous move").click()
    press(red, "#replay-live button")
    expect(red.locator("#replay-live")).to_be_hidden()
    red.wait_for_function("() => Boolean(document.activeElement?.dataset?.move)", timeout=TIMEOUT)

    # the analysis board: Home with the focus on «
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=3)
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    page.locator("#replay [data-replay='start']").focus()
    page.keyboard.press("Home")
    expect(page.locator("#replay")).to_have_attribute("data-ply", "0")
    expect(page.locator("#replay [data-replay='start']")).to_be_focused()


# -- 8, 9: reflow at 320 px, and a 200 % text size ------------------------------------------
def scroll_width(page: Page) -> int:
    width: int = page.evaluate("() => document.documentElement.scrollWidth")
    return width


@pytest.mark.parametrize("lang", ["cs", "fi"])
def test_the_table_page_reflows_at_320_px(browser: Browser, server_url: str, lang: str) -> None:
    red = browser.new_context(viewport={"width": 320, "height": 640}).new_page()
    url = create_table(red, server_url, "dots", seat="red")
    red.goto(server_url + prefixed(lang, url.removeprefix(server_url)))
    wait_ready(red)
    expect(red.locator("#invite")).to_be_visible()
    assert scroll_width(red) <= 320


TEXT_200 = "document.addEventListener('DOMContentLoaded', () => {"
TEXT_200 += " document.documentElement.style.fontSize = '200%'; })"


@pytest.mark.parametrize("lang", ["en", "fi"])
def test_a_200_percent_text_size_stays_within_the_window(
    browser: Browser, server_url: str, lang: str
) -> None:
    desktop = browser.new_context(viewport={"width": 1280, "height": 900})
    desktop.add_init_script(TEXT_200)
    red = desktop.new_page()
    url = create_table(red, server_url, "dots", seat="red")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    red.goto(server_url + prefixed(lang, url.removeprefix(server_url)))
    wait_ready(red)
    assert scroll_width(red) <= 1280
    side = red.locator(".side").bounding_box()
    assert side and side["x"] + side["width"] <= 1280

    phone = browser.new_context(viewport={"width": 390, "height": 844})
    phone.add_init_script(TEXT_200)
    page = phone.new_page()
    page.goto(server_url + prefixed(lang, "/"))
    assert scroll_width(page) <= 390


# -- 10: a Finnish name on a phone -----------------------------------------------------------
def test_a_finnish_player_name_is_not_broken_mid_word_on_a_phone(
    browser: Browser, server_url: str
) -> None:
    seats = pair(browser, server_url)
    phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    page = phone.new_page()
    page.goto(server_url + "/fi" + seats["red"].url.removeprefix(server_url) + "/watch")
    wait_ready(page)
    name = page.locator("#player-red .player__name")
    expect(name).to_have_text("Punainen")
    lines = name.evaluate(
        """(el) => {
            const range = document.createRange();
            range.selectNodeContents(el);
            return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
        }"""
    )
    assert lines == 1


# -- 12: forced colours ----------------------------------------------------------------------
def test_forced_colours_still_mark_the_player_to_move(browser: Browser, server_url: str) -> None:
    seats = pair(browser, server_url)
    red = seats["red"]
    red.emulate_media(forced_colors="active")
    expect(red.locator("#player-red")).to_have_class("player player--red is-to-move")

    def look(player: str) -> str:
        style: str = red.locator(f"#player-{player}").evaluate(
            """(el) => {
                const s = getComputedStyle(el);
                return [s.outlineStyle, s.outlineWidth, s.borderTopWidth].join(" ");
            }"""
        )
        return style

    assert look("red") != look("blue"), (look("red"), look("blue"))
