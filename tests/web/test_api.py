"""The JSON API: create a table, read it, download its record; bad input gets a reason."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from starlette.testclient import TestClient

from playtable.games.records import GameRecord
from tests.web.conftest import DOTS, Socket, claim, connect, create_table


def test_create_a_table(client: TestClient) -> None:
    response = client.post("/api/tables", json={"game": "dots", "options": DOTS, "seat": "blue"})
    assert response.status_code == 201
    data = response.json()
    assert set(data) == {"id", "seat", "seat_url", "invite_url", "watch_url"}
    assert data["seat"] == "blue"
    table_id = data["id"]
    assert data["seat_url"].startswith(f"http://testserver/t/{table_id}/seat/")
    assert data["invite_url"].startswith(f"http://testserver/t/{table_id}/join/")
    assert data["watch_url"] == f"http://testserver/t/{table_id}/watch"
    # The secrets in the links are 128 bits or more (base64: 6 bits a character).
    assert len(data["seat_url"].rsplit("/", 1)[1]) * 6 >= 128
    assert len(data["invite_url"].rsplit("/", 1)[1]) * 6 >= 128


def test_options_and_seat_take_defaults(client: TestClient) -> None:
    response = client.post("/api/tables", json={"game": "swaptimum"})
    assert response.status_code == 201
    assert response.json()["seat"] in ("red", "blue")
    table = client.get(f"/api/tables/{response.json()['id']}").json()
    assert table["options"] == {"size": 9} and len(table["legal_moves"]) == 81


def test_read_a_table(client: TestClient) -> None:
    table = create_table(client)
    blue = claim(client, table)
    with connect(client, table.id, table.token) as red_socket:
        red = Socket(red_socket)
        red.join()
        red.send("move", ply=0, move="a2-b2")
        red.at_version(2)
    response = client.get(f"/api/tables/{table.id}")
    assert response.status_code == 200
    data = response.json()
    assert data == {
        "id": table.id,
        "game": "dots",
        "options": {**DOTS, "misere": False},
        "moves": ["a2-b2"],
        "ply": 1,
        "version": 2,
        "to_move": "blue",
        "outcome": None,
        "legal_moves": ["b1-b2", "b2-b3", "b2-c2"],
    }
    for secret in (table.token, table.invite, blue):
        assert secret not in response.text


def test_unknown_table_is_404(client: TestClient) -> None:
    response = client.get("/api/tables/nosuchtable")
    assert response.status_code == 404
    assert "nosuchtable" in response.json()["error"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "dots", "options": {"rows": 0}}, "rows"),
        ({"game": "dots", "options": {"colour": "green"}}, "colour"),
        ({"game": "dots", "seat": "green"}, "seat"),
        ({"game": "dots", "options": [1, 2]}, "options"),
        ({"game": 5}, "game"),
        ({"game": "dots", "seat": 1}, "seat"),
        ({"game": "dots", "extra": 1}, "extra"),
        ([1, 2, 3], "object"),
    ],
)
def test_bad_settings_are_refused_with_a_reason(
    client: TestClient, body: object, reason: str
) -> None:
    response = client.post("/api/tables", json=body)
    assert response.status_code == 400
    assert reason in response.json()["error"]


def test_malformed_requests(client: TestClient) -> None:
    headers = {"content-type": "application/json"}
    response = client.post("/api/tables", content=b"{not json", headers=headers)
    assert response.status_code == 400 and "JSON" in response.json()["error"]
    response = client.post(
        "/api/tables", content=b"game=dots", headers={"content-type": "text/plain"}
    )
    assert response.status_code == 415
    big = b'{"game": "dots", "options": {"x": "' + b"y" * 20_000 + b'"}}'
    response = client.post("/api/tables", content=big, headers=headers)
    assert response.status_code == 413
    assert client.get("/api/tables").status_code == 405


def test_records(client: TestClient) -> None:
    table = create_table(client)
    today = datetime.now(UTC).date().isoformat()
    assert client.get(f"/t/{table.id}/record.json").json() == {
        "game": "dots",
        "options": {**DOTS, "misere": False},
        "moves": [],
        "metadata": {"Date": today},
    }
    text = client.get(f"/t/{table.id}/record")
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain")
    assert '[Game "dots"]' in text.text and f'[Date "{today}"]' in text.text


def test_a_finished_games_record_says_how_it_ended(client: TestClient) -> None:
    table = create_table(client)
    blue = claim(client, table)
    with connect(client, table.id, blue) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
    record = client.get(f"/t/{table.id}/record.json").json()
    assert record["result"] == "red" and record["metadata"]["Reason"] == "resign"
    assert '[Reason "resign"]' in client.get(f"/t/{table.id}/record").text
    assert client.get("/t/nosuchtable/record").status_code == 404
    assert client.get("/t/nosuchtable/record.json").status_code == 404


def test_a_record_names_the_players_by_the_names_they_chose(client: TestClient) -> None:
    """A club's organiser downloads each table's record to keep the results: "Red won" says
    nothing a week later without who Red was. The names chosen at the table are the record's
    Red and Blue tags (PGN's White and Black), and the record still reads back."""
    table = create_table(client)
    blue = claim(client, table)
    for token, name in ((table.token, 'Jana "J;K" Nová'), (blue, "민준")):
        with connect(client, table.id, token) as session:
            socket = Socket(session)
            socket.join()
            socket.send("nickname", name=name)
            socket.until_state(lambda t, name=name: t["seats"][t["you"]].get("nickname") == name)
    with connect(client, table.id, blue) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
    text = client.get(f"/t/{table.id}/record").text
    assert '[Red "Jana \\"J;K\\" Nová"]\n[Blue "민준"]\n' in text
    record = client.get(f"/t/{table.id}/record.json").json()
    assert record["metadata"]["Red"] == 'Jana "J;K" Nová' and record["metadata"]["Blue"] == "민준"
    back = GameRecord.from_text(text)
    assert back.metadata["Red"] == 'Jana "J;K" Nová' and back.options == record["options"]
    assert back.to_json() == record
