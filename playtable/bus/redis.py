"""The Redis bus: table events between server processes, over Redis pub/sub.

One channel per table (``{prefix}table:{id}``). A process holds one pub/sub connection and
subscribes to a table's channel only while it has a socket watching that table, so Redis sends
each process only what it needs. Every message, including this process's own, comes back
through Redis: one road, one order per table.

Pub/sub delivers at most once, and nothing while a connection is down. That is enough because
the bus only ever *hints*: every message carries the table's version, and after a broken
connection every local subscriber gets ``overflow`` and re-reads the table from the store.

Presence (who has a socket open) lives in Redis too: a hash per table counting sockets per
player and process, and a heartbeat key per process that expires when the process dies, so a
killed node's players go offline within ``NODE_TTL`` seconds without anyone cleaning up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import defaultdict
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from playtable.bus.base import WATCHING, Bus, Message, Presence, Subscription
from playtable.bus.memory import OVERFLOW, QueueSubscription

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "playtable:"
NODE_TTL = 15  # seconds a process counts as alive after its last heartbeat
HEARTBEAT = 5.0  # seconds between heartbeats
PRESENCE_TTL = 24 * 3600  # a table's presence hash outlives its last report by this much


SUBSCRIBE_TIMEOUT = 5.0  # seconds to wait for Redis to confirm a SUBSCRIBE
RECONNECT_MIN, RECONNECT_MAX = 0.25, 2.0  # seconds between reconnection tries (doubling)

PRESENCE_CACHE = 1.0  # seconds an answer of online() is reused
PRESENCE_CACHE_SIZE = 10_000


class RedisPresence(Presence):
    def __init__(
        self, client: aioredis.Redis, prefix: str, node: str, cache: float = PRESENCE_CACHE
    ) -> None:
        self._client = client
        self.cache_seconds = cache
        self._prefix = prefix
        self.node = node
        # Every move's public table says who is online: reusing a fresh answer for a second
        # saves the move one or two Redis round trips. Any change reported here, or announced
        # by another process (a presence event on the bus), drops the table's answer at once.
        self._cache: dict[str, tuple[float, set[str], int]] = {}
        self._unreported: dict[tuple[str, str], int] = {}

    def forget(self, table_id: str) -> None:
        self._cache.pop(table_id, None)

    def _key(self, table_id: str) -> str:
        return f"{self._prefix}presence:{table_id}"

    def node_key(self, node: str) -> str:
        return f"{self._prefix}node:{node}"

    async def heartbeat(self) -> None:
        await self._client.set(self.node_key(self.node), b"1", ex=NODE_TTL)

    async def report(self, table_id: str, player: str, sockets: int) -> None:
        """Set this process's count; one that fails (Redis away) is kept and reported again
        by :meth:`flush`, so the counts come right once Redis is back."""
        self.forget(table_id)
        self._unreported[(table_id, player)] = sockets
        await self._send(table_id, player, sockets)
        if self._unreported.get((table_id, player)) == sockets:
            del self._unreported[(table_id, player)]

    async def _send(self, table_id: str, player: str, sockets: int) -> None:
        key, field = self._key(table_id), f"{player}|{self.node}"
        async with self._client.pipeline(transaction=True) as pipe:
            if sockets > 0:
                pipe.hset(key, field, sockets)
            else:
                pipe.hdel(key, field)
            pipe.expire(key, PRESENCE_TTL)
            await pipe.execute()

    async def flush(self) -> None:
        """Report again the counts whose report failed."""
        for (table_id, player), sockets in list(self._unreported.items()):
            try:
                await self._send(table_id, player, sockets)
            except (RedisError, OSError):
                return
            if self._unreported.get((table_id, player)) == sockets:
                del self._unreported[(table_id, player)]

    async def census(self, table_id: str) -> tuple[set[str], int]:
        now = time.monotonic()
        cached = self._cache.get(table_id)
        if cached is not None and now - cached[0] < self.cache_seconds:
            return set(cached[1]), cached[2]
        found, watching = await self._census(table_id)
        if len(self._cache) >= PRESENCE_CACHE_SIZE:
            self._cache.clear()
        self._cache[table_id] = (now, found, watching)
        return set(found), watching

    async def _census(self, table_id: str) -> tuple[set[str], int]:
        counts = await self._client.hgetall(self._key(table_id))
        holders: list[tuple[str, str, int]] = []
        for field, count in counts.items():
            name = field.decode() if isinstance(field, bytes) else field
            player, _, node = name.partition("|")
            if int(count) > 0:
                holders.append((player, node, int(count)))
        if not holders:
            return set(), 0
        nodes = sorted({node for _, node, _ in holders})
        alive = await self._client.mget([self.node_key(n) for n in nodes])
        live = {n for n, flag in zip(nodes, alive, strict=True) if flag is not None}
        live.add(self.node)  # this process is alive, heartbeat or not
        here = [(player, count) for player, node, count in holders if node in live]
        players = {player for player, _ in here if player != WATCHING}
        return players, sum(count for player, count in here if player == WATCHING)


class RedisBus(Bus):
    """A :class:`Bus` shared by every process connected to one Redis."""

    def __init__(self, url: str, *, prefix: str = DEFAULT_PREFIX, queue_limit: int = 256) -> None:
        self.node = secrets.token_hex(6)
        # Named, so an operator (or a test) can tell this process's connections apart.
        self._client = aioredis.Redis.from_url(
            url, health_check_interval=30, client_name=f"playtable-{self.node}"
        )
        self._prefix = prefix
        self._queue_limit = queue_limit
        self.presence: RedisPresence = RedisPresence(self._client, prefix, self.node)
        self._pubsub = self._client.pubsub()
        self._subscribers: defaultdict[str, set[QueueSubscription]] = defaultdict(set)
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._lock = asyncio.Lock()  # orders SUBSCRIBE/UNSUBSCRIBE of one channel
        self._tasks: list[asyncio.Task[None]] = []

    def channel(self, table_id: str) -> str:
        return f"{self._prefix}table:{table_id}"

    async def start(self) -> None:
        """Connect, and start listening and heartbeating; raises if Redis is unreachable."""
        await self._client.ping()
        await self.presence.heartbeat()
        # A channel of this process alone keeps the pub/sub connection subscribed (and so
        # readable) even while no table is watched.
        await self._pubsub.subscribe(f"{self._prefix}node:{self.node}")
        self._tasks = [
            asyncio.create_task(self._listen(), name="redis-bus-listen"),
            asyncio.create_task(self._beat(), name="redis-bus-heartbeat"),
        ]

    async def publish(self, table_id: str, message: Message) -> None:
        try:
            await self._client.publish(self.channel(table_id), _encode(message))
        except BaseException:
            # Redis is away: this process's own sockets of the table (the mover's, most
            # often) still hear of the change at once; the caller retries for the others.
            # A socket that gets it twice drops the second by its version.
            for subscription in list(self._subscribers.get(table_id, ())):
                subscription.deliver(message)
            raise

    async def subscribe(self, table_id: str) -> Subscription:
        if not self._tasks:
            raise RuntimeError("RedisBus.start() was not called")
        subscription = QueueSubscription(self._remove, table_id, self._queue_limit)
        channel = self.channel(table_id)
        async with self._lock:
            if self._subscribers.get(table_id):
                self._subscribers[table_id].add(subscription)
                return subscription
            confirmed = asyncio.get_running_loop().create_future()
            self._confirmed[channel] = confirmed
            try:
                await self._pubsub.subscribe(channel)
                # Only once Redis confirms are later publications certain to reach us: a
                # caller reads the table after subscribing and must not miss what follows.
                await asyncio.wait_for(asyncio.shield(confirmed), timeout=SUBSCRIBE_TIMEOUT)
            except BaseException:
                # Not subscribed: no subscriber is left behind either, so the next socket of
                # this table subscribes again (instead of the table staying deaf here).
                with contextlib.suppress(RedisError, OSError):
                    await self._pubsub.unsubscribe(channel)
                raise
            finally:
                self._confirmed.pop(channel, None)
            self._subscribers[table_id].add(subscription)
        return subscription

    async def _remove(self, subscription: QueueSubscription) -> None:
        async with self._lock:
            subscribers = self._subscribers.get(subscription.table_id)
            if subscribers is None:
                return
            subscribers.discard(subscription)
            if not subscribers:
                del self._subscribers[subscription.table_id]
                with contextlib.suppress(RedisError, OSError):
                    await self._pubsub.unsubscribe(self.channel(subscription.table_id))

    def subscriber_count(self, table_id: str) -> int:
        return len(self._subscribers.get(table_id, ()))

    async def _listen(self) -> None:
        broken = False
        delay = RECONNECT_MIN
        while True:
            try:
                message = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:
                # redis-py reconnects and resubscribes on the next read; anything published
                # meanwhile is lost, so every watcher re-reads the table once it is back
                # (below). Tried again with back-off and jitter, and the watchers are told
                # once per outage, not at every try: no storm of re-reads.
                if not broken:
                    log.warning("Redis bus: connection lost; reconnecting", exc_info=True)
                broken = True
                await asyncio.sleep(delay * random.uniform(0.5, 1.5))
                delay = min(delay * 2, RECONNECT_MAX)
                # Meanwhile the watchers may miss another process's moves: they are told to
                # re-read the store at each try (every RECONNECT_MAX seconds or so, jittered),
                # which a page at an unchanged version answers without sending anything.
                self._overflow_all()
                continue
            if broken:
                log.warning("Redis bus: reconnected")
                broken = False
                delay = RECONNECT_MIN
                self._overflow_all()
                await self.presence.flush()
            if message is not None:
                self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        channel = message["channel"].decode()
        kind = message["type"]
        if kind == "subscribe":
            confirmed = self._confirmed.get(channel)
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(None)
            return
        if kind != "message" or not channel.startswith(f"{self._prefix}table:"):
            return
        table_id = channel[len(self._prefix) + len("table:") :]
        subscribers = self._subscribers.get(table_id)
        if not subscribers:
            return
        try:
            decoded = orjson.loads(message["data"])
        except ValueError:
            log.warning("Redis bus: dropped a message that is not JSON on %s", channel)
            return
        events = decoded.get("events") if isinstance(decoded, dict) else None
        if isinstance(events, list) and any(
            isinstance(e, dict) and e.get("kind") in ("presence", "spectators") for e in events
        ):
            self.presence.forget(table_id)
        # One decoded object for all local subscribers, so the socket layer can encode each
        # state once per process (it caches the encoding in the message).
        for subscription in list(subscribers):
            subscription.deliver(decoded)

    def _overflow_all(self) -> None:
        for subscribers in self._subscribers.values():
            for subscription in subscribers:
                subscription.deliver(dict(OVERFLOW))

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                await self.presence.heartbeat()
                await self.presence.flush()
            except (RedisError, OSError):
                log.warning("Redis bus: heartbeat failed", exc_info=True)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(RedisError, OSError):
            await self._client.delete(self.presence.node_key(self.node))
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        await self._client.aclose()


def _encode(message: Message) -> bytes:
    # Keys starting with "_" are one process's caches (see web/socket.py), not the message.
    return orjson.dumps({k: v for k, v in message.items() if not k.startswith("_")})
