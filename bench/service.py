"""A move's CPU in the table service alone: no sockets, no HTTP, the real store.

Each round starts a fresh process that opens a SQLite file (WAL, an fsync per commit) in a
temporary folder, seats two players at each of ``--tables`` 5x5 Dots and Boxes tables with two
subscribers each on the in-process bus (the two players' sockets, without the sockets), and
plays every table's random game at once through ``TableService.play_move``: the rules, the
compare-and-set commit, the announcement (patch, census) and the bus's delivery. It prints the
process's CPU seconds (every thread's) per move. ``bench/latency.py`` measures the whole server
around it; this isolates the part that is ours from uvicorn's and Starlette's.

    python bench/service.py                         # this checkout, 5 rounds
    python bench/service.py --baseline /tmp/base    # and another checkout, rounds alternating

``--baseline DIR`` runs the same games on the ``playtable`` package of another checkout (a
``git worktree add /tmp/base REV``), so a change is measured against what came before it in
one run, on one machine state. The background analysis and the computer's pools are off.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
OPTIONS = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}


async def play(tables: int, seed: int) -> tuple[int, float]:
    """Every table's game at once; the moves played and the process's CPU seconds for them."""
    from playtable.bus import InProcessBus
    from playtable.store import Store
    from playtable.tables import TableService
    from tests.tables.links import LINKS

    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{folder}/bench.sqlite3")
        await store.open()
        service = TableService(store, InProcessBus(), os.urandom(32), links=LINKS)
        seated: list[tuple[str, dict[str, str]]] = []
        drains: list[asyncio.Task[None]] = []

        async def drain(subscription: Any) -> None:
            async for _ in subscription:
                pass

        for _ in range(tables):
            created = await service.create_table("dots", OPTIONS, "red")
            claimed = await service.claim_invite(created.id, created.invite_token)
            assert claimed is not None
            seated.append((created.id, {"red": created.seat_token, "blue": claimed[1]}))
            for _ in range(2):
                subscription = await service.subscribe(created.id)
                drains.append(asyncio.create_task(drain(subscription)))

        async def game(table_id: str, seats: dict[str, str], rng: random.Random) -> int:
            """One table's game, its position followed here as a page follows it."""
            table = await service.load(table_id)
            rules, state, ply = table.game, table.state, 0
            while (player := rules.to_move(state)) is not None:
                move = rng.choice(rules.legal_move_texts(state))
                await service.play_move(table_id, seats[player], ply, move)
                state, ply = rules.play(state, move), ply + 1
            return ply

        rng = random.Random(seed)
        started = time.process_time()
        played = await asyncio.gather(*(game(t, s, random.Random(rng.random())) for t, s in seated))
        cpu = time.process_time() - started
        for task in drains:
            task.cancel()
        await service.close()
        await store.close()
        return sum(played), cpu


def child(tables: int, seed: int) -> None:
    moves, cpu = asyncio.run(play(tables, seed))
    print(f"{moves} {cpu}")


def one_round(root: Path, tables: int, seed: int) -> float:
    """CPU milliseconds a move of one fresh process on the checkout at ``root``."""
    environment = {
        **os.environ,
        "PYTHONPATH": f"{root}{os.pathsep}{HERE}",  # its playtable first; tests/ from here
        "PLAYTABLE_ANALYSIS_WORKERS": "1",
    }
    command = [sys.executable, __file__, "--child", "--tables", str(tables), "--seed", str(seed)]
    output = subprocess.run(
        command, env=environment, check=True, capture_output=True, text=True, timeout=600
    ).stdout.split()
    moves, cpu = int(output[-2]), float(output[-1])
    return 1000 * cpu / moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10, help="tables playing at once")
    parser.add_argument("--rounds", type=int, default=5, help="fresh processes per checkout")
    parser.add_argument("--baseline", type=Path, help="another checkout to compare with")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tables = max(1, min(args.tables, 200))
    if args.child:
        child(tables, args.seed)
        return 0
    roots = {"this checkout": HERE}
    if args.baseline is not None:
        roots["baseline"] = args.baseline.resolve()
    figures: dict[str, list[float]] = {name: [] for name in roots}
    print(f"{tables} tables of 5x5 at once, SQLite file, in-process bus; {args.rounds} rounds")
    for round_ in range(max(1, args.rounds)):
        for name, root in roots.items():  # alternating, against drift
            figures[name].append(one_round(root, tables, args.seed + round_))
    for name, root in roots.items():
        values = figures[name]
        print(
            f"{name} ({root}): CPU a move median {statistics.median(values):.3f} ms "
            f"(rounds: {', '.join(f'{v:.3f}' for v in values)})"
        )
    if "baseline" in figures:
        ratio = statistics.median(figures["this checkout"]) / statistics.median(figures["baseline"])
        print(f"ratio this checkout / baseline: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
