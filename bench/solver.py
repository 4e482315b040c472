"""Solve Dots and Boxes boards from the empty board: wall time, CPU time and nodes.

The baseline is a plain memoised negamax (no pruning, no reductions, no symmetry) run in the
same process on the cases small enough for it (``--baseline-lines``); the ratio is baseline
CPU time / solver CPU time (CPU, because the wall clock of a shared machine says little).
Published values are checked: 2x2 = +2, 3x3 = -3, 4x4 = 0 for the first player.

    python bench/solver.py                 # the standard cases
    python bench/solver.py --with-4x4      # also 4x4 standard (can take up to 30 minutes)
    python bench/solver.py --endgames 10   # 25 free lines left, as the hard bot meets them
    python bench/solver.py --empty --table-bits 28 --time-limit 1400
                                           # 3x4, 3x5 and 4x4 from empty, with the profile

``--empty`` solves 3x4, 3x5 and 4x4 standard (normal scoring) from the empty board in the C
search, each with a fresh table of ``2 ** --table-bits`` entries (16 bytes each), and prints
value, nodes and time, then where the nodes went: by kind (a capture on offer, a line that
gives nothing away, every line a sacrifice, chains and loops only) and by free lines. The
same boards with the cutoffs and prunings of the C search switched off (``--plain``) give the
ratio. Then the search's counters: table hits and cutoffs, the nodes each cutoff ended, and
which move (first, second, ...) failed high.

The solver searches in C (``playtable/ai/_dotscore.c``) when it is built; the table then also
gives, measured in the same run, the pure Python search's CPU time and the ratio (not for 4x4
standard, which pure Python does not solve in 30 minutes). ``--pure`` keeps every search in
pure Python.

``--endgames N`` plays N random games per board (seeded, so every run sees the same
positions) until ``--free`` lines are left and reports how many of those positions the solver
proves within ``--budget`` CPU-ish seconds (the hard bot's share of its move budget), with the
median and slowest proof.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from typing import Any

from playtable.ai.dots_solver import DotsSolver, SolverTimeout, plain_value
from playtable.games.dots.game import DotsAndBoxes

CASES: list[tuple[str, dict[str, Any]]] = [
    ("2x2 standard", {"rows": 2, "cols": 2}),
    ("2x3 standard", {"rows": 2, "cols": 3}),
    ("3x3 standard", {"rows": 3, "cols": 3}),
    ("4x4 Swedish", {"rows": 4, "cols": 4, "start": "swedish"}),
    ("2x4 misère", {"rows": 2, "cols": 4, "misere": True}),
    ("3x3 misère", {"rows": 3, "cols": 3, "misere": True}),
    ("triangle 3", {"grid": "triangle", "size": 3}),
    ("hexagon 2", {"grid": "hexagon", "size": 2}),
]
ENDGAME_BOARDS: list[tuple[str, dict[str, Any]]] = [
    ("5x5", {"rows": 5, "cols": 5}),
    ("8x8", {"rows": 8, "cols": 8}),
    ("12x12", {"rows": 12, "cols": 12}),
    ("4x4", {"rows": 4, "cols": 4}),
    ("triangle 5", {"grid": "triangle", "size": 5}),
    ("hexagon 3", {"grid": "hexagon", "size": 3}),
    ("5x5 misère", {"rows": 5, "cols": 5, "misere": True}),
    ("8x8 misère", {"rows": 8, "cols": 8, "misere": True}),
    ("12x12 misère", {"rows": 12, "cols": 12, "misere": True}),
    ("4x4 misère", {"rows": 4, "cols": 4, "misere": True}),
    ("triangle 5 misère", {"grid": "triangle", "size": 5, "misere": True}),
    ("hexagon 3 misère", {"grid": "hexagon", "size": 3, "misere": True}),
]
PUBLISHED = {"2x2 standard": 2, "3x3 standard": -3, "3x5 standard": -1, "4x4 standard": 0}
EMPTY_BOARDS = [("3x4 standard", (3, 4)), ("3x5 standard", (3, 5)), ("4x4 standard", (4, 4))]


def timed(function: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-4x4", action="store_true", help="also solve 4x4 standard")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per case")
    parser.add_argument(
        "--baseline-lines", type=int, default=20, help="run the baseline up to this many lines"
    )
    parser.add_argument("--only", help="comma list of case names to run")
    parser.add_argument("--endgames", type=int, default=0, help="random endgames per board")
    parser.add_argument("--free", type=int, default=25, help="free lines left in an endgame")
    parser.add_argument("--budget", type=float, default=1.19, help="seconds per endgame")
    parser.add_argument("--pure", action="store_true", help="no C search: pure Python only")
    parser.add_argument("--empty", action="store_true", help="3x4, 3x5, 4x4 from empty")
    parser.add_argument("--table-bits", type=int, default=28, help="--empty: table size")
    parser.add_argument(
        "--plain", action="store_true", help="--empty: without the C search's cutoffs"
    )
    args = parser.parse_args(argv)
    native = False if args.pure else None
    if args.empty:
        return empty_boards(args.only, args.table_bits, args.time_limit, not args.plain)
    if args.endgames:
        return endgames(args.endgames, args.free, args.budget, args.only, native)
    cases = list(CASES)
    if args.with_4x4:
        cases.append(("4x4 standard", {"rows": 4, "cols": 4}))
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c[0] in wanted]
    print(
        "| case | free lines | value | nodes | wall s | CPU s | baseline wall s | baseline CPU s "
        "| CPU ratio | search | pure Python CPU s | C speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        sep="\n",
        flush=True,
    )
    wrong = 0
    for name, options in cases:
        game = DotsAndBoxes.from_options(options)
        state = game.initial()
        free = len(game.legal_moves(state))
        limit = 1800.0 if name == "4x4 standard" else args.time_limit
        solver = DotsSolver(game, native=native)
        try:
            solution, wall, cpu = timed(
                lambda s=solver, st=state, t=limit: s.solve(  # type: ignore[misc]
                    st, time_limit=t, all_best=False, deepening=False
                )
            )
        except SolverTimeout:
            print(f"| {name} | {free} | not solved in {limit:g} s | | | | | | | | | |", flush=True)
            continue
        expected = PUBLISHED.get(name)
        if expected is not None and solution.value != expected:
            wrong += 1
        base_wall_text = base_cpu_text = ratio = "-"
        if free <= args.baseline_lines:
            base, base_wall, base_cpu = timed(
                lambda g=game, st=state: plain_value(g, st.drawn)  # type: ignore[misc]
            )
            if base != solution.value:
                wrong += 1
            base_wall_text, base_cpu_text = f"{base_wall:.3f}", f"{base_cpu:.3f}"
            ratio = f"{base_cpu / max(cpu, 1e-6):.0f}x"
        search = "C" if solver.native else "Python"
        pure_text = speedup = "-"
        if solver.native and name != "4x4 standard":
            pure = DotsSolver(game, native=False)
            _, _, pure_cpu = timed(
                lambda s=pure, st=state, t=limit: s.solve(  # type: ignore[misc]
                    st, time_limit=t, all_best=False, deepening=False
                )
            )
            pure_text, speedup = f"{pure_cpu:.3f}", f"{pure_cpu / max(cpu, 1e-6):.1f}x"
        check = (
            "" if expected is None else (" (published)" if solution.value == expected else " WRONG")
        )
        print(
            f"| {name} | {free} | {solution.value:+d}{check} | {solution.nodes} | {wall:.3f} "
            f"| {cpu:.3f} | {base_wall_text} | {base_cpu_text} | {ratio} | {search} "
            f"| {pure_text} | {speedup} |",
            flush=True,
        )
    return 1 if wrong else 0


def empty_boards(only: str | None, table_bits: int, limit: float, cutoffs: bool) -> int:
    """3x4, 3x5 and 4x4 standard from the empty board in the C search: value, nodes, time,
    and where the nodes went."""
    from playtable.ai._dotscore import Core

    wanted = set(only.split(",")) if only else None
    print(
        "| board | value | nodes | CPU s | wall s | nodes/s | offered | safe | loony | simple |",
        "|---|---|---|---|---|---|---|---|---|---|",
        sep="\n",
        flush=True,
    )
    wrong = 0
    profiles: list[tuple[str, list[int]]] = []
    counts: list[tuple[str, dict[str, Any], int]] = []
    for name, (rows, cols) in EMPTY_BOARDS:
        if wanted is not None and name not in wanted:
            continue
        game = DotsAndBoxes.from_options({"rows": rows, "cols": cols})
        solver = DotsSolver(game)
        core = Core(
            solver.cell_masks,
            solver.n_lines,
            solver.perms[1:],
            solver.sym_min_free,
            table_bits,
            misere=False,
            etc=cutoffs,
            loony=cutoffs,
            prune=cutoffs,
        )
        cells = len(solver.cell_masks)
        value, wall, cpu = timed(lambda c=core, n=cells: c.search(0, -n, n, limit))  # type: ignore[misc]
        profile = core.profile
        total = max(core.nodes, 1)
        shares = " | ".join(
            f"{100 * profile[k] / total:.0f}%"  # type: ignore[literal-required]
            for k in ("offered", "safe", "loony", "simple")
        )
        expected = PUBLISHED.get(name)
        if value is None:
            text = f"not solved in {limit:g} s"
        else:
            check = "" if expected is None else (" (published)" if value == expected else " WRONG")
            wrong += expected is not None and value != expected
            text = f"{value:+d}{check}"
        print(
            f"| {name} | {text} | {core.nodes} | {cpu:.1f} | {wall:.1f} "
            f"| {core.nodes / max(cpu, 1e-6) / 1e6:.1f} M | {shares} |",
            flush=True,
        )
        profiles.append((name, profile["by_free"]))
        counts.append((name, profile, core.nodes))
    for name, by_free in profiles:
        total = max(sum(by_free), 1)
        peak = sorted(range(len(by_free)), key=lambda i: -by_free[i])[:5]
        text = ", ".join(f"{i} free: {100 * by_free[i] / total:.0f}%" for i in sorted(peak))
        print(f"{name}: most nodes at {text}", flush=True)
    for name, profile, nodes in counts:
        print(f"{name}: {search_counts(profile, nodes)}", flush=True)
    return 1 if wrong else 0


def search_counts(profile: dict[str, Any], nodes: int) -> str:
    """The table's hits and cutoffs, the other cutoffs, and which move failed high."""
    nodes = max(nodes, 1)
    probes = max(profile["probes"], 1)
    cut_at: list[int] = profile["cut_at"]
    cuts = max(sum(cut_at), 1)
    order = ", ".join(
        f"{'8+' if i == 7 else i + 1}: {100 * n / cuts:.0f}%" for i, n in enumerate(cut_at)
    )
    return (
        f"table probes {probes / nodes:.2f} a node, {100 * profile['hits'] / probes:.0f}% hits, "
        f"{100 * profile['tt_cuts'] / probes:.0f}% end the node; nodes ended by the enhanced "
        f"cutoff {100 * profile['etc_cuts'] / nodes:.0f}%, by the loony bound "
        f"{100 * profile['loony_cuts'] / nodes:.0f}%; every move searched (fail low) "
        f"{100 * profile['all_nodes'] / nodes:.1f}%, a move failed high "
        f"{100 * cuts / nodes:.1f}%, by its index in the order: {order}"
    )


