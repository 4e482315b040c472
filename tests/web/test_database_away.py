"""The database gone from under a running server: a player's request is refused with a
sentence that says so, in the page's language, and the socket stays open."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from playtable.web.app import create_app
from tests.web.conftest import DOTS, SECRET, Socket, claim, connect, create_table


def test_a_move_the_database_cannot_take_is_refused_as_such(tmp_path: Path) -> None:
    """A review: with the database file deleted (or PostgreSQL away) a move got 'internal'
    ('The server failed to handle that request') and a traceback in the log."""
    path = tmp_path / "site.sqlite3"
    with TestClient(create_app(f"sqlite:///{path}", secret=SECRET)) as client:
        table = create_table(client, seat="red", options=DOTS)
        claim(client, table)
        with connect(client, table.id, table.token) as session:
            red = Socket(session)
            state = red.join()
            path.unlink()
            red.send("move", ply=0, move=state["table"]["view"]["legal_moves"][0])
            error = red.error()
            assert error["code"] == "unavailable", error
            assert error["request"] == "move"
            red.alive()  # the socket stays: the page can try again
