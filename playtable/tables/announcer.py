"""Telling the table: committed changes published on the bus, with who is online.

A change is announced only after its commit, and the store has it whatever happens here: a
publication that fails (Redis gone for a few seconds) is retried in the background with
back-off and jitter, and the request that made the change still succeeds. Pages that missed
a message catch up on their next ``join`` anyway, since every state carries its version.

Bus messages are ``{"type": "table", "version", "base", "events": [...]}`` plus either
``"patch"``, a JSON Patch (:mod:`playtable.tables.patch`) that turns the public table of
version ``base`` into this one, or ``"table"``, the whole public table (the ``table`` object of
docs/protocol.md with the viewer's own fields empty) when this process does not know the
previous version's. A patch always replaces the :data:`~playtable.tables.views.LIVE_FIELDS`
whole, so that it applies to a table read at ``base`` by any process at any time: everything
else in the public table is a function of the stored version alone.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from playtable.bus import Bus
from playtable.tables import patch, views
from playtable.tables.events import Event
from playtable.tables.table import LoadedTable
from playtable.tables.views import Census, Links

# About half a minute of retries in all, at most 2 s apart: a page sees a stored move
# within about 2 s of the bus coming back.
REPUBLISH_ATTEMPTS = 18
# How many tables' last public versions a process keeps to make patches from.
KEPT_VERSIONS = 4096
CENSUS_LOG_EVERY = 30.0  # seconds between two warnings that presence is unavailable

_LIVE_PATHS = frozenset(f"/{field}" for field in views.LIVE_FIELDS)

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Draft:
    """A version's bus message, made before its commit is known (:meth:`Announcer.draft`)."""

    table_id: str
    version: int
    body: dict[str, Any]  # the versioned part of its public table: kept once published
    message: dict[str, Any]


