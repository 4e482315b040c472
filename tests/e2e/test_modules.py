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
