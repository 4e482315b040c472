"""Layout defects the reviewers found with large text on a phone, and on the home form.

Large text is emulated as a reader's text setting does it: the root font size at 150% or
200% (``html { font-size: 200% }``; the pages count in rem). The stylesheet is added by the
test, hence ``bypass_csp``: the pages allow no inline style."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.games import play_game, post_json
from tests.e2e.helpers import wait_ply
from tests.e2e.test_swap_chooser import TANGLE, chosen, picks, tangle

pytestmark = pytest.mark.e2e

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "bypass_csp": True,
}
PHONE_SIDEWAYS = {**PHONE, "viewport": {"width": 844, "height": 390}}


def large_text(page: Page, size: str = "200%") -> None:
    page.add_style_tag(content=f"html {{ font-size: {size} }}")


def box(page: Page, selector: str) -> dict[str, float]:
    """The element's box on screen (it must be on the page)."""
    found = page.locator(selector).bounding_box()
    assert found, selector
    return found


def page_width(page: Page) -> int:
    """How wide the page is: wider than the screen, it scrolls sideways."""
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width


# -- the swap chooser on a phone with large text ---------------------------------------------


@pytest.mark.parametrize(
    ("context", "size"),
    [(PHONE_SIDEWAYS, "200%"), (PHONE_SIDEWAYS, "150%"), (PHONE, "200%")],
    ids=["sideways-200", "sideways-150", "upright-200"],
)
def test_the_swap_chooser_leaves_the_board_tappable_with_large_text(
    browser: Browser, server_url: str, context: dict[str, Any], size: str
) -> None:
    """Before: at 200% text the Finnish chooser was as tall as the phone's screen and the
    board under it 0 px high, so no swap could be chosen (only "Cancel placement" worked);
    at 150% the board shrank to 45 px, its squares 9 px apart."""
    red = tangle(browser, server_url, context, lang="fi")
    large_text(red, size)
    red.locator('#board [data-move="a4"]').tap()
    expect(red.locator("#swap-chooser")).to_be_visible()
    viewport = red.viewport_size
    assert viewport
    chooser = box(red, "#swap-chooser")
    # the page does not scroll sideways (it was 466 px wide on a 390 px phone at 200% text)
    assert page_width(red) <= viewport["width"]
    # every square to choose is on screen, above the chooser, not covered by anything, and
    # big enough for a finger
    for name in picks(red):
        square = box(red, f'#board [data-pick="{name}"]')
        assert square["y"] >= 0 and square["y"] + square["height"] <= chooser["y"], (name, square)
        assert square["x"] >= 0 and square["x"] + square["width"] <= viewport["width"]
        on_top = red.evaluate(
            """name => {
                const square = document.querySelector(`#board [data-pick="${name}"]`);
                const r = square.getBoundingClientRect();
                return square.contains(
                    document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
            }""",
            name,
        )
        assert on_top, name
    a4, a3 = box(red, '#board [data-pick="a4"]'), box(red, '#board [data-pick="a3"]')
    assert abs(a3["y"] - a4["y"]) >= 24, (a4, a3)  # one square to the next
    # the chooser leaves the board half the screen at least
    assert chooser["height"] <= viewport["height"] / 2 + 1, chooser
    # both buttons in full view
    for button in ("#swap-confirm", "#swap-cancel"):
        found = box(red, button)
        assert found["y"] >= chooser["y"] and found["y"] + found["height"] <= viewport["height"]
    # and the swap is played by tapping, as on any phone
    red.locator('#board [data-pick="c5"]').tap()
    assert chosen(red) == ["b4", "c5"]
    red.locator("#swap-confirm").tap()
    wait_ply(red, len(TANGLE) + 1)
    expect(red.locator("#move-list li").last).to_contain_text("a4:b4-c5")


# -- pages wider than a phone at 200% text ---------------------------------------------------


@pytest.mark.parametrize("lang", ["", "/cs", "/fi"])
def test_my_games_fit_a_phone_at_200_percent_text(
    browser: Browser, server_url: str, lang: str
) -> None:
    """Before: at 200% text the rows of My games were 505-583 px wide on a 390 px phone (the
    status and the time left had a column that would not shrink), and the page scrolled
    sideways."""
    page = browser.new_context(**PHONE).new_page()
    realtime = post_json(
        server_url + "/api/tables",
        {
            "game": "dots",
            "options": {"grid": "square", "rows": 3, "cols": 3},
            "seat": "red",
            "time_control": {"kind": "realtime", "minutes": 5, "increment": 3},
        },
    )
    correspondence = post_json(
        server_url + "/api/tables",
        {
            "game": "swaptimum",
            "options": {"size": 7},
            "seat": "blue",
            "time_control": {"kind": "correspondence", "days": 3},
        },
    )
    finished = play_game(server_url, {"grid": "square", "rows": 1, "cols": 2}, seed=3)
    for seat_url in (
        realtime["seat_url"],
        correspondence["seat_url"],
        f"{server_url}/t/{finished.id}/seat/{finished.tokens['red']}",
    ):
        page.goto(seat_url)  # this browser holds the seat: the game is in its list
    page.goto(server_url + lang + "/games")
    rows = page.locator("#games-list li")
    expect(rows).to_have_count(3)
    large_text(page)
    assert page_width(page) <= 390
    for row in rows.all():
        found = row.bounding_box()
        assert found and found["x"] >= 0 and found["x"] + found["width"] <= 390, found
    times = page.locator(".game-row__time")
    expect(times).to_have_count(2)
    for time_left in times.all():
        found = time_left.bounding_box()
        assert found and found["x"] + found["width"] <= 390, (time_left.text_content(), found)


