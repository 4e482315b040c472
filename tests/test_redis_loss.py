"""Redis gone for a few seconds under two real server processes: every move made meanwhile
is stored and acknowledged, pages still join from the store, and both processes recover
without a restart. The test runs a Redis of its own on another port (never the shared one).
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from playtable.bus.redis import COMMAND_TIMEOUT
from playtable.web.budgets import Budget, Budgets
from playtable.web.limits import Limits
from tests.conftest import service_missing
from tests.nodes import Node, Player, claim, create_table, free_port, request

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class OwnRedis:
    """A throwaway redis-server on a free loopback port, killed and restarted at will."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
                return
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        service_missing("redis-server (Debian's package)", FileNotFoundError("not on PATH"))
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def two_nodes(
    tmp_path: Path, postgres_url: str, own_redis: OwnRedis
) -> Iterator[tuple[Node, Node]]:
    """Two processes of one site on PostgreSQL and a Redis of the test's own, both ready."""
    env = {"PLAYTABLE_DATABASE_URL": postgres_url, "PLAYTABLE_REDIS_URL": own_redis.url}
    a, b = Node(tmp_path, env, "a"), Node(tmp_path, env, "b")
    a.launch()
    b.launch()
    try:
        a.wait_ready()
        b.wait_ready()
        yield a, b
    finally:
        a.stop()
        b.stop()


async def seated_apart(a: Node, b: Node) -> tuple[str, Player, Player]:
    """A table made on ``a`` with red connected there and blue seated and connected on ``b``."""
    table_id, red_token, invite = create_table(a)
    blue_token = claim(b, table_id, invite)
    red, blue = Player(table_id, red_token), Player(table_id, blue_token)
    await red.connect(a)
    await blue.connect(b)
    return table_id, red, blue


async def test_moves_survive_a_redis_outage_and_both_nodes_recover(
    own_redis: OwnRedis, two_nodes: tuple[Node, Node]
) -> None:
    a, b = two_nodes
    table_id, red, blue = await seated_apart(a, b)

    players = {"red": red, "blue": blue}

    async def move() -> None:
        """The side to move plays, and both players see it."""
        state = red.state
        assert state is not None
        ply = state["ply"]
        mover = players[state["to_move"]]
        await mover.send({"type": "move", "ply": ply, "move": state["view"]["legal_moves"][0]})
        for player in players.values():
            await player.until(lambda t: t["ply"] > ply, timeout=20)

    await move()
    own_redis.kill()
    await asyncio.sleep(0.5)
    # Blue moves on its node while Redis is away: stored, acknowledged, never "internal".
    assert blue.state is not None and blue.state["to_move"] == "blue"
    ply = blue.state["ply"]
    await blue.send({"type": "move", "ply": ply, "move": blue.state["view"]["legal_moves"][0]})
    deadline = time.monotonic() + 10
    while request(a, "GET", f"/api/tables/{table_id}")[1]["ply"] <= ply:
        assert time.monotonic() < deadline, "the move was not stored"
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    assert [e["code"] for e in blue.errors] == []
    # A page opened now still joins, from the store.
    watcher = Player(table_id, None)
    assert (await watcher.connect(b))["ply"] == ply + 1
    # Red, on the other node, follows the game from the store while the bus is away.
    await red.until(lambda t: t["ply"] > ply, timeout=8)
    own_redis.start()
    # Both nodes go on without a restart: red, on the other node, saw the move made
    # during the outage (above: through PostgreSQL or the store), and moves flow both
    # ways again.
    assert red.state is not None and red.state["ply"] > ply
    await move()
    await move()
    await watcher.until(lambda t: t["ply"] >= ply + 2, timeout=20)
    assert not [e for e in red.errors + blue.errors if e["code"] == "internal"]
    for player in (red, blue, watcher):
        await player.close()


async def test_while_redis_is_away_this_process_sockets_still_hear_a_stored_change(
    own_redis: OwnRedis,
) -> None:
    """The mover's own page (on the process that stored the move) sees it at once, not only
    when Redis is back; the publish still fails, so the other processes get it by retry."""
    from playtable.bus.redis import RedisBus

    bus = RedisBus(own_redis.url, prefix="loss-test:")
    await bus.start()
    try:
        subscription = await bus.subscribe("t1")
        own_redis.kill()
        with pytest.raises(Exception):  # noqa: B017  (whatever redis-py raises for a lost server)
            await bus.publish("t1", {"type": "table", "version": 7})
        async with asyncio.timeout(2):
            while (message := await subscription.get()).get("type") == "overflow":
                pass  # the listener noticed the loss too: pages re-read, as they should
        assert message.get("version") == 7
    finally:
        await bus.close()


