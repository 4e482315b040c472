"""A UX review of the table page's layout: what moves under a player's eyes or finger.

- A chosen name took one or two lines more than the colour's name: on a 390x844 phone the
  board moved down 38 px (y=498 -> 536) as the opponent saved theirs, and a long one broke in
  the middle of its word ("Konstantinov / a (Red)").
- On a 1280x800 desktop the creator waiting for the friend read "Nobody sits opposite you yet:
  send them the invitation link.", and the invitation card was below the screen (y=863-955),
  at the foot of the side panel.
- A refused quick message ("Refused: Too many actions at once…") came as a notice above the
  quick messages and pushed their buttons down under the pointer (105 px at 1280x800, 85 at
  390x844, 102 at 320x640).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, FloatRect, Page, ViewportSize, expect

from tests.e2e.helpers import TIMEOUT, api_table, box_of, wait_ready
from tests.e2e.positions import play_record

pytestmark = pytest.mark.e2e

SMALL_PHONE = ViewportSize(width=320, height=640)
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=800)
SCREENS = {"320x640": SMALL_PHONE, "390x844": PHONE, "1280x800": DESKTOP}
DOTS = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}
REALTIME = {"kind": "realtime", "minutes": 3, "increment": 2}
CORRESPONDENCE = {"kind": "correspondence", "days": 3}


def new_context(browser: Browser, viewport: ViewportSize) -> BrowserContext:
    phone = viewport["width"] < 600
    return browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)


def create(context: BrowserContext, server_url: str, clock: Any = None) -> dict[str, Any]:
    return api_table(context, server_url, "dots", DOTS, clock)


def seated_pair(
    browser: Browser, server_url: str, viewport: ViewportSize, clock: Any = None, lang: str = "en"
) -> tuple[Page, Page]:
    """Red's and Blue's pages, both seated and online, in the page language `lang`."""
    red_context = new_context(browser, viewport)
    created = create(red_context, server_url, clock)
    blue = new_context(browser, viewport).new_page()
    blue.goto(created["invite_url"])
    blue.locator("#take-seat").click()
    blue.wait_for_url(re.compile(r"/t/[^/]+$"), timeout=TIMEOUT)
    red = red_context.new_page()
    red.goto(created["seat_url"])
    for page in (red, blue):
        if lang != "en":
            page.goto(re.sub(r"[?#].*$", "", page.url) + f"?lang={lang}")
        wait_ready(page)
        expect(page.locator("#player-blue .player__presence")).to_have_attribute(
            "data-presence", "online", timeout=TIMEOUT
        )
    return red, blue


def top_in_page(page: Page, selector: str) -> float:
    """Where the element's top is in the page (the page may have scrolled)."""
    return float(box_of(page.locator(selector))["y"] + page.evaluate("scrollY"))


def heights(page: Page) -> list[float]:
    return [box_of(page.locator(f"#player-{player}"))["height"] for player in ("red", "blue")]


def save_name(page: Page, name: str) -> None:
    page.locator("#nickname").fill(name)
    page.locator("#nickname-form").get_by_role("button").click()


@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_chosen_name_keeps_to_one_line_and_moves_nothing(
    browser: Browser, server_url: str, screen: str
) -> None:
    red, blue = seated_pair(browser, server_url, SCREENS[screen], REALTIME)
    board, rows = top_in_page(red, "#board svg"), heights(red)
    line = box_of(red.locator("#player-blue .player__name"))["height"]

    save_name(blue, "Konstantinova Alexandrov")  # 24 characters, the most a name may have
    save_name(red, "Väinämöinen the Great")
    name = red.locator("#player-blue .player__name")
    # the whole name is the element's text: a screen reader reads all of it
    expect(name).to_have_text("Konstantinova Alexandrov (Blue)", timeout=TIMEOUT)
    expect(red.locator("#player-red .player__name")).to_have_text(
        "Väinämöinen the Great (Red, you)", timeout=TIMEOUT
    )
    # one line, never broken inside a word: cut short with an ellipsis where it must be
    assert box_of(name)["height"] == pytest.approx(line, abs=0.5)
    assert name.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"
    # only the nickname gives way: "(Red, you)" is always whole, and the tooltip tells all
    own = red.locator("#player-red .player__name")
    expect(own).to_have_attribute("title", "Väinämöinen the Great (Red, you)")
    nick, affix = own.locator(".player__nick"), own.locator(".player__affix")
    assert nick.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"
    assert affix.text_content() == " (Red, you)"
    assert box_of(affix)["x"] + box_of(affix)["width"] <= box_of(own)["x"] + box_of(own)["width"]
    assert affix.evaluate("e => e.scrollWidth <= e.clientWidth")
    # nothing moved: the players' boxes and the board are where they were
    assert heights(red) == pytest.approx(rows, abs=0.5)
    assert top_in_page(red, "#board svg") == pytest.approx(board, abs=0.5)
    assert red.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]


