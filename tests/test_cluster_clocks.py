"""Two real server processes on PostgreSQL and a Redis of this test's own: the flag falls
while the player is connected to the other process, and exactly one result is stored."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.nodes import Node, Player, claim, free_port, request

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[str]:
    """``redis-server`` on a free loopback port, for this test alone; stopped afterwards."""
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(url, socket_connect_timeout=1).ping()
                break
            except redis.RedisError:
                assert process.poll() is None, "redis-server exited"
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def two_nodes(tmp_path: Path, postgres_url: str, own_redis: str) -> Iterator[tuple[Node, Node]]:
    env = {"PLAYTABLE_DATABASE_URL": postgres_url, "PLAYTABLE_REDIS_URL": own_redis}
    a, b = Node(tmp_path, env, "a"), Node(tmp_path, env, "b")
    try:
        a.launch()
        b.launch()
        yield a.wait_ready(), b.wait_ready()
    finally:
        a.stop()
        b.stop()


async def test_the_flag_falls_while_the_player_is_on_the_other_process(
    two_nodes: tuple[Node, Node],
) -> None:
    a, b = two_nodes
    control = {"kind": "realtime", "minutes": 0.1, "increment": 0}  # 6 seconds a side
    status, created = request(
        a, "POST", "/api/tables",
        {"game": "dots", "options": {"rows": 3, "cols": 3}, "seat": "red", "time_control": control},
    )  # fmt: skip
    assert status == 201, created
    table_id = created["id"]
    red = Player(table_id, created["seat_url"].rsplit("/", 1)[1])
    blue = Player(table_id, claim(a, table_id, created["invite_url"].rsplit("/", 1)[1]))
    await red.connect(b)  # red plays on process b, blue on process a
    await blue.connect(a)
    for player, ply, move in ((red, 0, "a1-b1"), (blue, 1, "a1-a2")):
        await player.send({"type": "move", "ply": ply, "move": move})
        await red.until(lambda t, ply=ply: t["ply"] > ply)
        await blue.until(lambda t, ply=ply: t["ply"] > ply)
    clock = red.state["clock"] if red.state else None
    assert clock is not None and clock["running"] == "red"
    # Red thinks on and on; both processes' sweeps see the deadline pass.
    events: list[dict[str, object]] = []
    started = time.monotonic()
    while red.state is None or red.state["outcome"] is None:
        message = await red.receive(timeout=15)
        if message["type"] == "event":
            events.append(message["event"])  # type: ignore[arg-type]
    waited = time.monotonic() - started
    assert red.state["outcome"] == {
        "winner": "blue",
        "reason": "timeout",
        "score": {"red": 0, "blue": 0},
    }
    assert 5.0 < waited < 9.0
    await blue.until(lambda t: t["outcome"] is not None)
    await asyncio.sleep(1.5)  # let any second ending (there must be none) arrive
    while True:
        try:
            message = await red.receive(timeout=0.2)
        except TimeoutError:
            break
        if message["type"] == "event":
            events.append(message["event"])  # type: ignore[arg-type]
    # One result, committed once: created, seated, two moves, the flag.
    assert [e["kind"] for e in events].count("time_out") == 1
    for node in (a, b):
        status, stored = request(node, "GET", f"/api/tables/{table_id}")
        assert status == 200 and stored["version"] == 4 and stored["ply"] == 2
        assert stored["outcome"]["reason"] == "timeout"
    await red.close()
    await blue.close()
    for node in (a, b):
        assert "Traceback" not in node.log()
