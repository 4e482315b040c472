"""The process pool the computer players and the analysis run in.

Bots and the solver are CPU-bound pure functions of a record (:func:`playtable.ai.choose_move`,
:mod:`playtable.ai.analysis`): they run in a :class:`~concurrent.futures.ProcessPoolExecutor`
so the event loop never waits for them. The pool is created on first use and shut down with
the service.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from playtable.ai import DEFAULT_BUDGET_S

T = TypeVar("T")


@dataclass(frozen=True)
class BotSettings:
    """How much the computer may think. Defaults come from the environment:
    ``PLAYTABLE_BOT_WORKERS`` (pool size, default 1), ``PLAYTABLE_BOT_BUDGET`` (seconds per
    bot move), ``PLAYTABLE_ANALYSIS_BUDGET`` (seconds per analysed position) and
    ``PLAYTABLE_ANALYSIS_TOTAL`` (seconds per analysis request)."""

    workers: int = 1
    move_budget_s: float = DEFAULT_BUDGET_S
    position_budget_s: float = 1.0
    analysis_total_s: float = 10.0

    @classmethod
    def from_env(cls) -> BotSettings:
        env = os.environ
        return cls(
            workers=max(1, int(env.get("PLAYTABLE_BOT_WORKERS") or 1)),
            move_budget_s=float(env.get("PLAYTABLE_BOT_BUDGET") or DEFAULT_BUDGET_S),
            position_budget_s=float(env.get("PLAYTABLE_ANALYSIS_BUDGET") or 1.0),
            analysis_total_s=float(env.get("PLAYTABLE_ANALYSIS_TOTAL") or 10.0),
        )


class BotPool:
    """A lazily started process pool; :meth:`run` awaits a function call in a worker."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        if self._executor is None:
            # Spawned, not forked: the server has threads (the store's), and a fork copies
            # their locks in whatever state they are.
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def shutdown(self) -> None:
        if self._executor is not None:
            # Work still queued is dropped; a worker busy with a move finishes it alone.
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
