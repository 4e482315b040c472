"""The bus interface: publish a message about a table, and subscribe to a table's messages.

Messages are JSON objects (so a Redis implementation can carry them unchanged). Delivery is
best effort and in publish order per table; a subscriber that falls too far behind is told so
by a ``{"type": "overflow"}`` message and must re-read the table from the store (after a
random pause: every table of a process may get one at once). ``{"type": "reread"}`` says the
same of one table whose message could not come along, and asks for the re-read at once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any

Message = dict[str, Any]

#: The name under which a process reports its spectators' sockets to :class:`Presence`.
WATCHING = "watch"

# Where a site keeps its keys in a shared Redis (the bus, presence, the budgets).
DEFAULT_PREFIX = "playtable:"


class Subscription(ABC):
    """The messages about one table, from the moment of subscribing until closed."""

    @abstractmethod
    async def get(self) -> Message:
        """The next message; waits for one."""

    @abstractmethod
    async def close(self) -> None:
        """Stop receiving; idempotent."""

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Message]:
        while True:
            yield await self.get()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


class Presence(ABC):
    """Who has a socket open at each table, across every server process of the site.

    Each process reports its own count of sockets per (table, player); a player is online if
    any live process counts one. The service asks before it builds each public table.

    ``restored``, if set (the table service sets it), is called with the tables whose counts
    this process reported again after the counts' store lost them (Redis restarted): the
    pages there must be told who is online again.
    """

    restored: Callable[[set[str]], None] | None = None
    # Called with {table: players (and WATCHING)} whose sockets were on a process that died
    # (killed, out of memory): the pages must hear that those players left.
    departed: Callable[[dict[str, set[str]]], None] | None = None

    @abstractmethod
    async def report(self, table_id: str, player: str, sockets: int) -> None:
        """This process now holds ``sockets`` sockets of ``player`` at ``table_id``."""

    @abstractmethod
    async def census(self, table_id: str) -> tuple[set[str], int]:
        """The players of ``table_id`` with a socket open anywhere, and how many spectator
        sockets (reported as the player :data:`WATCHING`) are open there."""

    async def online(self, table_id: str) -> set[str]:
        """The players of ``table_id`` with a socket open anywhere."""
        return (await self.census(table_id))[0]


class Bus(ABC):
    presence: Presence

    async def start(self) -> None:  # noqa: B027 (a hook: most buses need no start)
        """Connect; call once before the first subscription."""

    def state(self) -> str:
        """``"ok"``, or ``"degraded"`` while its server does not answer and the tables go
        by their fallback (the readiness check says so; the site still serves)."""
        return "ok"

    @abstractmethod
    async def publish(self, table_id: str, message: Message) -> None:
        """Deliver ``message`` to every current subscriber of ``table_id``."""

    @abstractmethod
    async def subscribe(self, table_id: str, *, seated: bool = False) -> Subscription:
        """Start receiving the messages published about ``table_id`` from now on.

        A ``seated`` player's subscription hears each message before the spectators' do, so a
        crowd watching a table does not delay the two who play it."""

    @abstractmethod
    async def close(self) -> None:
        """Release the bus's connections."""
