"""The store's write thread: calls in order, results and errors back to the caller."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from playtable.store.worker import Worker

pytestmark = pytest.mark.anyio


async def test_calls_run_in_order_in_one_thread_and_answer_their_callers() -> None:
    worker = Worker("test-writes")
    seen: list[tuple[int, str]] = []

    def record(n: int) -> int:
        seen.append((n, threading.current_thread().name))
        return n * n

    try:
        results = await asyncio.gather(*(worker.run(record, n) for n in range(50)))
        assert results == [n * n for n in range(50)]
        assert [n for n, _ in seen] == list(range(50))
        assert {name for _, name in seen} == {"test-writes"}
    finally:
        worker.close()


async def test_an_error_reaches_its_caller_and_the_thread_serves_on() -> None:
    worker = Worker("test-writes")

    def fail() -> None:
        raise ValueError("UNIQUE constraint failed")

    try:
        with pytest.raises(ValueError, match="UNIQUE"):
            await worker.run(fail)
        assert await worker.run(lambda: "still here") == "still here"
    finally:
        worker.close()


async def test_a_caller_that_stops_waiting_does_not_stop_the_call() -> None:
    """Like asyncio.to_thread: the write is done, its result dropped, the next one served."""
    worker = Worker("test-writes")
    done = threading.Event()

    def slow() -> str:
        time.sleep(0.2)
        done.set()
        return "written"

    try:
        waiting = asyncio.create_task(worker.run(slow))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert await worker.run(lambda: "next") == "next"
        assert done.is_set()
    finally:
        worker.close()
    # closed, it starts again on the next call
    assert await worker.run(lambda: 7) == 7
    worker.close()
