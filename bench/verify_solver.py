"""Check every speed-up of the Dots and Boxes solver against the plain memoised negamax.

Random positions (random lines drawn on small boards of every grid, start and scoring) are
solved by the plain search and by the solver with each reduction switched on alone and all
together; any disagreement is printed and makes the script fail. In misère the capture
reductions are also forced on, to show that they are wrong there (the solver never uses them
in misère), and the C search (``playtable/ai/_dotscore.c``) is checked as well.

    python bench/verify_solver.py --positions 3000

The cutoffs and prunings of the C search in normal scoring (the loony bound, the enhanced
transposition cutoff with its lone-cell sacrifices, and the dominated sacrifices: a
half-hearted handout, the second line of a lone cell) are also checked on their own, on
bigger positions than the plain search can take: random positions of 4x4, 3x5 and triangle 4
(normal scoring) with up to ``--cutoff-free`` free lines, each searched in a random window
(null windows included) with all of them and with none; the fail-soft results must bound the
exact value the same way.
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


CUTOFF_BOARDS: list[dict[str, Any]] = [
    {"rows": 4, "cols": 4},
    {"rows": 3, "cols": 5},
    {"grid": "triangle", "size": 4},
]


def check_cutoffs(positions: int, max_free: int, rng: random.Random) -> int:
    """Positions where the C search with its cutoffs breaks the fail-soft contract."""
    from playtable.ai._dotscore import Core

    wrong = 0
    for options in CUTOFF_BOARDS:
        game = DotsAndBoxes.from_options(options)
        solver = DotsSolver(game)
        fast = Core(solver.cell_masks, solver.n_lines, solver.perms[1:], 10, 20, misere=False)
        plain = Core(
            solver.cell_masks,
            solver.n_lines,
            [],
            10,
            20,
            misere=False,
            etc=False,
            loony=False,
            prune=False,
        )
        cells = len(solver.cell_masks)
        for _ in range(positions // len(CUTOFF_BOARDS)):
            drawn = solver.to_internal(random_position(game, rng, max_free))
            exact = plain.search(drawn, -cells - 1, cells + 1, 600.0)
            low = rng.randint(-cells, cells - 1)
            high = low + 1 if rng.random() < 0.6 else rng.randint(low + 1, cells + 1)
            got = fast.search(drawn, low, high, 600.0)
            assert exact is not None and got is not None
            ok = exact <= got if got <= low else exact >= got if got >= high else exact == got
            if not ok:
                wrong += 1
                print(f"  cutoffs: {options} drawn={drawn:#x} ({low}, {high}): {got}, {exact}")
    verdict = "ok" if not wrong else "WRONG"
    print(f"normal  C search cutoffs, prunings vs none {positions - wrong:5}/{positions} {verdict}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000, help="positions per scoring")
    parser.add_argument("--max-free", type=int, default=15, help="free lines at most")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cutoff-positions", type=int, default=3000)
    parser.add_argument("--cutoff-free", type=int, default=22, help="free lines at most")
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
    if NATIVE and args.cutoff_positions:
        failures += check_cutoffs(args.cutoff_positions, args.cutoff_free, rng) > 0
    print(f"{time.perf_counter() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
