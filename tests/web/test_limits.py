"""Abuse limits and security headers: each refusal is a clear error, never a silent drop."""

from __future__ import annotations

import re
import time

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from playtable.web.app import create_app
from playtable.web.limits import Limits
from playtable.web.security import CONTENT_SECURITY_POLICY
from tests.web.conftest import DOTS, SECRET, Socket, connect, create_table

NEW_TABLE = {"game": "dots", "options": DOTS, "seat": "red"}


def app_with(db_url: str, limits: Limits) -> TestClient:
    return TestClient(create_app(db_url, secret=SECRET, limits=limits, proxies=[]))


def test_tables_per_minute_per_address(db_url: str) -> None:
    with app_with(db_url, Limits(tables_per_minute=3)) as client:
        for _ in range(3):
            assert client.post("/api/tables", json=NEW_TABLE).status_code == 201
        refused = client.post("/api/tables", json=NEW_TABLE)
        assert refused.status_code == 429
        assert "at most 3 a minute" in refused.json()["error"]
        assert int(refused.headers["retry-after"]) >= 1
        # Without a trusted proxy, a client cannot pose as another address.
        spoofed = client.post(
            "/api/tables", json=NEW_TABLE, headers={"X-Forwarded-For": "203.0.113.9"}
        )
        assert spoofed.status_code == 429


def test_forwarded_for_counts_only_behind_a_trusted_proxy(db_url: str) -> None:
    app = create_app(
        db_url, secret=SECRET, limits=Limits(tables_per_minute=2), proxies=["testclient"]
    )
    with TestClient(app) as client:

        def create(address: str) -> int:
            headers = {"X-Forwarded-For": address}
            return client.post("/api/tables", json=NEW_TABLE, headers=headers).status_code

        assert [create("203.0.113.5") for _ in range(3)] == [201, 201, 429]
        assert create("203.0.113.6") == 201  # another player behind the same proxy


def test_security_headers_on_every_page(client: TestClient) -> None:
    for path in ("/", "/api/tables/nosuchtable", "/t/nosuchtable/record"):
        response = client.get(path)
        csp = response.headers["content-security-policy"]
        assert csp == CONTENT_SECURITY_POLICY
        assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
        assert "script-src 'self'" in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"
        assert "strict-transport-security" not in response.headers  # plain HTTP


def test_hsts_and_secure_cookies_over_https(db_url: str) -> None:
    app = create_app(db_url, secret=SECRET)
    with TestClient(app, base_url="https://testserver") as client:
        table = create_table(client)
        response = client.get(f"/t/{table.id}/seat/{table.token}", follow_redirects=False)
        assert response.headers["strict-transport-security"] == "max-age=31536000"  # this name
        cookie = response.headers["set-cookie"].lower()
        assert "secure" in cookie and "httponly" in cookie and "samesite=lax" in cookie
        # A redirect carrying a secret keeps its stricter referrer policy.
        assert response.headers["referrer-policy"] == "no-referrer"


def test_a_cross_site_post_is_refused(client: TestClient) -> None:
    evil = {"Origin": "https://evil.example", "Content-Type": "application/json"}
    response = client.post("/api/tables", json=NEW_TABLE, headers=evil)
    assert response.status_code == 403 and "another site" in response.text
    fetch = {"Sec-Fetch-Site": "cross-site"}
    assert client.post("/api/tables", json=NEW_TABLE, headers=fetch).status_code == 403
    same = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert client.post("/api/tables", json=NEW_TABLE, headers=same).status_code == 201


def test_connections_per_table_are_capped(db_url: str) -> None:
    with app_with(db_url, Limits(sockets_per_table=2)) as client:
        table = create_table(client)
        with (
            connect(client, table.id, watch=True) as first,
            connect(client, table.id, watch=True) as second,
        ):
            Socket(first).join()
            Socket(second).join()
            with connect(client, table.id, watch=True) as third:
                error = third.receive_json()
                assert error["type"] == "error" and error["code"] == "too_many_connections"
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 1013
        # Closed sockets are counted out: the table takes new ones again.
        with connect(client, table.id, watch=True) as again:
            Socket(again).join()


def test_an_idle_connection_is_closed_with_a_reason(db_url: str) -> None:
    with app_with(db_url, Limits(idle_seconds=1.0)) as client:
        table = create_table(client)
        with connect(client, table.id, watch=True) as session:
            socket = Socket(session)
            socket.join()
            started = time.monotonic()
            for _ in range(5):  # pings for longer than the idle time: a ping is not silence
                time.sleep(0.3)
                socket.alive()
            assert time.monotonic() - started > 1.0
            error = socket.error()
            assert error["code"] == "idle"
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive()
            assert closed.value.code == 1001


def test_a_client_that_ignores_rate_limits_is_disconnected(db_url: str) -> None:
    limits = Limits(message_burst=5, messages_per_second=0.01, flood_close_after=10)
    with app_with(db_url, limits) as client:
        table = create_table(client)
        with connect(client, table.id, watch=True) as session:
            for _ in range(20):
                session.send_text("{garbage")
            codes = []
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    codes.append(session.receive_json()["code"])
            assert codes == ["malformed"] * 5 + ["rate_limited"] * 10
            assert closed.value.code == 1008


def test_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYTABLE_TABLES_PER_MINUTE", "7")
    monkeypatch.setenv("PLAYTABLE_IDLE_SECONDS", "2.5")
    limits = Limits.from_env()
    assert limits.tables_per_minute == 7 and limits.idle_seconds == 2.5
    monkeypatch.setenv("PLAYTABLE_SOCKETS_PER_TABLE", "lots")
    with pytest.raises(ValueError, match="PLAYTABLE_SOCKETS_PER_TABLE"):
        Limits.from_env()


def test_the_home_page_form_shares_the_tables_per_minute_limit(db_url: str) -> None:
    with app_with(db_url, Limits(tables_per_minute=2)) as client:
        match = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text)
        assert match
        form = {
            "csrf": match.group(1),
            "game": "dots",
            "dots_grid": "square",
            "dots_rows": "2",
            "dots_cols": "2",
            "dots_start": "standard",
            "seat": "red",
        }
        statuses = [
            client.post("/tables", data=form, follow_redirects=False).status_code for _ in range(3)
        ]
        assert statuses == [303, 303, 429]
        refused = client.post("/tables", data=form, follow_redirects=False)
        assert refused.status_code == 429 and "Wait a moment" in refused.text
        # The API counts against the same allowance.
        assert client.post("/api/tables", json=NEW_TABLE).status_code == 429
