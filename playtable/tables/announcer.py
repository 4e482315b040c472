"""Telling the table: committed changes published on the bus, with who is online.

A change is announced only after its commit, and the store has it whatever happens here: a
publication that fails (Redis gone for a few seconds) is retried in the background with
back-off and jitter, and the request that made the change still succeeds. Pages that missed
a message catch up on their next ``join`` anyway, since every state carries its version.

Bus messages are ``{"type": "table", "version", "events": [...], "table": public}`` where
``public`` is the ``table`` object of docs/protocol.md with the viewer's own fields empty.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any

from playtable.bus import Bus
from playtable.tables import views
from playtable.tables.events import Event
from playtable.tables.table import LoadedTable
from playtable.tables.views import Census, Links

# About a minute of retries in all.
REPUBLISH_ATTEMPTS = 15

logger = logging.getLogger(__name__)


class Announcer:
    """Publishes tables' changes; runs the background work the service must not lose."""

    def __init__(self, bus: Bus, links: Links, clock: Callable[[], datetime]) -> None:
        self.bus = bus
        self.links = links
        self.clock = clock  # the clocks in a table's state are as of now
        self._tasks: set[asyncio.Task[None]] = set()

    def public(self, table: LoadedTable, census: Census) -> dict[str, Any]:
        return views.public(table, census, self.links, self.clock())

    async def census(self, table_id: str) -> Census:
        """Who is at the table, on any server process."""
        try:
            online, spectators = await self.bus.presence.census(table_id)
        except Exception:
            # Presence is a courtesy: without it a table still plays, so never fail on it.
            logger.warning("table %s: presence unavailable", table_id, exc_info=True)
            return Census()
        return Census(frozenset(online), spectators)

    async def publish(
        self, table: LoadedTable, events: list[Event], census: Census | None = None
    ) -> None:
        """Publish now; raises if the bus fails."""
        if census is None:
            census = await self.census(table.id)
        await self.bus.publish(
            table.id,
            {
                "type": "table",
                "version": table.version,
                "events": [event.to_json() for event in events],
                "table": self.public(table, census),
            },
        )

    async def announce(self, table: LoadedTable, events: list[Event]) -> None:
        """Publish a committed change, retrying in the background if the bus fails."""
        try:
            await self.publish(table, events)
        except Exception:
            logger.warning(
                "table %s: publishing version %d failed; retrying",
                table.id,
                table.version,
                exc_info=True,
            )
            self.in_background(self._republish(table, events))

    async def _republish(self, table: LoadedTable, events: list[Event]) -> None:
        delay = 0.2
        for _ in range(REPUBLISH_ATTEMPTS):
            # Jitter, so the processes that lost Redis together do not all come back at once.
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
            try:
                await self.publish(table, events)
                return
            except Exception:
                delay = min(delay * 2, 5.0)
        logger.error("table %s: version %d never announced", table.id, table.version)

    def in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` to its end even if the task that asked for it is cancelled (a closing
        socket's): :meth:`close` waits for it."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
        for task in set(self._tasks):
            task.cancel()


__all__ = ["REPUBLISH_ATTEMPTS", "Announcer"]
