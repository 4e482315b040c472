"""Per-address budgets on what costs the server: reading a table, creating one, offers, and
analyses; and each seat's quick messages (counted per seat).

Each budget is a number a minute per client address, counted with the ``limits`` library
(sliding window counters). With Redis configured the counters live there, shared by every
process, so N processes do not give one address N times its budget; without Redis they live
in this process. If Redis stops answering, the counting falls back to this process's memory
(a budget is a courtesy to everyone else, never a reason to refuse a player outright), at
once for every request until a probe finds Redis back (``bus/breaker.py``).
"""

from __future__ import annotations

import enum
import functools
import logging
import math
import time
from collections.abc import Awaitable, Callable

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from starlette.requests import HTTPConnection

from playtable.bus.breaker import Breaker
from playtable.web.limits import Limits

logger = logging.getLogger(__name__)

COMMAND_TIMEOUT = 1.0  # seconds a count may wait for Redis


class Budget(enum.Enum):
    READS = "reads"  # joins of a socket, table pages, the analysis' stored values
    TABLES = "tables"  # new tables, rematches included
    OFFERS = "offers"  # draw offers and take-back requests (the computer thinks about each)
    ANALYSES = "analyses"  # best-move requests (the solver at work on request)
    # A seat's quick messages (counted per table and seat, not per address): every process
    # of the site together, where each process's own allowance (connections.py) would give
    # a player with sockets on N processes N times as many.
    QUICK_MESSAGES = "quick_messages"
    # The solver's time those requests took, in tenths of a second: a count alone lets one
    # address keep a worker solving without a break (30 requests a minute of 2 s each).
    SOLVER_TIME = "solver_time"


#: Units of :attr:`Budget.SOLVER_TIME` in a second of the solver's time.
SOLVER_UNITS_A_SECOND = 10


class Budgets:
    def __init__(self, limits: Limits, redis_url: str | None = None, prefix: str = "") -> None:
        self.items: dict[Budget, RateLimitItem] = {
            Budget.READS: RateLimitItemPerMinute(limits.reads_per_minute),
            Budget.TABLES: RateLimitItemPerMinute(limits.tables_per_minute),
            Budget.OFFERS: RateLimitItemPerMinute(limits.offers_per_minute),
            Budget.ANALYSES: RateLimitItemPerMinute(limits.analyses_per_minute),
            Budget.QUICK_MESSAGES: RateLimitItemPerMinute(limits.quick_messages_per_minute),
            Budget.SOLVER_TIME: RateLimitItemPerMinute(
                max(1, round(limits.solver_seconds_per_minute * SOLVER_UNITS_A_SECOND))
            ),
        }
        storage: Storage = (
            RedisStorage(
                redis_url,
                implementation="redispy",
                key_prefix=f"{prefix}limits",
                # A Redis that stopped answering fails the count in a second, not never.
                socket_timeout=COMMAND_TIMEOUT,
                socket_connect_timeout=COMMAND_TIMEOUT,
            )
            if redis_url
            else MemoryStorage()
        )
        self.shared = redis_url is not None
        self._limiter = SlidingWindowCounterRateLimiter(storage)
        self._local = SlidingWindowCounterRateLimiter(MemoryStorage())
        # While Redis fails, counting goes to memory at once, until a probe finds it back.
        self._breaker = Breaker("budgets' Redis", functools.partial(_probe, storage))

    async def take(self, budget: Budget, address: str) -> int | None:
        """Spend one unit of ``budget`` for ``address``: ``None`` if allowed, else the whole
        seconds to wait."""
        item = self.items[budget]
        allowed = await self._counted(lambda limiter: limiter.hit(item, budget.value, address))
        return None if allowed else await self._wait(budget, address)

    async def left(self, budget: Budget, address: str) -> int | None:
        """``None`` if ``address`` has some of ``budget`` left, else the whole seconds to
        wait; spends nothing."""
        item = self.items[budget]
        allowed = await self._counted(lambda limiter: limiter.test(item, budget.value, address))
        return None if allowed else await self._wait(budget, address)

    async def spend(self, budget: Budget, address: str, units: int) -> None:
        """Spend ``units`` of ``budget`` for ``address``, or what is left of it if less (a
        job that outran the budget used it all)."""
        item = self.items[budget]

        async def count(limiter: SlidingWindowCounterRateLimiter) -> bool:
            stats = await limiter.get_window_stats(item, budget.value, address)
            cost = min(units, stats.remaining)
            return cost <= 0 or await limiter.hit(item, budget.value, address, cost=cost)

        await self._counted(count)

    async def _counted(
        self, count: Callable[[SlidingWindowCounterRateLimiter], Awaitable[bool]]
    ) -> bool:
        """``count`` on the shared counters, or on this process's while Redis fails."""
        if self._breaker.open:
            return await count(self._local)
        try:
            return await count(self._limiter)
        except Exception:
            logger.warning("budgets: Redis unavailable, counting here", exc_info=True)
            self._breaker.trip()
            return await count(self._local)

    async def _wait(self, budget: Budget, address: str) -> int:
        """The whole seconds until ``address`` has some of ``budget`` again."""
        item = self.items[budget]
        limiter = self._local if self._breaker.open else self._limiter
        try:
            stats = await limiter.get_window_stats(item, budget.value, address)
            reset = stats.reset_time - time.time()
        except Exception:
            reset = 60.0 / max(1, item.amount)
        return max(1, math.ceil(reset))

    async def close(self) -> None:
        await self._breaker.close()


async def _probe(storage: Storage) -> None:
    if not await storage.check():
        raise ConnectionError("the budgets' Redis does not answer")


async def over_budget(connection: HTTPConnection, budget: Budget, units: int = 1) -> int | None:
    """Spend ``units`` of ``budget`` for the connection's client address (a request that
    reads ``units`` tables); the seconds to wait if it has none left (``None``: go ahead,
    having spent what was left if that was less than ``units``)."""
    address = connection.client.host if connection.client else "unknown"
    budgets: Budgets = connection.app.state.budgets
    wait = await budgets.take(budget, address)
    if wait is None and units > 1:
        await budgets.spend(budget, address, units - 1)
    return wait


__all__ = ["SOLVER_UNITS_A_SECOND", "Budget", "Budgets", "over_budget"]
