"""The atlas: exact values of whole Dots and Boxes boards, with a map of every first line.

For each board of :func:`boards` (every square board of at most 12 cells, the 4x4 Swedish
and Icelandic boards, triangles up to side 4, hexagons up to radius 2, in every start and
both scorings; and 3x5 and 4x4 in the standard start and normal scoring, the two published
values the search now proves: a whole build leaves them as stored, ``--only`` with a time
limit of tens of minutes proves them again) the solver proves, once
and offline, the value of the empty board for the first player (net cells under perfect
play, the solver's ``v``: in misère the first player wants it low) and the value of every
first line (the same figure when the game opens with that line). Lines that a symmetry of
the board maps onto each other have the same value, so one of each class is solved.

The solver is imported only to prove: the pages read the stored data alone.

The results are data (``atlas.json`` beside this file), rebuilt by ``playtable atlas build``
(``make atlas``); a board not proved within the time limit is left out and the build says so.
``playtable atlas check`` re-proves a sample of the stored boards; the tests do the same.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from playtable.games.dots.game import STARTS, DotsAndBoxes

if TYPE_CHECKING:
    from playtable.ai.dots_solver import DotsSolver

ATLAS_PATH = Path(__file__).with_name("atlas.json")
VERSION = 1
MAX_SQUARE_CELLS = 12
TABLE_BITS = 24  # 2 ** 24 entries of 16 bytes: 256 MB for the build's one solver at a time
BIG_TABLE_BITS = 28  # 4 GiB, for the boards of more than 32 lines (3x5 and 4x4)
# The bigger boards of the published values, normal scoring and the standard start only.
BIG_BOARDS = ((3, 5), (4, 4))
# Values published in the literature (first player, normal scoring, standard start).
PUBLISHED = {(2, 2): 2, (3, 3): -3, (3, 5): -1, (4, 4): 0}


@dataclass(frozen=True, slots=True)
class AtlasBoard:
    """One setting of the game: grid, size, start and scoring."""

    grid: str
    dimensions: tuple[int, ...]
    start: str
    misere: bool

    @property
    def key(self) -> str:
        size = "x".join(str(d) for d in self.dimensions)
        scoring = "misere" if self.misere else "normal"
        return f"{self.grid}-{size}-{self.start}-{scoring}"

    def options(self) -> dict[str, Any]:
        if self.grid == "square":
            shape: dict[str, Any] = {"rows": self.dimensions[0], "cols": self.dimensions[1]}
        else:
            shape = {"size": self.dimensions[0]}
        return {"grid": self.grid, **shape, "start": self.start, "misere": self.misere}

    def game(self) -> DotsAndBoxes:
        game = DotsAndBoxes.from_options(self.options())
        assert isinstance(game, DotsAndBoxes)
        return game


@dataclass(frozen=True, slots=True)
class AtlasEntry:
    """What was proved about one board from its first position.

    ``value`` is the first player's net cells under perfect play; ``first_moves`` holds, per
    board line, the value when the game opens with that line (``None`` for a line drawn by
    the start); ``nodes`` counts the positions searched for the whole entry.
    """

    board: AtlasBoard
    value: int
    first_moves: tuple[int | None, ...]
    nodes: int

    @property
    def best_lines(self) -> tuple[int, ...]:
        return tuple(i for i, v in enumerate(self.first_moves) if v == self.value)

    def to_json(self) -> dict[str, Any]:
        return {
            "grid": self.board.grid,
            "dimensions": list(self.board.dimensions),
            "start": self.board.start,
            "misere": self.board.misere,
            "value": self.value,
            "first_moves": list(self.first_moves),
            "nodes": self.nodes,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> AtlasEntry:
        board = AtlasBoard(
            data["grid"], tuple(data["dimensions"]), data["start"], bool(data["misere"])
        )
        return AtlasEntry(board, int(data["value"]), tuple(data["first_moves"]), int(data["nodes"]))


def boards() -> list[AtlasBoard]:
    """Every board the atlas tries, those with the fewest lines first."""
    found: list[AtlasBoard] = []
    for misere in (False, True):
        for rows in range(1, MAX_SQUARE_CELLS + 1):
            for cols in range(rows, MAX_SQUARE_CELLS // rows + 1):
                for start in STARTS:
                    found.append(AtlasBoard("square", (rows, cols), start, misere))
        # The 4x4 example boards of the Swedish and Icelandic variant pages.
        for start in ("swedish", "icelandic"):
            found.append(AtlasBoard("square", (4, 4), start, misere))
        if not misere:
            found.extend(AtlasBoard("square", size, "standard", False) for size in BIG_BOARDS)
        for grid, largest in (("triangle", 4), ("hexagon", 2)):
            for size in range(1, largest + 1):
                for start in STARTS:
                    if start != "icelandic":  # the Icelandic start is square-only
                        found.append(AtlasBoard(grid, (size,), start, misere))
    # A start that leaves no line to draw (Swedish 1x1) has nothing to prove.
    found = [b for b in found if b.game().legal_moves(b.game().initial())]
    found.sort(key=lambda b: (len(b.game().board.lines), b.key))
    return found


def is_big(board: AtlasBoard) -> bool:
    """One of the big boards, which a whole build keeps as stored."""
    return board.grid == "square" and board.dimensions in BIG_BOARDS


def line_classes(game: DotsAndBoxes) -> list[list[int]]:
    """The free first lines in classes of lines that a symmetry of the start maps together."""
    from playtable.ai.dots_solver import board_symmetries, permute_mask

    perms = [
        p for p in board_symmetries(game.board) if permute_mask(game.predrawn, p) == game.predrawn
    ]
    seen: set[int] = set()
    classes: list[list[int]] = []
    for line in range(len(game.board.lines)):
        if game.predrawn >> line & 1 or line in seen:
            continue
        orbit = sorted({p[line] for p in perms})
        seen.update(orbit)
        classes.append(orbit)
    return classes


def first_move_value(game: DotsAndBoxes, solver: DotsSolver, line: int, deadline: float) -> int:
    """The first player's value when the game opens with ``line``."""
    before = game.predrawn
    after = before | 1 << line
    claimed = sum(
        1
        for cell in game.board.cells
        if line in cell.lines and all(after >> i & 1 for i in cell.lines)
    )
    rest = solver.value(after, deadline=deadline)
    return claimed + rest if claimed else -rest