@pytest.mark.parametrize(
    "path",
    [
        "/fi/rules/swaptimum",
        "/fi/rules/dots-and-boxes",
        "/fi/variants/icelandic-board",
        "/fi/atlas",
    ],
)
def test_finnish_pages_fit_a_phone_at_200_percent_text(
    browser: Browser, server_url: str, path: str
) -> None:
    """Before: long Finnish words ("Kuusikulmioruudukko", "Ristiinleikkaukset") in the
    headings and links did not break, and these pages were 413-529 px wide on a 390 px
    phone; on the Swaptimum rules the diagrams went off the screen with the text."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(server_url + path)
    large_text(page)
    assert page_width(page) <= 390
    for heading in page.locator("main h2").all():
        found = heading.bounding_box()
        assert found and found["x"] + found["width"] <= 390, (heading.text_content(), found)
    for figure in page.locator("main figure").all():
        found = figure.bounding_box()
        assert found and found["x"] + found["width"] <= 390, found


def test_the_variants_list_is_readable_at_200_percent_text(
    browser: Browser, server_url: str
) -> None:
    """Before: at 200% text each card kept 7.5rem (240 px) for its picture, which left the
    name and the description a column 14 px wide, a letter or two a line."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(server_url + "/fi/variants")
    large_text(page)
    cards = page.locator(".variant-list li")
    expect(cards).to_have_count(5)
    for card in cards.all():
        card_box, text_box = card.bounding_box(), card.locator("p").first.bounding_box()
        assert card_box and text_box
        assert text_box["width"] >= card_box["width"] / 2, (
            card.locator("h2").text_content(),
            text_box,
        )
    assert page_width(page) <= 390


# -- the home form's Rows × Columns with a message -------------------------------------------


def ask_for_13(page: Page, field: str) -> None:
    """Type 13 in the field and send the form, as a visitor would: the page's script keeps
    the form and shows why."""
    page.locator(f"#{field}").fill("13")
    page.locator("#table-form button[type=submit]").click()
    expect(page.locator(f"#{field}-error")).to_be_visible()


@pytest.mark.parametrize("field", ["dots_rows", "dots_cols"])
def test_a_message_on_rows_or_columns_keeps_the_pair_on_its_line(
    browser: Browser, server_url: str, field: str
) -> None:
    """Before: on a 390 px phone the message, added inside the field, widened it; Columns went
    down to the next line and the "×" was left dangling at the end of the first."""
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(server_url + "/")
    before = {name: box(page, name) for name in ("#dots_rows", ".times", "#dots_cols")}
    ask_for_13(page, field)
    rows, times, cols = (box(page, name) for name in ("#dots_rows", ".times", "#dots_cols"))
    # the pair and its "×" keep their line and their order, as before the message
    assert rows["y"] == cols["y"], (rows, cols)
    assert rows["x"] + rows["width"] <= times["x"] < times["x"] + times["width"] <= cols["x"]
    assert times["y"] >= rows["y"] and times["y"] + times["height"] <= rows["y"] + rows["height"]
    for name, then in before.items():
        now = box(page, name)
        assert (now["x"], now["width"]) == (then["x"], then["width"]), name
    # the message: under the pair, whole on the screen, and said with its field
    error = page.locator(f"#{field}-error")
    found = box(page, f"#{field}-error")
    assert found["y"] >= rows["y"] + rows["height"], (found, rows)
    assert found["x"] >= 0 and found["x"] + found["width"] <= 390, found
    fits = error.evaluate("e => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight")
    assert fits
    input_ = page.locator(f"#{field}")
    expect(input_).to_have_attribute("aria-invalid", "true")
    expect(input_).to_have_accessible_description(re.compile(re.escape(error.inner_text())))


def test_rows_and_columns_stack_cleanly_at_200_percent_text(
    browser: Browser, server_url: str
) -> None:
    """With 200% text the pair no longer fits one line: one field under the other, each with
    its message, and the "×" between them, none of it wider than the phone."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(server_url + "/fi/")
    large_text(page)
    ask_for_13(page, "dots_rows")
    ask_for_13(page, "dots_cols")
    rows, times, cols = (box(page, name) for name in ("#dots_rows", ".times", "#dots_cols"))
    rows_error, cols_error = box(page, "#dots_rows-error"), box(page, "#dots_cols-error")
    assert rows["y"] + rows["height"] <= rows_error["y"]
    assert rows_error["y"] + rows_error["height"] <= times["y"]
    assert times["y"] + times["height"] <= cols["y"]
    assert cols["y"] + cols["height"] <= cols_error["y"]
    # the "×" under the middle of the Rows field
    assert abs((times["x"] + times["width"] / 2) - (rows["x"] + rows["width"] / 2)) <= 2
    assert page_width(page) <= 390