@pytest.mark.parametrize("clock", ["no-clock", "realtime", "correspondence"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_players_own_words_are_never_cut_short(
    browser: Browser, server_url: str, screen: str, clock: str
) -> None:
    """Kept to one line, the longest of the players' own words ("Punainen (sinä)", "Sininen
    (sinä)") still fit beside the mark, the score and the clock, on both seats."""
    time_control = {"no-clock": None, "realtime": REALTIME, "correspondence": CORRESPONDENCE}
    for page in seated_pair(browser, server_url, SCREENS[screen], time_control[clock], "fi"):
        for player in ("red", "blue"):
            name = page.locator(f"#player-{player} .player__name")
            assert name.evaluate("e => e.scrollWidth <= e.clientWidth"), name.text_content()


@pytest.mark.parametrize("clock", ["no-clock", "realtime", "correspondence"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_invitation_is_on_the_first_screen_while_nobody_sits_opposite(
    browser: Browser, server_url: str, screen: str, clock: str
) -> None:
    time_control = {"no-clock": None, "realtime": REALTIME, "correspondence": CORRESPONDENCE}
    context = new_context(browser, SCREENS[screen])
    created = create(context, server_url, time_control[clock])
    red = context.new_page()
    red.goto(created["seat_url"])
    wait_ready(red)
    expect(red.locator("#turn-note")).to_contain_text("send them the invitation link")
    invite = red.locator("#invite")
    expect(invite).to_be_in_viewport(ratio=1)
    assert red.evaluate("scrollY") == 0
    if screen != "1280x800":
        return  # on a phone the invitation is above the board (as before), and goes with it
    copy = box_of(invite.get_by_role("button", name="Copy"))
    abort = box_of(red.locator("#action-abort"))

    friend = new_context(browser, SCREENS[screen]).new_page()
    friend.goto(created["invite_url"])
    friend.locator("#take-seat").click()
    expect(invite).to_be_hidden(timeout=TIMEOUT)
    expect(red.locator("#player-blue .player__presence")).to_have_attribute(
        "data-presence", "online", timeout=TIMEOUT
    )
    # under a pointer left on the invitation's Copy button comes nothing that acts on the game
    # (a quick message at most), and the button to abort the table stays near where it was
    # (the draw and resign buttons come in above it, and with a deadline the players grow)
    under = red.evaluate(
        """([x, y]) => {
            const found = document.elementFromPoint(x, y);
            return found.closest(".card")?.id || found.tagName;
        }""",
        [copy["x"] + copy["width"] / 2, copy["y"] + copy["height"] / 2],
    )
    assert under in ("quick", "links", "MAIN", "ASIDE"), under
    moved = box_of(red.locator("#action-abort"))["y"] - abort["y"]
    assert 0 <= moved <= 52, moved


def overlap(a: FloatRect, b: FloatRect) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_refusal_moves_nothing_under_the_pointer_and_is_seen_and_announced(
    browser: Browser, server_url: str, screen: str
) -> None:
    red, _blue = seated_pair(browser, server_url, SCREENS[screen])
    say = red.locator('#quick button[data-say="good_luck"]')
    say.click()  # the first is said (and told under the board: on a phone, above this card)
    expect(red.locator("#feedback")).to_have_text("Red says: Good luck!", timeout=TIMEOUT)
    say.scroll_into_view_if_needed()
    where = box_of(say)
    notice = red.locator("#notice")
    for _ in range(4):  # three at once are said, the next is refused
        say.click()
    expect(notice).to_contain_text("Refused: Too many actions at once.", timeout=TIMEOUT)
    expect(notice).to_have_attribute("role", "alert")
    # the button is where it was, and the notice is in full view, clear of it
    assert box_of(say) == pytest.approx(where, abs=0.5)
    expect(notice).to_be_in_viewport(ratio=1)
    assert not overlap(box_of(notice), box_of(say))
    # at the top of the page it hides neither the players (their clocks) nor the board
    red.evaluate("scrollTo(0, 0)")
    for selector in ("#board svg", ".players"):
        assert not overlap(box_of(notice), box_of(red.locator(selector))), selector
    assert red.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]
    # it floats over the header (the Menu button on a phone) until it is closed
    notice.get_by_role("button", name="Close").click()
    expect(notice).to_be_hidden()


@pytest.mark.parametrize("screen", ["390x844", "1280x800"])
def test_a_touch_screen_is_told_how_to_tap_and_no_keys(
    browser: Browser, server_url: str, screen: str
) -> None:
    """A phone's help under the board named the arrow keys, Enter and Space, and the
    replay's help the ← → Home End keys: four lines of a 390 px screen about keys it has
    not. A mouse and a keyboard still read all of it."""
    red, blue = seated_pair(browser, server_url, SCREENS[screen])
    play_record({"red": red, "blue": blue}, ["a1-b1"])
    touch = SCREENS[screen]["width"] < 600
    help_text = red.locator("#board-help")
    expect(help_text).to_contain_text("Click or tap between two dots to draw a line.")
    keys = red.locator("#board-help .board-help__keys")
    expect(keys).to_have_text("Keyboard: arrow keys move between lines, Enter or Space draws.")
    expect(red.locator(".replay__help")).to_have_count(1)
    if touch:
        expect(keys).to_be_hidden()
        expect(red.locator(".replay__help")).to_be_hidden()
    else:
        expect(keys).to_be_visible()
        expect(red.locator(".replay__help")).to_be_visible()


def test_the_name_box_holds_the_name_the_table_has(browser: Browser, server_url: str) -> None:
    """The edge review: spaces saved as a name are no name, but the box kept "   "; and a
    second tab of the same seat kept the old name in its box after the first saved another."""
    red, _blue = seated_pair(browser, server_url, DESKTOP)
    other_tab = red.context.new_page()
    other_tab.goto(red.url)
    wait_ready(other_tab)
    save_name(red, "Anna")
    expect(red.locator("#player-red .player__name")).to_have_text("Anna (Red, you)")
    expect(other_tab.locator("#nickname")).to_have_value("Anna", timeout=TIMEOUT)
    save_name(red, "   ")
    expect(red.locator("#player-red .player__name")).to_have_text("Red (you)", timeout=TIMEOUT)
    expect(red.locator("#nickname")).to_have_value("")
    expect(other_tab.locator("#nickname")).to_have_value("")
