"""The bus contract, on the in-process bus and on Redis (two buses standing for two processes)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from playtable.bus import Bus, InProcessBus, Subscription
from playtable.bus.redis import RedisBus

pytestmark = pytest.mark.anyio

BusFactory = Callable[[], Bus]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["memory", "redis"])
async def make(request: pytest.FixtureRequest) -> AsyncIterator[BusFactory]:
    """Buses of one site: on Redis each is a separate connection, as a separate process has."""
    made: list[Bus] = []
    shared = InProcessBus(queue_limit=8)

    def factory() -> Bus:
        if request.param == "memory":
            return shared  # one process: one bus
        url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
        bus = RedisBus(url, prefix=prefix, queue_limit=8)
        made.append(bus)
        return bus

    if request.param == "redis":
        request.getfixturevalue("redis_url")  # skip or fail early if Redis is absent
    yield factory
    for bus in made:
        await bus.close()


async def started(factory: BusFactory) -> Bus:
    bus = factory()
    await bus.start()
    return bus


async def test_subscribers_get_what_is_published_after_they_subscribe(make: BusFactory) -> None:
    a, b = await started(make), await started(make)
    await a.publish("t1", {"type": "table", "version": 0})  # before anyone listens: lost
    on_a, on_b = await a.subscribe("t1"), await b.subscribe("t1")
    other = await b.subscribe("t2")
    for version in range(1, 4):
        await b.publish("t1", {"type": "table", "version": version})
    await a.publish("t2", {"type": "table", "version": 9})
    for subscription in (on_a, on_b):
        got = [await asyncio.wait_for(subscription.get(), 5) for _ in range(3)]
        assert [m["version"] for m in got] == [1, 2, 3]  # in publish order, nothing of t2
    assert (await asyncio.wait_for(other.get(), 5))["version"] == 9
    await on_a.close()
    await on_a.close()  # idempotent
    await b.publish("t1", {"type": "table", "version": 4})
    assert (await asyncio.wait_for(on_b.get(), 5))["version"] == 4


async def test_a_process_caches_are_not_published(make: BusFactory) -> None:
    bus = await started(make)
    subscription = await bus.subscribe("t1")
    await bus.publish("t1", {"type": "table", "version": 1, "_encoded": "local"})
    message = await asyncio.wait_for(subscription.get(), 5)
    assert message["version"] == 1
    if isinstance(bus, RedisBus):
        assert "_encoded" not in message


async def test_a_subscriber_that_falls_behind_is_told_to_reread(make: BusFactory) -> None:
    bus = await started(make)
    slow, fast = await bus.subscribe("t1"), await bus.subscribe("t1")
    seen: list[int] = []
    for version in range(20):
        await bus.publish("t1", {"type": "table", "version": version})
        seen.append((await asyncio.wait_for(fast.get(), 5))["version"])
    assert seen == list(range(20))  # the fast one is never held back by the slow one
    # The slow one's queue (8 here) overflowed: its backlog is replaced by one instruction.
    assert await asyncio.wait_for(slow.get(), 5) == {"type": "overflow"}


async def test_presence_is_shared_by_every_process(make: BusFactory) -> None:
    a, b = await started(make), await started(make)
    for bus in (a, b):
        if isinstance(bus, RedisBus):
            bus.presence.cache_seconds = 0  # the raw answers (the cache has its own test)
    assert await a.presence.online("t1") == set()
    await a.presence.report("t1", "red", 1)
    await b.presence.report("t1", "blue", 2)
    assert await a.presence.online("t1") == await b.presence.online("t1") == {"red", "blue"}
    await b.presence.report("t1", "blue", 0)
    assert await a.presence.online("t1") == {"red"}
    assert await b.presence.online("t2") == set()


async def test_a_dead_process_players_go_offline(redis_url: str, redis_prefix: str) -> None:
    """A killed process cannot say goodbye: its heartbeat key expiring says it for it."""
    a, b = RedisBus(redis_url, prefix=redis_prefix), RedisBus(redis_url, prefix=redis_prefix)
    await a.start()
    await b.start()
    a.presence.cache_seconds = 0
    try:
        await b.presence.report("t1", "blue", 1)
        assert await a.presence.online("t1") == {"blue"}
        # What expiry does after NODE_TTL seconds, done at once: b's heartbeat is gone.
        await a._client.delete(b.presence.node_key(b.node))
        assert await a.presence.online("t1") == set()
        assert await b.presence.online("t1") == {"blue"}  # b itself is alive, as it knows
    finally:
        await a.close()
        await b.close()


async def test_a_swept_process_is_told_and_its_counts_come_back(
    redis_url: str, redis_prefix: str
) -> None:
    """b's heartbeat lapsed (its loop stalled) and a swept it: b's counts were removed and
    the tables told it left. b's next heartbeat says Redis did not know it any more, and
    its restore brings its players back (with the tables told again); an emptied table
    leaves b's list of tables."""
    a, b = RedisBus(redis_url, prefix=redis_prefix), RedisBus(redis_url, prefix=redis_prefix)
    await a.start()
    await b.start()
    a.presence.cache_seconds = 0
    departed: list[dict[str, set[str]]] = []
    restored: list[set[str]] = []
    a.presence.departed = departed.append
    b.presence.restored = restored.append
    try:
        await a.presence.sweep()  # the processes of earlier tests (this run's prefix)
        departed.clear()
        await b.presence.report("t1", "blue", 1)
        await b.presence.report("t2", "watching", 1)
        assert await b.presence.heartbeat()  # known
        await a._client.delete(b.presence.node_key(b.node))  # b stalled past its heartbeat
        await a.presence.sweep()
        assert departed == [{"t1": {"blue"}, "t2": {"watching"}}]
        assert await a.presence.online("t1") == set()
        await a.presence.sweep()  # done once only
        assert len(departed) == 1
        assert not await b.presence.heartbeat()  # b learns it was forgotten
        await b.presence.restore()
        assert restored == [{"t1", "t2"}]
        assert await a.presence.online("t1") == {"blue"}
        assert await b.presence.heartbeat()
        await b.presence.report("t2", "watching", 0)
        tables = await a._client.smembers(b.presence._tables_key(b.node))
        assert {t.decode() for t in tables} == {"t1"}
    finally:
        await a.close()
        await b.close()


