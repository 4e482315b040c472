"""The computer's process pool (tables/pool.py) on real worker processes: a worker that dies
does not cost the players their computer opponent, and a pool shut down stays shut down and
leaves no process behind."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from playtable.tables.pool import BotPool

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is not alive
        return stat.read().split(") ", 1)[1][0] != "Z"


async def test_a_worker_killed_while_idle_does_not_break_the_next_move() -> None:
    """The out-of-memory killer (or an operator) ends an idle worker between two moves. The
    pool notices on its own and refuses every job from then on; the next move used to fail
    at once with BrokenProcessPool, and every move after it, until the server restarted."""
    pool = BotPool(1)
    try:
        assert await pool.run(os.getpid) != os.getpid()
        worker = await pool.run(os.getpid)
        os.kill(worker, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)  # the pool's manager thread sees the death
        again = await pool.run(os.getpid)
        assert again not in (worker, os.getpid())
        assert await pool.run(sum, [1, 2, 3]) == 6
    finally:
        pool.shutdown()


async def test_shutdown_leaves_no_worker_and_no_pool_starts_after_it() -> None:
    pool = BotPool(2)
    pids = [await pool.run(os.getpid) for _ in range(4)]
    pool.shutdown()
    for pid in set(pids):
        assert not _alive(pid), f"worker {pid} outlived the pool"
    # A late request (a move scheduled as the server closes) gets a clear refusal instead of
    # a new pool that nobody would ever shut down.
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(os.getpid)
    assert not pool.started
