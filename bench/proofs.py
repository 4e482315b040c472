"""How often the hard Dots and Boxes bot proves its move in the last free lines of real games.

``bench/solver.py --endgames`` asks a *fresh* solver about random positions. A bot in play is
different: its worker keeps the solver's table from move to move, and its positions come
from sensible play. This script plays whole games, hard against medium with colours
alternating, one process keeping one solver per board as a worker does, and counts the hard
bot's moves with at most ``--free`` free lines that were proved (so optimal) within the budget.

    python bench/proofs.py --games 6
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from playtable.ai.dots_bots import medium_move, solver_for
from playtable.ai.dots_solver import SolverTimeout
from playtable.games.dots.game import DotsAndBoxes

BOARDS: list[tuple[str, dict[str, Any]]] = [
    ("4x4", {"rows": 4, "cols": 4}),
    ("5x5", {"rows": 5, "cols": 5}),
    ("hexagon 3", {"grid": "hexagon", "size": 3}),
    ("4x4 misère", {"rows": 4, "cols": 4, "misere": True}),
    ("5x5 misère", {"rows": 5, "cols": 5, "misere": True}),
    ("triangle 5 misère", {"grid": "triangle", "size": 5, "misere": True}),
    ("hexagon 3 misère", {"grid": "hexagon", "size": 3, "misere": True}),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="games per board")
    parser.add_argument("--free", type=int, default=25, help="count moves with this few free lines")
    parser.add_argument("--budget", type=float, default=1.4, help="seconds per hard move")
    parser.add_argument("--only", help="comma list of board names")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(",")) if args.only else None
    print(
        f"| board | games | hard moves with <= {args.free} free lines | proved | slowest move s |",
        "|---|---|---|---|---|",
        sep="\n",
        flush=True,
    )
    for name, options in BOARDS:
        if wanted is not None and name not in wanted:
            continue
        game = DotsAndBoxes.from_options(options)
        counted = proved = 0
        slowest = 0.0
        for i in range(args.games):
            rng = random.Random(i)
            hard = "red" if i % 2 == 0 else "blue"
            state = game.initial()
            while game.to_move(state) is not None:
                start = time.perf_counter()
                deadline = start + args.budget
                if game.to_move(state) == hard:
                    free = len(game.legal_moves(state))
                    try:
                        line, _, exact = solver_for(game).choose(state, deadline=deadline)
                    except SolverTimeout:
                        line, exact = medium_move(game, state, rng, deadline), False
                    slowest = max(slowest, time.perf_counter() - start)
                    if free <= args.free:
                        counted += 1
                        proved += exact
                else:
                    line = medium_move(game, state, rng, deadline)
                state = game.apply(state, line)
        share = 100 * proved / max(counted, 1)
        print(
            f"| {name} | {args.games} | {counted} | {proved} ({share:.0f}%) | {slowest:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
