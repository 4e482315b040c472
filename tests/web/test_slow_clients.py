"""Slow clients (slowloris) against a real ``playtable serve``: half-sent requests are cut
off, and nobody else waits for them."""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.nodes import Node, request


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    env = {
        "PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'slow.sqlite3'}",
        "PLAYTABLE_READ_TIMEOUT": "1.5",
        "PLAYTABLE_PENDING_PER_ADDRESS": "20",
    }
    server = Node(tmp_path, env, "slow").start()
    try:
        yield server
    finally:
        server.stop()


def half_sent(node: Node, count: int) -> list[socket.socket]:
    held = []
    for _ in range(count):
        conn = socket.create_connection(("127.0.0.1", node.port), timeout=5)
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never finished
        held.append(conn)
    return held


def get_from(node: Node, source: str) -> int:
    """GET / from another loopback address (another visitor than the attacker)."""
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=5, source_address=(source, 0))
    try:
        conn.request("GET", "/")
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_half_sent_requests_time_out_and_do_not_lock_others_out(node: Node) -> None:
    held = half_sent(node, 200)
    try:
        # Another visitor is served at once; the attacker's address has its cap (the 180
        # over it were turned away with 503).
        start = time.monotonic()
        assert get_from(node, "127.0.0.2") == 200 and time.monotonic() - start < 1.0
        assert request(node, "GET", "/")[0] == 503
        # The half-sent requests are answered 408 (or 503) and closed, not kept for ever.
        time.sleep(2.5)
        answers = []
        for conn in held:
            conn.settimeout(2)
            try:
                answers.append(conn.recv(64).split(b" ")[1:2])
            except OSError:
                answers.append([b"reset"])
        assert all(a in ([b"408"], [b"503"]) for a in answers), answers[:5]
        assert answers.count([b"408"]) >= 1
    finally:
        for conn in held:
            conn.close()
    assert request(node, "GET", "/")[0] == 200


def test_a_slow_body_is_cut_off_too(node: Node) -> None:
    conn = socket.create_connection(("127.0.0.1", node.port), timeout=5)
    try:
        conn.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"game"'
        )
        conn.settimeout(5)
        assert conn.recv(64).startswith(b"HTTP/1.1 408")
    finally:
        conn.close()
