"""The in-process bus: one asyncio queue per subscriber, for a single server process."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator

from playtable.bus.base import WATCHING, Bus, Message, Presence, Subscription

OVERFLOW: Message = {"type": "overflow"}
#: One table changed, and its message did not come along: re-read it now (no spread).
REREAD: Message = {"type": "reread"}


class QueueSubscription(Subscription):
    """A bounded queue of one subscriber; ``remove`` takes it off its bus when closed."""

    def __init__(
        self,
        remove: Callable[[QueueSubscription], Awaitable[None]],
        table_id: str,
        limit: int,
        *,
        seated: bool = False,
    ) -> None:
        self._remove = remove
        self.table_id = table_id
        self.seated = seated
        # Bounded so a stuck client cannot make the server hoard its messages forever.
        self.queue: asyncio.Queue[Message] = asyncio.Queue(limit)
        self.closed = False

    def deliver(self, message: Message) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            # Drop the backlog: the subscriber re-reads the whole table when it sees this.
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(OVERFLOW)

    async def get(self) -> Message:
        return await self.queue.get()

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self._remove(self)


class Subscribers:
    """One table's subscriptions in this process, the seated players' first: a message
    reaches their sockets' queues (and so wakes their relays) before any spectator's."""

    __slots__ = ("_others", "_seated")

    def __init__(self) -> None:
        self._seated: set[QueueSubscription] = set()
        self._others: set[QueueSubscription] = set()

    def add(self, subscription: QueueSubscription) -> None:
        (self._seated if subscription.seated else self._others).add(subscription)

    def discard(self, subscription: QueueSubscription) -> None:
        (self._seated if subscription.seated else self._others).discard(subscription)

    def __iter__(self) -> Iterator[QueueSubscription]:
        # Copies: a delivery may lead to a subscription closing meanwhile.
        yield from list(self._seated)
        yield from list(self._others)

    def __len__(self) -> int:
        return len(self._seated) + len(self._others)

    def deliver(self, message: Message) -> None:
        for subscription in self:
            subscription.deliver(message)


class LocalPresence(Presence):
    """Presence when there is only this process."""

    def __init__(self) -> None:
        self._sockets: dict[str, dict[str, int]] = {}

    async def report(self, table_id: str, player: str, sockets: int) -> None:
        players = self._sockets.setdefault(table_id, {})
        if sockets > 0:
            players[player] = sockets
        else:
            players.pop(player, None)
            if not players:
                del self._sockets[table_id]

    async def census(self, table_id: str) -> tuple[set[str], int]:
        sockets = self._sockets.get(table_id, {})
        return {p for p in sockets if p != WATCHING}, sockets.get(WATCHING, 0)


class InProcessBus(Bus):
    def __init__(self, queue_limit: int = 256) -> None:
        self.presence = LocalPresence()
        self._subscribers: defaultdict[str, Subscribers] = defaultdict(Subscribers)
        self._queue_limit = queue_limit

    async def publish(self, table_id: str, message: Message) -> None:
        subscribers = self._subscribers.get(table_id)
        if subscribers is not None:
            subscribers.deliver(message)

    async def subscribe(self, table_id: str, *, seated: bool = False) -> Subscription:
        subscription = QueueSubscription(self._remove, table_id, self._queue_limit, seated=seated)
        self._subscribers[table_id].add(subscription)
        return subscription

    async def close(self) -> None:
        """Nothing to release: the queues go with their subscribers."""

    def subscriber_count(self, table_id: str) -> int:
        return len(self._subscribers.get(table_id, ()))

    async def _remove(self, subscription: QueueSubscription) -> None:
        subscribers = self._subscribers.get(subscription.table_id)
        if subscribers is not None:
            subscribers.discard(subscription)
            if not subscribers:
                del self._subscribers[subscription.table_id]
