"""A real app on a real SQLite file, driven through Starlette's test client."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from playtable.tables.patch import Follower
from playtable.web.app import create_app

SECRET = "test secret of the web app, long enough"
DOTS = {"grid": "square", "rows": 2, "cols": 2, "start": "swedish"}
# From the Swedish 2x2 start: red draws one inner line, then blue claims all four boxes.
BLUE_WINS = [("red", "a2-b2"), ("blue", "b1-b2"), ("blue", "b2-b3"), ("blue", "b2-c2")]


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, secret=SECRET)) as client:
        yield client


@dataclass
class Table:
    id: str
    seat: str
    token: str  # the creator's seat token
    invite: str
    urls: dict[str, str]


def create_table(
    client: TestClient,
    game: str = "dots",
    options: dict[str, Any] | None = None,
    seat: str = "red",
    time_control: dict[str, Any] | None = None,
) -> Table:
    body = {"game": game, "options": DOTS if options is None else options, "seat": seat}
    if time_control is not None:
        body["time_control"] = time_control
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    data = response.json()
    return Table(
        id=data["id"],
        seat=data["seat"],
        token=data["seat_url"].rsplit("/", 1)[1],
        invite=data["invite_url"].rsplit("/", 1)[1],
        urls=data,
    )


def csrf_of(page: str) -> str:
    """The CSRF token of the form on ``page``."""
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, "the page has a form with a CSRF token"
    return match.group(1)


def claim(client: TestClient, table: Table) -> str:
    """Open the invitation as a new browser and take the seat; the seat token its cookie
    carries."""
    client.cookies.clear()
    link = f"/t/{table.id}/join/{table.invite}"
    page = client.get(link, follow_redirects=False)
    assert page.status_code == 200, page.status_code
    response = client.post(link, data={"csrf": csrf_of(page.text)}, follow_redirects=False)
    assert response.status_code == 303
    token = response.cookies.get(f"pt_{table.id}")
    assert token
    client.cookies.clear()
    return token


def renew_seat_link(client: TestClient, table_id: str, key: str) -> str:
    """Make a new seat link on the continue page, as the holder of ``key`` does (the old
    link plays no more); the new key. Leaves the client's cookies cleared."""
    client.cookies.clear()
    client.cookies.set(f"pt_{table_id}", key)
    csrf = csrf_of(client.get(f"/t/{table_id}/continue").text)
    client.cookies.set("pt_csrf", csrf)
    renewed = client.post(f"/t/{table_id}/continue", data={"csrf": csrf}, follow_redirects=False)
    assert renewed.status_code == 303
    new_key = renewed.cookies.get(f"pt_{table_id}")
    assert new_key and new_key != key
    client.cookies.clear()
    return new_key


@contextmanager
def two_players(client: TestClient, **table: Any) -> Iterator[tuple[Table, Socket, Socket]]:
    """A table (``table``: :func:`create_table`'s settings, a Dots table by default) with red
    and blue seated and both sockets joined and settled."""
    created = create_table(client, seat="red", **table)
    blue_token = claim(client, created)
    with ExitStack() as stack:
        red = Socket(stack.enter_context(connect(client, created.id, created.token)))
        red.join()
        blue = Socket(stack.enter_context(connect(client, created.id, blue_token)))
        blue.join()
        # Both see both online before the test begins.
        for socket in (red, blue):
            socket.until_state(
                lambda t: t["seats"]["red"]["online"] and t["seats"]["blue"]["online"]
            )
            socket.alive()
        created.urls["blue_token"] = blue_token
        yield created, red, blue


class Socket:
    """One table page's socket, with helpers that read until the message a test waits for."""

    def __init__(self, session: Any) -> None:
        self.session = session
        # The table as the page holds it: each change applied as table_events.js applies it.
        self.follower = Follower()
        self.pending: list[dict[str, Any]] = []
        self.raw: list[dict[str, Any]] = []  # every message as it came, for byte-level tests

    def send(self, kind: str, **fields: Any) -> None:
        self.session.send_json({"type": kind, **fields})

    def receive(self) -> dict[str, Any]:
        """The next message, a ``change`` seen as its events then the ``state`` it leads to."""
        while not self.pending:
            message: dict[str, Any] = self.session.receive_json()
            self.raw.append(message)
            self.pending = self.follower.receive(message)
            assert not self.follower.missed, f"a change that does not apply: {message}"
        return self.pending.pop(0)

    def join(self, since: int | None = None) -> dict[str, Any]:
        self.send("join", protocol=2, since=since)
        return self.next("state")

    def next(self, kind: str) -> dict[str, Any]:
        """The next message of ``kind``, skipping (and checking) the others."""
        while True:
            message = self.receive()
            if message["type"] == kind:
                return message
            assert message["type"] in ("state", "event"), message

    def until_state(
        self, predicate: Callable[[dict[str, Any]], bool]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The first ``table`` satisfying ``predicate``, and the events of its version."""
        events: list[tuple[int, dict[str, Any]]] = []
        while True:
            message = self.receive()
            if message["type"] == "event":
                events.append((message["version"], message["event"]))
            elif message["type"] == "state" and predicate(message["table"]):
                version = message["table"]["version"]
                return [event for v, event in events if v == version], message["table"]
            else:
                assert message["type"] == "state", message

    def at_version(self, version: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return self.until_state(lambda t: t["version"] >= version)

    def error(self) -> dict[str, Any]:
        return self.next("error")

    def alive(self) -> None:
        """The connection still answers (and every message before the pong is consumed)."""
        self.send("ping")
        self.next("pong")


def connect(
    client: TestClient,
    table_id: str,
    token: str | None = None,
    *,
    watch: bool = False,
    **headers: str,
) -> AbstractContextManager[Any]:
    client.cookies.clear()
    if token is not None:
        headers["cookie"] = f"pt_{table_id}={token}"
    return client.websocket_connect(
        f"/t/{table_id}/ws" + ("?watch=1" if watch else ""), headers=headers
    )
