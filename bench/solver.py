"""Solve Dots and Boxes boards from the empty board: wall time, CPU time and nodes.

The baseline is a plain memoised negamax (no pruning, no reductions, no symmetry) run in the
same process on the cases small enough for it (``--baseline-lines``); the ratio is baseline
CPU time / solver CPU time (CPU, because the wall clock of a shared machine says little).
Published values are checked: 2x2 = +2, 3x3 = -3, 4x4 = 0 for the first player.

    python bench/solver.py                 # the standard cases
    python bench/solver.py --with-4x4      # also 4x4 standard (can take up to 30 minutes)
"""

from __future__ import annotations

import argparse
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
PUBLISHED = {"2x2 standard": 2, "3x3 standard": -3, "4x4 standard": 0}


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
    args = parser.parse_args(argv)
    cases = list(CASES)
    if args.with_4x4:
        cases.append(("4x4 standard", {"rows": 4, "cols": 4}))
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c[0] in wanted]
    print(
        "| case | free lines | value | nodes | wall s | CPU s | baseline wall s | baseline CPU s "
        "| CPU ratio |",
        "|---|---|---|---|---|---|---|---|---|",
        sep="\n",
        flush=True,
    )
    wrong = 0
    for name, options in cases:
        game = DotsAndBoxes.from_options(options)
        state = game.initial()
        free = len(game.legal_moves(state))
        limit = 1800.0 if name == "4x4 standard" else args.time_limit
        solver = DotsSolver(game)
        try:
            solution, wall, cpu = timed(
                lambda s=solver, st=state, t=limit: s.solve(  # type: ignore[misc]
                    st, time_limit=t, all_best=False, deepening=False
                )
            )
        except SolverTimeout:
            print(f"| {name} | {free} | not solved in {limit:g} s | | | | | | |", flush=True)
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
        check = (
            "" if expected is None else (" (published)" if solution.value == expected else " WRONG")
        )
        print(
            f"| {name} | {free} | {solution.value:+d}{check} | {solution.nodes} | {wall:.3f} "
            f"| {cpu:.3f} | {base_wall_text} | {base_cpu_text} | {ratio} |",
            flush=True,
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
