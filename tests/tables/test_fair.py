"""Fair turns at the computer's pool (tables/fair.py), on a real one-worker process pool."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from playtable.tables import TableService
from playtable.tables.fair import FairPool
from playtable.tables.pool import BotPool

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_one_address_with_many_jobs_does_not_queue_another_out() -> None:
    """Six jobs from one address, then one from another player: the player's runs third
    (after the running one and one more), not last."""
    pool = BotPool(1)
    pool.start()
    fair = FairPool(pool)
    finished: list[str] = []

    async def job(owner: str, k: int) -> None:
        await fair.run(owner, time.sleep, 0.15)
        finished.append(f"{owner} {k}")

    try:
        await fair.run("warm-up", time.sleep, 0)  # the worker is up
        flood = [asyncio.create_task(job("flood", k)) for k in range(6)]
        await asyncio.sleep(0.05)
        player = asyncio.create_task(job("player", 0))
        await asyncio.gather(*flood, player)
        assert finished.index("player 0") == 2, finished
    finally:
        pool.shutdown()


async def test_a_cancelled_wait_gives_its_turn_away_and_a_running_job_keeps_its_worker() -> None:
    pool = BotPool(1)
    pool.start()
    fair = FairPool(pool)
    try:
        await fair.run("warm-up", time.sleep, 0)
        started = time.perf_counter()
        running = asyncio.create_task(fair.run("a", time.sleep, 0.4))
        await asyncio.sleep(0.05)
        queued = asyncio.create_task(fair.run("b", time.sleep, 5))
        await asyncio.sleep(0.05)
        running.cancel()  # the worker still runs it: its turn is not over
        queued.cancel()  # never started: dropped
        for task in (running, queued):
            with pytest.raises(asyncio.CancelledError):
                await task
        assert fair.waiting == 0
        await fair.run("c", time.sleep, 0)
        # c waited for a's job to end in the worker, and not for b's five seconds.
        assert 0.35 < time.perf_counter() - started < 4
    finally:
        pool.shutdown()


async def test_with_two_workers_one_address_never_holds_both() -> None:
    """Another player's job starts at once, before any of the flood's jobs is over."""
    pool = BotPool(2)
    pool.start()
    fair = FairPool(pool)
    finished: list[str] = []

    async def job(owner: str, k: int, seconds: float) -> None:
        await fair.run(owner, time.sleep, seconds)
        finished.append(f"{owner} {k}")

    try:
        await asyncio.gather(fair.run("warm-up", time.sleep, 0.2), fair.run("up", time.sleep, 0.2))
        flood = [asyncio.create_task(job("flood", k, 0.5)) for k in range(4)]
        await asyncio.sleep(0.05)
        player = asyncio.create_task(job("player", 0, 0))
        await asyncio.gather(*flood, player)
        assert finished[0] == "player 0", finished
    finally:
        pool.shutdown()


async def test_the_pools_workers_yield_the_cpu_to_the_server_in_order(
    service: TableService,
) -> None:
    """The server's event loop comes first, then the computer's thinking, then a requested
    analysis, then the background analysis: each pool's workers are niced accordingly, and
    the background's only run when a core would otherwise be idle (SCHED_IDLE)."""
    server = os.nice(0)
    pools = [service.computer.pool, service.analyses.pool, service.analyses.background]
    try:
        added = [await pool.run(os.nice, 0) - server for pool in pools]
        policies = [await pool.run(os.sched_getscheduler, 0) for pool in pools]
    finally:
        await service.close()
    assert added == [min(server + n, 19) - server for n in (15, 19, 19)]  # 19 at most
    assert policies == [os.SCHED_OTHER, os.SCHED_OTHER, os.SCHED_IDLE]
