"""The board modules' own logic, run in the browser against the Python rules."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser

from playtable.games import load

pytestmark = pytest.mark.e2e


def swaptimum_positions(size: int, games: int, seed: int) -> list[dict[str, Any]]:
    """Views of positions from random games, with crosscut placements among them."""
    rng = random.Random(seed)
    game = load("swaptimum", {"size": size})
    views = []
    for _ in range(games):
        state = game.initial()
        while game.outcome(state) is None:
            view = game.view(state)
            if any(options != [square] for square, options in view["placements"].items()):
                views.append(view)
            state = game.play(state, rng.choice(game.legal_move_texts(state)))
    return views


def test_the_board_finds_the_crosscuts_the_rules_find(browser: Browser, server_url: str) -> None:
    """A placement forms a crosscut in the browser's eyes exactly when the rules ask for a
    swap: the outline the board draws always matches the swaps it offers."""
    views = swaptimum_positions(size=5, games=12, seed=7)
    assert len(views) > 10
    page = browser.new_page()
    page.goto(server_url + "/")
    mismatches = page.evaluate(
        """async (views) => {
            const m = await import("/static/js/swaptimum.js");
            const wrong = [];
            for (const view of views) {
                for (const [square, options] of Object.entries(view.placements)) {
                    const index = m.squareIndex(square, view.size);
                    if (m.squareName(index, view.size) !== square) wrong.push(["name", square]);
                    const blocks = m.crosscutsFormed(view.board, view.size, index, view.to_move);
                    const swaps = !(options.length === 1 && options[0] === square);
                    if ((blocks.length > 0) !== swaps) wrong.push([square, view.board]);
                    for (const move of options) {
                        const [placement, pair] = m.parseMove(move);
                        if (placement !== square) wrong.push(["parse", move]);
                        if (swaps && (!pair || pair.length !== 2)) wrong.push(["pair", move]);
                    }
                }
            }
            return wrong;
        }""",
        views,
    )
    assert mismatches == []
    page.close()


@pytest.mark.parametrize(
    "fields",
    [
        {"dots_grid": "square", "dots_rows": "3", "dots_cols": "4"},
        {"dots_grid": "triangle", "dots_size": "3"},
        {"dots_grid": "hexagon", "dots_size": "2"},
    ],
    ids=["square", "triangle", "hexagon"],
)
def test_every_line_is_hit_on_it_and_well_beside_it(
    browser: Browser, server_url: str, fields: dict[str, str]
) -> None:
    """A finger on a line, or a good way off it towards either side, hits that line."""
    from tests.e2e.helpers import create_table, moves_offered

    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    create_table(page, server_url, "dots", seat="red", **fields)
    legal = moves_offered(page)
    misses = page.evaluate(
        """() => {
            const misses = [];
            const svg = document.querySelector("#board svg");
            for (const target of document.querySelectorAll("#board [data-move]")) {
                target.scrollIntoView({ block: "center" });
                const ctm = svg.getScreenCTM();
                const toScreen = (x, y) => new DOMPoint(x, y).matrixTransform(ctm);
                const kite = target.querySelector(".hit").points;
                const [a, c1, b, c2] = [0, 1, 2, 3].map((i) => kite.getItem(i));
                const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
                const probes = [mid];
                for (const c of [c1, c2]) {
                    probes.push({ x: mid.x + (c.x - mid.x) * 0.4, y: mid.y + (c.y - mid.y) * 0.4 });
                }
                for (const p of probes) {
                    const s = toScreen(p.x, p.y);
                    const hit = document.elementFromPoint(s.x, s.y)?.closest("[data-move]");
                    if (hit?.dataset.move !== target.dataset.move) {
                        misses.push([target.dataset.move, hit?.dataset.move ?? null]);
                    }
                }
            }
            return misses;
        }"""
    )
    assert legal and misses == []
    page.close()


def test_the_analysis_words_an_estimate_as_an_estimate(browser: Browser, server_url: str) -> None:
    """The wording of the analysis board on its own (analysis_words.js), with the page's
    English strings: a proof says "with perfect play", an estimate never does and always
    says "(estimate)", in either scoring, from the viewer's side, and in Swaptimum."""
    from tests.e2e.games import play_game

    game = play_game(server_url, {"grid": "square", "rows": 1, "cols": 1}, seed=1)
    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    cases = [
        # value, misère, viewer, proved, game -> words
        ([3, False, None, True, "dots"], "Red wins by 3 boxes with perfect play"),
        ([3, True, None, True, "dots"], "Blue wins by 3 boxes with perfect play"),
        ([-1, False, "blue", True, "dots"], "You win by 1 box with perfect play"),
        ([3, False, None, False, "dots"], "About Red by 3 boxes (estimate)"),
        ([3, True, None, False, "dots"], "About Blue by 3 boxes (estimate)"),
        ([-2, False, "red", False, "dots"], "You are behind by about 2 boxes (estimate)"),
        ([-2, False, "blue", False, "dots"], "You are ahead by about 2 boxes (estimate)"),
        ([0, False, None, False, "dots"], "About even (estimate)"),
        ([None, False, None, False, "dots"], "Not analysed yet"),
        ([0.36, False, None, False, "swaptimum"], "Blue wins 64% of simulated games (estimate)"),
        ([0.64, False, "blue", False, "swaptimum"], "You win 36% of simulated games (estimate)"),
        ([1.0, False, None, True, "swaptimum"], "Red wins: the game is decided"),
        ([0.0, False, "red", True, "swaptimum"], "You lose: the game is decided"),
    ]
    said = page.evaluate(
        """async (cases) => {
            const m = await import("/static/js/analysis_words.js");
            return cases.map(([args]) => m.valueText(...args));
        }""",
        cases,
    )
    assert said == [words for _, words in cases]
