"""The Redis bus: table events between server processes, over Redis pub/sub.

One channel per table (``{prefix}table:{id}``). A process holds one pub/sub connection and
subscribes to a table's channel only while it has a socket watching that table, so Redis sends
each process only what it needs. Every message, including this process's own, comes back
through Redis: one road, one order per table.

Pub/sub delivers at most once, and nothing while a connection is down. That is enough because
the bus only ever *hints*: every message carries the table's version, and after a broken
connection every local subscriber gets ``overflow`` and re-reads the table from the store.

While Redis is away (a publish or a SUBSCRIBE fails), messages take a second road when the
site is on PostgreSQL: its LISTEN/NOTIFY (``bus/relay.py``), for a few seconds past the
outage too. Presence (who has a socket open) lives in Redis too (``bus/redis_presence.py``).
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

from playtable.aio import cancel_and_wait
from playtable.bus.base import DEFAULT_PREFIX, Bus, Message, Subscription
from playtable.bus.breaker import Breaker
from playtable.bus.memory import OVERFLOW, REREAD, QueueSubscription, Subscribers
from playtable.bus.redis_presence import RedisPresence
from playtable.bus.relay import NotifyRelay, channel_for
from playtable.outages import Outage

log = logging.getLogger(__name__)

HEARTBEAT = 5.0  # seconds between heartbeats


SUBSCRIBE_TIMEOUT = 5.0  # seconds to wait for Redis to confirm a SUBSCRIBE
# Seconds a command (a publish, a presence read) may wait for Redis: one that stopped
# answering (frozen, or a network that drops packets) fails the command instead of holding
# the move that made it; the publish then takes the PostgreSQL relay.
COMMAND_TIMEOUT = 1.0
RECONNECT_MIN, RECONNECT_MAX = 0.25, 2.0  # seconds between reconnection tries (doubling)
RELAY_GRACE = 5.0  # seconds after a Redis failure during which messages take the relay too


class RedisBus(Bus):
    """A :class:`Bus` shared by every process connected to one Redis."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        queue_limit: int = 256,
        relay_dsn: str | None = None,
    ) -> None:
        self.node = secrets.token_hex(6)
        # Named, so an operator (or a test) can tell this process's connections apart.
        name = f"playtable-{self.node}"
        self._client = aioredis.Redis.from_url(
            url,
            health_check_interval=30,
            client_name=name,
            socket_timeout=COMMAND_TIMEOUT,
            socket_connect_timeout=COMMAND_TIMEOUT,
        )
        # The pub/sub connection waits for messages as long as there are none: no timeout.
        self._listener = aioredis.Redis.from_url(
            url,
            health_check_interval=30,
            client_name=name,
            socket_connect_timeout=COMMAND_TIMEOUT,
        )
        self._prefix = prefix
        self._queue_limit = queue_limit
        # Open while Redis fails: publishes take the relay at once, presence its last answers.
        self.breaker = Breaker("Redis bus", self._client.ping)
        self.presence: RedisPresence = RedisPresence(
            self._client, prefix, self.node, breaker=self.breaker
        )
        self._pubsub = self._listener.pubsub()
        # With the site on PostgreSQL, the second road for messages while Redis is away.
        self.relay: NotifyRelay | None = (
            NotifyRelay(relay_dsn, channel_for(prefix), self.node, self._relayed)
            if relay_dsn
            else None
        )
        self._subscribers: defaultdict[str, Subscribers] = defaultdict(Subscribers)
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._lock = asyncio.Lock()  # orders SUBSCRIBE/UNSUBSCRIBE of one channel
        self._tasks: list[asyncio.Task[None]] = []
        # Tables subscribed here while Redis refused the SUBSCRIBE: their sockets hear this
        # process's changes and the relay's meanwhile, and Redis's once it takes it.
        self._pending: set[str] = set()
        self._pending_added = asyncio.Event()
        # Until then, every publish also takes the relay: right after an outage, another
        # process may not have subscribed again yet, and what Redis carries would miss it.
        self._relay_until = 0.0
        self._listening = False  # connected and reading its pub/sub messages

    def channel(self, table_id: str) -> str:
        return f"{self._prefix}table:{table_id}"

    async def start(self) -> None:
        """Connect, and start listening and heartbeating. A Redis that does not answer does
        not stop the process from starting (a restart during an outage would otherwise take
        the site down): it serves from the store, the relay carries its messages, and it
        connects in the background with back-off until Redis answers."""
        if self.relay is not None:
            await self.relay.start()
        try:
            await self._connect()
            listen = self._listen()
        except (RedisError, OSError):
            log.warning(
                "Redis bus: Redis does not answer at start; serving from the store%s, "
                "connecting in the background",
                " and the relay"
                if self.relay is not None
                else " (no relay on SQLite: "
                "other processes hear this one's tables once Redis answers)",
                exc_info=True,
            )
            self._troubled()
            listen = self._connect_then_listen()
        self._tasks = [
            asyncio.create_task(listen, name="redis-bus-listen"),
            asyncio.create_task(self._beat(), name="redis-bus-heartbeat"),
            asyncio.create_task(self._subscribe_pending(), name="redis-bus-pending"),
        ]

    async def _connect(self) -> None:
        await self._client.ping()
        await self.presence.heartbeat()
        # A channel of this process alone keeps the pub/sub connection subscribed (and so
        # readable) even while no table is watched.
        await self._pubsub.subscribe(f"{self._prefix}node:{self.node}")

    async def _connect_then_listen(self) -> None:
        delay = RECONNECT_MIN
        while True:
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
            try:
                await self._connect()
                break
            except (RedisError, OSError):
                self._troubled()
                delay = min(delay * 2, RECONNECT_MAX)
        log.warning("Redis bus: connected")
        self._troubled()  # another process may not hear Redis yet either: relay a while
        self._overflow_all()  # what only Redis would have carried: re-read the store
        await self._listen()

    def state(self) -> str:
        return "degraded" if self.breaker.open or not self._listening else "ok"

    def _troubled(self) -> None:
        """Redis failed us: relay every message for a while, also once it seems back."""
        self._relay_until = time.monotonic() + RELAY_GRACE

    async def publish(self, table_id: str, message: Message) -> None:
        encoded = _encode(message)
        if self.breaker.open and self.relay is not None and self.relay.listening:
            # Redis is failing: no wait for its timeout, the relay carries the message.
            self._troubled()
            self._deliver_here(table_id, message)
            await self.relay.send(table_id, encoded)
            return
        try:
            await self._client.publish(self.channel(table_id), encoded)
            if table_id in self._pending:
                # Not subscribed on Redis yet: it would not bring this one back to us.
                self._deliver_here(table_id, message)
            if self.relay is not None and time.monotonic() < self._relay_until:
                with contextlib.suppress(Exception):
                    await self.relay.send(table_id, encoded)
        except BaseException as error:
            # Redis is away: this process's own sockets of the table (the mover's, most
            # often) still hear of the change at once, and the other processes by the
            # PostgreSQL relay; without one, the caller retries for them. A socket that gets
            # a message twice drops the second by its version.
            self._deliver_here(table_id, message)
            if not isinstance(error, Exception):
                raise
            if isinstance(error, RedisError | OSError):
                self.breaker.trip()
            if self.relay is None:
                raise
            self._troubled()
            try:
                await self.relay.send(table_id, encoded)
            except Exception:
                log.warning("Redis bus: the PostgreSQL relay failed too", exc_info=True)
                raise error from None

    def _deliver_here(self, table_id: str, message: Message) -> None:
        subscribers = self._subscribers.get(table_id)
        if subscribers is not None:
            subscribers.deliver(message)

    async def subscribe(self, table_id: str, *, seated: bool = False) -> Subscription:
        if not self._tasks:
            raise RuntimeError("RedisBus.start() was not called")
        subscription = QueueSubscription(self._remove, table_id, self._queue_limit, seated=seated)
        channel = self.channel(table_id)
        async with self._lock:
            if self._subscribers.get(table_id):
                self._subscribers[table_id].add(subscription)
                return subscription
            if self.breaker.open and self.relay is not None and self.relay.listening:
                self._pending_subscription(table_id)  # no wait for a failing Redis
                self._subscribers[table_id].add(subscription)
                return subscription
            try:
                await self._subscribe_confirmed(channel)
            except BaseException as error:
                with contextlib.suppress(RedisError, OSError):
                    await self._pubsub.unsubscribe(channel)
                relay = self.relay
                if relay is None or not relay.listening or not isinstance(error, Exception):
                    # Not subscribed: no subscriber is left behind either, so the next
                    # socket of this table subscribes again (instead of staying deaf here).
                    raise
                self._pending_subscription(table_id)
            self._subscribers[table_id].add(subscription)
        return subscription

    async def _subscribe_confirmed(self, channel: str) -> None:
        """SUBSCRIBE, and wait until Redis confirms it: only then are later publications
        certain to reach us (a caller reads the table after subscribing and must not miss
        what follows). Called under ``_lock``."""
        confirmed = asyncio.get_running_loop().create_future()
        self._confirmed[channel] = confirmed
        try:
            await self._pubsub.subscribe(channel)
            await asyncio.wait_for(asyncio.shield(confirmed), timeout=SUBSCRIBE_TIMEOUT)
        finally:
            self._confirmed.pop(channel, None)

    def _pending_subscription(self, table_id: str) -> None:
        """The relay carries the other processes' changes to ``table_id`` meanwhile; Redis
        is asked again in the background until it takes the SUBSCRIBE."""
        self._troubled()
        self._pending.add(table_id)
        self._pending_added.set()

    async def _subscribe_pending(self) -> None:
        """SUBSCRIBE again, with back-off and jitter, the tables Redis refused; once it
        takes one, that table's sockets re-read the store for what only Redis carried."""
        delay = RECONNECT_MIN
        while True:
            await self._pending_added.wait()
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
            if self.breaker.open:
                continue  # its probe says when Redis answers again
            failed = False
            for table_id in list(self._pending):
                async with self._lock:
                    if table_id not in self._pending:
                        continue
                    if not self._subscribers.get(table_id):
                        self._pending.discard(table_id)
                        continue
                    try:
                        await self._subscribe_confirmed(self.channel(table_id))
                    except Exception:
                        failed = True
                        break
                    self._pending.discard(table_id)
                    for subscription in self._subscribers.get(table_id, ()):
                        subscription.deliver(dict(OVERFLOW))
            delay = min(delay * 2, RECONNECT_MAX) if failed else RECONNECT_MIN
            if not self._pending:
                self._pending_added.clear()

    async def _remove(self, subscription: QueueSubscription) -> None:
        async with self._lock:
            subscribers = self._subscribers.get(subscription.table_id)
            if subscribers is None:
                return
            subscribers.discard(subscription)
            if not subscribers:
                del self._subscribers[subscription.table_id]
                self._pending.discard(subscription.table_id)
                with contextlib.suppress(RedisError, OSError):
                    await self._pubsub.unsubscribe(self.channel(subscription.table_id))

    def subscriber_count(self, table_id: str) -> int:
        return len(self._subscribers.get(table_id, ()))

    async def _listen(self) -> None:
        self._listening = True
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
                self._listening = False
                self._troubled()
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
                self._listening = True
                self._troubled()
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
        if not self._subscribers.get(table_id):
            return
        try:
            decoded = orjson.loads(message["data"])
        except ValueError:
            log.warning("Redis bus: dropped a message that is not JSON on %s", channel)
            return
        self._fan_out(table_id, decoded)

    def _relayed(self, table_id: str, message: Message | None) -> None:
        """A message from another process by the PostgreSQL relay (``None``: re-read)."""
        if self._subscribers.get(table_id):
            self._fan_out(table_id, dict(REREAD) if message is None else message)

    def _fan_out(self, table_id: str, decoded: Any) -> None:
        subscribers = self._subscribers.get(table_id)
        if not subscribers:
            return
        events = decoded.get("events") if isinstance(decoded, dict) else None
        if isinstance(events, list) and any(
            isinstance(e, dict) and e.get("kind") in ("presence", "spectators") for e in events
        ):
            self.presence.forget(table_id)
        # One decoded object for all local subscribers, so the socket layer can encode each
        # state once per process (it caches the encoding in the message).
        subscribers.deliver(decoded)

    def _overflow_all(self) -> None:
        for subscribers in list(self._subscribers.values()):
            for subscription in subscribers:
                subscription.deliver(dict(OVERFLOW))

    async def _beat(self) -> None:
        must_restore = False
        outage = Outage(log, "Redis bus: the heartbeat")
        while True:
            await asyncio.sleep(HEARTBEAT)
            if self.breaker.open:
                continue
            try:
                if not await self.presence.heartbeat():
                    # Redis forgot this process (it restarted, the process was away past its
                    # heartbeat's life, or another swept it): its counts are gone or ignored,
                    # so every page would show its players offline. They are reported
                    # again, and told; until that succeeds, at every beat.
                    must_restore = True
                await self.presence.flush()
                if must_restore and not self.breaker.open:
                    await self.presence.restore()
                    must_restore = False
                await self.presence.sweep()
            except (RedisError, OSError):
                outage.failed()
            else:
                outage.worked()

    async def close(self) -> None:
        await self.breaker.close()
        await cancel_and_wait(self._tasks)
        with contextlib.suppress(RedisError, OSError):
            await self._client.delete(self.presence.node_key(self.node))
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8
        if self.relay is not None:
            await self.relay.close()
        await self._listener.aclose()
        await self._client.aclose()


def _encode(message: Message) -> bytes:
    # Keys starting with "_" are one process's caches (see web/socket.py), not the message.
    return orjson.dumps({k: v for k, v in message.items() if not k.startswith("_")})
