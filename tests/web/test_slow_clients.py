"""Slow clients (slowloris) against a real ``playtable serve``: half-sent requests are cut
off, and nobody else waits for them."""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.nodes import Node, create_table, request


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


def _rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))


def _masked_text_frame(text: str) -> bytes:
    """A client's WebSocket text frame (RFC 6455: clients mask; payloads under 126 bytes)."""
    payload = text.encode()
    assert len(payload) < 126
    mask = os.urandom(4)
    return (
        bytes([0x81, 0x80 | len(payload)])
        + mask
        + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    )


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's /proc")
def test_a_page_that_stops_reading_holds_back_its_answers_not_the_servers_memory(
    tmp_path: Path,
) -> None:
    """A client asks for the whole 12x12 table (about 47 KB) 2,000 times and never reads:
    the server stops writing to it once the connection's buffers are full, instead of
    keeping 90 MB of answers in memory, and serves everyone else meanwhile."""
    env = {
        "PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'reader.sqlite3'}",
        "PLAYTABLE_MESSAGE_BURST": "5000",
        "PLAYTABLE_MESSAGES_PER_SECOND": "5000",
        "PLAYTABLE_READS_PER_MINUTE": "100000",
    }
    node = Node(tmp_path, env, "reader").start()
    try:
        assert node.process is not None
        table_id, _red, _invite = create_table(node, {"grid": "square", "rows": 12, "cols": 12})
        before = _rss_kib(node.process.pid)
        conn = socket.socket()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.settimeout(5)
        conn.connect(("127.0.0.1", node.port))
        key = base64.b64encode(os.urandom(16)).decode()
        conn.sendall(
            (
                f"GET /t/{table_id}/ws HTTP/1.1\r\nHost: 127.0.0.1:{node.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        assert b" 101 " in conn.recv(1024)  # upgraded; from here on nothing is read
        join = _masked_text_frame(json.dumps({"type": "join", "protocol": 2, "since": None}))
        conn.sendall(join * 2000)
        time.sleep(3.0)  # the server answers as far as the connection takes it
        grown_mib = (_rss_kib(node.process.pid) - before) / 1024
        assert grown_mib < 40, f"the server holds {grown_mib:.0f} MiB for a client that never reads"
        assert request(node, "GET", "/")[0] == 200  # and everyone else is served
        conn.close()
    finally:
        node.stop()
