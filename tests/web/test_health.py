"""The health checks a load balancer probes: alive, and ready only while the database
answers; a Redis that is away leaves the process ready (degraded), whatever the Host."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from starlette.testclient import TestClient

from playtable.web.app import create_app
from tests.conftest import allow_connections
from tests.nodes import free_port
from tests.web.conftest import SECRET


def test_a_healthy_process_is_alive_and_ready_whatever_the_host(db_url: str) -> None:
    app = create_app(db_url, secret=SECRET, hosts=["play.example"])
    with TestClient(app, base_url="http://10.0.0.11:8001") as client:  # a probe, by address
        assert client.get("/healthz").json() == {"alive": True}
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json() == {"ready": True, "database": "ok", "bus": "ok"}
        assert ready.headers["cache-control"] == "no-store"
        assert client.get("/").status_code == 400  # the site itself keeps to its names


def test_a_process_whose_redis_is_away_still_serves_and_says_so(db_url: str) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with TestClient(create_app(db_url, secret=SECRET, redis_url=dead)) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json() == {"ready": True, "database": "ok", "bus": "degraded"}
        assert client.get("/").status_code == 200


def test_a_process_that_cannot_reach_its_database_is_not_ready(postgres_url: str) -> None:
    def allow(allowed: bool) -> None:
        asyncio.run(allow_connections(postgres_url, allowed))

    with TestClient(create_app(postgres_url, secret=SECRET)) as client:
        assert client.get("/readyz").status_code == 200
        try:
            allow(False)
            away = client.get("/readyz")
            assert away.status_code == 503
            assert away.json()["database"] == "unreachable"
            assert client.get("/healthz").status_code == 200  # alive: do not restart it
        finally:
            allow(True)
        assert client.get("/readyz").status_code == 200


def test_a_process_whose_database_takes_no_writes_is_not_ready(tmp_path: Path) -> None:
    """A read-only SQLite file (an operator's review: chattr +i) answered every read, so the
    process said it was ready while every move got 'internal' and every new table a 500.
    Its heartbeat, a write every 2 s, now tells."""
    app = create_app(f"sqlite:///{tmp_path / 'site.sqlite3'}", secret=SECRET)
    with TestClient(app) as client:
        assert client.get("/readyz").status_code == 200
        engine = app.state.store.engine

        @sa.event.listens_for(engine, "connect")
        def read_only(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute("PRAGMA query_only = ON")  # SQLite refuses every write

        engine.dispose()
        app.state.sweep._last_beat = None  # the next round of its loop beats
        deadline = time.monotonic() + 10
        while (ready := client.get("/readyz")).status_code == 200:
            assert time.monotonic() < deadline, "still ready"
            time.sleep(0.1)
        assert ready.status_code == 503
        assert ready.json() == {"ready": False, "database": "read-only", "bus": "ok"}
        sa.event.remove(engine, "connect", read_only)
        engine.dispose()
        deadline = time.monotonic() + 10
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "not ready again"
            time.sleep(0.1)


class ThreadedStall:
    """A TCP proxy to PostgreSQL in threads of its own (the app runs in the test client's
    loop): while ``stalled`` is set it forwards nothing, as a frozen database host does."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.stalled = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                while self.stalled.is_set():
                    time.sleep(0.05)
                sink.sendall(data)

    def close(self) -> None:
        self.stalled.clear()
        self.listener.close()


def test_a_stalled_database_is_told_within_the_readiness_timeout(postgres_url: str) -> None:
    """docs: /readyz answers within 2 s; on a stalled PostgreSQL it took 4 s (an operator's
    review), cancelling the connection's statement taking longer than the wait."""
    url = sa.make_url(postgres_url)
    proxy = ThreadedStall((url.host or "127.0.0.1", url.port or 5432))
    app = create_app(url.set(port=proxy.port).render_as_string(hide_password=False), secret=SECRET)
    try:
        with TestClient(app) as client:
            assert client.get("/readyz").status_code == 200
            proxy.stalled.set()
            started = time.monotonic()
            ready = client.get("/readyz")
            took = time.monotonic() - started
            assert ready.status_code == 503 and ready.json()["database"] == "unreachable"
            assert took < 3.0, took
            proxy.stalled.clear()
    finally:
        proxy.close()
