"""Per-address budgets on what costs the server: reading a table, creating one, offers, and
analyses.

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


class Budgets:
    def __init__(self, limits: Limits, redis_url: str | None = None, prefix: str = "") -> None:
        self.items: dict[Budget, RateLimitItem] = {
            Budget.READS: RateLimitItemPerMinute(limits.reads_per_minute),
            Budget.TABLES: RateLimitItemPerMinute(limits.tables_per_minute),
            Budget.OFFERS: RateLimitItemPerMinute(limits.offers_per_minute),
            Budget.ANALYSES: RateLimitItemPerMinute(limits.analyses_per_minute),
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
        limiter = self._local if self._breaker.open else self._limiter
        try:
            allowed = await limiter.hit(item, budget.value, address)
        except Exception:
            logger.warning("budgets: Redis unavailable, counting here", exc_info=True)
            self._breaker.trip()
            limiter = self._local
            allowed = await limiter.hit(item, budget.value, address)
        if allowed:
            return None
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


async def over_budget(connection: HTTPConnection, budget: Budget) -> int | None:
    """Spend one unit of ``budget`` for the connection's client address; the seconds to
    wait if it has none left (``None``: go ahead)."""
    address = connection.client.host if connection.client else "unknown"
    budgets: Budgets = connection.app.state.budgets
    return await budgets.take(budget, address)


__all__ = ["Budget", "Budgets", "over_budget"]
