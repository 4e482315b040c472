"""Who is connected: how many sockets each player (and how many spectators) have open at
each table, in this process, and telling the table when that changes.

The bus's :class:`~playtable.bus.Presence` adds these counts up across processes; a
player's count is reported whenever it changes between zero and more (and the table told
whether the player is online anywhere), the spectators' count at most once a second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, cast

from playtable.bus.base import WATCHING
from playtable.bus.base import Presence as SitePresence
from playtable.games import Player
from playtable.outages import Outage
from playtable.tables.announcer import Announcer
from playtable.tables.errors import TableNotFound
from playtable.tables.events import Event, PresenceEvent, Spectators
from playtable.tables.table import LoadedTable

SPECTATOR_NEWS_EVERY = 1.0  # seconds: how often at most a table hears its spectators' count
# Seconds: how often at most a table hears that one of its players came or went. The first
# change is told at once, a change within this of the last one once this is up, as the count
# is then: a player who opened and closed sockets in a loop flipped "online" and "offline" 88
# times in 3 s on the opponent's page, each redrawn and read aloud by a screen reader.
PLAYER_NEWS_EVERY = 2.0
# A presence change that could not be reported or told (Redis or the database away): tried
# again after these pauses, then every last one for as long as it fails, so that the pages
# hear it once they are back, however long the outage.
RETRY_PRESENCE_S = (1.0, 2.0, 4.0, 8.0, 16.0)
RETRY_PRESENCE_TRIES = 250  # about an hour: a table that fails for longer is broken, not away

logger = logging.getLogger(__name__)


class Presence:
    """Socket counts per (table, player) in this process; spectators count as
    :data:`~playtable.bus.base.WATCHING`."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], int] = {}

    def add(self, table_id: str, player: str) -> bool:
        """Count one more socket; ``True`` if the player just came online."""
        key = (table_id, player)
        self._counts[key] = self._counts.get(key, 0) + 1
        return self._counts[key] == 1

    def remove(self, table_id: str, player: str) -> bool:
        """Count one socket less; ``True`` if the player just went offline."""
        key = (table_id, player)
        left = self._counts.get(key, 0) - 1
        if left > 0:
            self._counts[key] = left
            return False
        self._counts.pop(key, None)
        return left == 0

    def count(self, table_id: str, player: str) -> int:
        return self._counts.get((table_id, player), 0)


