"""A thread of the store's own, running calls in the order they are handed over (the store
has one for its SQLite writes and one for its raw reads).

``asyncio.to_thread`` costs about 90 us of CPU a call (the context copied, the executor's
bookkeeping, two futures chained): more than the raw write of a move itself. The store writes
from one task at a time anyway (its batches take turns), and a raw read takes about a tenth of
a millisecond, so one thread that takes the calls from a queue and hands each result back to
the caller's event loop does the same for under 30 us (`/tmp` probe with uvloop: 91 -> 27 us
a call).

A caller that stops waiting (its task cancelled) does not stop the call: it runs to its end
and its result is dropped, as with ``to_thread``; the store shields its commits anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_Call = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # the caller gave up meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Worker:
    """Runs ``function(*args)`` calls one after the other in a thread started on first use."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._start()
        self._queue.put((loop, future, function, args))
        return await future

    def _start(self) -> None:
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                thread.start()
                self._thread = thread

    def _serve(self) -> None:
        while (call := self._queue.get()) is not None:
            loop, future, function, args = call
            result: Any = None
            error: BaseException | None = None
            try:
                result = function(*args)
            except BaseException as raised:  # handed to the caller, whatever it is
                error = raised
            # A closed loop (RuntimeError) has nobody waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, future, result, error)

    def close(self, timeout: float = 10.0) -> None:
        """Stop the thread once the calls already handed over are done."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(timeout)


__all__ = ["Worker"]
