"""Stopping background tasks for certain, on Python 3.11 too.

On Python 3.11, ``asyncio.wait_for`` returns the inner result and drops a cancellation that
arrives in the same turn of the loop as that result (CPython gh-86296, fixed in 3.12). redis-py
writes every command under ``wait_for`` while a socket timeout applies, its pub/sub reconnect
included, and asyncpg times its statements the same way: one ``cancel()`` of a task that is
just then reconnecting can be lost. The task goes on (waiting for the next pub/sub message,
forever on a quiet channel) and whoever awaited it waits with it: a CI run hung for over an
hour in a bus's ``close()`` that way. A second cancellation is never lost in the same way, so
:func:`cancel_and_wait` cancels again until the tasks have ended.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)

AGAIN_AFTER = 0.5  # seconds before a task that outlived its cancellation is cancelled again
GIVE_UP_AFTER = 30.0  # seconds; a task that ignores cancellation this long is left behind


async def cancel_and_wait(
    tasks: Iterable[asyncio.Future[Any]],
    *,
    again_after: float = AGAIN_AFTER,
    give_up_after: float = GIVE_UP_AFTER,
) -> None:
    """Cancel ``tasks`` and return once every one has ended, cancelling again the ones that
    swallowed their cancellation; after ``give_up_after`` seconds, log the rest and return."""
    tasks = list(tasks)
    pending = {task for task in tasks if not task.done()}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + give_up_after
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=again_after)
        if pending and loop.time() >= deadline:
            log.error(
                "tasks still running %.0f s after their cancellation: %s",
                give_up_after,
                sorted(map(repr, pending)),
            )
            break
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: a task that failed earlier is not reported again


__all__ = ["cancel_and_wait"]
