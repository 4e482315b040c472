"""What an operator running Playtable meets, found by running it as one (make run, the
settings, the migrations, the command-line tools): each test runs the real command or the
real server and fails on what was wrong before its fix (a traceback where one line was due,
a setting taken silently in a way the docs say it is not)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.nodes import SECRET, Node, request


class _Server(Node):
    """``playtable serve`` in a session of its own, as a terminal runs it, so that Ctrl-C
    can be sent the way a terminal does: to the whole process group."""

    def launch(self) -> None:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
        with open(self.workdir / f"{self.name}.log", "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "playtable.cli", "serve", "--port", str(self.port)],
                cwd=self.workdir,
                env={**clean, "PLAYTABLE_SECRET": SECRET, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def signal_group(self, number: int, timeout: float = 30) -> int:
        """Send ``number`` to the process group (Ctrl-C's way); the exit status."""
        assert self.process is not None
        os.killpg(self.process.pid, number)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise


def test_ctrl_c_stops_the_site_in_order_without_a_worker_traceback(tmp_path: Path) -> None:
    """`make run`, a game against the computer and a picture, then Ctrl-C: the terminal
    showed four KeyboardInterrupt tracebacks of twenty lines (the computer's and the
    pictures' workers, idle on their job queues, got the terminal's SIGINT too)."""
    server = _Server(tmp_path, {}, "serve").start()
    body = {"game": "dots", "options": {"rows": 2, "cols": 2}, "seat": "blue"}
    status, table = request(server, "POST", "/api/tables", {**body, "opponent": {"bot": "easy"}})
    assert status == 201, table
    deadline = time.monotonic() + 20
    while request(server, "GET", f"/api/tables/{table['id']}")[1]["ply"] < 1:
        assert time.monotonic() < deadline, "the computer never moved"
        time.sleep(0.1)
    assert request(server, "GET", f"/t/{table['id']}.png")[0] == 200
    assert server.signal_group(signal.SIGINT) == 0  # what Ctrl-C in the terminal does
    time.sleep(1.5)  # a worker left behind would have written by now
    log = server.log()
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log
    # The games are kept: the same file serves them again.
    again = _Server(tmp_path, {}, "again").start()
    status, kept = request(again, "GET", f"/api/tables/{table['id']}")
    # uvicorn ends by raising the signal it caught again, once shut down in order.
    assert again.signal_group(signal.SIGTERM) in (0, -signal.SIGTERM)
    assert status == 200 and kept["ply"] >= 1, kept
