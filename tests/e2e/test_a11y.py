"""axe-core finds no serious or critical accessibility problem on the home, table, rules and
variant pages, in every language; plus the checks axe cannot make: the skip link, one h1 and
headings in order, and the board's state in the live region."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import (
    accept_invitation,
    create_table,
    record_announcements,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.i18n_helpers import LANGUAGES, prefixed

pytestmark = pytest.mark.e2e

AXE = Path(__file__).resolve().parent / "assets" / "axe.min.js"
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
PAGES = ("/", "/rules/dots-and-boxes", "/rules/swaptimum", "/variants", "/variants/swedish-board")


def serious_violations(page: Page) -> list[str]:
    # Served from the page's own origin: the site's CSP (script-src 'self') refuses the
    # inline script that add_script_tag(path=...) would insert.
    origin = "/".join(page.url.split("/", 3)[:3])
    page.route(
        f"{origin}/__axe.min.js",
        lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"),
    )
    page.add_script_tag(url=f"{origin}/__axe.min.js")
    result: dict[str, Any] = page.evaluate(
        """async (tags) => await axe.run(document, {
            runOnly: { type: "tag", values: tags },
            resultTypes: ["violations"],
        })""",
        RULES,
    )
    return [
        f"{v['impact']} {v['id']}: {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:5])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def headings_in_order(page: Page) -> None:
    levels: list[int] = page.eval_on_selector_all(
        "main h1, main h2, main h3, main h4", "els => els.map(e => Number(e.tagName[1]))"
    )
    assert levels.count(1) == 1 and levels[0] == 1, levels
    for before, after in pairwise(levels):
        assert after <= before + 1, levels


def test_axe_itself_reports_a_planted_problem(browser: Browser, server_url: str) -> None:
    page = browser.new_context().new_page()
    page.goto(server_url + "/rules/swaptimum")
    page.evaluate(
        """() => {
            const button = document.createElement("button");
            document.querySelector("main").append(button);  // a button with no name
            const text = document.createElement("p");
            text.textContent = "faint";
            text.style.color = "#eeeeee";
            document.querySelector("main").append(text);
        }"""
    )
    found = " ".join(serious_violations(page))
    assert "button-name" in found and "color-contrast" in found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_pages_pass_axe(browser: Browser, server_url: str, lang: str) -> None:
    page = browser.new_context().new_page()
    for path in PAGES:
        page.goto(server_url + prefixed(lang, path))
        page.locator("footer").wait_for()
        if page.locator("figure[data-diagram]").count():
            expect(page.locator(".diagram__board:not([data-drawn])")).to_have_count(0)
        assert not serious_violations(page), (lang, path, serious_violations(page))
        headings_in_order(page)
    # the phone layout too
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server_url + prefixed(lang, "/variants/icelandic-board"))
    assert not serious_violations(page)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_table_page_passes_axe_and_announces_the_board(
    browser: Browser, server_url: str, lang: str
) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="2", dots_cols="2"
    )
    path = table_url.removeprefix(server_url)
    if lang != "en":
        red.goto(server_url + prefixed(lang, path))
        wait_ready(red)
    # the skip link is the first thing a keyboard reaches, and it lands on the main content
    red.keyboard.press("Tab")
    skip = red.locator(".skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    red.keyboard.press("Enter")
    expect(red.locator("main")).to_be_focused()

    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    record_announcements(red)
    # red draws, then blue: both players' moves, then whose turn it is, are read out
    first = wait_moves_offered(red)[0]
    red.locator(f'#board [data-move="{first}"]').click()
    wait_ply(blue, 1)
    reply = wait_moves_offered(blue)[0]
    blue.locator(f'#board [data-move="{reply}"]').click()
    wait_ply(red, 2)
    if lang == "en":
        wait_announced(red, f"Blue drew {reply}. Red to move.")
    else:
        wait_announced(red, f"파랑: {reply} 선을 그었습니다. 이제 빨강 차례입니다.")
    assert not serious_violations(red), serious_violations(red)
    headings_in_order(red)
    # red and blue are never told apart by colour alone: each claimed box carries a letter,
    # each player a mark
    expect(red.locator("#player-red .player__mark")).to_have_text("R" if lang == "en" else "빨")
    expect(red.locator("#player-blue .player__mark")).to_have_text("B" if lang == "en" else "파")
