"""What ``playtable serve`` holds in memory once every kind of worker it spawns is running.

    python bench/memory.py [--versus PATH] [--settle 6]

Starts ``playtable serve`` on a SQLite file in a temporary folder, creates a 5x5 Dots and
Boxes table against the hard computer (the computer is red, so it starts thinking: the
computer's pool starts), a second table and its PNG picture (the pictures' worker), and,
``--settle`` seconds later, prints the resident memory (``VmRSS`` of ``/proc``) of the server
and of each worker process it spawned (multiprocessing's resource tracker left out), and their
sum. ``--versus PATH`` does the same for another checkout of the project (a git worktree of an
older commit, its compiled module copied in), run first, then this one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import latency  # bench/latency.py: free ports, loopback

HOST = latency.HOST
FIVE = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}
THREE = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}


def post(base: str, body: dict[str, object]) -> dict[str, str]:
    request = urllib.request.Request(
        base + "/api/tables", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        created: dict[str, str] = json.load(response)
        return created


def resident_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.MULTILINE)
    return int(found.group(1)) if found else 0


def workers(server: int) -> list[int]:
    """The processes ``server`` spawned with multiprocessing, but its resource tracker."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
            command = (status.parent / "cmdline").read_text()
        except OSError:
            continue
        if re.search(rf"^PPid:\s+{server}$", text, re.MULTILINE) and "spawn_main" in command:
            found.append(int(status.parent.name))
    return sorted(found)


def measure(label: str, checkout: str | None, settle: float) -> None:
    port = latency.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
    command = [sys.executable, "-m", "playtable.cli"]
    if checkout is not None:  # its own code first (the editable install's finder comes last)
        env["PYTHONPATH"] = os.path.abspath(checkout)
        command = [
            sys.executable,
            "-c",
            "import sys; from playtable.cli import main; sys.exit(main())",
        ]
    with tempfile.TemporaryDirectory(prefix="playtable-memory-") as folder:
        command += ["serve", "--host", HOST, "--port", str(port), "--log-level", "warning"]
        command += ["--database-url", f"sqlite:///{folder}/memory.sqlite3"]
        process = subprocess.Popen(
            command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            latency.wait_until_up(port, process, 60)
            base = f"http://{HOST}:{port}"
            post(
                base, {"game": "dots", "options": FIVE, "seat": "blue", "opponent": {"bot": "hard"}}
            )
            table = post(base, {"game": "dots", "options": THREE, "seat": "red"})
            with urllib.request.urlopen(f"{base}/t/{table['id']}.png", timeout=60) as picture:
                picture.read()
            time.sleep(settle)
            server = resident_kib(process.pid)
            spawned = {pid: resident_kib(pid) for pid in workers(process.pid)}
        finally:
            process.terminate()
            process.wait(timeout=15)
    each = ", ".join(f"{kib / 1024:.0f}" for kib in spawned.values())
    total = server + sum(spawned.values())
    print(
        f"{label:<14} server {server / 1024:.0f} MB; {len(spawned)} workers: {each} MB; "
        f"in all {total / 1024:.0f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versus", metavar="PATH", help="another checkout, measured first")
    parser.add_argument("--settle", type=float, default=6.0, help="seconds before reading")
    args = parser.parse_args(argv)
    if args.versus:
        measure("base", args.versus, args.settle)
    measure("this checkout", None, args.settle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
