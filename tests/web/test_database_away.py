"""The database gone from under a running server: a player's request is refused with a
sentence that says so, in the page's language, and the socket stays open."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from playtable.store.failures import RefusalLog
from playtable.web.app import create_app
from tests.conftest import allow_connections
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


def test_a_page_the_database_cannot_answer_is_a_503_in_the_pages_language(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A code review: with PostgreSQL away, a table page was a 500 ('Server error') and a
    traceback per request."""

    def allow(allowed: bool) -> None:
        asyncio.run(allow_connections(postgres_url, allowed))

    with TestClient(create_app(postgres_url, secret=SECRET)) as client:
        table = create_table(client, seat="red", options=DOTS)
        try:
            allow(False)
            page = client.get(f"/fi/t/{table.id}")
            assert page.status_code == 503, page.status_code
            assert page.headers["retry-after"] == "5"
            assert "Palvelin ei saa hetkeen yhteyttä tietokantaansa" in page.text
            api = client.get(f"/api/tables/{table.id}")
            assert api.status_code == 503 and "database" in api.json()["error"]
            caplog.clear()
            for _ in range(20):  # pages retrying during the outage
                assert client.get(f"/t/{table.id}").status_code == 503
            refused = [r for r in caplog.records if "the database is away" in r.getMessage()]
            # An operator's review: one warning line a request (a line a page a few seconds,
            # from every page open at the time) buried the heartbeat's own outage lines.
            assert len(refused) <= 1, [r.getMessage() for r in refused]
        finally:
            allow(True)
        assert client.get(f"/t/{table.id}").status_code == 200


def test_refusals_are_logged_a_line_every_ten_seconds_with_a_count() -> None:
    now = [100.0]
    logger = logging.getLogger("tests.refusals")
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    keep = Keep()
    logger.addHandler(keep)
    try:
        refusals = RefusalLog(logger, every=10.0, clock=lambda: now[0])
        away = ConnectionRefusedError("refused")
        for step in range(30):  # one refusal a second for 30 s
            now[0] = 100.0 + step
            refusals.refused("GET /t/x", away)
    finally:
        logger.removeHandler(keep)
    assert len(lines) == 3, lines
    assert lines[0] == "GET /t/x refused, the database is away: ConnectionRefusedError('refused')"
    assert "and 9 more refused since the last such line" in lines[1]
    assert "and 9 more refused since the last such line" in lines[2]
