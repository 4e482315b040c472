"""A real ``playtable serve``: an address told that its joins are over budget has its next
socket handshakes refused by the HTTP protocol (429 with the wait), and no one else does."""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from websockets.sync.client import connect

from tests.nodes import Node, create_table


def serve(tmp_path: Path, name: str, limit: str, value: str) -> Iterator[Node]:
    """A ``playtable serve`` on SQLite with one limit set."""
    env = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / name}.sqlite3", limit: value}
    server = Node(tmp_path, env, name).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    yield from serve(tmp_path, "upgrades", "PLAYTABLE_READS_PER_MINUTE", "3")


def upgrade(node: Node, table_id: str, source: str) -> tuple[int, dict[str, str]]:
    """A spectator's WebSocket handshake from ``source``: the status and headers."""
    with socket.create_connection(("127.0.0.1", node.port), 5, (source, 0)) as conn:
        key = base64.b64encode(os.urandom(16)).decode()
        conn.sendall(
            f"GET /t/{table_id}/ws?watch=1 HTTP/1.1\r\nHost: 127.0.0.1:{node.port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            if not chunk:
                break
            head += chunk
    lines = head.split(b"\r\n\r\n")[0].decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers


def test_an_address_over_its_join_budget_is_refused_at_the_upgrade(node: Node) -> None:
    table_id, _, _ = create_table(node)
    error = None
    # Three joins a minute, counted over a sliding window that weighs the last minute's joins by
    # the time left in it: a burst that straddles a minute's end can get a fourth join in, never
    # a fifth. Past the budget it is refused in words.
    for _ in range(6):
        with connect(f"{node.ws_base}/t/{table_id}/ws?watch=1", open_timeout=5) as ws:
            ws.send(json.dumps({"type": "join", "protocol": 2, "since": None}))
            answer = json.loads(ws.recv(timeout=5))
            if answer["type"] == "error":
                error = answer
                break
    assert error is not None and error["code"] == "rate_limited", error
    wait = int(error["message"].split("try again in ")[1].split()[0])
    # From now until the wait it was told is over: 429 before any WebSocket work.
    status, headers = upgrade(node, table_id, "127.0.0.1")
    assert status == 429 and 1 <= int(headers["retry-after"]) <= wait
    # Another visitor's socket opens as ever.
    assert upgrade(node, table_id, "127.0.0.2")[0] == 101
    # Pages and the API still answer the address (only its sockets wait).
    with socket.create_connection(("127.0.0.1", node.port), 5) as conn:
        conn.sendall(b"GET /api/tables/" + table_id.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        assert conn.recv(64).split(b" ")[1] == b"200"


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[Node]:
    yield from serve(tmp_path, "capped", "PLAYTABLE_SOCKETS_PER_ADDRESS", "2")


def test_an_address_told_it_holds_all_its_sockets_is_refused_at_the_upgrade(
    capped: Node,
) -> None:
    node = capped
    table_id, red_token, _ = create_table(node)
    url = f"{node.ws_base}/t/{table_id}/ws?watch=1"
    join = json.dumps({"type": "join", "protocol": 2, "since": None})
    with ExitStack() as stack:
        held = [stack.enter_context(connect(url, open_timeout=5)) for _ in range(2)]
        for ws in held:
            ws.send(join)
            assert json.loads(ws.recv(timeout=5))["type"] == "state"
        with connect(url, open_timeout=5) as third:  # told in words, once
            assert json.loads(third.recv(timeout=5))["code"] == "too_many_connections"
        # Then refused by the HTTP protocol itself: a bare 403, no WebSocket work.
        status, headers = upgrade(node, table_id, "127.0.0.1")
        assert status == 403 and "content-type" not in headers
        # The seat's owner still gets in from the same address, and so does another address.
        seated = f"{node.ws_base}/t/{table_id}/ws"
        cookie = {"Cookie": f"pt_{table_id}={red_token}"}
        with connect(seated, open_timeout=5, additional_headers=cookie) as red:
            red.send(join)
            assert json.loads(red.recv(timeout=5))["table"]["you"] == "red"
        assert upgrade(node, table_id, "127.0.0.2")[0] == 101
        held[0].close()
        time.sleep(0.2)  # the server sees the close
        # One of its sockets closed: the address gets in again at once.
        with connect(url, open_timeout=5) as again:
            again.send(join)
            assert json.loads(again.recv(timeout=5))["type"] == "state"
