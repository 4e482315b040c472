"""The analysis board of finished games: the board, the graph, mistakes, best moves, wording."""

from __future__ import annotations

import json
import math
import re
import threading
import time
import urllib.request

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.games import claimed_by_moves, line_words, play_game
from tests.e2e.helpers import TIMEOUT, box_of
from tests.e2e.test_a11y import headings_in_order, serious_violations

pytestmark = pytest.mark.e2e

SQUARE_3 = {"grid": "square", "rows": 3, "cols": 3}


def analysis_of(server_url: str, table_id: str) -> dict:
    """The table's analysis once the background work on it is over (the page polls too)."""
    deadline = time.monotonic() + 120
    while True:
        with urllib.request.urlopen(
            f"{server_url}/api/tables/{table_id}/analysis", timeout=30
        ) as r:
            data: dict = json.loads(r.read())
        if data["complete"] and not data["pending"]:
            return data
        assert time.monotonic() < deadline, data
        time.sleep(0.2)


def test_the_analysis_board_of_a_finished_3x3_game(browser: Browser, server_url: str) -> None:
    game = play_game(server_url, SQUARE_3, seed=7)
    assert len(game.moves) == 24
    analysis = analysis_of(server_url, game.id)
    mistakes = [m for m in analysis["moves"] if m["loss"] is not None and m["loss"] > 0]
    assert mistakes, "random play on 3x3 makes mistakes"

    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    # the graph: a point per proved position, the mistakes marked on it and in the list
    proved = sum(v is not None for v in analysis["values"])
    expect(page.locator("#analysis-graph .graph-point")).to_have_count(proved)
    expect(page.locator("#analysis-graph .graph-unknown")).to_have_count(25 - proved)
    expect(page.locator("#analysis-graph .graph-mistake")).to_have_count(
        sum(analysis["values"][m["ply"] + 1] is not None for m in mistakes)
    )
    expect(page.locator("#analysis-moves li.is-mistake")).to_have_count(len(mistakes))
    assert not serious_violations(page), serious_violations(page)
    headings_in_order(page)

    # a click on the graph at the first mistake shows the position after it
    first = mistakes[0]
    after = first["ply"] + 1
    page.locator(f'#analysis-graph [data-graph-ply="{after}"]').click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(after), timeout=TIMEOUT)
    expect(page.locator("#board .line--drawn")).to_have_count(after)
    expect(page.locator("#analysis-mistake")).to_be_visible()
    given = first["loss"] // 2
    unit = "box" if given == 1 else "boxes"
    expect(page.locator("#analysis-mistake")).to_contain_text(f"gave away {given} {unit}.")

    # the position before it: its best moves are drawn on the board, and the move played
    # there is not among them
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(first["ply"]))
    best_lines = page.locator("#board .best-line")
    best_lines.first.wait_for(state="attached", timeout=30_000)
    drawn = best_lines.evaluate_all("els => els.map(e => e.dataset.best)")
    assert drawn and first["move"] not in drawn
    expect(page.locator("#analysis-best")).to_contain_text(drawn[0])


def test_misere_values_are_worded_for_the_winner_and_for_the_viewer(
    browser: Browser, server_url: str
) -> None:
    game = play_game(server_url, {**SQUARE_3, "misere": True}, seed=3)
    with urllib.request.urlopen(f"{server_url}/api/tables/{game.id}", timeout=10) as r:
        outcome = json.loads(r.read())["outcome"]
    score = outcome["score"]
    margin = abs(score["red"] - score["blue"])
    analysis = analysis_of(server_url, game.id)
    assert analysis["values"][-1] == score["red"] - score["blue"]

    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    value = page.locator("#analysis-value")
    if outcome["winner"] is None:
        expect(value).to_contain_text("A draw with perfect play")
    else:
        # in misère the player with fewer boxes wins
        winner = "Red" if score["red"] < score["blue"] else "Blue"
        assert winner.lower() == outcome["winner"]
        unit = "box" if margin == 1 else "boxes"
        expect(value).to_contain_text(f"{winner} wins by {margin} {unit} with perfect play")
    expect(page.locator("#analysis-misere")).to_be_visible()

    # a seated player reads the values from their own side
    if outcome["winner"] is not None:
        loser = "blue" if outcome["winner"] == "red" else "red"
        seated = browser.new_context()
        seated.add_cookies(
            [{"name": f"pt_{game.id}", "value": game.tokens[loser], "url": server_url}]
        )
        mine = seated.new_page()
        mine.goto(f"{server_url}/t/{game.id}/analysis")
        expect(mine.locator(".analysis-page")).to_have_attribute(
            "data-loaded", "true", timeout=30_000
        )
        expect(mine.locator("#analysis-value")).to_contain_text(
            f"You lose by {margin} {unit} with perfect play"
        )
        expect(mine.locator("#analysis-seen-as")).to_contain_text(loser.capitalize())


