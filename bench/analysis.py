"""The background analysis of finished games, as the server runs it (issue 14).

For each board (3x3, 4x4, 5x5, 6x6, triangle 5, hexagon 3, each in normal and misère scoring,
then Swaptimum 9x9), a fresh table service (a real SQLite store in a temporary directory, the
in-process bus, the analysis' own niced process pool, the settings of the environment)
seats two people who play a seeded random game to its end through ``play_move``. The
commit that ends the game queues its analysis (``tables/analysis_jobs.py``); the bench
times it from the return of the last ``play_move`` until every position is stored, reading
the store every 0.2 s as a page polling the analysis would.

Prints per board: plies, positions proved, estimated, seconds to the end of the analysis
(the pool's start included: each board gets a new service), and for every Dots board the
seconds until every position with at most 30 free lines was proved (the goal for 5x5: within
60 s). The baseline, measured in the same run on the same game: one request of the analysis
as it was before (``ai.analysis.analyse_positions`` with the old budgets: 1 s per
position, 10 s per request, no estimates), and how many positions it proved. The machine's
one-minute load average closes each line: the analysis' workers are niced (by 10 more than
the bench), so on a machine busy with other work they get what is left of the CPU.

    python bench/analysis.py                      # every board, seed 1
    python bench/analysis.py --boards 5x5,5x5-misere --seed 3
    python bench/analysis.py --no-baseline
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from starlette.routing import Router

from playtable.ai.analysis import analyse_positions
from playtable.bus import InProcessBus
from playtable.games import load
from playtable.games.dots.game import DotsAndBoxes
from playtable.store import Store
from playtable.tables import TableService
from playtable.tables.pool import BotSettings
from playtable.web.routing import routes
from playtable.web.urls import SiteLinks

BOARDS: dict[str, tuple[str, dict[str, Any]]] = {}
for _label, _shape in [
    ("3x3", {"rows": 3, "cols": 3}),
    ("4x4", {"rows": 4, "cols": 4}),
    ("5x5", {"rows": 5, "cols": 5}),
    ("6x6", {"rows": 6, "cols": 6}),
    ("triangle5", {"grid": "triangle", "size": 5}),
    ("hexagon3", {"grid": "hexagon", "size": 3}),
]:
    BOARDS[_label] = ("dots", {**_shape, "misere": False})
    BOARDS[f"{_label}-misere"] = ("dots", {**_shape, "misere": True})
BOARDS["swaptimum9"] = ("swaptimum", {"size": 9})

GOAL_FREE_LINES = 30
GOAL_SECONDS = 60.0
OLD_POSITION_S = 1.0  # the budgets of the analysis before the background one
OLD_TOTAL_S = 10.0


@dataclass
class Result:
    board: str
    plies: int
    proved: int
    estimated: int
    seconds: float
    goal_positions: int  # positions with at most 30 free lines (Dots)
    goal_seconds: float | None  # when the last of them was proved; None: never
    goal_proved: int  # how many of them were proved in the end
    old_proved: int | None
    old_seconds: float


def random_game(name: str, options: dict[str, Any], seed: int) -> list[str]:
    game = load(name, options)
    rng = random.Random(seed)
    state, moves = game.initial(), []
    while game.to_move(state) is not None:
        move = game.format_move(rng.choice(game.legal_moves(state)))
        moves.append(move)
        state = game.play(state, move)
    return moves


def free_lines(name: str, options: dict[str, Any], moves: list[str]) -> list[int]:
    game = load(name, options)
    if not isinstance(game, DotsAndBoxes):
        return []
    state, free = game.initial(), []
    for ply in range(len(moves) + 1):
        free.append(len(game.board.lines) - state.drawn.bit_count())
        if ply < len(moves):
            state = game.play(state, moves[ply])
    return free


async def measure(board: str, seed: int, directory: str, baseline: bool) -> Result:
    name, options = BOARDS[board]
    moves = random_game(name, options, seed)
    free = free_lines(name, options, moves)
    goal_plies = [ply for ply, n in enumerate(free) if n <= GOAL_FREE_LINES]
    store = Store(f"sqlite:///{os.path.join(directory, f'{board}.sqlite3')}")
    await store.open()
    links = SiteLinks(Router(routes=routes()))
    service = TableService(
        store, InProcessBus(), os.urandom(32), BotSettings.from_env(), links=links
    )
    goal_at: float | None = None
    try:
        created = await service.create_table(name, options, "red")
        claimed = await service.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        tokens = {"red": created.seat_token, "blue": claimed[1]}
        for ply, move in enumerate(moves):
            table = await service.snapshot(created.id, None)
            await service.play_move(created.id, tokens[table["to_move"]], ply, move)
        start = time.perf_counter()
        done = asyncio.create_task(service.analyses.jobs.wait(created.id))
        while True:
            points = await store.analysis_points(created.id, moves)
            if (
                goal_at is None
                and goal_plies
                and all(ply in points and points[ply].proved for ply in goal_plies)
            ):
                goal_at = time.perf_counter() - start
            if done.done():
                break
            await asyncio.sleep(0.2)
        seconds = time.perf_counter() - start
        points = await store.analysis_points(created.id, moves)
    finally:
        await service.close()
        await store.close()
    old, old_s = None, 0.0
    if baseline and name == "dots":
        old_start = time.perf_counter()
        found = analyse_positions(
            options, moves, range(len(moves) + 1), OLD_POSITION_S, OLD_TOTAL_S
        )
        old = sum(1 for value in found.values() if value is not None)
        old_s = time.perf_counter() - old_start
    proved = sum(1 for p in points.values() if p.proved)
    return Result(
        board,
        len(moves),
        proved,
        len(points) - proved,
        seconds,
        len(goal_plies),
        goal_at,
        sum(1 for ply in goal_plies if ply in points and points[ply].proved),
        old,
        old_s,
    )


def report(result: Result) -> str:
    parts = [
        f"{result.board}: plies {result.plies}",
        f"positions {result.plies + 1}",
        f"proved {result.proved}",
        f"estimated {result.estimated}",
        f"finished in {result.seconds:.1f} s",
    ]
    if result.goal_positions:
        when = (
            f"never ({result.goal_proved} of them)"
            if result.goal_seconds is None
            else f"in {result.goal_seconds:.1f} s"
        )
        parts.append(
            f"the {result.goal_positions} with <= {GOAL_FREE_LINES} free lines proved {when}"
        )
    if result.old_proved is not None:
        ratio = result.proved / result.old_proved if result.old_proved else float("inf")
        parts.append(
            f"baseline (one request as before, at most {OLD_TOTAL_S:g} s, blocking the page):"
            f" proved {result.old_proved} in {result.old_seconds:.1f} s; proved x{ratio:.2f}"
        )
    return "; ".join(parts)


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default=",".join(BOARDS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args(argv)
    boards = [b for b in args.boards.split(",") if b]
    unknown = [b for b in boards if b not in BOARDS]
    if unknown:
        parser.error(f"unknown boards {unknown}; choose from {', '.join(BOARDS)}")
    settings = BotSettings.from_env()
    print(
        f"seed {args.seed}; prove {settings.background_prove_s:g} s a position, estimate "
        f"{settings.estimate_s:g} s, slices of {settings.slice_s:g} s, proofs for "
        f"{settings.background_total_s:g} s a game, {settings.analysis_workers} analysis worker(s),"
        f" {os.cpu_count()} CPUs",
        flush=True,
    )
    goal_ok: list[bool] = []
    with tempfile.TemporaryDirectory() as directory:
        for board in boards:
            result = await measure(board, args.seed, directory, not args.no_baseline)
            load = os.getloadavg()[0]
            print(f"{report(result)}; load average {load:.1f}", flush=True)
            if board.startswith("5x5"):
                goal_ok.append(
                    result.goal_seconds is not None and result.goal_seconds <= GOAL_SECONDS
                )
                print(
                    f"{board}: every position with <= {GOAL_FREE_LINES} free lines proved within "
                    f"{GOAL_SECONDS:g} s of the end: {'yes' if goal_ok[-1] else 'no'}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
