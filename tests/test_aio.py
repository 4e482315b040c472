"""Background tasks stop when told to, although Python 3.11 can lose a cancellation."""

from __future__ import annotations

import asyncio
import sys

import pytest

from playtable.aio import cancel_and_wait

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _swallowing_worker(waiting: list[asyncio.Future[int]]) -> None:
    """As redis-py's reconnect: a write under ``wait_for`` whose result and a cancellation
    arrive in the same turn of the loop, then a wait for a message that never comes."""
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    waiting.append(future)
    await asyncio.wait_for(future, timeout=60)
    await asyncio.sleep(3600)


async def _lost_cancellation() -> tuple[asyncio.Task[None], asyncio.Future[int]]:
    waiting: list[asyncio.Future[int]] = []
    task = asyncio.create_task(_swallowing_worker(waiting))
    while not waiting:
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    waiting[0].set_result(1)
    task.cancel()
    return task, waiting[0]


async def test_a_task_that_lost_its_cancellation_is_stopped_all_the_same() -> None:
    task, _ = await _lost_cancellation()
    if sys.version_info < (3, 12):
        # The defect this guards against is real on this Python: one cancel() is lost.
        await asyncio.sleep(0.2)
        assert not task.done()
    async with asyncio.timeout(5):
        await cancel_and_wait([task], again_after=0.05)
    assert task.cancelled()


async def test_tasks_already_ended_and_failed_ones_are_fine() -> None:
    async def fail() -> None:
        raise ValueError("boom")

    failed = asyncio.create_task(fail())
    finished = asyncio.create_task(asyncio.sleep(0))
    sleeping = asyncio.create_task(asyncio.sleep(3600))
    await asyncio.sleep(0.01)
    await cancel_and_wait([failed, finished, sleeping])
    assert sleeping.cancelled() and finished.done() and isinstance(failed.exception(), ValueError)


async def test_a_task_that_never_ends_is_given_up_on_not_waited_for_forever(
    caplog: pytest.LogCaptureFixture,
) -> None:
    obstinate = True

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if not obstinate:
                    raise

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    async with asyncio.timeout(5):
        await cancel_and_wait([task], again_after=0.05, give_up_after=0.3)
    assert not task.done()
    assert "still running" in caplog.text
    obstinate = False
    await cancel_and_wait([task])
    assert task.cancelled()
