"""`playtable replay` against a replayer on OpenSpiel's C++ Dots and Boxes, whole processes.

    python bench/replay.py [--games 3000] [--rounds 5] [--seed 1] [--playtable CMD]

What it measures: the same file of ``--games`` random 5x5 Dots and Boxes records (JSON Lines,
each a whole game of 60 moves, made here with ``--seed``) is fed on standard input to two
commands, each run as a new process from start to exit:

- ``playtable replay`` (the console script of this environment, or ``--playtable``), which
  reads every record, replays it under the rules and prints its result line;
- ``python bench/openspiel_replay.py``, which reads the same text, turns every move text into
  OpenSpiel's action and applies it to ``pyspiel``'s ``dots_and_boxes`` state, and prints the
  same result line.

Both sides pay for starting the interpreter, their imports, parsing JSON, the moves and
writing the results, into a file. They run as from a user's shell: without
``PYTHONDONTWRITEBYTECODE``, so the first (checking) run leaves the bytecode of what each imports,
as an install does. The two commands alternate for ``--rounds`` rounds; each
run's wall time and its CPU time (user + system of the child, from ``wait4``) are taken, and
the figures are the medians. Before timing, the outputs of both are compared line by line:
the same plies, scores, winners and legal moves, or the bench stops. The ratio is OpenSpiel's
time over ours: above 1.0, ``playtable replay`` is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The commands run as from a user's shell: Python keeps the bytecode of what it imports (an
# environment that says PYTHONDONTWRITEBYTECODE would compile every module in every run).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ROWS = COLS = 5
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def random_records(games: int, seed: int) -> str:
    """``games`` random whole games on the 5x5 board, as JSON Lines."""
    lines = [
        f"{LETTERS[c]}{r + 1}-{LETTERS[c + 1]}{r + 1}" for r in range(ROWS + 1) for c in range(COLS)
    ]
    lines += [
        f"{LETTERS[c]}{r + 1}-{LETTERS[c]}{r + 2}" for r in range(ROWS) for c in range(COLS + 1)
    ]
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        moves = lines[:]
        rng.shuffle(moves)
        record = {"game": "dots", "options": {"rows": ROWS, "cols": COLS}, "moves": moves}
        out.append(json.dumps(record) + "\n")
    return "".join(out)


@dataclass
class Side:
    label: str
    command: list[str]
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def run(self, records: Path, output: Path) -> None:
        """One whole run of the command: records on stdin, results into ``output``."""
        with records.open("rb") as stdin, output.open("wb") as stdout:
            start = time.perf_counter()
            proc = subprocess.Popen(self.command, stdin=stdin, stdout=stdout, env=CHILD_ENV)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"{self.label}: {shlex.join(self.command)} exited {proc.returncode}")
        self.wall.append(wall)
        self.cpu.append(usage.ru_utime + usage.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--playtable",
        default=str(Path(sys.executable).with_name("playtable")) + " replay",
        help="the command that replays records (default: this environment's playtable replay)",
    )
    parser.add_argument(
        "--baseline",
        default="",
        metavar="REV",
        help="also run `playtable replay` as it was at this git revision (e.g. b9d1c26)",
    )
    args = parser.parse_args(argv)
    games = min(max(args.games, 1), 100_000)
    rounds = min(max(args.rounds, 1), 50)
    ours = Side("playtable replay", shlex.split(args.playtable))
    peer = Side("openspiel replayer", [sys.executable, str(ROOT / "bench/openspiel_replay.py")])

    from importlib.metadata import version

    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"open_spiel: {version('open_spiel')}")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    dropped = " (PYTHONDONTWRITEBYTECODE dropped)" if len(CHILD_ENV) < len(os.environ) else ""
    print(f"environment: this one{dropped}")
    print(f"ours: {shlex.join(ours.command)}")
    print(f"peer: {shlex.join(peer.command)}")
    sides = [ours, peer]
    with tempfile.TemporaryDirectory(prefix="playtable-replay-") as tmp:
        if args.baseline:
            sides.append(Side(f"playtable replay at {args.baseline}", baseline(args.baseline, tmp)))
            print(f"before: {shlex.join(sides[-1].command)}")
        records = Path(tmp) / "records.jsonl"
        records.write_text(random_records(games, args.seed), encoding="utf-8")
        print(
            f"records: {games} random {ROWS}x{COLS} games of 60 moves, seed {args.seed}, "
            f"{records.stat().st_size} bytes"
        )
        outputs = {side.label: Path(tmp) / f"{i}.jsonl" for i, side in enumerate(sides)}
        for side in sides:  # the check run, which also warms the file cache
            side.run(records, outputs[side.label])
        a = outputs[ours.label].read_text().splitlines()
        for other in sides[1:]:
            b = outputs[other.label].read_text().splitlines()
            if len(a) != games or a != b:
                diff = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), 0)
                raise SystemExit(f"{other.label} differs (line {diff}): {a[diff]!r} / {b[diff]!r}")
        print(f"check: all printed the same {games} result lines")
        for side in sides:
            side.wall.clear(), side.cpu.clear()
        for _ in range(rounds):
            for side in sides:
                side.run(records, outputs[side.label])
    print(f"rounds: {rounds}, alternating; medians of whole runs")
    for side in sides:
        print(
            f"{side.label}: wall {statistics.median(side.wall):.3f} s, "
            f"cpu {statistics.median(side.cpu):.3f} s "
            f"({games / statistics.median(side.cpu):.0f} records per cpu s)"
        )
    wall = statistics.median(peer.wall) / statistics.median(ours.wall)
    cpu = statistics.median(peer.cpu) / statistics.median(ours.cpu)
    print(f"ratio openspiel/playtable wall time: {wall:.2f}x (above 1: playtable faster)")
    print(f"ratio openspiel/playtable cpu time: {cpu:.2f}x")
    if args.baseline:
        before = sides[2]
        wall = statistics.median(peer.wall) / statistics.median(before.wall)
        cpu = statistics.median(peer.cpu) / statistics.median(before.cpu)
        print(f"ratio openspiel/playtable at {args.baseline}: wall {wall:.2f}x, cpu {cpu:.2f}x")
    return 0


def baseline(revision: str, folder: str) -> list[str]:
    """A command running ``playtable replay`` from the package as it was at ``revision``
    (``git archive`` into ``folder``), with the same interpreter and start-up (site and its
    .pth files) as ours, only this work tree's editable finder taken out of the way."""
    target = Path(folder) / "before"
    target.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "playtable"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    code = (
        "import sys; sys.meta_path[:] = [f for f in sys.meta_path "
        "if '__editable__' not in getattr(f, '__module__', '')]; "
        f"sys.path.insert(0, {str(target)!r}); "
        "from playtable.cli import main; sys.exit(main(['replay']))"
    )
    return [sys.executable, "-c", code]


if __name__ == "__main__":
    sys.exit(main())
