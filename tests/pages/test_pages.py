"""The HTML pages on a real app and a real SQLite file, through Starlette's test client."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import playtable
from playtable.tables.patch import Follower
from playtable.web.app import create_app
from playtable.web.csrf import CSRF_COOKIE

SECRET = "test secret of the pages, long enough to be a secret"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(
        create_app(f"sqlite+aiosqlite:///{tmp_path / 'pages.sqlite3'}", secret=SECRET)
    ) as c:
        yield c


def csrf_of(client: TestClient) -> str:
    page = client.get("/")
    assert page.status_code == 200
    match = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert match, "the home form carries a CSRF token"
    assert client.cookies.get(CSRF_COOKIE) == match.group(1)
    return match.group(1)


def form(csrf: str, **fields: str) -> dict[str, str]:
    data = {
        "csrf": csrf,
        "game": "dots",
        "dots_grid": "square",
        "dots_rows": "5",
        "dots_cols": "5",
        "dots_size": "4",
        "dots_start": "standard",
        "swaptimum_size": "9",
        "seat": "red",
    }
    data.update(fields)
    return data


def page_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="table-data">(.*?)</script>', html, re.S)
    assert match
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def test_home_page_has_the_site_frame(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.text
    assert '<html lang="en">' in html
    assert 'href="#content">Skip to main content</a>' in html
    assert '<main id="content"' in html
    assert ">Beta<" in html
    assert "No registration. Share a link and start playing." in html
    assert re.search(rf"v{re.escape(playtable.__version__)} · \S+</p>", html)
    assert "<script>" not in html, "no inline scripts: the CSP will forbid them"
    assert 'type="module" src="/static/js/home.js' in html


def test_static_files_are_served(client: TestClient) -> None:
    for path in ("/static/style.css", "/static/js/table.js", "/static/js/dots.js"):
        response = client.get(path)
        assert response.status_code == 200, path
    assert "javascript" in client.get("/static/js/board.js").headers["content-type"]


def test_form_post_without_csrf_token_is_forbidden(client: TestClient) -> None:
    csrf_of(client)
    response = client.post("/tables", data=form(""), follow_redirects=False)
    assert response.status_code == 403
    response = client.post("/tables", data=form("x" * 43), follow_redirects=False)
    assert response.status_code == 403


def test_form_post_with_token_but_no_cookie_is_forbidden(client: TestClient) -> None:
    csrf = csrf_of(client)
    client.cookies.clear()
    response = client.post("/tables", data=form(csrf), follow_redirects=False)
    assert response.status_code == 403


def test_creating_a_table_seats_the_creator(client: TestClient) -> None:
    csrf = csrf_of(client)
    response = client.post(
        "/tables",
        data=form(csrf, dots_rows="2", dots_cols="3", dots_start="swedish", dots_misere="1"),
        follow_redirects=False,
    )
    assert response.status_code == 303
    location = response.headers["location"]
    assert re.fullmatch(r"/t/[\w-]+", location)
    table_id = location.rsplit("/", 1)[1]
    assert client.cookies.get(f"pt_{table_id}")

    page = client.get(location)
    assert page.status_code == 200
    data = page_data(page.text)
    assert data["you"] == "red"
    assert data["ws_url"] == f"/t/{table_id}/ws"
    table = data["table"]
    assert table["options"] == {
        "grid": "square",
        "rows": 2,
        "cols": 3,
        "start": "swedish",
        "misere": True,
    }
    assert table["invite_url"], "the creator sees the invitation while the other seat is free"
    assert "2 × 3 boxes · Swedish board · Misère" in page.text
    assert page.headers["cache-control"] == "no-store"


def test_swaptimum_and_other_grids(client: TestClient) -> None:
    csrf = csrf_of(client)
    cases = [
        ({"game": "swaptimum", "swaptimum_size": "4"}, {"size": 4}),
        ({"dots_grid": "triangle", "dots_size": "3"}, {"grid": "triangle", "size": 3}),
        ({"dots_grid": "hexagon", "dots_size": "2"}, {"grid": "hexagon", "size": 2}),
    ]
    for fields, expected in cases:
        response = client.post("/tables", data=form(csrf, **fields))
        assert response.status_code == 200
        options = page_data(response.text)["table"]["options"]
        assert expected.items() <= options.items()


def test_random_seat_gives_one_of_the_colours(client: TestClient) -> None:
    csrf = csrf_of(client)
    response = client.post("/tables", data=form(csrf, seat="random"))
    assert page_data(response.text)["you"] in ("red", "blue")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"dots_rows": "13"}, "rows"),
        ({"dots_rows": "five"}, "Rows must be a whole number"),
        ({"dots_grid": "hexagon", "dots_size": "7"}, "size"),
        ({"dots_grid": "triangle", "dots_start": "icelandic"}, "icelandic"),
        ({"game": "swaptimum", "swaptimum_size": "27"}, "size"),
        ({"game": "chess"}, "Choose a game"),
        ({"seat": "green"}, "Choose a colour"),
    ],
)
def test_bad_settings_show_the_form_again_with_the_error(
    client: TestClient, fields: dict[str, str], message: str
) -> None:
    csrf = csrf_of(client)
    response = client.post("/tables", data=form(csrf, **fields), follow_redirects=False)
    assert response.status_code == 400
    assert 'role="alert"' in response.text
    error = re.search(r'id="form-error".*?</div>', response.text, re.S)
    assert error and message.lower() in error.group(0).lower()
    # the visitor's choices are kept
    for name, value in fields.items():
        if name not in ("game", "seat", "dots_grid", "dots_start"):
            assert f'value="{value}"' in response.text


def test_table_page_without_the_cookie_is_watching(client: TestClient) -> None:
    csrf = csrf_of(client)
    location = client.post("/tables", data=form(csrf), follow_redirects=False).headers["location"]
    table_id = location.rsplit("/", 1)[1]
    seated = page_data(client.get(location).text)
    assert seated["you"] == "red"

    watching = page_data(client.get(f"{location}/watch").text)
    assert watching["you"] is None
    assert watching["ws_url"] == f"/t/{table_id}/ws?watch=1"
    assert watching["table"]["invite_url"] is None

    client.cookies.clear()
    stranger = client.get(location)
    data = page_data(stranger.text)
    assert data["you"] is None
    assert data["table"]["invite_url"] is None
    assert 'id="actions"' not in stranger.text
    assert "/join/" not in stranger.text


def test_unknown_table_is_a_404_page(client: TestClient) -> None:
    for path in ("/t/nosuchtable", "/t/nosuchtable/watch"):
        response = client.get(path)
        assert response.status_code == 404
        assert "There is no such table" in response.text
        assert "No registration. Share a link and start playing." in response.text


def test_the_page_state_says_who_played_each_move(client: TestClient) -> None:
    csrf = csrf_of(client)
    fields = {"dots_rows": "2", "dots_cols": "2", "dots_start": "swedish"}
    location = client.post("/tables", data=form(csrf, **fields), follow_redirects=False)
    table_url = location.headers["location"]
    with client.websocket_connect(f"{table_url}/ws") as ws:
        ws.send_json({"type": "join", "protocol": 2, "since": None})
        follower = Follower()
        assert follower.receive(ws.receive_json())[0]["type"] == "state"
        ws.send_json({"type": "move", "ply": 0, "move": "a2-b2"})
        while not (follower.table and follower.table["ply"] == 1):
            follower.receive(ws.receive_json())
    table = page_data(client.get(table_url).text)["table"]
    assert table["moves"] == ["a2-b2"]
    assert table["movers"] == ["red"]


def test_the_404_handler_renders_the_site_page() -> None:
    from starlette.applications import Starlette

    from playtable.web.errors import not_found_handler
    from playtable.web.pages import routes

    app = Starlette(routes=routes, exception_handlers={404: not_found_handler})
    with TestClient(app) as plain:
        response = plain.get("/no/such/page")
    assert response.status_code == 404
    assert "Page not found" in response.text
    assert 'href="#content"' in response.text


def test_unknown_addresses_get_the_site_404_page(client: TestClient) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert "Page not found" in response.text
    # the JSON API keeps its own answers
    api = client.get("/api/tables/nosuchtable")
    assert api.status_code == 404
    assert api.headers["content-type"].startswith("application/json")
