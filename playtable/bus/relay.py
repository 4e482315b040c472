"""The second road between server processes: PostgreSQL's LISTEN/NOTIFY, while Redis is away.

The Redis bus (``bus/redis.py``) carries every table message. When a publish to Redis fails,
the message would reach the other processes only when Redis is back (the caller retries),
and their pages only at their next re-read of the store. With the site on PostgreSQL, every
process already reaches one shared server that can deliver messages too: the relay sends the
message as a ``NOTIFY`` on one channel that every process ``LISTEN``s to, on a connection of
its own, so a move made during the outage reaches the other player as fast as it would by
Redis.

A notification carries ``node|table_id|message``, where ``node`` is the sending process
(which ignores its own: it has delivered locally already). PostgreSQL caps a payload at 8,000
bytes; a larger message goes as ``node|table_id|`` and the receivers' subscribers of that
table are told to re-read it from the store at once (``reread``).

The relay is a fallback only: it holds one idle connection per process and sends nothing
while Redis works.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import random
from collections.abc import Callable
from typing import Any

import asyncpg
import orjson
import sqlalchemy as sa

from playtable.aio import cancel_and_wait
from playtable.bus.base import Message

log = logging.getLogger(__name__)

MAX_PAYLOAD = 7_900  # bytes; PostgreSQL refuses a NOTIFY payload of 8,000 or more
RECONNECT_MIN, RECONNECT_MAX = 0.25, 2.0  # seconds between reconnection tries (doubling)
SEND_TIMEOUT = 2.0  # seconds a NOTIFY may take before the relay counts as away too
LOOPBACK = ("127.0.0.1", "::1", "localhost")

#: What a receiver is handed: the table and its message, or ``None`` for "re-read it".
Deliver = Callable[[str, Message | None], None]


def channel_for(prefix: str) -> str:
    """One channel per site (the Redis prefix names the site), a valid SQL identifier."""
    return "playtable_" + hashlib.sha256(prefix.encode()).hexdigest()[:12]


def relay_url(database_url: str | None) -> str | None:
    """The relay's connection string for a PostgreSQL store URL, else ``None``."""
    if not database_url:
        return None
    parsed = sa.make_url(database_url)
    if parsed.get_backend_name() != "postgresql":
        return None
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


class NotifyRelay:
    """Table messages over one PostgreSQL channel; :meth:`send` raises when it cannot."""

    def __init__(self, dsn: str, channel: str, node: str, deliver: Deliver) -> None:
        self.dsn = dsn
        self.channel = channel
        self.node = node
        self._deliver = deliver
        parsed = sa.make_url(dsn)
        wants_ssl = any(key in parsed.query for key in ("ssl", "sslmode"))
        self._ssl: Any = False if parsed.host in LOOPBACK and not wants_ssl else None
        self._connection: asyncpg.Connection | None = None
        self._ready = asyncio.Event()
        self._send_lock = asyncio.Lock()  # one connection: one statement at a time
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Listen from now on; returns once listening (or after a failed first try, the
        relay then keeps trying in the background: the site runs without it meanwhile)."""
        self._task = asyncio.create_task(self._keep_listening(), name="notify-relay")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout=5)

    @property
    def listening(self) -> bool:
        return self._connection is not None and not self._connection.is_closed()

    async def send(self, table_id: str, message: bytes) -> None:
        """Notify every process of ``message`` (JSON) about ``table_id``."""
        connection = self._connection
        if connection is None or connection.is_closed():
            raise ConnectionError("the PostgreSQL relay is not connected")
        head = f"{self.node}|{table_id}|"
        body = message.decode()
        payload = head + body if len(head) + len(message) <= MAX_PAYLOAD else head
        async with self._send_lock:
            await connection.execute(
                "SELECT pg_notify($1, $2)", self.channel, payload, timeout=SEND_TIMEOUT
            )

    def _heard(self, _connection: Any, _pid: int, _channel: str, payload: object) -> None:
        if not isinstance(payload, str):
            return
        node, _, rest = payload.partition("|")
        table_id, _, body = rest.partition("|")
        if node == self.node or not table_id:
            return  # our own: already delivered to this process's sockets
        if not body:
            self._deliver(table_id, None)
            return
        try:
            message = orjson.loads(body)
        except ValueError:
            log.warning("PostgreSQL relay: dropped a message that is not JSON on %s", table_id)
            return
        if isinstance(message, dict):
            self._deliver(table_id, message)

    async def _keep_listening(self) -> None:
        delay = RECONNECT_MIN
        failing = 0  # tries failed in a row: an outage is logged once, and its end
        while True:
            closed = asyncio.get_running_loop().create_future()
            try:
                connection = await asyncpg.connect(self.dsn, ssl=self._ssl, timeout=5)
                connection.add_termination_listener(functools.partial(_settle, closed))
                await connection.add_listener(self.channel, self._heard)
            except asyncio.CancelledError:
                raise
            except Exception:
                failing += 1
                if failing == 1:
                    log.warning("PostgreSQL relay: cannot listen; trying again", exc_info=True)
                else:
                    log.debug("PostgreSQL relay: cannot listen (%d tries)", failing, exc_info=True)
                await asyncio.sleep(delay * random.uniform(0.5, 1.5))
                delay = min(delay * 2, RECONNECT_MAX)
                continue
            if failing:
                log.warning("PostgreSQL relay: listening again after %d tries", failing)
            failing = 0
            self._connection = connection
            self._ready.set()
            delay = RECONNECT_MIN
            try:
                await closed
            finally:
                self._connection = None
                if not connection.is_closed():
                    connection.terminate()
            log.warning("PostgreSQL relay: connection lost; reconnecting")

    async def close(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])
            self._task = None
        connection, self._connection = self._connection, None
        if connection is not None and not connection.is_closed():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.close(), timeout=2)


def _settle(future: asyncio.Future[None], _connection: object) -> None:
    if not future.done():
        future.set_result(None)


__all__ = ["NotifyRelay", "channel_for", "relay_url"]
