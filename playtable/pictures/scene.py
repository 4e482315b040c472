"""A position as plain shapes in board units: one geometry for the SVG and the raster images.

The numbers are the live board's (``static/js/dots.js`` and ``swaptimum.js``): 100 units per
board unit, the same margins, dot and checker sizes and colours of ``static/board.css`` (the
palette of ``style.css``), y pointing down as on screen. A picture is language-neutral: a
claimed box carries its owner's shape (a solid disc for red, a ring for blue, as on the
Swaptimum checkers), not an initial.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from playtable.pictures.positions import Position

U = 100.0
DOTS_PAD = 0.45
SWAPTIMUM_PAD_SMALL = 0.8
SWAPTIMUM_PAD_LARGE = 1.0  # boards over 12 squares: relatively larger coordinates

# style.css (the palette) and board.css
INK = "#1f2933"
MUTED = "#52606d"
SURFACE = "#ffffff"
COLOURS = {"red": "#c62828", "blue": "#1d5fbf"}
DARK = {"red": "#9b1c1c", "blue": "#174a94"}
SOFT = {"red": "#fde3e1", "blue": "#dde9fb"}
GOLD = "#b45309"
GOLD_SOFT = "#fde7b0"
OPEN_LINE = "#e4e7eb"
PREDRAWN = "#7b8794"
SQ_DARK = "#efe6d6"
SQ_LIGHT = "#f7f1e6"
SQ_EDGE = "#d6c8ae"
PATH = "#f6c453"
CORE = "#f4d9d9"
#: Every colour a scene uses: the palette of the GIF frames.
PALETTE = (
    SURFACE, INK, MUTED, *COLOURS.values(), *DARK.values(), *SOFT.values(), GOLD, GOLD_SOFT,
    OPEN_LINE, PREDRAWN, SQ_DARK, SQ_LIGHT, SQ_EDGE, PATH, CORE,
)  # fmt: skip

Point = tuple[float, float]


@dataclass(frozen=True)
class Line:
    a: Point
    b: Point
    stroke: str
    width: float
    cls: str
    dash: tuple[float, float] | None = None


@dataclass(frozen=True)
class Circle:
    centre: Point
    r: float
    fill: str | None
    cls: str
    stroke: str | None = None
    width: float = 0.0


@dataclass(frozen=True)
class Polygon:
    points: tuple[Point, ...]
    fill: str | None
    cls: str
    stroke: str | None = None
    width: float = 0.0
    dash: tuple[float, float] | None = None


@dataclass(frozen=True)
class Text:
    at: Point
    text: str
    size: float
    fill: str
    cls: str
    anchor: str = "middle"  # "middle" or "end" (right-aligned), vertically centred


Shape = Line | Circle | Polygon | Text


@dataclass(frozen=True)
class Scene:
    """Shapes in drawing order inside the box (left, top, width, height)."""

    box: tuple[float, float, float, float]
    shapes: tuple[Shape, ...] = field(default=())
    background: str = SURFACE


def scene(position: Position, *, coordinates: bool = True) -> Scene:
    """The picture of ``position``, by the kind of its view (``Game.view``)."""
    draw = SCENES.get(position.view["kind"])
    if draw is None:
        raise ValueError(f"no picture for a view of kind {position.view['kind']!r}")
    return draw(position, coordinates=coordinates)


# -- Dots and Boxes -------------------------------------------------------------------------
def drawers(moves: Sequence[str], movers: Sequence[str]) -> dict[str, str]:
    """Who drew each line: a Dots and Boxes move is the line's name."""
    return dict(zip(moves, movers, strict=False))


def _inset(points: Sequence[Point], centre: Point, share: float) -> tuple[Point, ...]:
    cx, cy = centre
    return tuple((cx + (x - cx) * (1 - share), cy + (y - cy) * (1 - share)) for x, y in points)