async def test_a_redis_outage_is_logged_when_it_begins_and_when_it_ends(
    own_redis: OwnRedis, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/deploy.md promises an outage logged when it begins and when it ends: the bus's
    heartbeat wrote a traceback at every beat for as long as Redis was away (14 in 30 s, and
    for ever with a mistyped host)."""
    from playtable.bus import redis as redis_bus

    monkeypatch.setattr(redis_bus, "HEARTBEAT", 0.05)
    bus = redis_bus.RedisBus(own_redis.url, prefix="outage-log-test:")
    await bus.start()
    try:
        with caplog.at_level(logging.DEBUG, logger="playtable.bus.redis"):
            own_redis.kill()
            await asyncio.sleep(1.5)  # about 30 beats fail (the breaker skips some)
            own_redis.start()
            await asyncio.sleep(2.5)
        said = [
            r.getMessage()
            for r in caplog.records
            if r.name == "playtable.bus.redis" and r.levelno >= logging.WARNING
        ]
        beats = [line for line in said if "heartbeat" in line]
        assert len(beats) == 2, said
        assert beats[0] == "Redis bus: the heartbeat failed; trying again"
        assert re.fullmatch(r"Redis bus: the heartbeat works again after \d+ failures", beats[1])
    finally:
        await bus.close()


async def _relayed_pair(own_redis: OwnRedis, postgres_url: str) -> tuple[Any, Any]:
    from playtable.bus.redis import RedisBus
    from playtable.bus.relay import relay_url

    dsn = relay_url(postgres_url)
    assert dsn is not None
    a = RedisBus(own_redis.url, prefix="relay-test:", relay_dsn=dsn)
    b = RedisBus(own_redis.url, prefix="relay-test:", relay_dsn=dsn)
    await a.start()
    await b.start()
    return a, b


async def eventually(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds:g} s: {what}"
        await asyncio.sleep(0.1)


async def _next_message(subscription: Any, timeout: float = 3.0) -> dict[str, Any]:
    """The next message that is not a "re-read the store" (which a lost Redis also causes)."""
    async with asyncio.timeout(timeout):
        while (message := await subscription.get()).get("type") == "overflow":
            pass
    result: dict[str, Any] = message
    return result


async def test_while_redis_is_away_the_other_process_hears_a_change_through_postgresql(
    own_redis: OwnRedis, postgres_url: str
) -> None:
    """The other player's page gets the move itself (not only a hint to re-read), and the
    mover is not told the publish failed: PostgreSQL carried it."""
    a, b = await _relayed_pair(own_redis, postgres_url)
    try:
        on_b = await b.subscribe("t1")
        on_a = await a.subscribe("t1")
        own_redis.kill()
        change = {"type": "change", "version": 7, "base": 6, "patch": [{"op": "add"}]}
        await a.publish("t1", change)  # no exception: delivered
        assert await _next_message(on_b) == change
        assert await _next_message(on_a) == change  # the mover's own page, locally
        # A change too big for a notification: the other process re-reads the table now.
        big = {"type": "table", "version": 8, "table": "x" * 9000}
        await a.publish("t1", big)
        assert (await _next_message(on_b)).get("type") == "reread"
        # Back to Redis once it is back.
        own_redis.start()
        await eventually(lambda: not a.breaker.open, 20, "Redis back")
    finally:
        await a.close()
        await b.close()


async def test_a_frozen_redis_holds_no_publish_and_postgresql_carries_it(
    own_redis: OwnRedis, postgres_url: str
) -> None:
    """Redis stopped (SIGSTOP: connected, silent): a publish gives up after its command
    timeout instead of hanging the move that made it, and the relay delivers."""
    a, b = await _relayed_pair(own_redis, postgres_url)
    process = own_redis.process
    assert process is not None
    try:
        on_b = await b.subscribe("t1")
        process.send_signal(signal.SIGSTOP)
        try:
            change = {"type": "change", "version": 3, "base": 2, "patch": []}
            async with asyncio.timeout(5):
                await a.publish("t1", change)
            assert await _next_message(on_b) == change
            # Once it failed, Redis is skipped (no second wait for its timeout) until it
            # answers: five moves do not take five command timeouts.
            async with asyncio.timeout(5 * COMMAND_TIMEOUT - 1):
                for version in range(4, 9):
                    await a.publish("t1", {"type": "change", "version": version, "patch": []})
                    assert (await _next_message(on_b))["version"] == version
        finally:
            process.send_signal(signal.SIGCONT)
        # The probe finds Redis back by itself.
        await eventually(lambda: not a.breaker.open, 10, "Redis used again")
    finally:
        await a.close()
        await b.close()


async def test_a_page_that_joins_while_redis_is_away_hears_the_other_process_at_once(
    own_redis: OwnRedis, postgres_url: str
) -> None:
    """Subscribing while Redis refuses works through the relay, and the subscription moves
    to Redis by itself once Redis is back (no restart, no deaf table)."""
    a, b = await _relayed_pair(own_redis, postgres_url)
    try:
        own_redis.kill()
        on_b = await b.subscribe("t2")  # Redis is away: subscribed through the relay
        await a.publish("t2", {"type": "table", "version": 1})
        assert (await _next_message(on_b)).get("version") == 1
        own_redis.start()
        await eventually(lambda: not b._pending, 20, "the subscription on Redis")
        # Redis alone now carries b's table: the relay is switched off on a's side.
        assert a.relay is not None
        await a.relay.close()
        await a.publish("t2", {"type": "table", "version": 2})
        assert (await _next_message(on_b)).get("version") == 2
    finally:
        await a.close()
        await b.close()


async def test_budgets_count_here_at_once_while_redis_is_frozen(own_redis: OwnRedis) -> None:
    """A page load never waits on a frozen Redis for its budget: after the first timeout the
    count is kept in memory, and Redis is used again once it answers."""
    budgets = Budgets(Limits(), own_redis.url, "budget-test:")
    process = own_redis.process
    assert process is not None
    try:
        assert await budgets.take(Budget.READS, "192.0.2.1") is None  # Redis counts
        process.send_signal(signal.SIGSTOP)
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT * 3):
                for _ in range(10):
                    assert await budgets.take(Budget.READS, "192.0.2.1") is None
        finally:
            process.send_signal(signal.SIGCONT)
        keys = redis.Redis.from_url(own_redis.url).keys("budget-test:*")
        assert keys, "the count before the freeze was in Redis"
    finally:
        await budgets.close()


async def test_a_process_starts_while_redis_is_away_and_joins_the_site_once_it_is_back(
    tmp_path: Path, postgres_url: str, own_redis: OwnRedis
) -> None:
    """A restart during a Redis outage (a crash, a rolling upgrade) must not take the process
    down: it serves its tables from the store, and once Redis answers it hears the others."""
    env = {"PLAYTABLE_DATABASE_URL": postgres_url, "PLAYTABLE_REDIS_URL": own_redis.url}
    own_redis.kill()
    a = Node(tmp_path, env, "a")
    a.launch()
    b = Node(tmp_path, env, "b")
    try:
        a.wait_ready()  # it used to exit at once (status 3)
        table_id, red_token, invite = create_table(a)
        blue_token = claim(a, table_id, invite)
        red, blue = Player(table_id, red_token), Player(table_id, blue_token)
        await red.connect(a)
        await blue.connect(a)
        state = red.state
        assert state is not None
        await red.send({"type": "move", "ply": 0, "move": state["view"]["legal_moves"][0]})
        await blue.until(lambda t: t["ply"] == 1, timeout=10)
        own_redis.start()
        b.launch()
        b.wait_ready()
        watcher = Player(table_id, None)
        assert (await watcher.connect(b))["ply"] == 1
        assert blue.state is not None
        await blue.send({"type": "move", "ply": 1, "move": blue.state["view"]["legal_moves"][0]})
        await watcher.until(lambda t: t["ply"] == 2, timeout=20)  # across the processes
        assert not [e for e in red.errors + blue.errors if e["code"] == "internal"]
        assert "connected" in a.log() or "does not answer at start" in a.log()
        for player in (red, blue, watcher):
            await player.close()
    finally:
        a.stop()
        b.stop()


async def test_players_are_shown_online_again_after_redis_restarts(
    own_redis: OwnRedis, two_nodes: tuple[Node, Node]
) -> None:
    """A restarted Redis keeps nothing: the processes' socket counts were gone, and every
    page and every fresh join showed both players offline, for as long as they stayed
    connected. Each process reports its counts again once Redis has forgotten it, and the
    pages are told."""
    a, b = two_nodes
    table_id, red, blue = await seated_apart(a, b)

    def both(table: dict[str, Any]) -> bool:
        return bool(table["seats"]["red"]["online"] and table["seats"]["blue"]["online"])

    await red.until(both)
    own_redis.kill()
    await asyncio.sleep(1)
    own_redis.start()
    await asyncio.sleep(2)  # both processes hear Redis again
    deadline = time.monotonic() + 20
    while True:  # a page opened now, on either process
        watcher = Player(table_id, None)
        shown = await watcher.connect(a if time.monotonic() % 2 < 1 else b)
        await watcher.close()
        if both(shown):
            break
        assert time.monotonic() < deadline, f"still shown offline: {shown['seats']}"
        await asyncio.sleep(0.5)
    # and the players' own pages, told without reconnecting
    for page in (red, blue):
        if page.state is None or not both(page.state):
            await page.until(both, timeout=10)
    for page in (red, blue):
        await page.close()


async def test_the_players_of_a_killed_process_are_shown_offline_to_the_others(
    two_nodes: tuple[Node, Node],
) -> None:
    """Blue and a spectator are on a process that dies without a word (SIGKILL). Its counts
    stopped counting once its heartbeat expired, but nobody told the pages: red's page showed
    blue online and one spectator until something else happened at the table."""
    a, b = two_nodes
    table_id, red, _blue = await seated_apart(a, b)  # blue on b, which dies
    watcher = Player(table_id, None)
    await watcher.connect(b)
    await red.until(lambda t: t["seats"]["blue"]["online"] and t["spectators"] == 1)
    b.kill()
    # the heartbeat lives 15 s, and the survivor looks every 5 s
    left = await red.until(
        lambda t: not t["seats"]["blue"]["online"] and t["spectators"] == 0, timeout=40
    )
    assert left["seats"]["red"]["online"]
    await red.close()
