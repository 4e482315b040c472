"""How long a person waits for the computer's reply, through the table service.

For each board and each number of tables, a fresh table service (a real SQLite store in a
temporary directory, the in-process bus, the real process pool with ``--workers`` workers
and the settings of the environment otherwise) gets that many tables against the computer
(``--level``, default hard), all at once. On each table a scripted person plays the easy
bot's move (:func:`playtable.ai.quick_move`, which keeps a Dots and Boxes game long, as a
careful beginner does) the moment it is their turn, so the computer's jobs of all tables
queue up together, the worst case for the pool. A reply is timed from the person's
``play_move`` call to the computer's move arriving on the bus; a computer move that follows
its own (a capture) is timed from the previous one.

Prints, per board and table count: replies, median, 99th percentile and maximum in seconds,
how many took over 2 s, the maximum timed from the return of the person's ``play_move``
instead (their move committed: when the computer's turn, its deadline and its cap begin),
and how the computer's moves were found (``thought``: in the pool
with time to think; ``quick``: in the pool, a job that started past its deadline; ``fallback``:
the service's own quick move once the cap passed).

    python bench/bot_latency.py                         # dots 12x12 and swaptimum 9x9, 1/4/8
    python bench/bot_latency.py --boards swaptimum9 --tables 8 --replies 20
    python bench/bot_latency.py --quick-cost       # only the quick move's cost, in-process

A person waits ``--first-move`` seconds (default 1) after the tables are made before the
first move, as nobody moves faster on a page just opened; every game stops after
``--replies`` computer moves (default: the whole game) or ``--time-limit`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import Router

from playtable.ai import quick_move
from playtable.bus import InProcessBus
from playtable.store import Store
from playtable.tables import TableService
from playtable.tables.pool import BotSettings
from playtable.web.routing import routes
from playtable.web.urls import SiteLinks

BOARDS: dict[str, tuple[str, dict[str, Any]]] = {
    "dots12": ("dots", {"grid": "square", "rows": 12, "cols": 12, "start": "standard"}),
    "triangle10": ("dots", {"grid": "triangle", "size": 10, "start": "standard"}),
    "hexagon6": ("dots", {"grid": "hexagon", "size": 6, "start": "standard"}),
    "dots5": ("dots", {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}),
    "swaptimum9": ("swaptimum", {"size": 9}),
    "swaptimum26": ("swaptimum", {"size": 26}),
}
PERSON, COMPUTER = "red", "blue"
MAX_TABLES = 64


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    # The same replies timed from the return of the person's play_move (their move committed
    # and published: the moment the computer's turn begins) instead of from the call.
    after_commit: list[float] = field(default_factory=list)
    games_over: int = 0


async def play_table(
    service: TableService,
    name: str,
    options: dict[str, Any],
    table_id: str,
    token: str,
    seed: int,
    run: Run,
    replies: int,
    stop_at: float,
) -> None:
    """The person's side of one table, until the game ends or a limit is reached."""
    subscription = await service.bus.subscribe(table_id)
    table = await service.snapshot(table_id, None)
    rng = random.Random(seed)
    last = committed = time.perf_counter()
    count = 0

    async def receive(until_version: int | None) -> None:
        """Take bus messages until the table reaches ``until_version`` (or the next move)."""
        nonlocal table, last, committed, count
        while True:
            left = stop_at - time.monotonic()
            if left <= 0:
                return
            try:
                message = await asyncio.wait_for(subscription.get(), timeout=min(left, 30))
            except TimeoutError:
                table = await service.snapshot(table_id, None)
                return
            if message.get("type") != "table":
                table = await service.snapshot(table_id, None)
                return
            arrived = time.perf_counter()
            if message["version"] <= table["version"]:
                continue
            table = message["table"]
            for event in message["events"]:
                if event["kind"] == "move" and event["player"] == COMPUTER:
                    run.latencies.append(arrived - last)
                    run.after_commit.append(arrived - committed)
                    last = committed = arrived
                    count += 1
            if until_version is None or table["version"] >= until_version:
                return

    try:
        while table["outcome"] is None and count < replies and time.monotonic() < stop_at:
            if table["to_move"] == PERSON:
                move = quick_move(name, options, table["moves"], rng.randrange(1 << 30))
                last = time.perf_counter()
                version = await service.play_move(table_id, token, table["ply"], move)
                committed = time.perf_counter()
                await receive(version)
            else:
                await receive(None)
        run.games_over += table["outcome"] is not None
    finally:
        await subscription.close()


