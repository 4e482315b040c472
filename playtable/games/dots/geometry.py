"""Boards for Dots and Boxes: a grid and a shape turned into dots, lines and cells.

The rules (``game.py``) work on any planar board this module builds, so a new grid is only
geometry. Every board names its dots like chess squares: the column letter of the dot's
horizontal position in the drawing (a = leftmost) and the number of its row (1 = lowest).
A line is its two dots joined by a hyphen, lower dot first (left first on the same row).

>>> board = square(4, 4)
>>> len(board.dots), len(board.lines), len(board.cells)
(25, 40, 16)
>>> board.lines[0].name, board.lines[-1].name
('a1-b1', 'd5-e5')
>>> [len(b.cells) for b in (triangle(3), hexagon(2))]
[9, 7]
"""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Grid = Literal["square", "triangle", "hexagon"]
GRIDS: tuple[Grid, ...] = ("square", "triangle", "hexagon")

# Sizes the site offers (the rules file's table).
SQUARE_MAX = 12
TRIANGLE_MAX = 10
HEXAGON_MAX = 6

_SQRT3_2 = math.sqrt(3) / 2


@dataclass(frozen=True, slots=True)
class Dot:
    name: str
    col: int  # rank of the dot's x position among all dots, 0 = leftmost
    row: int  # rank of the dot's y position, 0 = lowest
    x: float  # drawing coordinates, y pointing up, board starts at (0, 0)
    y: float


@dataclass(frozen=True, slots=True)
class Line:
    index: int
    name: str
    a: int  # dot index, the lower-left end
    b: int
    cells: tuple[int, ...]  # the one or two cells this line is a side of

    @property
    def is_outline(self) -> bool:
        """A line with a cell on one side only: the border of the shape."""
        return len(self.cells) == 1


@dataclass(frozen=True, slots=True)
class Cell:
    index: int
    dots: tuple[int, ...]  # the polygon, counter-clockwise
    lines: tuple[int, ...]
    x: float  # centre, for the owner's mark
    y: float


@dataclass(frozen=True, eq=False)
class Board:
    """A planar board: dots, the lines between them, and the cells the lines enclose."""

    grid: Grid
    dimensions: tuple[int, ...]  # (rows, cols) for square, (size,) otherwise
    dots: tuple[Dot, ...]
    lines: tuple[Line, ...]
    cells: tuple[Cell, ...]
    width: float
    height: float

    @functools.cached_property
    def line_index(self) -> dict[str, int]:
        return {line.name: line.index for line in self.lines}

    @functools.cached_property
    def dot_index(self) -> dict[str, int]:
        return {dot.name: i for i, dot in enumerate(self.dots)}

    def __hash__(self) -> int:
        return hash((self.grid, self.dimensions))

    def __eq__(self, other: object) -> bool:
        # A board is fully determined by its grid and size.
        if not isinstance(other, Board):
            return NotImplemented
        return (self.grid, self.dimensions) == (other.grid, other.dimensions)


def column_letter(col: int) -> str:
    if not 0 <= col < 26:
        raise ValueError(f"column {col} has no letter")
    return string.ascii_lowercase[col]


Key = tuple[int, int]  # an exact lattice position of a dot, used to merge shared corners


