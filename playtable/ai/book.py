"""An opening book of proved moves for the small Dots and Boxes boards.

The hard bot must play the whole game perfectly on boards up to 3x3, but a proof from the
first moves of some of them (3x3, and 3x3 misère above all) takes longer than a bot's budget
in pure Python. So the first positions of those boards are solved once, ahead of time, and
shipped: ``dots_book.json`` holds, per board setting, every position with up to a few lines
drawn (one per symmetry class), with its value for the side to move and every optimal line
(the bot picks one at random, so its games vary).

The boards of ``DEPTHS`` are stored to their depth (every position with up to that many lines
drawn beyond the start); the build then times a fresh solver on a sample of the positions just
past the book, which the bot meets and must prove live, and checks that every other board up
to 3x3 is quick from its first position. Rebuild after any change to the solver's values or
to the boards (``make book``, several minutes):

    python -m playtable.ai.book build            # writes playtable/ai/dots_book.json
    python -m playtable.ai.book check            # re-solves every stored position
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playtable.ai.dots_solver import DotsSolver, board_symmetries, permute_mask
from playtable.games.dots.game import DotsAndBoxes, DotsState

BOOK_PATH = Path(__file__).with_name("dots_book.json")
VERSION = 1
# The boards "up to 3x3" in every start and scoring.
SIZES = [(r, c) for r in range(1, 4) for c in range(1, 4)]
STARTS = ("standard", "swedish", "icelandic")
THRESHOLD_S = 0.5  # a board quicker than this from its first position needs no book
# How many lines deep the book goes, per board: chosen so that a fresh solver proves the
# positions just past the book within the hard bot's budget (the build prints the figures).
DEPTHS = {
    json.dumps(options, sort_keys=True): depth
    for options, depth in (
        ({"grid": "square", "rows": 3, "cols": 3, "start": "standard", "misere": False}, 3),
        ({"grid": "square", "rows": 3, "cols": 3, "start": "standard", "misere": True}, 5),
        ({"grid": "square", "rows": 3, "cols": 3, "start": "icelandic", "misere": True}, 2),
    )
}


def _game(options: dict[str, Any]) -> DotsAndBoxes:
    game = DotsAndBoxes.from_options(options)
    assert isinstance(game, DotsAndBoxes)
    return game


def board_key(game: DotsAndBoxes) -> str:
    return json.dumps(game.options(), sort_keys=True)


@functools.lru_cache(maxsize=64)
def _symmetries(key: str) -> tuple[tuple[int, ...], ...]:
    """The board symmetries (permutations of board lines) that keep the pre-drawn lines."""
    game = _game(json.loads(key))
    return tuple(
        perm
        for perm in board_symmetries(game.board)
        if permute_mask(game.predrawn, perm) == game.predrawn
    )


def canonical(game: DotsAndBoxes, drawn: int) -> tuple[int, tuple[int, ...]]:
    """The least image of ``drawn`` under the symmetries, and the symmetry that gives it."""
    best: tuple[int, tuple[int, ...]] | None = None
    for perm in _symmetries(board_key(game)):
        image = permute_mask(drawn, perm)
        if best is None or image < best[0]:
            best = (image, perm)
    assert best is not None
    return best


@functools.lru_cache(maxsize=1)
def _book() -> dict[str, dict[str, list[int]]]:
    """Per board key, per canonical drawn mask (hex): [value, optimal line, ...]."""
    try:
        data = json.loads(BOOK_PATH.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    if data.get("version") != VERSION:
        return {}
    return {key: board["positions"] for key, board in data["boards"].items()}


def lookup(game: DotsAndBoxes, state: DotsState) -> tuple[int, tuple[int, ...]] | None:
    """(value for the side to move, every optimal board line) if the book has the position."""
    positions = _book().get(board_key(game))
    if not positions or game.to_move(state) is None:
        return None
    image, perm = canonical(game, state.drawn)
    entry = positions.get(format(image, "x"))
    if entry is None:
        return None
    value, *lines = entry
    return value, tuple(sorted(perm.index(line) for line in lines))  # perm: actual -> stored


def _positions(game: DotsAndBoxes, level: int) -> list[int]:
    """One drawn mask per symmetry class with ``level`` lines drawn beyond the start."""
    free = [i for i in range(len(game.board.lines)) if not game.predrawn >> i & 1]
    seen: set[int] = set()
    found = []
    for lines in itertools.combinations(free, level):
        drawn = game.predrawn
        for line in lines:
            drawn |= 1 << line
        image, _ = canonical(game, drawn)
        if image not in seen:
            seen.add(image)
            found.append(image)
    return found


def _state(game: DotsAndBoxes, drawn: int) -> DotsState:
    state = game.initial()
    for line in range(len(game.board.lines)):
        if drawn >> line & 1 and not game.predrawn >> line & 1:
            state = game.apply(state, line)
    return state


def build_board(game: DotsAndBoxes, depth: int, log: Any) -> dict[str, list[int]]:
    """Every position of ``game`` with up to ``depth`` lines drawn beyond the start, solved
    by one solver whose table carries over from position to position."""
    positions: dict[str, list[int]] = {}
    solver = DotsSolver(game)
    for level in range(depth + 1):
        start = time.process_time()
        count = 0
        for drawn in _positions(game, level):
            state = _state(game, drawn)
            if game.to_move(state) is None:
                continue
            solution = solver.solve(state, deepening=False)
            positions[format(drawn, "x")] = [solution.value, *solution.best_moves]
            count += 1
        print(
            f"{board_key(game)} level {level}: {count} positions "
            f"in {time.process_time() - start:.1f} CPU s",
            file=log,
            flush=True,
        )
    return positions


def cold_times(game: DotsAndBoxes, level: int, sample: int, seed: int = 0) -> list[float]:
    """CPU seconds a fresh solver takes on (a sample of) the positions of ``level``: what
    the bot meets just past the book, sorted."""
    found = _positions(game, level)
    if sample < len(found):
        found = random.Random(seed).sample(found, sample)
    times = []
    for drawn in found:
        state = _state(game, drawn)
        if game.to_move(state) is None:
            continue
        start = time.process_time()
        DotsSolver(game).solve(state, all_best=False, deepening=False)
        times.append(time.process_time() - start)
    return sorted(times)


def boards() -> list[DotsAndBoxes]:
    games = []
    for (rows, cols), start, misere in itertools.product(SIZES, STARTS, (False, True)):
        games.append(_game({"rows": rows, "cols": cols, "start": start, "misere": misere}))
    return games


def build(sample: int = 40, log: Any = sys.stderr) -> dict[str, Any]:
    """The book: the boards of ``DEPTHS`` to their depth; every other board up to 3x3 must
    be quick from its first position (checked here: the build fails otherwise)."""
    result: dict[str, Any] = {"version": VERSION, "boards": {}}
    for game in boards():
        key = board_key(game)
        depth = DEPTHS.get(key)
        if depth is None:
            slowest = cold_times(game, 0, 1)[-1]
            if slowest > THRESHOLD_S:
                raise SystemExit(f"{key}: {slowest:.2f} s from the start; give it a depth")
            continue
        result["boards"][key] = {"depth": depth, "positions": build_board(game, depth, log)}
        times = cold_times(game, depth + 1, sample)
        print(
            f"{key} past the book (level {depth + 1}, {len(times)} positions, cold): "
            f"median {times[len(times) // 2]:.2f} s, slowest {times[-1]:.2f} s",
            file=log,
            flush=True,
        )
    return result


def check(log: Any = sys.stderr) -> int:
    """Re-solve every stored position and its stored line; returns the number of errors."""
    wrong = 0
    for key, positions in _book().items():
        game = _game(json.loads(key))
        solver = DotsSolver(game)
        for mask, (value, *lines) in positions.items():
            state = _state(game, int(mask, 16))
            for line in lines:
                if not line_is_optimal(solver, game, state, value, line):
                    wrong += 1
                    print(f"{key} {mask}: {value} by line {line} is wrong", file=log, flush=True)
        print(f"{key}: {len(positions)} positions checked", file=log, flush=True)
    return wrong


def line_is_optimal(
    solver: DotsSolver, game: DotsAndBoxes, state: DotsState, value: int, line: int
) -> bool:
    """Whether ``value`` is the position's value and drawing ``line`` achieves it."""
    if solver.solve(state, all_best=False, deepening=False).value != value:
        return False
    after = game.apply(state, line)
    claimed = game.claimed_by(state, after)
    rest = 0 if game.to_move(after) is None else solver.solve(after, all_best=False).value
    return (claimed + rest if claimed else -rest) == value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m playtable.ai.book", description=__doc__)
    parser.add_argument("command", choices=("build", "check"))
    parser.add_argument("--sample", type=int, default=40, help="positions timed past the book")
    parser.add_argument("--output", type=Path, default=BOOK_PATH)
    args = parser.parse_args(argv)
    if args.command == "check":
        return 1 if check() else 0
    data = build(args.sample)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    args.output.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