async def measure(
    board: str, tables: int, args: argparse.Namespace, directory: str
) -> dict[str, Any]:
    name, options = BOARDS[board]
    url = f"sqlite:///{os.path.join(directory, f'{board}-{tables}.sqlite3')}"
    store = Store(url)
    await store.open()
    base = BotSettings.from_env()
    settings = BotSettings(
        workers=args.workers,
        move_budget_s=base.move_budget_s,
        move_cap_s=base.move_cap_s,
        position_budget_s=base.position_budget_s,
        analysis_total_s=base.analysis_total_s,
    )
    links = SiteLinks(Router(routes=routes()))
    service = TableService(store, InProcessBus(), os.urandom(32), settings, links=links)
    run = Run()
    try:
        created = [
            await service.create_table(name, options, PERSON, bot=args.level) for _ in range(tables)
        ]
        await asyncio.sleep(args.first_move)
        stop_at = time.monotonic() + args.time_limit
        await asyncio.gather(
            *(
                play_table(
                    service, name, options, c.id, c.seat_token, i, run, args.replies, stop_at
                )
                for i, c in enumerate(created)
            )
        )
        replies = dict(service.bot_replies)
    finally:
        await service.close()
        await store.close()
    latencies = sorted(run.latencies)
    p99 = (
        statistics.quantiles(latencies, n=100, method="inclusive")[98]
        if len(latencies) >= 2
        else latencies[-1]
    )
    return {
        "board": board,
        "tables": tables,
        "replies": len(latencies),
        "games": run.games_over,
        "median": statistics.median(latencies),
        "p99": p99,
        "max": latencies[-1],
        "max_after_commit": max(run.after_commit),
        "over": sum(1 for x in latencies if x > 2.0),
        "thought": replies.get("thought", 0),
        "quick": replies.get("quick", 0),
        "fallback": replies.get("fallback", 0),
    }


def quick_cost(games: int) -> None:
    """The quick move's cost (what the service computes itself past the cap) at every
    position of ``games`` games per board: the quick move against random answers (boxes
    given away all the time), then against itself (a careful beginner on both sides, whose
    games reach the end of the safe lines, where each sacrifice's loss is counted)."""
    from playtable.ai.quick import quick_game_move
    from playtable.games import load

    print(
        "| board | answers | positions | median ms | p99 ms | max ms | total ms |",
        "|---|---|---|---|---|---|---|",
        sep="\n",
    )
    for answers in ("random", "quick"):
        for board, (name, options) in BOARDS.items():
            game = load(name, options)
            times: list[float] = []
            for seed in range(games):
                rng = random.Random(seed)
                state = game.initial()
                while game.to_move(state) is not None:
                    start = time.perf_counter()
                    move = quick_game_move(game, state, rng)
                    times.append(time.perf_counter() - start)
                    state = game.apply(state, move)
                    if game.to_move(state) is not None and answers == "random":
                        state = game.apply(state, rng.choice(game.legal_moves(state)))
            times.sort()
            print(
                f"| {board} | {answers} | {len(times)} | {1000 * statistics.median(times):.2f} "
                f"| {1000 * times[int(0.99 * (len(times) - 1))]:.2f} | {1000 * times[-1]:.2f} "
                f"| {1000 * sum(times):.0f} |",
                flush=True,
            )


async def main_async(args: argparse.Namespace) -> None:
    counts = [int(x) for x in args.tables.split(",")]
    if any(not 1 <= n <= MAX_TABLES for n in counts):
        raise SystemExit(f"--tables: 1 to {MAX_TABLES} each")
    print(
        f"# workers {args.workers}, level {args.level}, budget/cap from the environment "
        f"({BotSettings.from_env().move_budget_s} s / {BotSettings.from_env().move_cap_s} s), "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start",
        flush=True,
    )
    print(
        "| board | tables | replies | games ended | median s | p99 s | max s | over 2 s "
        "| max from commit s | thought | quick | fallback | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        sep="\n",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as directory:
        for board in args.boards.split(","):
            for tables in counts:
                r = await measure(board, tables, args, directory)
                print(
                    f"| {r['board']} | {r['tables']} | {r['replies']} | {r['games']} "
                    f"| {r['median']:.3f} | {r['p99']:.3f} | {r['max']:.3f} | {r['over']} "
                    f"| {r['max_after_commit']:.3f} "
                    f"| {r['thought']} | {r['quick']} | {r['fallback']} "
                    f"| {os.getloadavg()[0]:.1f} |",
                    flush=True,
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="dots12,swaptimum9", help=",".join(BOARDS))
    parser.add_argument("--tables", default="1,4,8", help="comma list of table counts")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--level", default="hard", choices=["easy", "medium", "hard"])
    parser.add_argument("--replies", type=int, default=10**6, help="computer moves per game")
    parser.add_argument("--first-move", type=float, default=1.0)
    parser.add_argument("--time-limit", type=float, default=900.0, help="seconds per setup")
    parser.add_argument("--quick-cost", type=int, nargs="?", const=10, metavar="GAMES")
    args = parser.parse_args(argv)
    if args.quick_cost:
        quick_cost(args.quick_cost)
        return 0
    unknown = set(args.boards.split(",")) - set(BOARDS)
    if unknown:
        parser.error(f"unknown board {sorted(unknown)[0]!r}; choose from {', '.join(BOARDS)}")
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
