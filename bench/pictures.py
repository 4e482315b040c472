"""How long a picture takes: SVG, PNG and the whole game's GIF, per board.

Each figure is measured against the replay of the same record (``positions``: the rules
playing every move and building every view), measured in the same run, so the ratios say
how much the drawing adds to the replay; ``position_at`` (what ``position.json`` and a
picture of one ply replay) builds only the views it needs.

    .venv/bin/python bench/pictures.py [--repeat 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from playtable.games import load
from playtable.games.records import GameRecord
from playtable.pictures import position_at, positions, scene, to_gif, to_png, to_svg
from playtable.web.pictures import MAX_GIF_FRAMES

BOARDS: list[tuple[str, str, dict[str, Any]]] = [
    ("dots 5x5", "dots", {"grid": "square", "rows": 5, "cols": 5}),
    ("dots 12x12", "dots", {"grid": "square", "rows": 12, "cols": 12}),
    ("dots hexagon 6", "dots", {"grid": "hexagon", "size": 6}),
    ("swaptimum 9x9", "swaptimum", {"size": 9}),
    ("swaptimum 26x26", "swaptimum", {"size": 26}),
]


def random_game(game: str, options: dict[str, Any], rng: random.Random) -> GameRecord:
    rules = load(game, options)
    state = rules.initial()
    moves = []
    while rules.outcome(state) is None:
        move = rng.choice(rules.legal_move_texts(state))
        moves.append(move)
        state = rules.play(state, move)
    return GameRecord(game, options, tuple(moves), "red")


def best_of(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for label, game, options in BOARDS:
        record = random_game(game, options, rng)
        plies = len(record.moves)
        every = max(1, -(-(plies + 1) // MAX_GIF_FRAMES))
        replay = best_of(args.repeat, lambda r=record: list(positions(r)))
        last = position_at(record, plies)
        at = best_of(args.repeat, lambda r=record, n=plies: position_at(r, n))
        svg = best_of(args.repeat, lambda p=last: to_svg(scene(p)))
        png = best_of(args.repeat, lambda p=last: to_png(scene(p)))

        def gif(r: GameRecord = record, k: int = every) -> bytes:
            end = len(r.moves)
            shown = [scene(p) for p in positions(r) if p.ply % k == 0 or p.ply == end]
            return to_gif(shown)

        gif_s = best_of(1, gif)
        size = len(gif())
        print(
            f"{label}: {plies} plies; replay of every position {replay * 1000:.1f} ms; "
            f"the last position alone (position.json) {at * 1000:.1f} ms; "
            f"last position: svg {svg * 1000:.1f} ms, png {png * 1000:.1f} ms "
            f"({png / (replay / (plies + 1)):.0f}x one position's replay); "
            f"gif of {-(-(plies + 1) // every)} frames {gif_s:.2f} s, {size // 1024} KiB "
            f"({gif_s / replay:.0f}x the replay)"
        )


if __name__ == "__main__":
    main()