def coordinate_labels(view: dict[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    """Each dot column's letter -> its x and each row's number -> its y (board units)."""
    columns: dict[str, float] = {}
    rows: dict[str, float] = {}
    for dot in view["dots"]:
        name = dot["name"]
        letters = name.rstrip("0123456789")
        columns.setdefault(letters, dot["x"])
        rows.setdefault(name[len(letters) :], dot["y"])
    return columns, rows


def dots_scene(position: Position, *, coordinates: bool = True) -> Scene:
    view = position.view
    height = float(view["height"])

    def at(x: float, y: float) -> Point:
        return (round(x * U, 2), round((height - y) * U, 2))

    dots = [at(d["x"], d["y"]) for d in view["dots"]]
    shapes: list[Shape] = []
    closed = set(position.closed)
    for index, cell in enumerate(view["cells"]):
        points = tuple(dots[i] for i in cell["dots"])
        owner = cell["owner"]
        centre = at(cell["x"], cell["y"])
        if owner is None:
            continue
        shapes.append(Polygon(points, SOFT[owner], f"cell cell--{owner}"))
        inradius = min(((x - centre[0]) ** 2 + (y - centre[1]) ** 2) ** 0.5 for x, y in points)
        size = min(inradius * 0.38, 22.0)
        if owner == "red":
            shapes.append(Circle(centre, size, DARK["red"], "cell-mark mark-red"))
        else:
            shapes.append(
                Circle(centre, size, None, "cell-mark mark-blue", DARK["blue"], size * 0.45)
            )
        if index in closed:
            shapes.append(
                Polygon(_inset(points, centre, 0.16), None, "cell-closed", GOLD, 6.0, (10.0, 7.0))
            )

    who = drawers(position.moves, position.movers)
    last = position.last_move
    for line in view["lines"]:
        a, b = dots[line["a"]], dots[line["b"]]
        name = line["name"]
        if not line["drawn"]:
            shapes.append(Line(a, b, OPEN_LINE, 3.0, "line line--open", (2.0, 10.0)))
        elif line["predrawn"] or name not in who:
            shapes.append(Line(a, b, PREDRAWN, 6.0, "line line--predrawn", (14.0, 10.0)))
        else:
            player = who[name]
            if name == last:
                shapes.append(Line(a, b, GOLD_SOFT, 26.0, "line-last-halo"))
                shapes.append(Line(a, b, GOLD, 15.0, "line-last-edge"))
            shapes.append(Line(a, b, COLOURS[player], 9.0, f"line line--drawn line--{player}"))
            if player == "blue":
                # a white centre stripe: the drawers never differ by colour alone
                shapes.append(Line(a, b, SURFACE, 3.0, "line-stripe"))
    for point in dots:
        shapes.append(Circle(point, 9.0, INK, "dot"))

    if coordinates:
        columns, rows = coordinate_labels(view)
        for letter, x in columns.items():
            shapes.append(Text(at(x, -0.27), letter, 22.0, MUTED, "coord"))
        for number, y in rows.items():
            px, py = at(0, y)
            shapes.append(Text((px - 22.0, py), number, 22.0, MUTED, "coord", anchor="end"))
    width = float(view["width"])
    return Scene(
        (-DOTS_PAD * U, -DOTS_PAD * U, (width + 2 * DOTS_PAD) * U, (height + 2 * DOTS_PAD) * U),
        tuple(shapes),
    )


# -- Swaptimum ------------------------------------------------------------------------------
def square_index(name: str, size: int) -> int:
    return (int(name[1:]) - 1) * size + ord(name[0]) - 97


def _square(col: int, row: int, size: int, inset: float) -> tuple[Point, ...]:
    left = col * U + inset
    top = (size - 1 - row) * U + inset
    right = left + U - 2 * inset
    bottom = top + U - 2 * inset
    return ((left, top), (right, top), (right, bottom), (left, bottom))


def swaptimum_scene(position: Position, *, coordinates: bool = True) -> Scene:
    view = position.view
    n = int(view["size"])
    pad = SWAPTIMUM_PAD_LARGE if n > 12 else SWAPTIMUM_PAD_SMALL
    shapes: list[Shape] = []
    bar, gap = 0.22 * U, 0.07 * U
    side = n * U

    def rect(x: float, y: float, w: float, h: float) -> tuple[Point, ...]:
        return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))

    shapes.append(Polygon(rect(0, -gap - bar, side, bar), COLOURS["red"], "board-side"))
    shapes.append(Polygon(rect(0, side + gap, side, bar), COLOURS["red"], "board-side"))
    shapes.append(Polygon(rect(-gap - bar, 0, bar, side), COLOURS["blue"], "board-side"))
    shapes.append(Polygon(rect(side + gap, 0, bar, side), COLOURS["blue"], "board-side"))

    path = set(view.get("winning_path") or ())
    for index in range(n * n):
        col, row = index % n, index // n
        fill = PATH if index in path else (SQ_LIGHT if (row + col) % 2 else SQ_DARK)
        shapes.append(Polygon(_square(col, row, n, 0), fill, "sq", SQ_EDGE, 2.0))

    if coordinates:
        size = 44.0 if n > 12 else 30.0
        for i in range(n):
            shapes.append(Text((i * U + U / 2, side + 0.58 * U), chr(97 + i), size, MUTED, "coord"))
            y = (n - 1 - i) * U + U / 2
            shapes.append(Text((-0.36 * U, y), str(i + 1), size, MUTED, "coord", anchor="end"))

    for index, owner in enumerate(view["board"]):
        if owner is None:
            continue
        centre = ((index % n) * U + U / 2, (n - 1 - index // n) * U + U / 2)
        shapes.append(
            Circle(centre, 36.0, COLOURS[owner], f"checker checker--{owner}", DARK[owner], 3.0)
        )
        if owner == "blue":
            shapes.append(Circle(centre, 17.0, None, "checker-ring", SURFACE, 6.0))
        else:
            shapes.append(Circle(centre, 11.0, CORE, "checker-core"))

    last = position.last_move
    if last:
        placement, _, swap = last.partition(":")
        p = square_index(placement, n)
        shapes.append(Polygon(_square(p % n, p // n, n, 5), None, "last-square", GOLD, 6.0))
        if swap:
            pair = [square_index(s, n) for s in swap.split("-")]
            centres = []
            for s in pair:
                shapes.append(
                    Polygon(_square(s % n, s // n, n, 12), None, "last-swap", GOLD, 4.0, (8.0, 6.0))
                )
                centres.append(((s % n) * U + U / 2, (n - 1 - s // n) * U + U / 2))
            shapes.append(Line(centres[0], centres[1], GOLD, 4.0, "last-swap-line", (8.0, 6.0)))
    return Scene((-pad * U, -pad * U, (n + 2 * pad) * U, (n + 2 * pad) * U), tuple(shapes))


#: How each kind of view is drawn.
SCENES: dict[str, Callable[..., Scene]] = {"dots": dots_scene, "swaptimum": swaptimum_scene}
