"""Check every speed-up of the Dots and Boxes solver against the plain memoised negamax.

Random positions (random lines drawn on small boards of every grid, start and scoring) are
solved by the plain search and by the solver with each reduction switched on alone and all
together; any disagreement is printed and makes the script fail. In misère the capture
reductions are also forced on, to show that they are wrong there (the solver never uses them
in misère), and the C search (``playtable/ai/_dotscore.c``) is checked as well.

    python bench/verify_solver.py --positions 3000
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from playtable.ai.dots_solver import NATIVE, DotsSolver, plain_value
from playtable.games.dots.game import DotsAndBoxes

BOARDS: list[dict[str, Any]] = [
    {"rows": 2, "cols": 2},
    {"rows": 1, "cols": 3},
    {"rows": 2, "cols": 3},
    {"rows": 3, "cols": 2},
    {"rows": 1, "cols": 5},
    {"rows": 3, "cols": 3},
    {"rows": 3, "cols": 3, "start": "swedish"},
    {"rows": 3, "cols": 4, "start": "swedish"},
    {"rows": 3, "cols": 3, "start": "icelandic"},
    {"grid": "triangle", "size": 2},
    {"grid": "triangle", "size": 3},
    {"grid": "hexagon", "size": 1},
    {"grid": "hexagon", "size": 2},
    {"grid": "hexagon", "size": 2, "start": "swedish"},
]

# name -> solver keyword arguments; "safe" is the safe capture with the decline rule and the
# interchangeable ground lines, the base every other speed-up builds on.
CONFIGS: dict[str, dict[str, Any]] = {
    "safe capture": {"chain_rule": False, "endgame": False, "symmetry": False},
    "chain capture": {"endgame": False, "symmetry": False},
    "chains and loops": {"chain_rule": False, "symmetry": False},
    "symmetry only": {"reductions": False},
    "all": {},
}


def random_position(game: DotsAndBoxes, rng: random.Random, max_free: int) -> int:
    """A mask with at most ``max_free`` free lines, drawn in random order (captures ignored:
    the solver's value depends on the drawn lines only)."""
    free = [i for i in range(len(game.board.lines)) if not game.predrawn >> i & 1]
    rng.shuffle(free)
    keep = rng.randint(1, min(max_free, len(free)))
    drawn = game.predrawn
    for line in free[keep:]:
        drawn |= 1 << line
    return drawn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000, help="positions per scoring")
    parser.add_argument("--max-free", type=int, default=15, help="free lines at most")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    failures = 0
    start = time.perf_counter()
    for misere in (False, True):
        games = [DotsAndBoxes.from_options({**b, "misere": misere}) for b in BOARDS]
        # The solver searches in C when it is built: every other configuration is pure Python.
        configs = {name: {**kwargs, "native": False} for name, kwargs in CONFIGS.items()}
        if NATIVE:
            configs["C search (playtable/ai/_dotscore.c)"] = {}
        if misere:
            configs["forced reductions (unsound)"] = {"reductions": True}
        solvers = {
            name: [DotsSolver(g, **kwargs) for g in games] for name, kwargs in configs.items()
        }
        wrong = dict.fromkeys(configs, 0)
        for _ in range(args.positions):
            index = rng.randrange(len(games))
            game = games[index]
            drawn = random_position(game, rng, args.max_free)
            truth = plain_value(game, drawn)
            for name in configs:
                got = solvers[name][index].value(drawn)
                if got != truth:
                    wrong[name] += 1
                    if wrong[name] <= 2:
                        print(f"  {name}: {game.options()} drawn={drawn:#x} {got} != {truth}")
        scoring = "misère" if misere else "normal"
        for name, count in wrong.items():
            expected_wrong = name.startswith("forced")
            verdict = "ok" if count == 0 else "WRONG"
            if expected_wrong:
                verdict = "unsound, as expected" if count else "no counterexample found"
            print(f"{scoring:7} {name:28} {args.positions - count:5}/{args.positions} {verdict}")
            if count and not expected_wrong:
                failures += 1
    print(f"{time.perf_counter() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
