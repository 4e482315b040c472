"""Defects a player found playing the Dots and Boxes variants and Swaptimum in Korean, Czech
and Finnish, on a phone (390x844) and a desktop (1280x800), at normal and at 200% text.

- The players' card on a phone at 200% text: the two players sat side by side, 130 px of
  name each, and a colour's name was cut short ("Punainen" needs 160 px: "Punai…",
  "Sinin…", "Červe…") and "(sinä)", "(vy)" with it, so a player could not read which side was
  theirs; in Korean the presence was cut ("접..", "빈..": 49 px of text in 40 px). Now, with
  large text, the players go one under the other: the names 294 px wide, whole
  ("Punainen (sinä)" 269 px), the presence 208 px ("접속 중" 49 px).
- A variant page's play button on a phone at 200% text, in Finnish: "Pelaa
  kuusikulmioruudukolla" was one unbreakable word as wide as the button, and the page was
  496 px wide on a 390 px phone (398 px for "Pelaa kolmioruudukolla"): it scrolled sideways.
  Now the word breaks and the page is 390 px wide.
- The result card's rematch button on a phone at 200% text, in Finnish: its one word
  ("Uusintaottelu") made it 310 px wide in a card with 284 px inside its padding, its right
  edge 5 px from the card's (34 px on the left). Now 280 px, 38 px from the right edge.
- The home form's Dots and Boxes settings on a phone at 200% text: 40 px of the form's
  padding and 32 px of the settings' on each side left the settings 205 px of a 390 px
  phone, and words broke in their middle: "Kuusiku / lmio" (the hexagon grid's choice),
  "Alkuasetel / ma", "Islantilaist / a" (the note on the Icelandic board), "vähem / män",
  "바뀌었습 / 니다."; in Czech "Čtvercová", "vyhrává". Now the phone keeps the usual 20 px
  and 16 px: 275 px, and the Finnish and Korean words are whole.
- A triangle grid of size 10 on a phone (390 px): the middles of two lines, where a finger
  aims, were 16 px apart (20 px at size 8), and the zoom was not offered: it came below
  32 px of dot spacing, a square's measure, where the lines' middles are 0.71 of it apart
  (a triangle's 0.5). Now a triangle grid zooms below 45 px and to 62 px: the lines' middles
  31 px apart when zoomed, as a square grid's.

Large text is emulated as tests/e2e/test_layout_review.py does (``bypass_csp``)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import (
    api_table,
    create_table,
    take_both_seats,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.test_layout_review import PHONE, box, large_text, page_width
from tests.e2e.test_player_review import resign

pytestmark = pytest.mark.e2e

YOU = {"fi": "(sinä)", "cs": "(vy)", "ko": "(나)"}


def seated_in(
    browser: Browser, server_url: str, lang: str, game: str, options: dict[str, Any]
) -> dict[str, Page]:
    """Both players seated on phones, each page in ``lang`` with 200% text."""
    red_context, blue_context = browser.new_context(**PHONE), browser.new_context(**PHONE)
    created = api_table(red_context, server_url, game, options)
    red, blue = red_context.new_page(), blue_context.new_page()
    take_both_seats(red, blue, created)
    for page in (red, blue):
        page.goto(server_url + f"/{lang}" + page.url.removeprefix(server_url))
        wait_ready(page)
        large_text(page)
    return {"red": red, "blue": blue}


def cut_short(page: Page, selector: str) -> list[str]:
    """The texts of ``selector`` that do not fit their box (cut by an ellipsis or a clamp)."""
    cut: list[str] = page.eval_on_selector_all(
        selector,
        """els => els.filter(e => e.scrollWidth > e.clientWidth + 1
                || e.scrollHeight > e.clientHeight + 1)
            .map(e => `${e.textContent} (${e.scrollWidth}x${e.scrollHeight} in `
                + `${e.clientWidth}x${e.clientHeight})`)""",
    )
    return cut


@pytest.mark.parametrize(
    ("lang", "game", "options"),
    [
        ("fi", "dots", {"rows": 3, "cols": 3, "misere": True}),
        ("cs", "dots", {"grid": "hexagon", "size": 2}),
        ("ko", "swaptimum", {"size": 9}),
    ],
    ids=["fi-misere", "cs-hexagon", "ko-swaptimum"],
)
def test_the_players_names_and_presence_are_whole_with_large_text_on_a_phone(
    browser: Browser, server_url: str, lang: str, game: str, options: dict[str, Any]
) -> None:
    """Before: "Punai…" and "Sinin…" at 200% text (160 px of name in 130 px), "(sinä)" gone;
    in Korean the presence "접.." (49 px in 40 px). After: whole names and presence."""
    for colour, page in seated_in(browser, server_url, lang, game, options).items():
        assert cut_short(page, ".player__name") == [], colour
        assert cut_short(page, ".player__presence") == [], colour
        own = page.locator(f".player--{colour} .player__name")
        assert YOU[lang] in (own.text_content() or "")
        viewport = page.viewport_size
        assert viewport
        assert page_width(page) <= viewport["width"]
        for player in ("red", "blue"):
            card = box(page, f".player--{player}")
            assert card["x"] >= 0 and card["x"] + card["width"] <= viewport["width"]


@pytest.mark.parametrize("slug", ["hexagon-grid", "triangle-grid"])
def test_a_variant_pages_play_button_fits_a_phone_with_large_text(
    browser: Browser, server_url: str, slug: str
) -> None:
    """Before: the Finnish page was 496 px wide on a 390 px phone at 200% text (398 px for
    the triangle grid), its play button one unbreakable word. After: 390 px."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(server_url + f"/fi/variants/{slug}")
    large_text(page)
    button = box(page, "[data-play]")
    assert button["x"] >= 0 and button["x"] + button["width"] <= 390
    assert page_width(page) <= 390


