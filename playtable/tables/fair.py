"""Fair turns at a worker pool: no one address can queue the others out.

The computer's pool has a few workers. Handed straight to the pool, jobs run first come,
first served: one address with thirty tables against the computer (each move it makes asks
for a reply) keeps every worker busy, and another player's turn waits behind all of them
until its cap plays the weak quick move. :class:`FairPool` hands the pool at most as many
jobs as it has workers; the others wait here, one queue per owner (the address that asked),
and a freed worker goes to the next owner in turn (round robin), so a player with one table
waits for at most one job of each other owner, however many they queued. With more than one
worker, no owner holds them all: someone else's job starts at once.

A job's worker is held until the job is really over: waiting for the result can be
cancelled (the computer's cap), but a job already running in a process cannot, so its slot
is freed only when the process is done with it.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from playtable.tables.pool import BotPool

T = TypeVar("T")

#: Who asked for the work being done: the client address of the request or socket whose
#: action is being handled (set by the web layer), else ``None``.
requester: contextvars.ContextVar[str | None] = contextvars.ContextVar("requester", default=None)


class FairPool:
    """Runs jobs in ``pool``, at most one per worker at once, turns shared among owners."""

    def __init__(self, pool: BotPool) -> None:
        self.pool = pool
        self._running = 0
        self._by_owner: Counter[str] = Counter()  # jobs in the pool per owner
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def per_owner(self) -> int:
        """Workers one owner may hold at once: all but one (so that someone else's job
        starts at once), or the only one."""
        return max(1, self.pool.workers - 1)

    @property
    def waiting(self) -> int:
        return sum(len(queue) for queue in self._waiting.values())

    async def run(self, owner: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker, when ``owner``'s turn comes."""
        await self._turn(owner)
        try:
            job: Future[T] = self.pool.submit(function, *args)
        except BaseException:
            self._free(owner)
            raise
        loop = asyncio.get_running_loop()
        job.add_done_callback(lambda _: loop.call_soon_threadsafe(self._free, owner))
        return await self.pool.result(job)

    def _may_start(self, owner: str) -> bool:
        return self._running < self.pool.workers and self._by_owner[owner] < self.per_owner

    def _start(self, owner: str) -> None:
        self._running += 1
        self._by_owner[owner] += 1

    async def _turn(self, owner: str) -> None:
        if owner not in self._waiting and self._may_start(owner):
            self._start(owner)
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(owner, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._free(owner)  # given the worker just as the wait was cancelled: pass it on
            else:
                self._forget(owner, turn)
            raise

    def _forget(self, owner: str, turn: asyncio.Future[None]) -> None:
        queue = self._waiting.get(owner)
        if queue is not None:
            if turn in queue:
                queue.remove(turn)
            if not queue:
                del self._waiting[owner]

    def _free(self, owner: str) -> None:
        self._running -= 1
        self._by_owner[owner] -= 1
        if self._by_owner[owner] <= 0:
            del self._by_owner[owner]
        # The owners in turn (the longest waiting first), each at most once a round.
        for candidate in list(self._waiting):
            if self._running >= self.pool.workers:
                return
            if not self._may_start(candidate):
                continue
            queue = self._waiting[candidate]
            while queue and queue[0].done():
                queue.popleft()  # cancelled while waiting
            if queue:
                self._start(candidate)
                queue.popleft().set_result(None)
            if queue:
                self._waiting.move_to_end(candidate)  # the next turn is someone else's
            else:
                del self._waiting[candidate]


__all__ = ["FairPool", "requester"]
