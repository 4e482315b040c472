"""Playing the computer and the analysis, through the HTTP API and the table page."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from playtable.ai.solve import solve_record
from playtable.games.records import GameRecord
from playtable.tables.pool import BotSettings
from playtable.web.app import create_app
from playtable.web.limits import Limits
from tests.web.conftest import DOTS, SECRET, Socket, connect

FAST = BotSettings(workers=1, move_budget_s=0.2, position_budget_s=1.0, analysis_total_s=10.0)


@pytest.fixture
def bot_client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, secret=SECRET, bots=FAST)) as client:
        yield client


def until_over(client: TestClient, table_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        table = client.get(f"/api/tables/{table_id}").json()
        if table["outcome"] is not None:
            return table
        assert time.monotonic() < deadline, table
        time.sleep(0.05)


def test_the_opponent_option_is_checked(bot_client: TestClient) -> None:
    for opponent in ({"bot": "grandmaster"}, {"friend": True}, "hard", {"bot": 2}):
        response = bot_client.post(
            "/api/tables", json={"game": "dots", "options": DOTS, "opponent": opponent}
        )
        assert response.status_code == 400, opponent
        assert "opponent" in response.json()["error"]


def test_a_game_against_the_computer_and_its_analysis(bot_client: TestClient) -> None:
    response = bot_client.post(
        "/api/tables",
        json={"game": "dots", "options": DOTS, "seat": "blue", "opponent": {"bot": "hard"}},
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["seat"] == "blue" and created["invite_url"] is None
    table_id = created["id"]
    token = created["seat_url"].rsplit("/", 1)[1]
    with connect(bot_client, table_id, token) as session:
        socket = Socket(session)
        table = socket.join()["table"]
        assert table["seats"]["red"] == {"taken": True, "online": True, "bot": "hard"}
        # The bot (red) opens at once, then the person (blue) plays the first legal line
        # each time until the game ends, and the bot answers through the same service.
        _, table = socket.until_state(lambda t: t["ply"] >= 1)
        assert table["movers"][0] == "red"
        # During a game against the computer the analysis is open.
        running = bot_client.get(f"/api/tables/{table_id}/analysis")
        assert running.status_code == 200 and running.json()["finished"] is False
        while table["outcome"] is None:
            if table["to_move"] == "blue":
                socket.send("move", ply=table["ply"], move=table["view"]["legal_moves"][0])
            ply = table["ply"]
            _, table = socket.until_state(
                lambda t, ply=ply: t["ply"] > ply or t["outcome"] is not None
            )
    bot_client.cookies.set(f"pt_{table_id}", token)
    page = bot_client.get(f"/t/{table_id}")
    assert "Computer (hard)" in page.text and f"/t/{table_id}/analysis" in page.text
    # The game's end started the background analysis: the page polls until it is complete.
    for _ in range(600):
        response = bot_client.get(f"/api/tables/{table_id}/analysis")
        assert response.status_code == 200, response.text
        result = response.json()
        if result["complete"]:
            break
        assert result["pending"], result
        time.sleep(0.05)
    assert result["finished"] and len(result["values"]) == table["ply"] + 1
    assert result["complete"] and not result["pending"] and all(result["proved"])
    for ply in range(table["ply"] + 1):
        solved = solve_record(GameRecord("dots", DOTS, tuple(table["moves"][:ply])))
        assert solved["ok"]
        red, blue = _score_after(table["moves"][:ply], table["movers"])
        to_move = table["movers"][ply] if ply < len(table["movers"]) else None
        own = solved["value"] if to_move == "red" else -solved["value"]
        assert result["values"][ply] == red - blue + own, ply
    best = bot_client.get(f"/api/tables/{table_id}/analysis/best?ply=1").json()
    assert best["proved"] and best["value"] == result["values"][1] and best["best_moves"]
    assert bot_client.get(f"/api/tables/{table_id}/analysis/best?ply=99").status_code == 409
    assert bot_client.get(f"/api/tables/{table_id}/analysis/best?ply=x").status_code == 400
    html = bot_client.get(f"/t/{table_id}/analysis")
    assert html.status_code == 200 and "analysis.js" in html.text


def _score_after(moves: list[str], movers: list[str]) -> tuple[int, int]:
    from playtable.games import load

    game = load("dots", DOTS)
    state = game.initial()
    for move in moves:
        state = game.play(state, move)
    score = game.score(state)
    assert score is not None
    return score[0], score[1]


def test_the_analysis_of_a_game_between_people(bot_client: TestClient) -> None:
    response = bot_client.post("/api/tables", json={"game": "dots", "options": DOTS})
    table_id = response.json()["id"]
    refused = bot_client.get(f"/api/tables/{table_id}/analysis")
    assert refused.status_code == 409
    assert "against the computer" in refused.json()["error"]
    assert bot_client.get(f"/t/{table_id}/analysis").status_code == 409
    assert bot_client.get("/api/tables/nosuchtable/analysis").status_code == 404


def test_the_home_form_sets_up_a_game_against_the_computer(bot_client: TestClient) -> None:
    home = bot_client.get("/?opponent=medium")
    assert 'name="opponent" value="medium" checked' in home.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', home.text)
    assert csrf
    fields = {
        "csrf": csrf.group(1),
        "game": "dots",
        "dots_grid": "square",
        "dots_rows": "2",
        "dots_cols": "2",
        "dots_start": "swedish",
        "seat": "blue",
    }
    bad = bot_client.post("/tables", data={**fields, "opponent": "robot"})
    assert bad.status_code == 400 and "Choose an opponent" in bad.text
    response = bot_client.post("/tables", data={**fields, "opponent": "easy"})
    assert response.status_code == 200
    assert "Computer (easy)" in response.text
    table_id = response.url.path.rsplit("/", 1)[1]
    deadline = time.monotonic() + 20
    while bot_client.get(f"/api/tables/{table_id}").json()["ply"] == 0:
        assert time.monotonic() < deadline, "the computer (red) never opened the game"
        time.sleep(0.05)


def test_an_address_out_of_solver_time_gets_only_answers_already_found(db_url: str) -> None:
    """Best moves cost the solver's time, and an address has so much of it a minute: a
    count of requests alone let one address keep a worker solving 12x12 openings without a
    break. Past it, a position nobody asked for waits (429, in seconds); an answer already
    found is still given, since it costs nothing."""
    limits = Limits(solver_seconds_per_minute=0.1)
    quick = BotSettings(workers=1, move_budget_s=0.2, position_budget_s=0.2)
    with TestClient(create_app(db_url, secret=SECRET, bots=quick, limits=limits)) as client:
        tables = []
        for size in (9, 10):
            options = {"grid": "square", "rows": size, "cols": size, "start": "standard"}
            response = client.post(
                "/api/tables",
                json={"game": "dots", "options": options, "opponent": {"bot": "hard"}},
            )
            tables.append(response.json()["id"])
        first = client.get(f"/api/tables/{tables[0]}/analysis/best?ply=0")
        assert first.status_code == 200 and first.json()["proved"] is False  # too big to prove
        refused = client.get(f"/api/tables/{tables[1]}/analysis/best?ply=0")
        assert refused.status_code == 429
        assert refused.json()["code"] == "rate_limited"
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        again = client.get(f"/api/tables/{tables[0]}/analysis/best?ply=0")
        assert again.status_code == 200 and again.json() == first.json()


def test_a_swaptimum_table_page_leads_to_its_analysis(bot_client: TestClient) -> None:
    """Swaptimum has an analysis (its search's win rates): the table page links to it, as
    Dots and Boxes' does, and the page it leads to answers."""
    response = bot_client.post(
        "/api/tables",
        json={"game": "swaptimum", "options": {"size": 5}, "opponent": {"bot": "easy"}},
    )
    assert response.status_code == 201, response.text
    created = response.json()
    bot_client.get(created["seat_url"])  # the seat cookie
    page = bot_client.get(f"/fi/t/{created['id']}")
    links = re.findall(r'href="([^"]+)" id="(analysis-link|analysis-now-link)"', page.text)
    assert sorted(name for _, name in links) == ["analysis-link", "analysis-now-link"]
    for href, _ in links:
        assert href == f"/fi/t/{created['id']}/analysis"
        assert bot_client.get(href).status_code == 200


def test_a_new_table_with_these_settings_is_against_the_computer_again(
    bot_client: TestClient,
) -> None:
    """The link "New table with these settings" at a table against the computer set the home
    form to play a friend, at a random colour: a player who plays the medium computer as Blue
    every day got a table waiting for an invited friend. It keeps the level and the colour."""
    options = {"grid": "hexagon", "size": 2, "start": "standard", "misere": True}
    response = bot_client.post(
        "/api/tables",
        json={"game": "dots", "options": options, "seat": "blue", "opponent": {"bot": "medium"}},
    )
    assert response.status_code == 201, response.text
    created = response.json()
    bot_client.get(created["seat_url"])  # the seat cookie
    for viewer in (f"/cs/t/{created['id']}", f"/t/{created['id']}/watch"):
        page = bot_client.get(viewer)
        link = re.search(r'href="([^"]+)" id="same-settings-link"', page.text)
        assert link, viewer
        home = bot_client.get(link.group(1).replace("&amp;", "&"))
        checked = dict(re.findall(r'name="(\w+)" value="(\w+)" checked', home.text))
        assert checked["opponent"] == "medium", viewer
        assert checked["seat"] == "blue", viewer
        assert checked["dots_grid"] == "hexagon" and checked["dots_misere"] == "1"
