"""The table as a player arranges it: a dark theme (the system's, or chosen and
remembered) that axe-core still finds clean, the Swaptimum board turned for Blue, move
sounds made with WebAudio, the zoom of a 26x26 board on a phone; and the smaller fixes of
issue 15 (no blank scroll after long games, the phone navigation whole, no stale rematch
offer, the watch address of an error page a link)."""

from __future__ import annotations

import json
import random
import re

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from playtable.games import load
from tests.e2e.helpers import (
    accept_invitation,
    box_of,
    create_table,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.i18n_helpers import LANGUAGES, prefixed
from tests.e2e.positions import play_record
from tests.e2e.test_a11y import serious_violations

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def background(page: Page) -> str:
    colour: str = page.evaluate("getComputedStyle(document.body).backgroundColor")
    return colour


def is_dark(colour: str) -> bool:
    red, green, blue = (int(v) for v in re.findall(r"\d+", colour)[:3])
    return red + green + blue < 150


def test_the_dark_theme_follows_the_system_and_passes_axe(
    browser: Browser, server_url: str
) -> None:
    page = browser.new_context(color_scheme="dark").new_page()
    for lang in LANGUAGES:
        for path in ("/", "/rules/swaptimum", "/variants/swedish-board"):
            page.goto(server_url + prefixed(lang, path))
            page.locator("footer").wait_for()
            assert is_dark(background(page)), (lang, path)
            expect(page.locator("#theme-toggle")).to_have_attribute("aria-pressed", "true")
            assert not serious_violations(page), (lang, path, serious_violations(page))

    # a table with the swap chooser, the feedback line and the offline banner showing
    red = browser.new_context(color_scheme="dark").new_page()
    table_url = create_table(red, server_url, "swaptimum", seat="red", swaptimum_size="3")
    blue = browser.new_context(color_scheme="dark").new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    expect(red.locator("#feedback")).to_be_visible()
    play_record({"red": red, "blue": blue}, ["a1", "b1", "b2"])
    blue.locator('#board [data-move="a2"]').click()
    expect(blue.locator("#swap-chooser")).to_be_visible()
    assert is_dark(background(blue))
    for viewer in (red, blue):
        assert not serious_violations(viewer), serious_violations(viewer)
    del table_url


def test_the_theme_toggle_is_remembered(browser: Browser, server_url: str) -> None:
    page = browser.new_context(color_scheme="light").new_page()
    page.goto(server_url + "/fi/")
    toggle = page.locator("#theme-toggle")
    expect(toggle).to_have_accessible_name("Tumma teema")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert not is_dark(background(page))
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert is_dark(background(page))
    assert not serious_violations(page)
    # another page, another visit: still dark
    page.goto(server_url + "/fi/rules/dots-and-boxes")
    assert is_dark(background(page))
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.locator("#theme-toggle").click()
    page.reload()
    assert not is_dark(background(page))


def side_bars(page: Page, colour: str) -> list[dict[str, float]]:
    boxes: list[dict[str, float]] = page.eval_on_selector_all(
        f"#board .board-side--{colour}",
        """els => els.map(e => {
            const b = e.getBoundingClientRect();
            return { w: b.width, h: b.height };
        })""",
    )
    return boxes


def expect_bars(page: Page, colour: str, *, standing: bool) -> None:
    """``colour``'s side bars are drawn, all standing (taller than wide: left and right) or
    all lying (top and bottom). Waited for: the first state from the socket draws the board
    again, and a bar measured in between has no size yet."""
    try:
        page.wait_for_function(
            """([colour, standing]) => {
                const bars = [...document.querySelectorAll(`#board .board-side--${colour}`)]
                    .map(e => e.getBoundingClientRect());
                return bars.length > 0 && bars.every(b => standing ? b.height > b.width
                                                                  : b.width > b.height);
            }""",
            arg=[colour, standing],
            timeout=10_000,
        )
    except PlaywrightTimeoutError:
        raise AssertionError(f"{colour}'s bars: {side_bars(page, colour)}") from None


def test_blue_turns_the_board_and_hears_the_moves(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    create_table(red, server_url, "swaptimum", seat="red", swaptimum_size="5")
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    # as drawn at first, Blue's sides are left and right
    expect_bars(blue, "blue", standing=True)
    turn = blue.locator("#board-turn")
    turn.click()
    expect(turn).to_have_attribute("aria-pressed", "true")
    # turned: Blue's sides face Blue, at top and bottom; the files run down the left
    expect_bars(blue, "blue", standing=False)
    expect_bars(blue, "red", standing=True)
    blue.reload()
    wait_ready(blue)
    expect(blue.locator("#board-turn")).to_have_attribute("aria-pressed", "true")
    expect_bars(blue, "blue", standing=False)
    # red's page is as it was
    expect_bars(red, "blue", standing=True)

    # sounds: off until chosen, then one for each move
    blue.evaluate(
        """() => { window.__sounds = [];
            addEventListener("playtable:sound", e => window.__sounds.push(e.detail)); }"""
    )
    red.locator(f'#board [data-move="{wait_moves_offered(red)[0]}"]').click()
    wait_ply(blue, 1)
    assert blue.evaluate("window.__sounds") == []
    sound = blue.locator("#sound-toggle")
    expect(sound).to_have_text("Move sounds")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    # a move on the turned board is played where it is drawn
    move = wait_moves_offered(blue)[0]
    blue.locator(f'#board [data-move="{move}"]').click()
    wait_ply(red, 2)
    red.locator(f'#board [data-move="{wait_moves_offered(red)[0]}"]').click()
    wait_ply(blue, 3)
    assert blue.evaluate("window.__sounds") == ["mine", "theirs"]
    running = blue.evaluate("() => new AudioContext().state !== undefined")
    assert running


def zoom_in_play_and_zoom_out(
    page: Page, units: float, small: float, big: float, move: str
) -> None:
    """The zoom is offered for squares under ``small`` px (``units`` across the drawing),
    draws them at least ``big`` px, scrolls inside the board's frame, lets a finger play
    ``move`` (scrolled to), and gives the whole board back within the phone's width."""
    box = box_of(page.locator("#board svg"))
    assert box and box["width"] / units < small
    zoom = page.locator("#board-zoom")
    expect(zoom).to_be_visible()
    zoom.tap()
    expect(zoom).to_have_attribute("aria-pressed", "true")
    box = box_of(page.locator("#board svg"))
    assert box and box["width"] / units >= big
    assert page.locator("#board").evaluate("e => e.scrollWidth > e.clientWidth")
    target = page.locator(f'#board [data-move="{move}"]')
    target.scroll_into_view_if_needed()
    target.tap()
    wait_ply(page, 1)
    zoom.tap()
    expect(zoom).to_have_attribute("aria-pressed", "false")
    box = box_of(page.locator("#board svg"))
    assert box and box["x"] + box["width"] <= 390


def test_a_26x26_board_on_a_phone_can_be_zoomed(browser: Browser, server_url: str) -> None:
    page = browser.new_context(**PHONE).new_page()
    create_table(page, server_url, "swaptimum", seat="red", swaptimum_size="26")
    # about 12.7 px a square: too small for a finger; the far corner played zoomed
    zoom_in_play_and_zoom_out(page, 28, small=14, big=30, move="z26")


def test_a_12x12_dots_board_on_a_phone_can_be_zoomed(browser: Browser, server_url: str) -> None:
    """A 12x12 Dots and Boxes board on a 390 px phone has boxes of 27 px: their sides, the
    lines a finger must hit, were as short with no zoom offered (Swaptimum's only)."""
    page = browser.new_context(**PHONE).new_page()
    create_table(
        page, server_url, "dots", seat="red", dots_grid="square", dots_rows="12", dots_cols="12"
    )
    far_corner = wait_moves_offered(page)[-1]
    zoom_in_play_and_zoom_out(page, 12.9, small=32, big=43, move=far_corner)
    # a small board needs no zoom
    create_table(page, server_url, "dots", seat="red", dots_grid="square", dots_rows="5")
    expect(page.locator("#board-zoom")).to_be_hidden()


def test_a_phone_held_sideways_shows_the_board_whole_beside_the_players(
    browser: Browser, server_url: str
) -> None:
    """Landscape, 740 x 360: the board used to come under the players and the links, a sixth
    of the screen high. Now it sits beside them and, scrolled to, fits the screen whole."""
    page = browser.new_context(
        viewport={"width": 740, "height": 360}, is_mobile=True, has_touch=True
    ).new_page()
    create_table(page, server_url, "dots", seat="red", opponent="easy", dots_rows="6")
    page.evaluate("document.querySelector('.board-area').scrollIntoView()")
    board = box_of(page.locator("#board svg"))
    players = page.locator(".players").bounding_box()
    assert board and players
    assert board["height"] >= 0.7 * 360, board
    assert board["y"] >= 0 and board["y"] + board["height"] <= 360, board
    assert players["x"] >= board["x"] + board["width"], (board, players)
    assert page.evaluate("document.documentElement.scrollWidth") <= 740
    # and it still plays by touch (the computer may answer at once)
    page.locator("#board [data-move]").first.tap()
    expect(page.locator("#board")).not_to_have_attribute("data-ply", "0")


@pytest.mark.parametrize(
    "viewport", [{"width": 390, "height": 844}, {"width": 740, "height": 360}], ids=str
)
def test_a_table_with_clocks_fits_a_phone_in_every_language(
    browser: Browser, server_url: str, viewport: dict[str, int]
) -> None:
    """The clocks sat beside the scores, and on a phone the page grew wider than the screen
    (465 to 507 px of 390, so the browser shrank the whole page). Each clock now has a row
    of its own on a phone, held upright or sideways."""
    context = browser.new_context(viewport=viewport, is_mobile=True, has_touch=True)
    response = context.request.post(
        server_url + "/api/tables",
        data=json.dumps(
            {
                "game": "dots",
                "options": {"grid": "square", "rows": 5, "cols": 5, "start": "standard"},
                "seat": "red",
                "opponent": {"bot": "medium"},
                "time_control": {"kind": "realtime", "minutes": 5, "increment": 3},
            }
        ),
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 201, response.text()
    seat_url = response.json()["seat_url"]
    page = context.new_page()
    page.goto(seat_url)
    wait_ready(page)
    width = viewport["width"]
    table_path = "/t/" + page.url.rsplit("/t/", 1)[1]  # the seat is now this browser's
    for lang in LANGUAGES:
        page.goto(server_url + prefixed(lang, table_path))
        wait_ready(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, lang
        for player in ("red", "blue"):
            clock = page.locator(f"#clock-{player}")
            expect(clock).to_have_text(re.compile(r"5:00"))
            box = clock.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (lang, box)
        names = page.locator(".player__name")
        for i in range(names.count()):
            # a name breaks between words, never a letter a line
            box = names.nth(i).bounding_box()
            assert box and box["width"] >= 40, (lang, box)


def test_the_phone_navigation_shows_every_link_whole(browser: Browser, server_url: str) -> None:
    page = browser.new_context(**PHONE).new_page()
    for lang in LANGUAGES:
        page.goto(server_url + prefixed(lang, "/"))
        page.locator("#menu-toggle").click()  # folded behind the menu on a phone
        links = page.locator(".site-nav a")
        assert links.count() == 5  # new table, my games, the two rules, the variants
        for i in range(links.count()):
            box = links.nth(i).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (lang, i, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_no_blank_scroll_below_the_footer_after_a_long_game(
    browser: Browser, server_url: str
) -> None:
    red = browser.new_context().new_page()
    create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="5", dots_cols="5"
    )
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    game = load("dots", {"grid": "square", "rows": 5, "cols": 5})
    state = game.initial()
    rng = random.Random(15)
    moves = []
    while game.outcome(state) is None:
        move = rng.choice(game.legal_moves(state))
        moves.append(game.format_move(move))
        state = game.apply(state, move)
    assert len(moves) == 60
    play_record({"red": red, "blue": blue}, moves)
    for page in (red, blue):
        page.reload()
        wait_ready(page)
        gap = page.evaluate(
            """() => document.documentElement.scrollHeight
                - (document.querySelector("footer").getBoundingClientRect().bottom + scrollY)"""
        )
        assert gap <= 1, gap


def test_after_the_rematch_the_old_table_offers_nothing(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="1", dots_cols="1"
    )
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    watcher = browser.new_context().new_page()
    watcher.goto(red.locator("#watch-url").input_value())
    wait_ready(watcher)
    game = load("dots", {"grid": "square", "rows": 1, "cols": 1})
    play_record(
        {"red": red, "blue": blue}, [game.format_move(m) for m in game.legal_moves(game.initial())]
    )
    red.locator("#action-rematch").click()
    expect(watcher.locator("#offer-rematch")).to_contain_text("Red wants a rematch")
    # Blue answers the proposal it sees (a click while it arrives can land where the button
    # was before the proposal's panel pushed it down).
    expect(blue.locator("#offer-rematch")).to_contain_text("Red wants a rematch")
    blue.locator("#accept-rematch").click()
    expect(watcher.locator("#rematch-watch-link")).to_be_visible()
    expect(watcher.locator("#offer-rematch")).to_be_hidden()
    watcher.locator("#rematch-follow-stay").click()  # not taken to the rematch meanwhile
    watcher.reload()
    wait_ready(watcher)
    expect(watcher.locator("#rematch-watch-link")).to_be_visible()
    expect(watcher.locator("#offer-rematch")).to_be_hidden()
    assert "wants a rematch" not in (watcher.locator("main").inner_text())


def test_an_error_page_links_the_watch_address(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(red, server_url, "dots", seat="red")
    page = browser.new_context().new_page()
    page.goto(table_url + "/join/not-the-invitation")
    link = page.locator("main a", has_text="/watch")
    expect(link).to_have_attribute("href", table_url + "/watch")
    link.click()
    page.wait_for_url(table_url + "/watch")
    wait_ready(page)


def test_a_finished_dots_game_in_the_dark_theme_passes_axe(
    browser: Browser, server_url: str
) -> None:
    red = browser.new_context(color_scheme="dark").new_page()
    create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="1", dots_cols="2"
    )
    blue = browser.new_context(color_scheme="dark").new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    game = load("dots", {"grid": "square", "rows": 1, "cols": 2})
    state = game.initial()
    moves = []
    while game.outcome(state) is None:
        move = game.legal_moves(state)[0]
        moves.append(game.format_move(move))
        state = game.apply(state, move)
    play_record({"red": red, "blue": blue}, moves)
    red.locator("#action-rematch").click()
    for page in (red, blue):
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator(".cell-mark").first).to_be_visible()
        assert is_dark(background(page))
        assert not serious_violations(page), serious_violations(page)


def centre_of(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_dots_board_turns_half_round_for_blue(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    create_table(
        red, server_url, "dots", seat="blue", dots_grid="square", dots_rows="2", dots_cols="2"
    )
    blue = red
    # as drawn at first, a1-b1 is the bottom left line
    low_x, low_y = centre_of(blue, '#board [data-line="a1-b1"]')
    high_x, high_y = centre_of(blue, '#board [data-line="b3-c3"]')
    assert low_y > high_y and low_x < high_x
    blue.locator("#board-turn").click()
    low_x, low_y = centre_of(blue, '#board [data-line="a1-b1"]')
    high_x, high_y = centre_of(blue, '#board [data-line="b3-c3"]')
    assert low_y < high_y and low_x > high_x
    # the choice is the board's of this game only
    blue.goto(server_url + "/")
    create_table(blue, server_url, "swaptimum", seat="blue", swaptimum_size="3")
    expect(blue.locator("#board-turn")).to_have_attribute("aria-pressed", "false")
