"""Moves written to PostgreSQL on the driver's own connections (asyncpg), without
SQLAlchemy's per-statement work (issue 12).

A move is one statement (the compare-and-set and the move's row, ``writes.move_statement``).
Through ``AsyncConnection.execute`` it cost 235 us of CPU: the pool's checkout and return
(about 90 us), the greenlet hop, the execution context and the cursor adapter; on the asyncpg
connection itself, kept checked out, 67 us (`/tmp` probe, 2,000 moves on loopback; the wall
time of a write 472 -> 304 us).

So this writer keeps a few connections of the engine's pool checked out (they have the
engine's set-up: its type codecs, no TLS on loopback) and runs each move on an idle one. The
SQL and the bind processors are SQLAlchemy's, compiled once per statement
(``store/prepared.py``), so a row is stored exactly as ``execute``
would store it.

A connection that fails (the database restarted, a proxy cut it) fails that one write, as
the pool would: it is dropped with every idle one (they are likely as dead), and the next
write opens a fresh connection. Kept connections are renewed after ``RECYCLE_SECONDS``, as
the engine's pool recycles its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from playtable.store.prepared import Compiled

# Writes at once per process: each holds its connection for one round trip (about 0.3 ms
# on loopback), so a few connections carry thousands of moves a second.
WRITE_CONNECTIONS = 4
RECYCLE_SECONDS = 600.0  # as the engine's pool_recycle


@dataclass(frozen=True, slots=True)
class _Held:
    connection: AsyncConnection  # checked out of the engine's pool for as long as it is kept
    driver: Any  # its asyncpg.Connection
    opened: float  # time.monotonic() at checkout


class RawPostgresWriter:
    """Runs single-statement writes on asyncpg connections kept out of the engine's pool."""

    def __init__(self, engine: AsyncEngine, size: int = WRITE_CONNECTIONS) -> None:
        self.engine = engine
        self._slots = asyncio.Semaphore(size)
        self._idle: list[_Held] = []
        self._prepare = Compiled(engine.dialect)
        self._dropping: set[asyncio.Task[None]] = set()

    async def write(self, statement: sa.Executable, values: Mapping[str, Any]) -> bool:
        """Run ``statement`` (autocommit: one statement is its own transaction); ``True`` if
        it wrote exactly one row, ``False`` if it wrote none or the data refused it (a
        constraint: the change contradicts what is stored, nothing of it written)."""
        prepared = self._prepare(statement)
        arguments = prepared.parameters(values)
        async with self._slots:
            held = await self._take()
            try:
                status: str = await held.driver.execute(prepared.sql, *arguments)
            except asyncpg.IntegrityConstraintViolationError:
                self._idle.append(held)  # the statement failed whole; the connection is fine
                return False
            except BaseException:
                # The connection's state is unknown (lost, or cut mid-statement by a
                # cancellation): never reuse it, nor the idle ones if the server went away.
                self._drop(held)
                while self._idle:
                    self._drop(self._idle.pop())
                raise
            self._idle.append(held)
        # "INSERT 0 1", "UPDATE 1": the row count ends the status.
        return status.rsplit(" ", 1)[-1] == "1"

    async def _take(self) -> _Held:
        now = time.monotonic()
        while self._idle:
            held = self._idle.pop()
            if now - held.opened < RECYCLE_SECONDS and not held.driver.is_closed():
                return held
            self._drop(held)
        connection = await self.engine.connect()
        try:
            raw = await connection.get_raw_connection()
        except BaseException:
            await connection.close()
            raise
        return _Held(connection, raw.driver_connection, now)

    def _drop(self, held: _Held) -> None:
        held.driver.terminate()  # at once, whatever it was doing
        task = asyncio.ensure_future(self._release(held.connection))
        self._dropping.add(task)
        task.add_done_callback(self._dropping.discard)

    @staticmethod
    async def _release(connection: AsyncConnection) -> None:
        # Back to the engine's pool as invalid: the pool forgets it and counts it no more.
        try:
            await connection.invalidate()
        finally:
            await connection.close()

    async def close(self) -> None:
        while self._idle:
            await self._idle.pop().connection.close()
        if self._dropping:
            await asyncio.wait(set(self._dropping))


__all__ = ["RawPostgresWriter"]