def _seconds(value: float, budget: float) -> str:
    return f"{value:.2f}" if value != math.inf else f"> {budget:g}"


def endgames(
    count: int, free_left: int, budget: float, only: str | None, native: bool | None
) -> int:
    """How many random positions with ``free_left`` free lines are proved within ``budget``."""
    print(
        f"| board | proved within {budget:g} s | median s | slowest s |",
        "|---|---|---|---|",
        sep="\n",
        flush=True,
    )
    wanted = set(only.split(",")) if only else None
    for name, options in ENDGAME_BOARDS:
        if wanted is not None and name not in wanted:
            continue
        game = DotsAndBoxes.from_options(options)
        rng = random.Random(2026)
        times: list[float] = []
        proved = 0
        for _ in range(count):
            state = game.initial()
            while len(game.legal_moves(state)) > free_left and game.to_move(state) is not None:
                state = game.apply(state, rng.choice(game.legal_moves(state)))
            solver = DotsSolver(
                game, native=native
            )  # a fresh table: nothing learnt from the other positions
            start = time.perf_counter()
            try:
                solver.solve(state, time_limit=budget, all_best=False, deepening=False)
                proved += 1
                times.append(time.perf_counter() - start)
            except SolverTimeout:
                times.append(math.inf)
        times.sort()
        median = times[len(times) // 2]
        slowest = times[-1]
        print(
            f"| {name} | {proved}/{count} | {_seconds(median, budget)} "
            f"| {_seconds(slowest, budget)} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
