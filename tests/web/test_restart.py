"""A server restart in the middle of a game: a new app on the same database file continues it."""

from __future__ import annotations

from starlette.testclient import TestClient

from playtable.web.app import create_app
from tests.web.conftest import SECRET, Socket, claim, connect, create_table


def test_a_restart_loses_nothing(db_url: str) -> None:
    with TestClient(create_app(db_url, secret=SECRET)) as client:
        table = create_table(client, seat="red")
        blue_token = claim(client, table)
        with connect(client, table.id, table.token) as session:
            red = Socket(session)
            red.join()
            red.send("move", ply=0, move="a2-b2")
            red.at_version(2)  # acknowledged: committed before it was announced
            red.send("offer_draw")
            red.at_version(3)
    # The first app is gone (its lifespan ended, its engine disposed); a new one starts.
    with TestClient(create_app(db_url, secret=SECRET)) as client:
        api = client.get(f"/api/tables/{table.id}").json()
        assert api["moves"] == ["a2-b2"] and api["to_move"] == "blue" and api["version"] == 3
        with connect(client, table.id, blue_token) as session:
            blue = Socket(session)
            state = blue.join()["table"]
            assert state["you"] == "blue" and state["offers"]["draw"] == "red"
            blue.send("answer_draw", accept=False)
            blue.at_version(4)
            blue.send("move", ply=1, move="b1-b2")
            events, state = blue.at_version(5)
            assert events[0]["claimed"] == 1 and state["moves"] == ["a2-b2", "b1-b2"]
        with connect(client, table.id, table.token) as session:
            assert Socket(session).join()["table"]["you"] == "red"


def test_an_invitation_still_works_after_a_restart(db_url: str) -> None:
    with TestClient(create_app(db_url, secret=SECRET)) as client:
        table = create_table(client, seat="blue")
    with TestClient(create_app(db_url, secret=SECRET)) as client:
        red_token = claim(client, table)
        with connect(client, table.id, red_token) as session:
            socket = Socket(session)
            assert socket.join()["table"]["you"] == "red"
            socket.send("move", ply=0, move="a2-b2")
            assert socket.at_version(2)[1]["moves"] == ["a2-b2"]