def _build(
    grid: Grid,
    dimensions: tuple[int, ...],
    polygons: Iterable[Sequence[Key]],
    position: dict[Key, tuple[float, float]],
) -> Board:
    """Turn cell polygons (counter-clockwise lists of lattice keys) into a named board.

    Columns and rows are ranks of the exact lattice coordinates, so dots that line up in the
    drawing share a letter or a number.
    """
    polygon_list = [tuple(p) for p in polygons]
    keys = sorted({k for p in polygon_list for k in p}, key=lambda k: (k[1], k[0]))
    cols = {x: i for i, x in enumerate(sorted({k[0] for k in keys}))}
    rows = {y: i for i, y in enumerate(sorted({k[1] for k in keys}))}
    min_x = min(position[k][0] for k in keys)
    min_y = min(position[k][1] for k in keys)

    dot_of: dict[Key, int] = {}
    dots: list[Dot] = []
    for key in keys:  # ordered by row, then column
        col, row = cols[key[0]], rows[key[1]]
        x, y = position[key]
        dot_of[key] = len(dots)
        dots.append(
            Dot(
                f"{column_letter(col)}{row + 1}",
                col,
                row,
                round(x - min_x, 6),
                round(y - min_y, 6),
            )
        )

    # Dot indices are ordered by (row, col), so the smaller index is the lower-left end.
    edge_cells: dict[tuple[int, int], list[int]] = {}
    cell_dots: list[tuple[int, ...]] = []
    for c, polygon in enumerate(polygon_list):
        ids = tuple(dot_of[k] for k in polygon)
        cell_dots.append(ids)
        for i, a in enumerate(ids):
            b = ids[(i + 1) % len(ids)]
            edge_cells.setdefault((min(a, b), max(a, b)), []).append(c)

    lines: list[Line] = []
    line_of: dict[tuple[int, int], int] = {}
    for index, (a, b) in enumerate(sorted(edge_cells)):
        line_of[(a, b)] = index
        name = f"{dots[a].name}-{dots[b].name}"
        lines.append(Line(index, name, a, b, tuple(edge_cells[(a, b)])))

    cells: list[Cell] = []
    for c, ids in enumerate(cell_dots):
        sides = tuple(
            line_of[(min(a, b), max(a, b))] for a, b in zip(ids, ids[1:] + ids[:1], strict=True)
        )
        cx = sum(dots[i].x for i in ids) / len(ids)
        cy = sum(dots[i].y for i in ids) / len(ids)
        cells.append(Cell(c, ids, tuple(sorted(sides)), round(cx, 6), round(cy, 6)))

    width = max(d.x for d in dots)
    height = max(d.y for d in dots)
    return Board(grid, dimensions, tuple(dots), tuple(lines), tuple(cells), width, height)


def _check(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}")


@functools.cache
def square(rows: int, cols: int) -> Board:
    """A rectangle of ``rows`` x ``cols`` boxes (1 to 12 each)."""
    _check("rows", rows, 1, SQUARE_MAX)
    _check("cols", cols, 1, SQUARE_MAX)
    polygons = [
        ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)) for j in range(rows) for i in range(cols)
    ]
    position = {(i, j): (float(i), float(j)) for i in range(cols + 1) for j in range(rows + 1)}
    return _build("square", (rows, cols), polygons, position)


@functools.cache
def triangle(size: int) -> Board:
    """An equilateral triangle of side ``size`` (1 to 10) cut into unit triangles.

    Lattice key of the dot in row ``y`` at position ``x`` along it: ``(2x + y, y)``, so keys
    are exact and dots above each other share a column.
    """
    _check("size", size, 1, TRIANGLE_MAX)

    def key(x: int, y: int) -> Key:
        return (2 * x + y, y)

    polygons: list[tuple[Key, ...]] = []
    for y in range(size):
        for x in range(size - y):
            polygons.append((key(x, y), key(x + 1, y), key(x, y + 1)))  # pointing up
            if x + y <= size - 2:
                polygons.append((key(x + 1, y), key(x + 1, y + 1), key(x, y + 1)))  # down
    position = {
        key(x, y): (x + y / 2, y * _SQRT3_2) for y in range(size + 1) for x in range(size + 1 - y)
    }
    return _build("triangle", (size,), polygons, position)


@functools.cache
def hexagon(radius: int) -> Board:
    """A hexagon of hexagonal cells of ``radius`` (1 to 6): 1, 7, 19, ... cells.

    Cells are pointy-topped at axial coordinates (q, r); a corner's lattice key counts half
    cell widths horizontally and quarter cell heights vertically, so it is exact.
    """
    _check("size", radius, 1, HEXAGON_MAX)
    n = radius - 1
    corners = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))  # counter-clockwise
    polygons: list[tuple[Key, ...]] = []
    for r in range(-n, n + 1):
        for q in range(-n, n + 1):
            if abs(q + r) > n:
                continue
            cx, cy = 2 * q + r, 3 * r
            polygons.append(tuple((cx + dx, cy + dy) for dx, dy in corners))
    position = {k: (k[0] * _SQRT3_2, k[1] / 2) for polygon in polygons for k in polygon}
    return _build("hexagon", (radius,), polygons, position)


def board_for(grid: Grid, dimensions: tuple[int, ...]) -> Board:
    if grid == "square":
        rows, cols = dimensions
        return square(rows, cols)
    (size,) = dimensions
    return triangle(size) if grid == "triangle" else hexagon(size)