def test_the_phone_layout_cuts_nothing(browser: Browser, server_url: str) -> None:
    game = play_game(server_url, SQUARE_3, seed=7)
    # The analysis done first: while it streams, each poll draws the board anew, and a box
    # measured at that moment belongs to a board just taken away.
    analysis_of(server_url, game.id)
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    # nothing wider than the screen: no sideways scrolling, every move's note inside the list
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    for selector in ("#analysis-graph svg", "#board svg", "#analysis-moves"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, selector
    note = page.locator("#analysis-moves li .analysis-move__note").last.bounding_box()
    assert note is not None and note["x"] + note["width"] <= 360


def test_estimates_are_drawn_hollow_and_worded_as_estimates(
    browser: Browser, server_url: str
) -> None:
    """A 5x5 game: the solver proves the endgame, not the opening within its budget; the
    page fills its graph as the values come, and never calls an estimate proved."""
    game = play_game(server_url, {"grid": "square", "rows": 5, "cols": 5}, seed=11)
    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")  # at once: the analysis is under way
    # no blank wait: the page says how far the background analysis is, and fills in
    expect(page.locator("#analysis-status")).to_contain_text("Analysing in the background")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=90_000)
    analysis = analysis_of(server_url, game.id)
    proved, values = analysis["proved"], analysis["values"]
    estimated = [ply for ply, p in enumerate(proved) if p is False]
    assert estimated and proved[-1] is True, proved  # the opening estimated, the end proved
    page.reload()  # the second visit: everything from the store
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=10_000)
    expect(page.locator("#analysis-graph .graph-point--estimate")).to_have_count(len(estimated))
    expect(page.locator("#analysis-graph .graph-point")).to_have_count(len(values))
    expect(page.locator("#analysis-graph .graph-line--estimate")).to_have_count(1)
    expect(page.locator("#analysis-status")).to_contain_text(
        f"Positions not proved in time: {len(estimated)} of {len(values)}."
    )
    # the move list: every estimated position says so, no proved one does
    notes = page.locator("#analysis-moves li .analysis-move__note")
    for ply in range(1, len(values)):
        text = notes.nth(ply - 1).inner_text()
        assert ("(estimate)" in text) == (proved[ply] is False), (ply, text)
        assert ("with perfect play" in text) == (proved[ply] is True), (ply, text)
    # an estimated position on the board: "About Blue by 2 boxes (estimate)" and the like
    ply = estimated[-1]
    page.locator(f'#analysis-graph [data-graph-ply="{ply}"]').click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(ply), timeout=TIMEOUT)
    value = page.locator("#analysis-value")
    expect(value).to_have_attribute("data-estimate", "true")
    expect(value).to_contain_text("(estimate)")
    margin = values[ply]
    if margin:
        winner = "Red" if margin > 0 else "Blue"
        boxes = "box" if abs(margin) == 1 else "boxes"
        expect(value).to_contain_text(f"About {winner} by {abs(margin)} {boxes} (estimate)")
    # and the last one, proved
    page.keyboard.press("End")
    expect(value).to_have_attribute("data-estimate", "false")
    expect(value).not_to_contain_text("estimate")
    assert not serious_violations(page), serious_violations(page)