async def test_a_player_who_leaves_during_a_restore_stays_gone(
    redis_url: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restore (Redis came back) writes every count the process holds. A player who left
    while that write was on its way was reported gone first and then brought back by the
    restore, online on every page until the process ended."""
    a, b = RedisBus(redis_url, prefix=redis_prefix), RedisBus(redis_url, prefix=redis_prefix)
    await a.start()
    await b.start()
    a.presence.cache_seconds = 0
    client = b.presence._client
    pipeline = client.pipeline

    def slow_restores(transaction: bool = True, shard_hint: str | None = None) -> Any:
        pipe = pipeline(transaction=transaction, shard_hint=shard_hint)
        if not transaction:  # the restore's (a slow round trip)
            execute = pipe.execute

            async def late(raise_on_error: bool = True) -> Any:
                await asyncio.sleep(0.2)
                return await execute(raise_on_error)

            pipe.execute = late  # type: ignore[method-assign]
        return pipe

    try:
        await b.presence.report("t1", "blue", 1)
        monkeypatch.setattr(client, "pipeline", slow_restores)
        restoring = asyncio.create_task(b.presence.restore())
        await asyncio.sleep(0.05)
        await b.presence.report("t1", "blue", 0)  # blue closes the page meanwhile
        await restoring
        assert await a.presence.online("t1") == set()
    finally:
        await a.close()
        await b.close()


async def test_after_a_lost_redis_connection_subscribers_reread_and_hear_again(
    redis_url: str, redis_prefix: str
) -> None:
    """Pub/sub forgets what was said while a connection was down: the bus says so."""
    import redis.asyncio as aioredis

    bus = RedisBus(redis_url, prefix=redis_prefix)
    await bus.start()
    admin = aioredis.Redis.from_url(redis_url)
    try:
        subscription = await bus.subscribe("t1")
        clients = await admin.client_list(_type="pubsub")
        ours = [c for c in clients if c.get("name") == f"playtable-{bus.node}"]
        assert len(ours) == 1
        await admin.client_kill_filter(_id=ours[0]["id"])
        # Every local subscriber is told to re-read (it may have missed something) ...
        assert await asyncio.wait_for(subscription.get(), 10) == {"type": "overflow"}
        # ... and once reconnected and resubscribed, the table's messages flow again.
        deadline = asyncio.get_running_loop().time() + 10
        while True:
            await bus.publish("t1", {"type": "table", "version": 5})
            try:
                message = await asyncio.wait_for(subscription.get(), 0.5)
            except TimeoutError:
                message = None
            if message is not None and message.get("version") == 5:
                break
            assert asyncio.get_running_loop().time() < deadline, "no message after reconnecting"
    finally:
        await admin.aclose()
        await bus.close()


async def test_a_presence_event_on_the_bus_refreshes_the_cached_answer(
    redis_url: str, redis_prefix: str
) -> None:
    """Moves reuse a second-old answer; a change announced by another process is seen at once."""
    a, b = RedisBus(redis_url, prefix=redis_prefix), RedisBus(redis_url, prefix=redis_prefix)
    await a.start()
    await b.start()
    try:
        on_a = await a.subscribe("t1")
        assert await a.presence.online("t1") == set()  # now cached for a second
        await b.presence.report("t1", "blue", 1)
        assert await a.presence.online("t1") == set()  # not announced yet: the cache answers
        event = {"kind": "presence", "player": "blue", "online": True}
        await b.publish("t1", {"type": "table", "version": 0, "events": [event]})
        await asyncio.wait_for(on_a.get(), 5)
        assert await a.presence.online("t1") == {"blue"}
    finally:
        await a.close()
        await b.close()


async def test_the_seated_players_hear_a_move_before_a_crowd_of_spectators(
    make: BusFactory,
) -> None:
    """64 spectators' sockets opened first, then the two players': the players' relays still
    wake first, so watching a table does not slow the two who play it."""
    bus = await started(make)
    spectators = [await bus.subscribe("t1") for _ in range(64)]
    players = [await bus.subscribe("t1", seated=True) for _ in range(2)]
    heard: list[str] = []

    async def relay(name: str, subscription: Subscription) -> None:
        await subscription.get()
        heard.append(name)

    relays = [asyncio.create_task(relay("spectator", s)) for s in spectators]
    relays += [asyncio.create_task(relay("player", s)) for s in players]
    await asyncio.sleep(0.05)  # every relay waiting
    await bus.publish("t1", {"type": "change", "version": 1})
    async with asyncio.timeout(5):
        await asyncio.gather(*relays)
    assert heard[:2] == ["player", "player"]
    assert heard.count("spectator") == 64
