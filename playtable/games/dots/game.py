"""Dots and Boxes on any board of ``geometry.py``: starts, moves, the extra move, scoring.

Positions are bit masks: bit ``i`` of ``drawn`` is line ``i`` of the board, bit ``c`` of
``red``/``blue`` is cell ``c`` claimed by that player. Pre-drawn lines (Swedish and
Icelandic boards) are simply set in the initial mask; they belong to nobody and are no moves.

>>> game = DotsAndBoxes.from_options({"rows": 1, "cols": 1})
>>> state = game.replay(["a1-b1", "a1-a2", "b1-b2"])
>>> game.to_move(state)
'blue'
>>> state = game.play(state, "a2-b2")  # blue completes the box
>>> game.score(state), game.outcome(state)
((0, 1), Outcome(winner='blue', reason=<Termination.SCORE: 'score'>, score=(0, 1)))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import Any, ClassVar, Literal, NamedTuple

from playtable.games.base import (
    N_,
    Game,
    IllegalMove,
    NotationError,
    Outcome,
    Player,
    SettingsError,
    Termination,
    owner_of,
    shown,
)
from playtable.games.dots.geometry import (
    GRIDS,
    HEXAGON_MAX,
    SQUARE_MAX,
    TRIANGLE_MAX,
    Board,
    Grid,
    board_for,
)

Start = Literal["standard", "swedish", "icelandic"]
STARTS: tuple[Start, ...] = ("standard", "swedish", "icelandic")

_SQRT3_2 = math.sqrt(3) / 2
_SIZE_LIMITS = {"triangle": TRIANGLE_MAX, "hexagon": HEXAGON_MAX}
_DEFAULT_SIZE = {"triangle": 4, "hexagon": 2}

# Why a move is refused: catalog messages (a page says them in its language).
GAME_OVER = N_("The game is over: every line is drawn.")
NO_LINE = N_("There is no line %(line)s on this board.")
PREDRAWN = N_("The line %(line)s is drawn at the start.")
ALREADY_DRAWN = N_("The line %(line)s is already drawn.")
NOT_TEXT = N_("A move is a text such as a1-b1.")
NOT_A_LINE = N_("%(text)s is not a line: write two dots such as a1-b1.")
NO_DOT = N_("There is no dot %(dot)s on this board.")
NOT_NEIGHBOURS = N_("The dots %(first)s and %(second)s are not neighbours.")
MOVE_ERRORS = (
    GAME_OVER,
    NO_LINE,
    PREDRAWN,
    ALREADY_DRAWN,
    NOT_TEXT,
    NOT_A_LINE,
    NO_DOT,
    NOT_NEIGHBOURS,
)


@dataclass(frozen=True, slots=True)
class DotsSettings:
    grid: Grid = "square"
    dimensions: tuple[int, ...] = (5, 5)  # (rows, cols) on the square grid, else (size,)
    start: Start = "standard"
    misere: bool = False

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle and copy through the constructor: the compiled build (see COMPILED) makes
        # this a native class, whose frozen fields the dataclass's __setstate__ cannot set.
        return (type(self), (self.grid, self.dimensions, self.start, self.misere))

    def options(self) -> dict[str, Any]:
        shape: dict[str, Any]
        if self.grid == "square":
            shape = {"rows": self.dimensions[0], "cols": self.dimensions[1]}
        else:
            shape = {"size": self.dimensions[0]}
        return {"grid": self.grid, **shape, "start": self.start, "misere": self.misere}


class DotsState(NamedTuple):
    """A position, immutable and hashable.

    A named tuple rather than a frozen dataclass because bots and random playouts build one
    per move: ``apply`` builds it with one C call instead of five ``object.__setattr__``.
    Being a tuple, it also unpacks and compares equal to a plain tuple of the same fields.
    """

    drawn: int  # lines drawn so far, pre-drawn ones included
    red: int  # cells claimed by red
    blue: int  # cells claimed by blue
    to_move: Player | None  # None once every line is drawn
    ply: int


_tuple_new = tuple.__new__  # builds a DotsState without going through its Python __new__

# Whether this module runs as the C extension that mypyc builds from it (an opt-in build:
# ``PLAYTABLE_COMPILE=1 pip install .``, see setup.py). The extension is a shared library next
# to this file; a source checkout and the editable install always run this file.
COMPILED = not __file__.endswith(".py")

# legal_moves() lists the free lines a byte of the free-line mask at a time, from tables of
# the set bits of every byte value: 8 lookups for the 60 lines of the default board. The
# tables are built on first use and shared by every board (about 20 kB per byte).


@functools.cache
def _byte_table(index: int) -> tuple[tuple[int, ...], ...]:
    """For every value of byte ``index`` of a mask, the indices of its set bits.

    >>> _byte_table(1)[0b101]
    (8, 10)
    """
    offset = 8 * index
    table: list[tuple[int, ...]] = [()]
    for value in range(1, 256):
        high = value.bit_length() - 1
        table.append((*table[value ^ (1 << high)], offset + high))
    return tuple(table)


@functools.cache
def _legal_moves_function(line_count: int) -> Callable[[DotsState], list[int]]:
    """``legal_moves`` specialised to boards of ``line_count`` lines: one function, no loop.

    Generated, as dataclasses and namedtuple generate their methods, because in pure Python
    the byte lookups unrolled into one list display, in one frame, cost about 40% less than
    the same lookups in the loop of :meth:`DotsAndBoxes.legal_moves`, and listing the moves
    is a third of a random playout. The compiled module does not use it (see ``__init__``).

    >>> _legal_moves_function(12)(DotsState(0b1111_1111_0110, 0, 0, "red", 6))
    [0, 3]
    """
    size = max(1, -(-line_count // 8))
    full = (1 << line_count) - 1
    names = ", ".join(f"b{k}" for k in range(size))
    lookups = ", ".join(f"*t{k}[b{k}]" for k in range(size))
    source = (
        "def legal_moves(state):\n"  # state[0] is state.drawn, read a little faster
        f"    {names}, = ({full} ^ state[0]).to_bytes({size}, 'little')\n"
        f"    return [{lookups}]\n"
    )
    namespace: dict[str, Any] = {f"t{k}": _byte_table(k) for k in range(size)}
    exec(source, namespace)
    function: Callable[[DotsState], list[int]] = namespace["legal_moves"]
    return function


# The range of each number setting, said as the home form and the API say it.
_RANGE_MESSAGES = {
    # Translators: "rows" is the setting of the number of rows of boxes
    "rows": N_("rows must be a whole number from %(low)s to %(high)s"),
    # Translators: "columns" is the setting of the number of columns of boxes
    "cols": N_("columns must be a whole number from %(low)s to %(high)s"),
    # Translators: "size" is the size setting of a board (squares per side, triangle side,
    # hexagon radius)
    "size": N_("size must be a whole number from %(low)s to %(high)s"),
}


def _whole_number(options: Mapping[str, Any], name: str, low: int, high: int, default: int) -> int:
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SettingsError(_RANGE_MESSAGES[name], low=low, high=high)
    return value


class DotsAndBoxes(Game[DotsSettings, DotsState, int]):
    """Dots and Boxes; a move is the index of a line on the board."""

    name: ClassVar[str] = "dots"
    move_errors = MOVE_ERRORS

    @classmethod
    def parse_settings(cls, options: Mapping[str, Any]) -> DotsSettings:
        grid = options.get("grid", "square")
        if grid not in GRIDS:
            raise SettingsError(N_("grid must be one of %(choices)s"), choices=", ".join(GRIDS))
        allowed = {"grid", "start", "misere"} | ({"rows", "cols"} if grid == "square" else {"size"})
        unknown = sorted(set(options) - allowed)
        if unknown:
            hint = "rows and cols" if grid == "square" else "size"
            raise SettingsError(
                N_("unknown option %(option)s for the %(grid)s grid (its size is set by %(hint)s)"),
                option=repr(unknown[0]),
                grid=grid,
                hint=hint,
            )
        dimensions: tuple[int, ...]
        if grid == "square":
            rows = _whole_number(options, "rows", 1, SQUARE_MAX, 5)
            cols = _whole_number(options, "cols", 1, SQUARE_MAX, 5)
            dimensions = (rows, cols)
        else:
            size = _whole_number(options, "size", 1, _SIZE_LIMITS[grid], _DEFAULT_SIZE[grid])
            dimensions = (size,)
        start = options.get("start", "standard")
        if start not in STARTS:
            raise SettingsError(N_("start must be one of %(choices)s"), choices=", ".join(STARTS))
        if start == "icelandic" and grid != "square":
            raise SettingsError(N_("the Icelandic board is played on the square grid only"))
        misere = options.get("misere", False)
        if not isinstance(misere, bool):
            raise SettingsError(N_("misere must be true or false"))
        return DotsSettings(grid, dimensions, start, misere)

    def __init__(self, settings: DotsSettings) -> None:
        self.settings = settings
        self.board: Board = board_for(settings.grid, settings.dimensions)
        board = self.board
        self._full = (1 << len(board.lines)) - 1
        self._cell_masks = tuple(sum(1 << i for i in cell.lines) for cell in board.cells)
        # For each line, the cells it is a side of, as (cell bit, mask of the cell's sides):
        # the hot path of apply() needs nothing else.
        self._line_cells = tuple(
            tuple((1 << c, self._cell_masks[c]) for c in line.cells) for line in board.lines
        )
        self._predrawn = self._starting_lines()
        # The hot path of apply(): per line, its bit and the bit and sides mask of each of
        # its two cells (an outline line lists its one cell twice, so apply never branches
        # on the number of cells).
        self._line_count = len(board.lines)
        self._sides = tuple(
            (1 << line.index, *cells[0], *cells[-1])
            for line, cells in zip(board.lines, self._line_cells, strict=True)
        )
        self._initial = DotsState(self._predrawn, 0, 0, "red", 0)
        self._replay_tables()
        self._byte_count = max(1, -(-self._line_count // 8))
        self._byte_tables = tuple(_byte_table(k) for k in range(self._byte_count))
        if not COMPILED:
            # Bots and playouts call legal_moves() more than anything else. In pure Python a
            # function specialised to the board's size takes the place of the method below
            # on this instance: random playouts run about 20% faster. Compiled, the method
            # itself is faster than that interpreted function, so it is left alone; either
            # way the method below is the reference (the tests check that both agree).
            self.legal_moves = _legal_moves_function(self._line_count)  # type: ignore[method-assign,assignment]

    def _replay_tables(self) -> None:
        """What :meth:`replay` needs to play a whole record at once (see there)."""
        board = self.board
        # Every line by its text, written either way round, as parse_move reads it.
        texts = {line.name: line.index for line in board.lines}
        for line in board.lines:
            a, b = line.name.split("-")
            texts[f"{b}-{a}"] = line.index
        self._line_of_text = texts
        self._line_bits = tuple(1 << i for i in range(self._line_count))
        self._predrawn_lines = frozenset(
            i for i in range(self._line_count) if self._predrawn >> i & 1
        )
        self._free_count = self._line_count - len(self._predrawn_lines)
        # The ply at which each line is drawn: -1 for a pre-drawn line, _line_count for one
        # not drawn yet; then every cell's sides, read in one call.
        self._ply_template = {
            i: -1 if i in self._predrawn_lines else self._line_count
            for i in range(self._line_count)
        }
        sides = {len(cell.lines) for cell in board.cells}
        self._sides_per_cell = sides.pop() if len(sides) == 1 else 0
        self._cell_sides = itemgetter(*(i for cell in board.cells for i in cell.lines))
        self._cell_bits = tuple(1 << cell.index for cell in board.cells)
        self._all_cells = (1 << len(board.cells)) - 1

    def __reduce__(self) -> tuple[Any, ...]:
        # A game is its settings; rebuilding it from them keeps it picklable despite the
        # generated legal_moves above (bots may send a game to worker processes).
        return (type(self), (self.settings,))

    def options(self) -> dict[str, Any]:
        return self.settings.options()

    # -- starting positions ------------------------------------------------------------------
    def _starting_lines(self) -> int:
        """The mask of pre-drawn lines: none, the outline (Swedish) or left and bottom sides
        (Icelandic), skipping any line that would by itself complete a cell."""
        board = self.board
        if self.settings.start == "standard":
            return 0
        if self.settings.start == "swedish":
            candidates = [line for line in board.lines if line.is_outline]
        else:
            dots = board.dots
            candidates = [
                line
                for line in board.lines
                if (dots[line.a].col == dots[line.b].col == 0)
                or (dots[line.a].row == dots[line.b].row == 0)
            ]
        drawn = 0
        for line in candidates:  # in board order, so the last line of a lone cell stays open
            bit = 1 << line.index
            if any((drawn | bit) & mask == mask for _, mask in self._line_cells[line.index]):
                continue
            drawn |= bit
        return drawn

    @property
    def predrawn(self) -> int:
        return self._predrawn

    # -- play -----------------------------------------------------------------------------------
    def initial(self) -> DotsState:
        return self._initial

    def to_move(self, state: DotsState) -> Player | None:
        return state.to_move

    def ply(self, state: DotsState) -> int:
        return state.ply

    def legal_moves(self, state: DotsState) -> list[int]:
        """The free lines, lowest first, looked up a byte of the free-line mask at a time."""
        free = self._full ^ state.drawn
        moves: list[int] = []
        for table in self._byte_tables:
            moves.extend(table[free & 255])
            free >>= 8
        return moves

    def replay(self, texts: Sequence[str]) -> DotsState:
        """The position after ``texts``: the whole record at once, else move by move.

        A record whose texts are all lines of the board, none twice and none pre-drawn, is
        played without a call per move: the cells a move completes are those whose last side
        it draws, and the turn passes at every move that completes none, so who claimed each
        cell follows from the plies alone. Anything else is replayed move by move, which
        raises the same :class:`IllegalMove` as :meth:`play` would.
        """
        state = self._replay_at_once(texts)
        return state if state is not None else super().replay(texts)

    def _replay_at_once(self, texts: Sequence[str]) -> DotsState | None:
        """The position after ``texts`` if they are distinct free lines, else ``None``."""
        count = len(texts)
        if not count:
            return self._initial
        try:
            lines = list(map(self._line_of_text.__getitem__, texts))
        except (KeyError, TypeError):  # not a line (or not even hashable): play() says why
            return None
        if len(set(lines)) != count or count > self._free_count:
            return None
        if self._predrawn_lines and not self._predrawn_lines.isdisjoint(lines):
            return None
        sides = self._sides_per_cell
        if not sides:
            return None
        line_count = self._line_count
        ply_of = self._ply_template.copy()
        ply_of.update(zip(lines, range(count)))  # noqa: B905 (ply_of[line]: the ply drawing it)
        # The ply completing each cell: that of its last side drawn (line_count if open).
        flat = self._cell_sides(ply_of)
        completed = list(map(max, *[flat[k::sides] for k in range(sides)]))
        plies = sorted(set(completed))
        if plies[-1] == line_count:
            plies.pop()
        if plies and plies[0] < 0:  # a cell closed by pre-drawn lines: never built that way
            return None
        # Before the k-th ply that completes a cell (from 0), the turn passed ply - k times:
        # red moved at that ply if that is even.
        red = blue = 0
        if plies:
            cells = self._cell_bits
            red_plies = {ply for k, ply in enumerate(plies) if not (ply - k) & 1}
            red = sum(compress(cells, map(red_plies.__contains__, completed)))
            if count == self._free_count:  # the whole game: every cell is claimed
                return _tuple_new(DotsState, (self._full, red, self._all_cells ^ red, None, count))
            blue = sum(compress(cells, map(set(plies).__contains__, completed))) - red
        drawn = self._predrawn + sum(map(self._line_bits.__getitem__, lines))
        mover: Player = "blue" if (count - len(plies)) & 1 else "red"
        return _tuple_new(DotsState, (drawn, red, blue, mover, count))

    def apply(self, state: DotsState, move: int) -> DotsState:
        drawn, red, blue, mover, ply = state
        if mover is None:
            raise IllegalMove(GAME_OVER)
        # type() first: True is no line (bool is an int), as for Swaptimum's squares
        if type(move) is not int or not 0 <= move < self._line_count:
            raise IllegalMove(NO_LINE, line=shown(move))
        bit, first, first_sides, second, second_sides = self._sides[move]
        if drawn & bit:
            reason = PREDRAWN if self._predrawn & bit else ALREADY_DRAWN
            raise IllegalMove(reason, line=self.board.lines[move].name)
        drawn |= bit
        if drawn & first_sides != first_sides and drawn & second_sides != second_sides:
            # No cell claimed, the usual case: the turn passes. The game cannot be over,
            # since the last line drawn always completes the cells it is a side of.
            nxt = "blue" if mover == "red" else "red"
            return _tuple_new(DotsState, (drawn, red, blue, nxt, ply + 1))
        claimed = (first if drawn & first_sides == first_sides else 0) | (
            second if drawn & second_sides == second_sides else 0
        )
        if mover == "red":
            red |= claimed
        else:
            blue |= claimed
        # Completing a cell earns one more line, unless that was the last one.
        nxt_or_end = None if drawn == self._full else mover
        return _tuple_new(DotsState, (drawn, red, blue, nxt_or_end, ply + 1))

    def claimed_by(self, before: DotsState, after: DotsState) -> int:
        """How many cells the move from ``before`` to ``after`` claimed."""
        return (after.red | after.blue).bit_count() - (before.red | before.blue).bit_count()

    def score(self, state: DotsState) -> tuple[int, int]:
        return state.red.bit_count(), state.blue.bit_count()

    def outcome(self, state: DotsState) -> Outcome | None:
        if state.drawn != self._full:
            return None
        red, blue = state.red.bit_count(), state.blue.bit_count()
        if red == blue:
            return Outcome(None, Termination.SCORE, (red, blue))
        red_ahead = red > blue
        winner: Player = "red" if red_ahead != self.settings.misere else "blue"
        return Outcome(winner, Termination.SCORE, (red, blue))

    # -- notation --------------------------------------------------------------------------------
    def parse_move(self, text: str) -> int:
        """A line by its two dots, ``a1-b1``; the dots may come in either order."""
        if not isinstance(text, str):
            raise NotationError(NOT_TEXT)
        index = self.board.line_index.get(text)
        if index is not None:
            return index
        parts = text.split("-")
        if len(parts) != 2 or not all(parts):
            raise NotationError(NOT_A_LINE, text=shown(text))
        dot_index = self.board.dot_index
        for part in parts:
            if part not in dot_index:
                raise NotationError(NO_DOT, dot=shown(part))
        index = self.board.line_index.get(f"{parts[1]}-{parts[0]}")
        if index is None:
            raise NotationError(NOT_NEIGHBOURS, first=parts[0], second=parts[1])
        return index

    def format_move(self, move: int) -> str:
        return self.board.lines[move].name

    def legal_move_texts(self, state: DotsState) -> list[str]:
        """The free lines' names in the order of :meth:`sort_key` (by name), sorted as small
        integers: each line's rank in that order is worked out once per board."""
        ranks = self.__dict__.get("_name_ranks")
        if ranks is None:
            lines = self.board.lines
            ordered = sorted(range(len(lines)), key=self.sort_key)
            rank = [0] * len(lines)
            for position, line in enumerate(ordered):
                rank[line] = position
            ranks = self.__dict__["_name_ranks"] = (rank, [lines[i].name for i in ordered])
        rank, names = ranks
        return [names[r] for r in sorted([rank[line] for line in self.legal_moves(state)])]

    # -- pictures ---------------------------------------------------------------------------------
    def view(self, state: DotsState) -> dict[str, Any]:
        """The board as the page draws it. Its parts are shared between calls (the dots, and
        each line and cell in each of its few states, are built once per board): read it,
        never change it."""
        board = self.board
        red, blue = self.score(state)
        dots, lines, cells = self._view_parts()
        drawn = state.drawn
        return {
            "kind": "dots",
            "grid": board.grid,
            "width": board.width,
            "height": board.height,
            "misere": self.settings.misere,
            "dots": dots,
            "lines": [views[drawn >> i & 1] for i, views in enumerate(lines)],
            "cells": [
                views[owner_of(state.red, state.blue, i) or ""] for i, views in enumerate(cells)
            ],
            "score": {"red": red, "blue": blue},
            "to_move": state.to_move,
            "legal_moves": self.legal_move_texts(state),
        }

    def view_after(
        self, view: Mapping[str, Any], move: int, after: DotsState
    ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The view after ``move`` from the view before it: the line drawn, the cells it
        completed, the score, the turn and the line taken out of the legal moves, instead of
        every line and cell again (see :meth:`Game.view_after`)."""
        if view.get("kind") != "dots" or not isinstance(move, int):
            return None
        if not 0 <= move < self._line_count or view["lines"][move]["drawn"]:
            return None  # not the view of a position where this line was free
        _, line_parts, cell_parts = self._view_parts()
        line = self.board.lines[move]
        try:
            index = view["legal_moves"].index(line.name)
        except ValueError:
            return None
        lines = list(view["lines"])
        lines[move] = line_parts[move][1]
        # The operations name only the fields that changed, as a comparison would: a line's
        # and a cell's other fields are the board's and never change.
        operations: list[dict[str, Any]] = [
            {"op": "replace", "path": f"/lines/{move}/drawn", "value": True}
        ]
        cells = view["cells"]
        for cell in dict.fromkeys(line.cells):
            part = cell_parts[cell][owner_of(after.red, after.blue, cell) or ""]
            if cells[cell] is not part and cells[cell] != part:
                if cells is view["cells"]:
                    cells = list(cells)
                cells[cell] = part
                path = f"/cells/{cell}/owner"
                operations.append({"op": "replace", "path": path, "value": part["owner"]})
        red, blue = self.score(after)
        score = {"red": red, "blue": blue}
        for player, count in score.items():
            if view["score"][player] != count:
                operations.append({"op": "replace", "path": f"/score/{player}", "value": count})
        if view["to_move"] != after.to_move:
            operations.append({"op": "replace", "path": "/to_move", "value": after.to_move})
        legal = view["legal_moves"]
        operations.append({"op": "remove", "path": f"/legal_moves/{index}"})
        changed = {
            "lines": lines,
            "cells": cells,
            "score": score,
            "to_move": after.to_move,
            "legal_moves": legal[:index] + legal[index + 1 :],
        }
        return {**view, **changed}, operations

    def _view_parts(
        self,
    ) -> tuple[
        list[dict[str, Any]], list[tuple[dict[str, Any], ...]], list[dict[str, dict[str, Any]]]
    ]:
        """The view's dots, each line undrawn and drawn, each cell with each owner."""
        parts = self.__dict__.get("_parts")
        if parts is None:
            board = self.board
            dots = [{"name": d.name, "x": d.x, "y": d.y} for d in board.dots]
            lines = [
                tuple(
                    {
                        "name": line.name,
                        "a": line.a,
                        "b": line.b,
                        "drawn": bool(drawn),
                        "predrawn": bool(self._predrawn >> line.index & 1),
                    }
                    for drawn in (0, 1)
                )
                for line in board.lines
            ]
            cells = [
                {
                    key: {
                        "dots": list(cell.dots),
                        "lines": list(cell.lines),
                        "owner": owner,
                        "x": cell.x,
                        "y": cell.y,
                    }
                    for key, owner in (("", None), ("red", "red"), ("blue", "blue"))
                }
                for cell in board.cells
            ]
            parts = self.__dict__["_parts"] = (dots, lines, cells)
        return parts

    @staticmethod
    def _owner(state: DotsState, cell: int) -> Player | None:
        return owner_of(state.red, state.blue, cell)

    def diagram(self, state: DotsState) -> str:
        """Drawn lines as ``-``, ``|``, ``/`` and ``\\``; dots as ``+``; a claimed cell shows
        ``R`` or ``B`` at its centre; row numbers on the left, column letters below."""
        board = self.board
        # Scales that put every dot on a character cell and every slanted line at 45 degrees.
        sx, sy = {
            "square": (4.0, 2.0),
            "triangle": (4.0, 2.0 / _SQRT3_2),
            "hexagon": (2.0 / _SQRT3_2, 4.0),
        }[board.grid]
        rows = round(board.height * sy) + 1
        cols = round(board.width * sx) + 1
        canvas = [[" "] * cols for _ in range(rows)]

        def put(x: float, y: float, char: str) -> None:
            canvas[rows - 1 - round(y * sy)][round(x * sx)] = char

        for line in board.lines:
            if not state.drawn >> line.index & 1:
                continue
            a, b = board.dots[line.a], board.dots[line.b]
            dx, dy = round((b.x - a.x) * sx), round((b.y - a.y) * sy)
            char = "-" if dy == 0 else "|" if dx == 0 else "/" if dx * dy > 0 else "\\"
            steps = max(abs(dx), abs(dy))
            for i in range(1, steps):
                t = i / steps
                put(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, char)
        for cell in board.cells:
            owner = self._owner(state, cell.index)
            if owner:
                put(cell.x, cell.y, owner[0].upper())
        for dot in board.dots:
            put(dot.x, dot.y, "+")

        row_of_line: dict[int, str] = {}
        for dot in board.dots:
            row_of_line[rows - 1 - round(dot.y * sy)] = str(dot.row + 1)
        label_width = len(str(max(d.row for d in board.dots) + 1))
        out = [
            (f"{row_of_line.get(i, ''):>{label_width}} " + "".join(chars)).rstrip()
            for i, chars in enumerate(canvas)
        ]
        footer = [" "] * cols
        for dot in board.dots:
            footer[round(dot.x * sx)] = dot.name[0]
        out.append(" " * (label_width + 1) + "".join(footer).rstrip())
        red, blue = self.score(state)
        status = f"Red {red}, Blue {blue}; "
        outcome = self.outcome(state)
        if outcome is None:
            status += f"{state.to_move} to move"
        else:
            status += f"{outcome.winner} wins" if outcome.winner else "draw"
        out.append(status)
        return "\n".join(out)