def test_a_move_keeps_the_keyboard_focus_while_the_analysis_comes_in(
    browser: Browser, server_url: str
) -> None:
    """The page asks for the background analysis every second and draws the move list again
    with each answer: a keyboard or screen-reader user on a move kept losing the focus to
    the start of the page until the whole analysis was in."""
    game = play_game(server_url, {"grid": "square", "rows": 5, "cols": 5}, seed=12)
    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    status = page.locator("#analysis-status")
    expect(status).to_contain_text("Analysing in the background", timeout=TIMEOUT)
    page.locator('#analysis-moves .move-jump[data-replay-ply="3"]').focus()
    first = status.inner_text()
    # at least one more answer drawn while the focus is on the move
    expect(status).not_to_have_text(first, timeout=30_000)
    focused = page.evaluate("() => document.activeElement.dataset.replayPly || null")
    assert focused == "3", f"the focus went to {focused!r}"
    page.keyboard.press("Enter")  # and the key still works on it
    expect(page.locator("#replay")).to_have_attribute("data-ply", "3", timeout=TIMEOUT)


def test_a_swaptimum_game_has_the_board_the_graph_and_win_rates(
    browser: Browser, server_url: str
) -> None:
    game = play_game(server_url, {"size": 5}, seed=5, game="swaptimum")
    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=90_000)
    analysis = analysis_of(server_url, game.id)
    assert analysis["measure"] == "win_rate" and analysis["proved"][-1] is True
    plies = len(game.moves)
    expect(page.locator("#analysis-graph .graph-point")).to_have_count(plies + 1)
    estimated = sum(p is False for p in analysis["proved"])
    assert estimated, analysis["proved"]
    expect(page.locator("#analysis-graph .graph-point--estimate")).to_have_count(estimated)
    expect(page.get_by_role("slider", name="Evaluation graph")).to_have_accessible_description(
        re.compile("share of the games")
    )
    # the start: a win rate from the search, labelled as an estimate
    page.keyboard.press("Home")
    expect(page.locator("#replay")).to_have_attribute("data-ply", "0", timeout=TIMEOUT)
    share = analysis["values"][0]
    side, mine = ("Red", share) if share >= 0.5 else ("Blue", 1 - share)
    # Rounded half up, as the page's Intl.NumberFormat does (Python's round() goes to even:
    # a share of 0.625 is 62 there and 63 on the page).
    expect(page.locator("#analysis-value")).to_contain_text(
        f"{side} wins {math.floor(mine * 100 + 0.5)}% of simulated games (estimate)"
    )
    expect(page.locator("#board svg.swaptimum-board .sq")).to_have_count(25)
    expect(page.locator("#analysis-best")).to_be_hidden()
    # the end: the game is decided, not estimated
    page.keyboard.press("End")
    expect(page.locator("#analysis-value")).to_contain_text("the game is decided")
    expect(page.locator("#analysis-value")).not_to_contain_text("estimate")


