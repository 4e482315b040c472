"""Presence on Redis: who has a socket open at each table, across the site's processes.

A hash per table counts sockets per player and process, and a heartbeat key per process
expires when the process dies, so a killed node's players go offline within ``NODE_TTL``
seconds without anyone cleaning up. The pages are told too: the processes are listed in a
set, each with the tables it counted sockets at, and the first process to find a listed
process without its heartbeat (:meth:`RedisPresence.sweep`) removes its counts and has the
tables announce who left.
"""

from __future__ import annotations

import asyncio
import time

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from playtable.bus.base import WATCHING, Presence
from playtable.bus.breaker import Breaker

NODE_TTL = 15  # seconds a process counts as alive after its last heartbeat
PRESENCE_TTL = 24 * 3600  # a table's presence hash outlives its last report by this much
PRESENCE_CACHE = 1.0  # seconds an answer of online() is reused
PRESENCE_CACHE_SIZE = 10_000


class RedisPresence(Presence):
    def __init__(
        self,
        client: aioredis.Redis,
        prefix: str,
        node: str,
        cache: float = PRESENCE_CACHE,
        breaker: Breaker | None = None,
    ) -> None:
        self._client = client
        self._breaker = breaker
        self.cache_seconds = cache
        self._prefix = prefix
        self.node = node
        # Every move's public table says who is online: reusing a fresh answer for a second
        # saves the move one or two Redis round trips. Any change reported here, or announced
        # by another process (a presence event on the bus), drops the table's answer at once.
        self._cache: dict[str, tuple[float, set[str], int]] = {}
        self._census_script = client.register_script(CENSUS)
        self._unreported: dict[tuple[str, str], int] = {}
        # Every count this process holds now (what it last reported, sent or not): a Redis
        # that restarted has lost them all, and gets them again from here (restore).
        self._held: dict[tuple[str, str], int] = {}
        # Counts are written one write at a time: a restore's snapshot of the counts must not
        # land after a report of a newer count (a player who just left would come back).
        self._writing = asyncio.Lock()

    def forget(self, table_id: str) -> None:
        self._cache.pop(table_id, None)

    def _key(self, table_id: str) -> str:
        return f"{self._prefix}presence:{table_id}"

    def node_key(self, node: str) -> str:
        return f"{self._prefix}node:{node}"

    def _nodes_key(self) -> str:
        return f"{self._prefix}nodes"

    def _tables_key(self, node: str) -> str:
        return f"{self._prefix}node-tables:{node}"

    async def heartbeat(self) -> bool:
        """Renew this process's heartbeat key (and its place in the list of processes);
        whether Redis still knew this process: it had the key, and the process was in the
        list (another process's sweep may have taken it out, and its counts, meanwhile).
        One transaction of plain commands (EXISTS, SET, SADD: any Redis version)."""
        key = self.node_key(self.node)
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.set(key, b"1", ex=NODE_TTL)
            pipe.sadd(self._nodes_key(), self.node)
            existed, _, added = await pipe.execute()
        return bool(existed) and not added

    async def sweep(self) -> None:
        """Find the listed processes whose heartbeat expired (killed: nobody said goodbye),
        remove their counts and tell the tables (``departed``). Of several live processes
        sweeping at once, the one whose SREM removes the dead process does the work."""
        client = self._client
        for raw in await client.smembers(self._nodes_key()):
            node = _text(raw)
            if node == self.node or await client.exists(self.node_key(node)):
                continue
            if not await client.srem(self._nodes_key(), node):
                continue  # another process took it
            departed: dict[str, set[str]] = {}
            suffix = f"|{node}"
            for table in await client.smembers(self._tables_key(node)):
                table_id = _text(table)
                counts = await client.hgetall(self._key(table_id))
                gone = {_text(f): int(n) for f, n in counts.items() if _text(f).endswith(suffix)}
                if not gone:
                    continue
                await client.hdel(self._key(table_id), *gone)
                self.forget(table_id)
                players = {f.partition("|")[0] for f, n in gone.items() if n > 0}
                if players:
                    departed[table_id] = players
            await client.delete(self._tables_key(node))
            if departed and self.departed is not None:
                self.departed(departed)

    async def report(self, table_id: str, player: str, sockets: int) -> None:
        """Set this process's count; one that fails (Redis away) is kept and reported again
        by :meth:`flush`, so the counts come right once Redis is back."""
        self.forget(table_id)
        self._unreported[(table_id, player)] = sockets
        if sockets > 0:
            self._held[(table_id, player)] = sockets
        else:
            self._held.pop((table_id, player), None)
        if self._skipping():
            raise ConnectionError("Redis is failing: the count is reported when it is back")
        await self._send(table_id, player, sockets)
        if self._unreported.get((table_id, player)) == sockets:
            del self._unreported[(table_id, player)]

    def _skipping(self) -> bool:
        return self._breaker is not None and self._breaker.open

    def _failed(self) -> None:
        if self._breaker is not None:
            self._breaker.trip()

    async def _send(self, table_id: str, player: str, sockets: int) -> None:
        key, field = self._key(table_id), f"{player}|{self.node}"
        try:
            async with self._writing, self._client.pipeline(transaction=True) as pipe:
                tables = self._tables_key(self.node)
                if sockets > 0:
                    pipe.hset(key, field, sockets)
                    pipe.sadd(tables, table_id)
                    pipe.expire(tables, PRESENCE_TTL)
                else:
                    pipe.hdel(key, field)
                    if not any((table_id, p) in self._held for p in ("red", "blue", WATCHING)):
                        pipe.srem(tables, table_id)  # nothing of this process's there now
                pipe.expire(key, PRESENCE_TTL)
                await pipe.execute()
        except (RedisError, OSError):
            self._failed()
            raise

    async def flush(self) -> None:
        """Report again the counts whose report failed."""
        if self._skipping():
            return
        for (table_id, player), sockets in list(self._unreported.items()):
            try:
                await self._send(table_id, player, sockets)
            except (RedisError, OSError):
                return
            if self._unreported.get((table_id, player)) == sockets:
                del self._unreported[(table_id, player)]

    async def restore(self) -> None:
        """Report again every count this process holds, and tell the tables (``restored``):
        a Redis that restarted lost them all (and one that lost this process's heartbeat
        ignores them), and every page would show the players offline until they
        reconnected."""
        if self._skipping() or not self._held:
            return
        try:
            async with self._writing, self._client.pipeline(transaction=False) as pipe:
                held = dict(self._held)  # as it is now, with no report on its way
                for (table_id, player), sockets in held.items():
                    key = self._key(table_id)
                    pipe.hset(key, f"{player}|{self.node}", sockets)
                    pipe.expire(key, PRESENCE_TTL)
                    pipe.sadd(self._tables_key(self.node), table_id)
                pipe.expire(self._tables_key(self.node), PRESENCE_TTL)
                await pipe.execute()
        except (RedisError, OSError):
            self._failed()
            raise
        tables = {table_id for table_id, _ in held}
        for table_id in tables:
            self.forget(table_id)
        if self.restored is not None:
            self.restored(tables)

    async def census(self, table_id: str) -> tuple[set[str], int]:
        now = time.monotonic()
        cached = self._cache.get(table_id)
        if cached is not None and now - cached[0] < self.cache_seconds:
            return set(cached[1]), cached[2]
        try:
            if self._skipping():
                raise ConnectionError("Redis is failing")
            found, watching = await self._census(table_id)
        except (RedisError, OSError):
            self._failed()  # (nothing new if it was open already)
            if cached is None:
                raise
            # Redis away: the last answer, rather than everyone offline on every move.
            return set(cached[1]), cached[2]
        if len(self._cache) >= PRESENCE_CACHE_SIZE:
            self._cache.clear()
        self._cache[table_id] = (now, found, watching)
        return set(found), watching

    async def _census(self, table_id: str) -> tuple[set[str], int]:
        # One round trip: the script reads the table's counts and whether each count's
        # process still has its heartbeat key.
        counts, alive = await self._census_script(
            keys=[self._key(table_id)], args=[self.node_key("")]
        )
        players: set[str] = set()
        watching = 0
        for i in range(0, len(counts), 2):
            player, _, node = _text(counts[i]).partition("|")
            count = int(counts[i + 1])
            # Counted if its process has a heartbeat key, or is this one (alive regardless).
            if count <= 0 or not (alive[i // 2] or node == self.node):
                continue
            if player == WATCHING:
                watching += count
            else:
                players.add(player)
        return players, watching


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


# KEYS[1] the table's presence hash, ARGV[1] the prefix of the processes' heartbeat keys.
# Returns the hash's fields and values, and for each field 1 if its process is alive.
CENSUS = """
local counts = redis.call('HGETALL', KEYS[1])
local alive, known = {}, {}
for i = 1, #counts, 2 do
  local field = counts[i]
  local bar = string.find(field, '|', 1, true)
  local node = bar and string.sub(field, bar + 1) or ''
  if known[node] == nil then
    known[node] = redis.call('EXISTS', ARGV[1] .. node)
  end
  alive[#alive + 1] = known[node]
end
return {counts, alive}
"""
