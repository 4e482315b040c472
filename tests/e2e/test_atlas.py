"""The atlas pages in a real browser: axe-core finds no serious problem in any language, and
the first-move map tells each value by colour, by dash pattern and by its number."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from playtable.ai import atlas
from tests.e2e.i18n_helpers import LANGUAGES, prefixed
from tests.e2e.test_a11y import headings_in_order, serious_violations

pytestmark = pytest.mark.e2e

PAGES = ("/atlas", "/atlas/square-3x3-standard-normal", "/atlas/square-2x2-swedish-misere")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_atlas_pages_pass_axe(browser: Browser, server_url: str, lang: str) -> None:
    page = browser.new_context().new_page()
    for path in (*PAGES, "/variants/misere"):
        page.goto(server_url + prefixed(lang, path))
        page.locator("footer").wait_for()
        assert not serious_violations(page), (lang, path, serious_violations(page))
        headings_in_order(page)


def test_the_map_draws_every_first_line_with_its_value(browser: Browser, server_url: str) -> None:
    entry = atlas.entry_for({"rows": 3, "cols": 3})
    assert entry is not None
    page = browser.new_context().new_page()
    page.goto(server_url + "/atlas/square-3x3-standard-normal")
    lines = page.locator("svg[data-map] g[data-line]")
    expect(lines).to_have_count(24)
    styles = page.eval_on_selector_all(
        "svg[data-map] g[data-line]",
        """gs => gs.map(g => {
            const line = g.querySelector("line");
            const dashes = line.getAttribute("stroke-dasharray") || "";
            const label = g.querySelector("text").textContent;
            return [g.dataset.line, g.dataset.kind, line.getAttribute("stroke"), dashes, label];
        })""",
    )
    by_kind: dict[str, set[tuple[str, str]]] = {}
    for (_, kind, stroke, dashes, label), value in zip(styles, entry.first_moves, strict=True):
        assert value is not None
        assert label == (f"{value:+d}" if value else "0")
        assert kind == ("win" if value > 0 else "draw" if value == 0 else "loss")
        by_kind.setdefault(kind, set()).add((stroke, dashes))
    # one look per outcome, and no two outcomes alike in colour or in dashes
    assert all(len(looks) == 1 for looks in by_kind.values())
    looks = [next(iter(v)) for v in by_kind.values()]
    assert len({s for s, _ in looks}) == len(looks) == len({d for _, d in looks})
    # the legend names every outcome on the map, and the table repeats every value
    expect(page.locator(".atlas__legend li[data-kind]")).to_have_count(len(by_kind))
    expect(page.locator("table tr[data-line]")).to_have_count(24)
    # a screen reader hears the map's caption
    name = page.locator("svg[data-map]").get_attribute("aria-labelledby")
    expect(page.locator(f"#{name}")).to_contain_text("3×3")


@pytest.mark.parametrize(
    "key",
    ["square-3x3-standard-normal", "hexagon-2-standard-normal", "square-1x12-standard-normal"],
)
def test_a_map_fits_a_phone(browser: Browser, server_url: str, key: str) -> None:
    """At 390 px the maps were drawn at 90 px a box whatever the screen, and the page
    scrolled sideways with the right-hand lines and their values cut off. A map now fits
    the screen with labels still readable; a long strip (1x12) scrolls in its own frame,
    which the keyboard can reach, and the page itself never scrolls sideways."""
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{server_url}/atlas/{key}")
    page.locator("footer").wait_for()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    smallest = page.eval_on_selector_all(
        "svg[data-map] text", "ts => Math.min(...ts.map(t => t.getBoundingClientRect().height))"
    )
    assert smallest >= 10, f"value labels {smallest:.1f} px high"
    frame = page.locator(".atlas__map")
    if frame.evaluate("f => f.scrollWidth > f.clientWidth"):
        assert frame.get_attribute("tabindex") == "0"
    else:  # the whole map on the screen: its last line's value is not cut off
        right = page.eval_on_selector_all(
            "svg[data-map] text", "ts => Math.max(...ts.map(t => t.getBoundingClientRect().right))"
        )
        assert right <= 390
    assert not serious_violations(page), serious_violations(page)
