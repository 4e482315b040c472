"""The first act of every worker process the server spawns (the computer's, the analyses',
the pictures'). A module of its own with nothing but the standard library, because a spawned
worker imports the module its initializer lives in: here it costs nothing, where inside
``playtable.tables`` it would load the whole server (the pictures' workers took 75 MB).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

PARENT_CHECK_S = 1.0  # seconds between a worker's checks that its server still runs


def worker_start(server: int, nice: int, idle: bool = False) -> None:
    """Yield the CPU to the bots' workers and the server (``nice``; ``idle``: Linux's
    SCHED_IDLE, below any niceness), and watch the server: a worker outlives a server that
    was killed (SIGKILL, out of memory) because it holds both ends of its own job queue, so
    it would wait for jobs forever, holding its memory. It exits once its parent is gone.

    Ctrl-C is the server's to answer: a terminal sends SIGINT to the whole process group,
    and each idle worker printed a KeyboardInterrupt traceback of twenty lines while the
    server was still shutting down in order (it ends its workers itself, or they follow it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        os.nice(nice)
    if idle and hasattr(os, "SCHED_IDLE"):
        with contextlib.suppress(OSError):  # lowering one's own priority is always allowed
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    threading.Thread(target=_exit_with, args=(server,), name="server-watch", daemon=True).start()


def _exit_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


__all__ = ["PARENT_CHECK_S", "worker_start"]
