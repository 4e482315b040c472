"""The process pool the computer players and the analysis run in.

Bots and the solver are CPU-bound pure functions of a record (:func:`playtable.ai.choose_move`,
:mod:`playtable.ai.analysis`): they run in a :class:`~concurrent.futures.ProcessPoolExecutor`
so the event loop never waits for them. The pool is created on first use and shut down with
the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from playtable import settings
from playtable.ai import DEFAULT_BUDGET_S, warm_up
from playtable.worker_process import worker_start

T = TypeVar("T")
log = logging.getLogger(__name__)

DEFAULT_CAP_S = 1.8  # the promise is an answer within 2 s; the rest is the commit and the bus


@dataclass(frozen=True)
class BotSettings:
    """How much the computer may think. Defaults come from the environment:
    ``PLAYTABLE_BOT_WORKERS`` (pool size, default 2 where there are two cores or more, so
    that one address's tables never hold every worker: ``tables/fair.py``),
    ``PLAYTABLE_BOT_BUDGET`` (seconds a bot may think, counted from the start of its turn),
    ``PLAYTABLE_BOT_CAP`` (seconds from the start of its turn after which the service stops
    waiting for the pool and plays the quick move itself), ``PLAYTABLE_ANALYSIS_WORKERS``
    (size of the analysis' own pool for best-move requests, default 2 on two cores or more,
    so that one address's long request never holds up another's; niced, so an analysis never
    holds up a bot's move; the background analysis has one more),
    ``PLAYTABLE_ANALYSIS_BUDGET`` (seconds the solver may spend on a draw offer; a best-move
    request gets twice this) and
    ``PLAYTABLE_ANALYSIS_TOTAL`` (read for older settings: no request solves a whole game now).

    The background analysis of finished games (``tables/analysis_jobs.py``):
    ``PLAYTABLE_ANALYSIS_PROVE`` (seconds the solver may spend on one position),
    ``PLAYTABLE_ANALYSIS_ESTIMATE`` (seconds of search for an estimate where no proof came),
    ``PLAYTABLE_ANALYSIS_SLICE`` (seconds of work between two stores of values),
    ``PLAYTABLE_ANALYSIS_PROVING`` (seconds per game after which only estimates are made)
    and ``PLAYTABLE_ANALYSIS_RETRY`` (seconds for the second try at an estimated endgame)."""

    workers: int = 1
    analysis_workers: int = 1
    move_budget_s: float = DEFAULT_BUDGET_S
    move_cap_s: float = DEFAULT_CAP_S
    position_budget_s: float = 1.0
    analysis_total_s: float = 10.0
    background_prove_s: float = 3.0
    estimate_s: float = 0.25
    slice_s: float = 1.5
    background_total_s: float = 120.0
    background_retry_s: float = 6.0

    @classmethod
    def from_env(cls) -> BotSettings:
        """The settings of the environment; raises :class:`SettingError` for a value they
        cannot take (a count below 1, a time not above 0, a budget not below the cap)."""

        def seconds(name: str, default: float) -> float:
            return settings.number(name, default, above=0)

        made = cls(
            workers=settings.whole_number("PLAYTABLE_BOT_WORKERS", default_workers(), minimum=1),
            analysis_workers=settings.whole_number(
                "PLAYTABLE_ANALYSIS_WORKERS", default_workers(), minimum=1
            ),
            move_budget_s=seconds("PLAYTABLE_BOT_BUDGET", DEFAULT_BUDGET_S),
            move_cap_s=seconds("PLAYTABLE_BOT_CAP", DEFAULT_CAP_S),
            position_budget_s=seconds("PLAYTABLE_ANALYSIS_BUDGET", 1.0),
            analysis_total_s=seconds("PLAYTABLE_ANALYSIS_TOTAL", 10.0),
            background_prove_s=seconds("PLAYTABLE_ANALYSIS_PROVE", 3.0),
            estimate_s=seconds("PLAYTABLE_ANALYSIS_ESTIMATE", 0.25),
            slice_s=seconds("PLAYTABLE_ANALYSIS_SLICE", 1.5),
            background_total_s=seconds("PLAYTABLE_ANALYSIS_PROVING", 120.0),
            background_retry_s=seconds("PLAYTABLE_ANALYSIS_RETRY", 6.0),
        )
        if made.move_budget_s >= made.move_cap_s:
            # Every move would be the quick one, played when the cap is reached.
            raise settings.SettingError(
                f"PLAYTABLE_BOT_BUDGET ({made.move_budget_s:g} s) must be below "
                f"PLAYTABLE_BOT_CAP ({made.move_cap_s:g} s), after which the server "
                "plays its quick move instead"
            )
        return made


def default_workers() -> int:
    return 2 if (os.cpu_count() or 1) >= 2 else 1


class BotPool:
    """A lazily started process pool; :meth:`run` awaits a function call in a worker."""

    def __init__(self, workers: int, nice: int = 0, *, idle: bool = False) -> None:
        self.workers = workers
        self.nice = nice  # added to the workers' niceness: the analysis' pool yields the CPU
        self.idle = idle  # the workers only run when the CPU would otherwise be idle
        self._executor: ProcessPoolExecutor | None = None
        self._warm_ups: list[Future[int]] = []
        self._closed = False  # shut down for good: no new pool starts

    def _started(self) -> ProcessPoolExecutor:
        """The pool, with every worker on its way: the executor spawns a process per job
        submitted while none is idle, so started by its first job alone it would have one
        worker, and a second job at once would wait for a spawn (a best-move request from
        a link, without the analysis page, did). One warm-up job per worker spawns them all."""
        if self._closed:
            raise RuntimeError("the computer's pool is shut down")
        if self._executor is None:
            # Spawned, not forked: the server has threads (the store's), and a fork copies
            # their locks in whatever state they are.
            executor = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=functools.partial(worker_start, os.getpid(), self.nice, self.idle),
            )
            self._warm_ups = [executor.submit(warm_up) for _ in range(self.workers)]
            for job in self._warm_ups:
                job.add_done_callback(self._log_failure)
            self._executor = executor
        return self._executor

    def _log_failure(self, future: Future[Any]) -> None:
        """A warm-up that failed, but not one stopped by the pool's shutdown."""
        if self._closed or future.cancelled() or future.exception() is None:
            return
        log.warning("bot worker warm-up failed", exc_info=future.exception())

    @property
    def started(self) -> bool:
        return self._executor is not None

    def start(self) -> None:
        """Start every worker now, if the pool is not running yet: spawning a process and
        importing the bots takes a good part of a second (more on a busy machine), which
        the first move would otherwise spend. Returns at once; the workers come up alone."""
        self._started()

    async def ready(self, timeout: float) -> bool:
        """Start the pool if it is not running, and wait (at most ``timeout`` seconds) until
        a worker is up: at once when one is. A job given to a pool still spawning waits for
        the spawn, which would come out of its thinking time. True if it had to wait."""
        self._started()
        if any(job.done() for job in self._warm_ups):
            return False
        loop = asyncio.get_running_loop()
        up = asyncio.Event()

        def tell(_job: Future[int]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(up.set)

        for job in self._warm_ups:
            job.add_done_callback(tell)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(up.wait(), timeout)
        return True

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker. Cancelling the wait drops the job if it is still
        in the pool's own queue (the pool hands one job more than it has workers on to
        them); a job already handed on runs to its end and its result is lost."""
        return await self.result(self.submit(function, *args))

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        """Hand ``function(*args)`` to the pool; the job as a concurrent future. A pool that
        broke while idle (a worker killed between two jobs: the pool notices alone and
        refuses every job from then on) is replaced, once, by a new one."""
        executor = self._started()
        try:
            return executor.submit(function, *args)
        except BrokenProcessPool:
            log.warning("a computer worker died while idle: starting a new pool")
            self._drop(executor)
            return self._started().submit(function, *args)

    async def result(self, job: Future[T]) -> T:
        """The result of a job of :meth:`submit` (cancelling the wait cancels the job if it
        has not started)."""
        executor = self._executor
        try:
            return await asyncio.wrap_future(job)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): this pool refuses every job from now on,
            # so the next one gets a new pool.
            if executor is not None:
                self._drop(executor)
            raise

    def _drop(self, executor: ProcessPoolExecutor) -> None:
        """Forget a broken pool (if it is still ours) so that the next job starts a new one."""
        if self._executor is executor:
            self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        """Stop the pool for good (the server is closing): work still queued is dropped, a
        worker busy with a search is stopped (nobody waits for its answer any more), and
        the pool's queues are closed before the server exits, so that no process is left
        behind and Python's resource tracker finds no semaphore leaked."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        stop_now(executor)


def stop_now(executor: ProcessPoolExecutor) -> None:
    """Stop ``executor`` at once: work still queued is dropped, a busy worker is stopped
    (nobody waits for its answer any more), and the pool's queues are closed before the
    server exits, so that no process is left behind and Python's resource tracker finds no
    semaphore leaked."""
    workers = list((executor._processes or {}).values())
    # The pool's own thread closes its queues and joins the workers once it sees them
    # gone; shutdown() forgets it, so it is kept here to wait for it. A terminated worker
    # ends at once (SIGTERM's default action), so these waits take milliseconds.
    manager: threading.Thread | None = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(timeout=5)
    if manager is not None:
        manager.join(timeout=5)
