"""A review of the analysis page of a finished game: mistakes readable in the dark theme, the
value beside the board and its step buttons on a phone, the graph's mistakes in the mover's
colour, touch targets a finger can hit, help that fits the device."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.games import PlayedGame, play_game
from tests.e2e.test_analysis_board import SQUARE_3, analysis_of

pytestmark = pytest.mark.e2e

#: the contrast of every piece of text in an element against the background it is drawn on
#: (the nearest ancestor's opaque one), the list item's counter (::before) included
CONTRASTS = """(root) => {
    const channels = (c) => c.match(/[\\d.]+/g).map(Number);
    const luminance = (c) => {
        const [r, g, b] = channels(c).slice(0, 3).map((v) => {
            v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const background = (el) => {
        for (let e = el; e; e = e.parentElement) {
            const c = getComputedStyle(e).backgroundColor;
            const alpha = channels(c)[3];
            if (alpha === undefined || alpha > 0) return c;
        }
        return "rgb(255, 255, 255)";
    };
    const ratio = (fg, bg) => {
        const [a, b] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
    };
    const found = [];
    for (const el of [root, ...root.querySelectorAll("*")]) {
        if (el.classList.contains("visually-hidden")) continue;
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (own) {
            const fg = getComputedStyle(el).color;
            found.push([el.className || el.tagName, fg, background(el), ratio(fg, background(el))]);
        }
    }
    const counter = getComputedStyle(root, "::before");
    if (counter.content && counter.content !== "none") {
        const bg = background(root);
        found.push(["::before", counter.color, bg, ratio(counter.color, bg)]);
    }
    return found;
}"""


@pytest.fixture(scope="module")
def finished(server_url: str) -> PlayedGame:
    """A finished 3x3 game with mistakes, its analysis done (else each poll redraws)."""
    game = play_game(server_url, SQUARE_3, seed=7)
    analysis = analysis_of(server_url, game.id)
    assert any(m["loss"] for m in analysis["moves"] if m["loss"] is not None)
    return game


def open_analysis(page: Page, server_url: str, game: PlayedGame) -> None:
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_mistakes_in_the_move_list_are_readable_in_either_theme(
    browser: Browser, server_url: str, finished: PlayedGame, scheme: Any
) -> None:
    """In the dark theme the mistakes' rows were near-white text on pale pink (1.1:1)."""
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    open_analysis(page, server_url, finished)
    rows = page.locator("#analysis-moves li.is-mistake")
    expect(rows.first).to_be_visible()
    low = []
    for i in range(rows.count()):
        for what, fg, bg, ratio in rows.nth(i).evaluate(CONTRASTS):
            if ratio < 4.5:
                low.append((i, what, fg, bg, round(ratio, 2)))
    # the mistake said on the card beside the board too
    page.locator("#analysis-moves li.is-mistake .move-jump").first.click()
    expect(page.locator("#analysis-mistake")).to_be_visible()
    for what, fg, bg, ratio in page.locator("#analysis-now").evaluate(CONTRASTS):
        if ratio < 4.5:
            low.append(("card", what, fg, bg, round(ratio, 2)))
    assert not low, low
    context.close()


def test_on_a_phone_the_value_shows_with_the_board_and_the_step_buttons(
    browser: Browser, server_url: str, finished: PlayedGame
) -> None:
    """At 390x844 the value card came after the board, the step buttons and the graph
    (y about 1000): every step needed a scroll to read its result."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    open_analysis(page, server_url, finished)
    # the board at the top of the screen: its step buttons and the value under it, in view
    page.evaluate(
        "window.scrollTo(0, document.querySelector('#board').getBoundingClientRect().top + scrollY)"
    )
    page.locator(".replay__back").click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(len(finished.moves) - 1))
    for selector in ("#board svg", ".replay__bar", "#analysis-value"):
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844, (selector, box)
    # the value card comes right after the step buttons, before the graph and the moves
    now = page.locator("#analysis-now").bounding_box()
    bar = page.locator(".replay__bar").bounding_box()
    graph = page.locator("#analysis-graph").bounding_box()
    assert now and bar and graph
    assert bar["y"] < now["y"] < graph["y"], (bar, now, graph)
    page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_graph_marks_each_mistake_in_its_movers_colour(
    browser: Browser, server_url: str, finished: PlayedGame, scheme: Any
) -> None:
    """The mistakes' circles were outlined in the danger red whoever made them."""
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    open_analysis(page, server_url, finished)
    strokes = {}
    for mover in ("red", "blue"):
        circles = page.locator(f"#analysis-graph .graph-mistake--{mover}")
        expect(circles.first).to_be_attached()
        seen = set(circles.evaluate_all("els => els.map(e => getComputedStyle(e).stroke)"))
        assert len(seen) == 1, seen
        strokes[mover] = [int(c) for c in seen.pop()[4:-1].split(",")]
    (r, _, b), (r2, _, b2) = strokes["red"], strokes["blue"]
    assert r > b and b2 > r2, strokes
    context.close()


def test_on_a_touch_screen_targets_are_finger_sized_and_the_help_names_no_keys(
    browser: Browser, server_url: str, finished: PlayedGame
) -> None:
    """On a phone the coordinates' checkbox was 13x13 px and a move's button 51x28 px, and
    the help named the ← → Home End keys a phone has not."""
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = phone.new_page()
    open_analysis(page, server_url, finished)
    assert page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
    box = page.locator("#replay-coordinates").bounding_box()
    assert box and box["width"] >= 24 and box["height"] >= 24, box  # the box a finger sees
    for selector in (".replay__coords", "#analysis-moves .move-jump"):
        targets = page.locator(selector)
        expect(targets.first).to_be_visible()
        for rect in targets.evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())"):
            assert rect["width"] >= 44 and rect["height"] >= 44, (selector, rect)
    expect(page.locator(".replay__help")).to_be_hidden()
    # the coordinates still switch on with a tap on their label
    page.locator(".replay__coords").tap()
    expect(page.locator("#replay-coordinates")).to_be_checked()
    phone.close()
    # with a mouse and a keyboard the help stays, and the list keeps its compact rows
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    open_analysis(page, server_url, finished)
    expect(page.locator(".replay__help")).to_be_visible()
    row = page.locator("#analysis-moves .move-jump").first.bounding_box()
    assert row and row["height"] < 40, row
    page.close()
