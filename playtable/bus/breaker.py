"""A circuit breaker: once a service fails, stop waiting on it until a probe says it is back.

A Redis that is gone refuses at once, but one that stopped answering (frozen, or a network
that drops packets) makes every command wait for its timeout: without a breaker every move
of the outage would wait that long, once for the presence read and once for the publish.
After a failure the breaker is open: callers skip the service (and take their fallback at
once) while a background task probes it, with back-off and jitter, and closes the breaker
when the probe succeeds.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

from playtable.aio import cancel_and_wait

log = logging.getLogger(__name__)

PROBE_MIN, PROBE_MAX = 0.25, 2.0  # seconds between probes (doubling)


class Breaker:
    def __init__(self, name: str, probe: Callable[[], Awaitable[object]]) -> None:
        self.name = name
        self._probe = probe
        self._prober: asyncio.Task[None] | None = None

    @property
    def open(self) -> bool:
        """Whether the service failed and has not answered a probe since."""
        return self._prober is not None

    def trip(self) -> None:
        """The service failed: skip it until a probe succeeds."""
        if self._prober is None:
            log.warning("%s: failing; skipped until it answers again", self.name)
            self._prober = asyncio.get_running_loop().create_task(self._probing())

    async def _probing(self) -> None:
        delay = PROBE_MIN
        while True:
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
            try:
                await self._probe()
            except asyncio.CancelledError:
                raise
            except Exception:
                delay = min(delay * 2, PROBE_MAX)
                continue
            log.warning("%s: answers again", self.name)
            self._prober = None
            return

    async def close(self) -> None:
        prober, self._prober = self._prober, None
        if prober is not None:
            await cancel_and_wait([prober])


__all__ = ["Breaker"]