def test_a_busy_solver_is_said_in_the_page_language_and_asked_again(
    browser: Browser, server_url: str
) -> None:
    """An address may have one best-move request at the solver at a time. While another
    request of the same address holds it, the Korean page says so in Korean with the wait
    (the server's own words are English), and shows the best moves once it asks again."""
    game = play_game(server_url, SQUARE_3, seed=11)
    analysis_of(server_url, game.id)
    # A board nobody proves from its start: its request takes the whole budget (2 s here).
    big = {"grid": "square", "rows": 12, "cols": 11, "start": "standard"}
    request = urllib.request.Request(
        f"{server_url}/api/tables",
        data=json.dumps({"game": "dots", "options": big, "opponent": {"bot": "easy"}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        big_id = json.loads(r.read())["id"]

    page = browser.new_page()
    page.goto(f"{server_url}/ko/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    holder = threading.Thread(
        target=lambda: urllib.request.urlopen(
            f"{server_url}/api/tables/{big_id}/analysis/best?ply=0", timeout=60
        ).read()
    )
    holder.start()
    try:
        time.sleep(0.3)  # the 12x11 request is at the solver
        page.keyboard.press("ArrowLeft")
        expect(page.locator("#analysis-best")).to_contain_text(
            re.compile(r"지금은 분석 요청이 많습니다\. \d+초 뒤에 다시 시도합니다"), timeout=TIMEOUT
        )
        expect(page.locator("#analysis-best")).not_to_contain_text("busy")
        # asked again after the wait: the best moves are drawn
        page.locator("#board .best-line").first.wait_for(state="attached", timeout=30_000)
        expect(page.locator("#analysis-best")).not_to_contain_text("지금은")
    finally:
        holder.join(timeout=60)


@pytest.mark.parametrize("width", [360, 1280], ids=["phone", "desktop"])
def test_the_graph_keeps_its_words_and_points_readable_on_a_phone(
    browser: Browser, server_url: str, width: int
) -> None:
    """A review: on a phone the graph, drawn 600 units wide and shrunk to the screen, was
    100 px high with 8 px labels and points a finger could not find."""
    game = play_game(server_url, SQUARE_3, seed=7)
    analysis_of(server_url, game.id)
    page = browser.new_page(viewport={"width": width, "height": 780})
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    # box_of measures again if the graph is being redrawn as a value arrives
    graph = box_of(page.locator("#analysis-graph svg"))
    assert graph["height"] >= 150, graph
    label = box_of(page.locator("#analysis-graph .graph-label--red"))
    assert label["height"] >= 14, label
    point = box_of(page.locator("#analysis-graph .graph-point").first)
    assert point["width"] >= 6, point
    # turned sideways: drawn again at its new width, one unit a pixel
    page.set_viewport_size({"width": 780, "height": 360})
    page.wait_for_function(
        """() => {
            const holder = document.getElementById("analysis-graph");
            const svg = holder.querySelector("svg");
            const drawn = Number(svg.getAttribute("viewBox").split(" ")[2]);
            return drawn === Math.max(280, Math.round(holder.clientWidth));
        }""",
        timeout=TIMEOUT,
    )
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 780


def test_a_step_is_said_once_with_its_value_and_a_few_best_moves(
    browser: Browser, server_url: str
) -> None:
    """A review: a step's value was written to the live region, and a quarter of a second
    later the best moves replaced it (at the start, a list of all 24 lines): the value was
    cut off. Now the best moves are added to the value, at most three named."""
    game = play_game(server_url, SQUARE_3, seed=7)
    analysis_of(server_url, game.id)
    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    page.evaluate(
        """() => {
            const region = document.getElementById("replay-said");
            window.__said = [];
            new MutationObserver(() => window.__said.push(region.textContent)).observe(
                region, { childList: true, characterData: true, subtree: true });
        }"""
    )
    page.keyboard.press("Home")
    expect(page.locator("#replay")).to_have_attribute("data-ply", "0", timeout=TIMEOUT)
    page.locator("#board .best-line").first.wait_for(state="attached", timeout=30_000)
    best = page.locator("#board .best-line").count()
    assert best > 3, best  # every line is as good as any at the start of a 3x3 game
    value = page.locator("#analysis-value").inner_text()
    said = page.locator("#replay-said")
    expect(said).to_contain_text("Best here:")
    text = said.inner_text()
    assert text.startswith(value), text
    assert f"and {best - 3} more" in text, text
    named = re.findall(r"\b[a-z]\d-[a-z]\d\b", text)
    assert len(named) == 3, text
    # never the best moves without the value
    heard = page.evaluate("() => window.__said")
    assert all(value in words for words in heard if "Best" in words), heard


def test_each_move_button_says_who_played_it(browser: Browser, server_url: str) -> None:
    """A review: the move buttons of the analysis list were named only "c1-d1" (the player's
    name sat beside the button, not in it); a later one: nor did they say the boxes a move
    claimed ("Blue drew the line from b2 to c2 and claimed two boxes.")."""
    game = play_game(server_url, SQUARE_3, seed=7)
    analysis = analysis_of(server_url, game.id)
    claimed = claimed_by_moves(SQUARE_3, game.moves)
    assert 1 in claimed and 2 in claimed, claimed  # the game has both kinds of claim
    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    for index, move in enumerate(game.moves):
        player = analysis["moves"][index]["player"]
        expect(
            page.locator(f'#analysis-moves .move-jump[data-replay-ply="{index + 1}"]')
        ).to_have_accessible_name(line_words(player, move, claimed[index]))


@pytest.mark.parametrize(
    ("options", "units"),
    [(SQUARE_3, ("box", "boxes")), ({"grid": "triangle", "size": 2}, ("cell", "cells"))],
    ids=["square", "triangle"],
)
def test_a_step_says_how_many_boxes_its_move_claimed(
    browser: Browser, server_url: str, options: dict, units: tuple[str, str]
) -> None:
    """A step's heading (read when the step is taken) named the move and who played it, not
    the boxes it claimed: "After move 15 (Blue b2-c2, claimed 2 boxes): …", counted in cells
    on a triangle grid; a move that claimed nothing keeps its heading."""
    game = play_game(server_url, options, seed=7)
    analysis = analysis_of(server_url, game.id)
    claimed = claimed_by_moves(options, game.moves)
    assert 1 in claimed and 2 in claimed, claimed
    page = browser.new_page()
    page.goto(f"{server_url}/t/{game.id}/analysis")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    for count in (0, 1, 2):
        ply = claimed.index(count) + 1
        player = analysis["moves"][ply - 1]["player"].capitalize()
        page.locator(f'#analysis-moves [data-replay-ply="{ply}"]').click()
        expect(page.locator("#replay")).to_have_attribute("data-ply", str(ply), timeout=TIMEOUT)
        claim = f", claimed {count} {units[count > 1]}" if count else ""
        heading = f"After move {ply} ({player} {game.moves[ply - 1]}{claim}): "
        expect(page.locator("#analysis-value")).to_have_text(re.compile("^" + re.escape(heading)))
        expect(page.locator("#replay-said")).to_have_text(re.compile("^" + re.escape(heading)))
    page.close()


def test_the_move_shown_is_scrolled_into_view_in_the_list(
    browser: Browser, server_url: str
) -> None:
    """A review: the analysis of a position linked as #ply=20 showed it on the board, its
    move far below the list's visible part. The list scrolls to it, not the page."""
    game = play_game(server_url, SQUARE_3, seed=7)
    analysis_of(server_url, game.id)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server_url}/t/{game.id}/analysis#ply=20")
    expect(page.locator(".analysis-page")).to_have_attribute("data-loaded", "true", timeout=30_000)
    expect(page.locator("#replay")).to_have_attribute("data-ply", "20", timeout=TIMEOUT)
    page.wait_for_timeout(300)

    def in_view(ply: int) -> bool:
        result: bool = page.evaluate(
            """(ply) => {
                const list = document.getElementById("analysis-moves");
                const item = list.querySelector(`[data-replay-ply="${ply}"]`).closest("li");
                const box = list.getBoundingClientRect();
                const it = item.getBoundingClientRect();
                return list.scrollHeight > list.clientHeight
                    && it.top >= box.top - 1 && it.bottom <= box.bottom + 1;
            }""",
            ply,
        )
        return result

    assert in_view(20)
    page.keyboard.press("Home")
    expect(page.locator("#replay")).to_have_attribute("data-ply", "0", timeout=TIMEOUT)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay")).to_have_attribute("data-ply", "1", timeout=TIMEOUT)
    page.wait_for_timeout(200)
    assert in_view(1)


LAST_IN_VIEW = """() => {
    const list = document.getElementById("analysis-moves");
    const item = list.lastElementChild;
    const box = list.getBoundingClientRect();
    const it = item.getBoundingClientRect();
    return list.scrollHeight > list.clientHeight
        && it.top >= box.top - 1 && it.bottom <= box.bottom + 1;
}"""


def test_the_analysis_opens_with_its_last_move_in_view_in_the_list(
    browser: Browser, server_url: str
) -> None:
    """Playing the computer: "Analyse the game so far" (or the result's Analysis) opened on
    the last position, "After move 24 of 24" with its value, while the move list showed
    moves 1 to 8 and the move the board showed sat below its edge until a step was taken.
    The list now opens at the move shown, on a desktop and on a phone, and stays there as
    the values come in."""
    game = play_game(server_url, SQUARE_3, seed=7)
    for viewport in ({"width": 1280, "height": 900}, {"width": 390, "height": 844}):
        page = browser.new_page(viewport=viewport)
        page.goto(f"{server_url}/fi/t/{game.id}/analysis")
        expect(page.locator(".analysis-page")).to_have_attribute(
            "data-loaded", "true", timeout=30_000
        )
        expect(page.locator("#replay")).to_have_attribute("data-ply", "24", timeout=TIMEOUT)
        page.wait_for_function(LAST_IN_VIEW, timeout=TIMEOUT)
        page.close()