def prove(board: AtlasBoard, time_limit: float) -> AtlasEntry:
    """Prove ``board``'s value and first-move map; raises
    :class:`~playtable.ai.dots_solver.SolverTimeout`."""
    from playtable.ai.dots_solver import DotsSolver  # loaded only to prove

    game = board.game()
    # A table to the size of the board: 2 ** 18 entries for 12 lines, 2 ** 24 from 24 lines
    # on, 2 ** 28 past 32 lines (3x5 and 4x4 fill a hundred million entries).
    lines = len(game.board.lines)
    bits = BIG_TABLE_BITS if lines > 32 else min(TABLE_BITS, 12 + lines // 2)
    solver = DotsSolver(game, table_bits=bits)
    deadline = time.perf_counter() + time_limit
    values: list[int | None] = [None] * len(game.board.lines)
    for orbit in line_classes(game):
        value = first_move_value(game, solver, orbit[0], deadline)
        for line in orbit:
            values[line] = value
    proved = [v for v in values if v is not None]
    value = min(proved) if board.misere else max(proved)
    return AtlasEntry(board, value, tuple(values), solver.stats.nodes)


def build(
    time_limit: float, log: TextIO = sys.stderr, only: set[str] | None = None
) -> list[AtlasEntry]:
    """Prove every board of :func:`boards` (or those keyed in ``only``), smallest first.

    A board left unproved within ``time_limit`` seconds is skipped (and so are the bigger
    boards of its grid, start and scoring, which would take longer still). The big boards
    (:data:`BIG_BOARDS`, minutes each) are proved only when ``only`` names them.
    """
    from playtable.ai.dots_solver import SolverTimeout

    entries: list[AtlasEntry] = []
    given_up: set[tuple[str, str, bool]] = set()
    for board in boards():
        if only is not None and board.key not in only:
            continue
        if only is None and is_big(board):
            print(f"{board.key}: kept as stored (prove it with --only)", file=log)
            continue
        family = (board.grid, board.start, board.misere)
        if family in given_up and board.grid != "square":
            print(f"{board.key}: skipped (a smaller board was not proved)", file=log)
            continue
        started = time.process_time()
        try:
            entry = prove(board, time_limit)
        except SolverTimeout:
            print(f"{board.key}: not proved within {time_limit:g} s", file=log, flush=True)
            given_up.add(family)
            continue
        entries.append(entry)
        print(
            f"{board.key}: {entry.value:+d} ({entry.nodes} nodes, "
            f"{time.process_time() - started:.1f} s CPU)",
            file=log,
            flush=True,
        )
    return entries


def save(entries: Sequence[AtlasEntry], path: Path = ATLAS_PATH) -> None:
    data = {"version": VERSION, "boards": [e.to_json() for e in entries]}
    text = json.dumps(data, separators=(",", ":"))
    # One board a line: small diffs when a rebuild changes a few.
    text = text.replace('{"grid"', '\n{"grid"')
    path.write_text(text + "\n", encoding="utf-8")


@functools.cache
def load(path: Path = ATLAS_PATH) -> tuple[AtlasEntry, ...]:
    """The stored entries (none when no atlas was built)."""
    if not path.exists():
        return ()
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("version") != VERSION:
        return ()
    return tuple(AtlasEntry.from_json(item) for item in data["boards"])


@functools.cache
def _index() -> dict[str, AtlasEntry]:
    return {json.dumps(e.board.options(), sort_keys=True): e for e in load()}


def entry_for(options: dict[str, Any]) -> AtlasEntry | None:
    """The stored entry of the board with these game options (as ``DotsAndBoxes.options``)."""
    wanted = DotsAndBoxes.from_options(options).options()
    return _index().get(json.dumps(wanted, sort_keys=True))


def check(sample: int, time_limit: float, seed: int, log: TextIO = sys.stderr) -> int:
    """Re-prove ``sample`` stored boards picked at random (not the big ones, minutes each:
    their values are checked against the published ones); the number that disagree."""
    entries = [e for e in load() if not is_big(e.board)]
    rng = random.Random(seed)
    picked = rng.sample(entries, min(sample, len(entries)))
    from playtable.ai.dots_solver import SolverTimeout

    wrong = 0
    for entry in picked:
        try:
            again = prove(entry.board, time_limit)
        except SolverTimeout:  # unchecked is no pass (a traceback before)
            wrong += 1
            print(f"{entry.board.key}: not proved again within {time_limit:g} s", file=log)
            continue
        ok = again.value == entry.value and again.first_moves == entry.first_moves
        wrong += not ok
        print(f"{entry.board.key}: {'ok' if ok else 'DIFFERS'}", file=log, flush=True)
    for (rows, cols), value in PUBLISHED.items():
        stored = entry_for({"rows": rows, "cols": cols})
        if stored is not None and stored.value != value:
            wrong += 1
            print(f"{rows}x{cols}: {stored.value:+d}, published {value:+d}", file=log)
    return wrong


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


_seconds.__name__, _count.__name__ = "seconds", "count"  # argparse's 'invalid seconds value'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``playtable atlas`` (and ``python -m playtable.ai.atlas``)."""
    sub = parser.add_subparsers(dest="action", required=True)
    make = sub.add_parser("build", help=f"prove every board and write {ATLAS_PATH.name}")
    make.add_argument("--time-limit", type=_seconds, default=120.0, help="seconds per board")
    make.add_argument("--only", help="comma list of board keys (e.g. square-3x3-standard-normal)")
    make.add_argument("--output", type=Path, default=ATLAS_PATH, help="where to write")
    again = sub.add_parser("check", help="re-prove a sample of the stored boards")
    again.add_argument("--sample", type=_count, default=10, help="boards to prove again")
    again.add_argument("--time-limit", type=_seconds, default=120.0, help="seconds per board")
    again.add_argument("--seed", type=int, default=0, help="which boards the sample picks")


def _refusal(only: set[str] | None, output: Path) -> str | None:
    """Why a build cannot start, checked before its minutes of proofs (a key that names no
    board proved nothing and said '0 boards'; an output that could not be written was a
    traceback once every board was proved, the proofs lost)."""
    unknown = sorted((only or set()) - {board.key for board in boards()})
    if unknown:
        return f"no board {', '.join(unknown)} in the atlas (keys: square-3x3-standard-normal)"
    if output.is_dir() or not output.parent.is_dir() or not os.access(output.parent, os.W_OK):
        return f"cannot write {output}"
    return None


def run(args: argparse.Namespace) -> int:
    if args.action == "build":
        only = set(args.only.split(",")) if args.only else None
        refusal = _refusal(only, args.output)
        if refusal is not None:
            print(f"playtable atlas: {refusal}", file=sys.stderr)
            return 2
        entries = build(args.time_limit, only=only)
        # Keep the other stored boards (a whole build: the big ones it does not prove).
        stored = [e for e in load(args.output) if only is not None or is_big(e.board)]
        if stored:
            kept = {e.board.key: e for e in stored}
            kept.update({e.board.key: e for e in entries})
            order = {b.key: i for i, b in enumerate(boards())}
            entries = sorted(kept.values(), key=lambda e: order.get(e.board.key, len(order)))
        save(entries, args.output)
        load.cache_clear()
        _index.cache_clear()
        print(f"{len(entries)} boards in {args.output}", file=sys.stderr)
        return 0
    return 1 if check(args.sample, args.time_limit, args.seed) else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="playtable atlas", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