class TablePresence(Presence):
    """This process's counts, reported to the site's presence and announced to the table."""

    def __init__(
        self,
        site: SitePresence,
        announcer: Announcer,
        load: Callable[[str], Awaitable[LoadedTable]],
        lock: Callable[[str], asyncio.Lock],
    ) -> None:
        super().__init__()
        self.site = site
        self.announcer = announcer
        self.load = load
        self.lock = lock
        self._counting: set[str] = set()  # tables whose spectator count is about to be told
        self._retrying: set[tuple[str, str]] = set()  # (table, player) with a retry to come
        # (table, player): when its presence was last told (monotonic), and those whose next
        # news waits for PLAYER_NEWS_EVERY to be up
        self._told_at: dict[tuple[str, str], float] = {}
        self._held: set[tuple[str, str]] = set()
        # One outage of the presence store or the database is logged once, not per try and
        # table (a minute of it wrote thousands of tracebacks).
        self._outage = Outage(logger, "telling the tables who is here")
        site.restored = self._restored
        site.departed = self._departed

    def _departed(self, departed: dict[str, set[str]]) -> None:
        """A process that held these players' (and spectators') sockets died: the tables
        hear who is still online anywhere, and how many watch."""
        for table_id, players in departed.items():
            self.announcer.in_background(self._announce_departed(table_id, players))

    async def _announce_departed(self, table_id: str, players: set[str]) -> None:
        try:
            table = await self.load(table_id)
            census = await self.announcer.census(table_id)
            events: list[Event] = [
                PresenceEvent(cast(Player, p), p in census.online)
                for p in sorted(players)
                if p in ("red", "blue")
            ]
            if WATCHING in players:
                events.append(Spectators(census.spectators))
            if events:
                await self.announcer.publish(table, events, census)
        except TableNotFound:
            return
        except Exception:
            logger.warning("table %s: a departed process not told", table_id, exc_info=True)

    def _restored(self, table_ids: set[str]) -> None:
        """The site's presence lost this process's counts and has them again (Redis came
        back): each table hears again who is online and how many watch."""
        for table_id in table_ids:
            for player in ("red", "blue"):
                if self.count(table_id, player):
                    self.announcer.in_background(self._announce_presence(table_id, player))
            if self.count(table_id, WATCHING):
                self._presence_changed(table_id, None)

    def connected(self, table_id: str, player: Player | None) -> None:
        """A socket of ``player`` (``None``: a spectator) opened: tell the table if the player
        just came online here, or (at most every second) how many watch."""
        if self.add(table_id, player or WATCHING) or player is None:
            self._presence_changed(table_id, player)

    def disconnected(self, table_id: str, player: Player | None) -> None:
        """A socket of ``player`` closed; tell the table if it was the last one here."""
        if self.remove(table_id, player or WATCHING) or player is None:
            self._presence_changed(table_id, player)

    def _presence_changed(self, table_id: str, player: Player | None) -> None:
        if player is not None:
            self._player_news(table_id, player)
        elif table_id not in self._counting:
            # Spectators come and go in crowds: one announcement a second per table at most,
            # telling the count as it is by then.
            self._counting.add(table_id)
            self.announcer.in_background(self._announce_spectators(table_id))

    def _player_news(self, table_id: str, player: Player) -> None:
        """Tell the table of ``player``'s presence now, or, within :data:`PLAYER_NEWS_EVERY`
        of the last time, once that is up (one announcement held at a time, telling the
        count as it is when it runs)."""
        key = (table_id, player)
        if key in self._held:
            self.announcer.in_background(self._report(table_id, player))
            return
        now = time.monotonic()
        if len(self._told_at) > 4096:  # forget what no longer holds anything back
            self._told_at = {
                k: at for k, at in self._told_at.items() if now - at < PLAYER_NEWS_EVERY
            }
        wait = self._told_at.get(key, -PLAYER_NEWS_EVERY) + PLAYER_NEWS_EVERY - now
        if wait <= 0:
            self._told_at[key] = now
            self.announcer.in_background(self._announce_presence(table_id, player))
            return
        self._held.add(key)
        # the site's count stays true meanwhile (My games, the census): only the news waits
        self.announcer.in_background(self._report(table_id, player))

        async def later() -> None:
            try:
                await asyncio.sleep(wait)
            finally:
                self._held.discard(key)
            self._told_at[key] = time.monotonic()
            await self._announce_presence(table_id, player)

        self.announcer.in_background(later())

    async def _report(self, table_id: str, player: Player) -> None:
        """Report the player's count to the site's presence, as it is now, without telling the
        table (its news is held). A failure is part of the outage in the log; the held
        announcement reports again and retries."""
        async with self.lock(table_id):
            try:
                await self.site.report(table_id, player, self.count(table_id, player))
            except Exception:
                self._outage.failed(f" (table {table_id})")
                return
            self._outage.worked()

    async def _announce_presence(self, table_id: str, player: Player, tries: int = 0) -> None:
        async with self.lock(table_id):
            # The count as it is now, not as it was when the task was made: of a quick close
            # and reopen, whichever task runs last reports the truth.
            try:
                await self.site.report(table_id, player, self.count(table_id, player))
                table = await self.load(table_id)
                census = await self.announcer.census(table_id)
                # Another process may still hold a socket of the player: the event tells
                # the sum over all processes, which is what the players see.
                online = player in census.online
                await self.announcer.publish(table, [PresenceEvent(player, online)], census)
                self._outage.worked()
            except TableNotFound:
                return
            except Exception:
                self._outage.failed(f" (table {table_id})")
                self._retry(
                    (table_id, player),
                    tries,
                    lambda: self._announce_presence(table_id, player, tries + 1),
                )

    def _retry(
        self, key: tuple[str, str], tries: int, again: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        """Run ``again()`` after a pause (the opponent's page would show a player who left as
        online for as long as nothing else happened at the table), until it succeeds. One
        retry at a time per player and table: it tells the count as it is when it runs."""
        if key in self._retrying or tries >= RETRY_PRESENCE_TRIES:
            return
        self._retrying.add(key)
        pause = RETRY_PRESENCE_S[min(tries, len(RETRY_PRESENCE_S) - 1)]

        async def later() -> None:
            try:
                await asyncio.sleep(pause)
            finally:
                self._retrying.discard(key)
            await again()

        self.announcer.in_background(later())

    async def _announce_spectators(self, table_id: str, tries: int = 0) -> None:
        try:
            await asyncio.sleep(SPECTATOR_NEWS_EVERY)
        finally:
            self._counting.discard(table_id)
        try:
            await self.site.report(table_id, WATCHING, self.count(table_id, WATCHING))
            table = await self.load(table_id)
            census = await self.announcer.census(table_id)
            await self.announcer.publish(table, [Spectators(census.spectators)], census)
            self._outage.worked()
        except TableNotFound:
            return
        except Exception:
            self._outage.failed(f" (table {table_id})")
            self._retry(
                (table_id, WATCHING),
                tries,
                lambda: self._announce_spectators(table_id, tries + 1),
            )


__all__ = ["Presence", "TablePresence"]