class Announcer:
    """Publishes tables' changes; runs the background work the service must not lose."""

    def __init__(self, bus: Bus, links: Links, clock: Callable[[], datetime]) -> None:
        self.bus = bus
        self.links = links
        self.clock = clock  # the clocks in a table's state are as of now
        self._tasks: set[asyncio.Task[None]] = set()
        # Per table, the last version this process published or heard of on the bus, as
        # the versioned part of its public table (views.versioned): the base of the next
        # patch, and the answer to every join at that version without building it again.
        self._versions: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        self._census_failed_at = -CENSUS_LOG_EVERY

    def public(self, table: LoadedTable, census: Census) -> dict[str, Any]:
        """The public ``table`` object (the versioned part built once per version)."""
        return {**self.versioned(table), **views.live(table, census, self.clock())}

    def versioned(self, table: LoadedTable) -> dict[str, Any]:
        """:func:`views.versioned` of ``table``, from the kept version when it is that one.

        The result is shared: never change it."""
        body = self._body(table, self._versions.get(table.id))
        self._keep_if_newer(table.id, table.version, body)
        return body

    def _body(self, table: LoadedTable, kept: tuple[int, dict[str, Any]] | None) -> dict[str, Any]:
        """The versioned part of ``table``: the kept one when it is that version, else built."""
        if kept is not None and kept[0] == table.version:
            return kept[1]
        return views.versioned(table, self.links)

    def kept_version(self, table_id: str) -> int | None:
        kept = self._versions.get(table_id)
        return None if kept is None else kept[0]

    def _keep_if_newer(self, table_id: str, version: int, body: dict[str, Any]) -> None:
        kept = self._versions.get(table_id)
        if kept is None or kept[0] < version:
            self._keep(table_id, version, body)

    def _keep(self, table_id: str, version: int, body: dict[str, Any]) -> None:
        self._versions[table_id] = (version, body)
        self._versions.move_to_end(table_id)
        while len(self._versions) > KEPT_VERSIONS:
            self._versions.popitem(last=False)

    def observed(self, message: Mapping[str, Any]) -> None:
        """A bus message about a table (perhaps another process's): keep its version."""
        table_id, version = message.get("table_id"), message.get("version")
        if not isinstance(table_id, str) or not isinstance(version, int):
            return
        kept = self._versions.get(table_id)
        if kept is not None and kept[0] >= version:
            return
        if "table" in message:
            body = {k: v for k, v in message["table"].items() if k not in views.LIVE_FIELDS}
            self._keep(table_id, version, body)
        elif kept is not None and kept[0] == message.get("base"):
            # The kept body has no live fields, which the patch replaces whole: those
            # operations are left out (applied, they failed, and every process dropped
            # the versions of the others' moves and published whole tables).
            operations = [o for o in message["patch"] if o.get("path") not in _LIVE_PATHS]
            try:
                body = patch.apply(kept[1], operations)
            except patch.PatchError:
                self._versions.pop(table_id, None)
                return
            self._keep(table_id, version, body)
        else:
            self._versions.pop(table_id, None)  # a version was missed: publish the next whole

    async def census(self, table_id: str) -> Census:
        """Who is at the table, on any server process."""
        try:
            online, spectators = await self.bus.presence.census(table_id)
        except Exception:
            # Presence is a courtesy: without it a table still plays, so never fail on it.
            # Said once in a while, not at every move of an outage.
            now = time.monotonic()
            if now - self._census_failed_at > CENSUS_LOG_EVERY:
                self._census_failed_at = now
                logger.warning("table %s: presence unavailable", table_id, exc_info=True)
            return Census()
        return Census(frozenset(online), spectators)

    async def publish(
        self, table: LoadedTable, events: list[Event], census: Census | None = None
    ) -> None:
        """Publish now; raises if the bus fails."""
        if census is None:
            census = await self.census(table.id)
        await self.publish_draft(self.draft(table, events, census))

    async def publish_draft(self, draft: Draft) -> None:
        """Publish a draft of a committed version (raises if the bus fails); its public
        table becomes the base of the next patch."""
        self._keep_if_newer(draft.table_id, draft.version, draft.body)
        await self.bus.publish(draft.table_id, draft.message)

    def draft(self, table: LoadedTable, events: list[Event], census: Census) -> Draft:
        """The bus message of ``table``'s version: a patch from the kept version before it
        (or the same version, for news that changes none), else the whole public table.

        Changes nothing here, so it can be made while the version is being committed and
        dropped if the commit is refused."""
        kept = self._versions.get(table.id)
        operations: list[patch.Operation] | None = None
        shortcut = None
        if kept is not None and kept[0] == table.version - 1:
            shortcut = views.versioned_after_move(kept[1], table)  # a move: from the move
        if shortcut is not None:
            body, operations = shortcut
        else:
            body = self._body(table, kept)
            if kept is not None and kept[0] in (table.version - 1, table.version):
                operations = patch.diff(kept[1], body)
        live = views.live(table, census, self.clock())
        message: dict[str, Any] = {
            "type": "table",
            "table_id": table.id,
            "version": table.version,
            "base": None,
            "events": [event.to_json() for event in events],
        }
        if operations is None:
            message["table"] = {**body, **live}
        else:
            assert kept is not None
            operations += [
                {"op": "replace", "path": f"/{field}", "value": live[field]}
                for field in views.LIVE_FIELDS
            ]
            message["base"], message["patch"] = kept[0], operations
        return Draft(table.id, table.version, body, message)

    async def draft_meanwhile(self, table: LoadedTable, events: list[Event]) -> Draft | None:
        """:meth:`draft` of a version whose write was just handed to the store (``submit``):
        made while the store writes (an fsync, or PostgreSQL's round trip), with the census
        (Redis's round trip). ``None`` if it failed: :meth:`announce` then makes it again."""
        await asyncio.sleep(0)  # the store's writer takes the write over first
        try:
            return self.draft(table, events, await self.census(table.id))
        except Exception:
            logger.exception("table %s: drafting version %d failed", table.id, table.version)
            return None

    async def announce(
        self, table: LoadedTable, events: list[Event], draft: Draft | None = None
    ) -> None:
        """Publish a committed change (from its ``draft`` if one was made meanwhile),
        retrying in the background if the bus fails."""
        try:
            if draft is None:
                await self.publish(table, events)
            else:
                await self.publish_draft(draft)
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
                delay = min(delay * 2, 2.0)
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