BROKEN_WORDS = """root => {
    const broken = [];
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        if (!node.parentElement.getClientRects().length) continue;
        for (const word of node.data.matchAll(/[^\\s-]\\S*/g)) {
            const range = document.createRange();
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
            if (lines.size > 1) broken.push(word[0]);
        }
    }
    return broken;
}"""


@pytest.mark.parametrize("lang", ["fi", "ko"])
def test_the_home_forms_dots_settings_keep_their_words_whole_with_large_text_on_a_phone(
    browser: Browser, server_url: str, lang: str
) -> None:
    """Before: "Kuusiku / lmio", "Alkuasetel / ma", "Islantilaist / a", "바뀌었습 / 니다." in
    205 px of settings. After: 275 px, no word broken in its middle (a line may still end
    at a hyphen: "laatikot - / asetukset")."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(server_url + f"/{lang}")
    large_text(page)
    # the Icelandic board, then the hexagon grid: the note says the start changed
    page.locator('[name="dots_start"]').select_option("icelandic")
    page.locator(".segmented label", has=page.locator('input[value="hexagon"]')).click()
    expect(page.locator("#start-note")).to_be_visible()
    assert page.locator("#dots-settings").evaluate(BROKEN_WORDS) == []
    assert page_width(page) <= 390


def test_the_rematch_button_stays_inside_the_result_card_with_large_text_on_a_phone(
    browser: Browser, server_url: str
) -> None:
    """Before: "Uusintaottelu" 29 px past the card's padding (5 px from its edge on the right,
    34 px on the left). After: inside the padding."""
    seats = seated_in(browser, server_url, "fi", "dots", {"rows": 2, "cols": 2})
    resign(seats["blue"])
    red = seats["red"]
    rematch = red.locator("#action-rematch")
    expect(rematch).to_be_visible()
    button, card = box(red, "#action-rematch"), box(red, "#result")
    padding = red.locator("#result").evaluate("e => parseFloat(getComputedStyle(e).paddingRight)")
    assert button["x"] + button["width"] <= card["x"] + card["width"] - padding
    assert rematch.evaluate("e => e.scrollWidth <= e.clientWidth")


def target_spacing(page: Page) -> float:
    """How close two of the lines a player may draw are: the distance between the middles
    of their targets on screen (where a finger aims)."""
    spacing: float = page.eval_on_selector_all(
        "#board [data-move]",
        """els => {
            const middles = els.map(e => {
                const r = e.getBoundingClientRect();
                return [r.left + r.width / 2, r.top + r.height / 2];
            });
            let least = Infinity;
            middles.forEach(([x, y], i) => {
                for (const [u, v] of middles.slice(i + 1))
                    least = Math.min(least, Math.hypot(x - u, y - v));
            });
            return least;
        }""",
    )
    return spacing


def test_a_big_triangle_grid_on_a_phone_can_be_zoomed_to_a_fingers_spacing(
    browser: Browser, server_url: str
) -> None:
    """Before: lines 16 px apart on a size 10 triangle grid, no zoom offered. After: the
    zoom is offered and draws them 31 px apart; a far line is tapped and played."""
    page = browser.new_context(**PHONE).new_page()
    create_table(page, server_url, "dots", seat="red", dots_grid="triangle", dots_size="10")
    far = wait_moves_offered(page)[-1]
    assert target_spacing(page) < 24
    zoom = page.locator("#board-zoom")
    expect(zoom).to_be_visible()
    zoom.tap()
    expect(zoom).to_have_attribute("aria-pressed", "true")
    assert target_spacing(page) >= 24
    assert page_width(page) <= 390  # the zoomed board scrolls in its frame, not the page
    target = page.locator(f'#board [data-move="{far}"]')
    target.scroll_into_view_if_needed()
    target.tap()
    wait_ply(page, 1)
