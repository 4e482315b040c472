"""The atlas pages: the solved boards of :mod:`playtable.ai.atlas`, and their first-move maps.

``/atlas`` lists every stored board with its exact value, grid by grid; ``/atlas/{key}``
draws one board with every first line coloured (and dashed, and labelled) by the value of
opening with it, with a legend and the same figures as a table. The variant pages show the
values of their own variant through :func:`variant_values`.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass

from babel.numbers import format_decimal
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from playtable.ai import atlas
from playtable.ai.atlas import AtlasBoard, AtlasEntry
from playtable.web.errors import page_not_found
from playtable.web.templating import gettext_for, language_of, render

#: How each outcome is drawn: colour (contrast of 4.5:1 or more on white) and dashes, so
#: that no reader depends on the colour alone.
STYLES = {
    "win": ("#1b6e35", ""),
    "draw": ("#5b3f99", "0.22 0.12"),
    "loss": ("#b3202f", "0.05 0.12"),
}
PREDRAWN = "#6b6b6b"

#: The family of boards each variant page shows: (grid, start, misère).
VARIANT_FAMILIES = {
    "swedish-board": ("square", "swedish", False),
    "icelandic-board": ("square", "icelandic", False),
    "misere": ("square", "standard", True),
    "triangle-grid": ("triangle", "standard", False),
    "hexagon-grid": ("hexagon", "standard", False),
}


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str  # "win", "draw" or "loss", for the first player
    text: str  # "First player wins by 2", in the page's language


@dataclass(frozen=True, slots=True)
class Row:
    key: str
    board: str  # "3×4", "triangle of side 3"
    start: str
    scoring: str
    value: str  # "+2", signed, in the page's number format
    outcome: Outcome
    grid: str  # "square", "triangle", "hexagon"


@dataclass(frozen=True, slots=True)
class MapLine:
    name: str
    x1: float
    y1: float
    x2: float
    y2: float
    predrawn: bool
    value: str = ""
    outcome: Outcome | None = None
    colour: str = PREDRAWN
    dashes: str = ""
    label_x: float = 0.0
    label_y: float = 0.0


def signed(value: int, lang: str) -> str:
    return format_decimal(value, format="+#,##0;-#,##0", locale=lang) if value else "0"


def outcome(board: AtlasBoard, value: int, catalog: gettext.NullTranslations) -> Outcome:
    """Who wins with perfect play from this value (net cells of the first player)."""
    # In misère the side with fewer cells wins: a negative net count is a win.
    margin = -value if board.misere else value
    if margin == 0:
        return Outcome("draw", catalog.gettext("Draw"))
    n, ngettext = abs(value), catalog.ngettext
    # A square grid's cells are boxes; a triangle's or a hexagon's are cells (the rules'
    # and the variant pages' word for them). Literal calls: the catalogs are extracted.
    if board.grid == "square" and margin > 0:
        text = ngettext("First player wins by %(num)d box", "First player wins by %(num)d boxes", n)
    elif board.grid == "square":
        text = ngettext(
            "Second player wins by %(num)d box", "Second player wins by %(num)d boxes", n
        )
    elif margin > 0:
        text = ngettext(
            "First player wins by %(num)d cell", "First player wins by %(num)d cells", n
        )
    else:
        text = ngettext(
            "Second player wins by %(num)d cell", "Second player wins by %(num)d cells", n
        )
    return Outcome("win" if margin > 0 else "loss", text % {"num": n})


def board_name(board: AtlasBoard, catalog: gettext.NullTranslations) -> str:
    if board.grid == "square":
        return f"{board.dimensions[0]}×{board.dimensions[1]}"
    size = board.dimensions[0]
    if board.grid == "triangle":
        return catalog.gettext("Triangle of side %(num)d") % {"num": size}
    return catalog.gettext("Hexagon of radius %(num)d") % {"num": size}


def start_name(start: str, catalog: gettext.NullTranslations) -> str:
    _ = catalog.gettext
    return {
        "standard": _("Standard start"),
        "swedish": _("Swedish board"),
        "icelandic": _("Icelandic board"),
    }[start]


def scoring_name(misere: bool, catalog: gettext.NullTranslations) -> str:
    return catalog.gettext("Misère") if misere else catalog.gettext("Normal scoring")


def row(entry: AtlasEntry, catalog: gettext.NullTranslations, lang: str) -> Row:
    board = entry.board
    return Row(
        board.key,
        board_name(board, catalog),
        start_name(board.start, catalog),
        scoring_name(board.misere, catalog),
        signed(entry.value, lang),
        outcome(board, entry.value, catalog),
        board.grid,
    )


def grid_sections(catalog: gettext.NullTranslations, lang: str) -> list[tuple[str, list[Row]]]:
    """The stored boards, grid by grid: (heading, rows)."""
    _ = catalog.gettext
    headings = {
        "square": _("Square grid"),
        "triangle": _("Triangle grid"),
        "hexagon": _("Hexagon grid"),
    }
    sections = []
    for grid, heading in headings.items():
        rows = [row(e, catalog, lang) for e in atlas.load() if e.board.grid == grid]
        if rows:
            sections.append((heading, rows))
    return sections


def variant_values(slug: str, catalog: gettext.NullTranslations, lang: str) -> list[Row]:
    """The stored boards of a variant page's variant, smallest first."""
    family = VARIANT_FAMILIES.get(slug)
    if family is None:
        return []
    return [
        row(e, catalog, lang)
        for e in atlas.load()
        if (e.board.grid, e.board.start, e.board.misere) == family
    ]


def map_lines(entry: AtlasEntry, catalog: gettext.NullTranslations, lang: str) -> list[MapLine]:
    """Every line of the board in drawing coordinates (y down), with its first-move value."""
    board = entry.board.game().board
    top = board.height
    lines = []
    for line, value in zip(board.lines, entry.first_moves, strict=True):
        a, b = board.dots[line.a], board.dots[line.b]
        x1, y1, x2, y2 = a.x, top - a.y, b.x, top - b.y
        if value is None:
            lines.append(MapLine(line.name, x1, y1, x2, y2, predrawn=True))
            continue
        result = outcome(entry.board, value, catalog)
        colour, dashes = STYLES[result.kind]
        # The label sits beside the middle of the line, off its stroke.
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        dx, dy = x2 - x1, y2 - y1
        length = (dx * dx + dy * dy) ** 0.5 or 1.0
        nx, ny = -dy / length, dx / length
        lines.append(
            MapLine(
                line.name,
                x1,
                y1,
                x2,
                y2,
                predrawn=False,
                value=signed(value, lang),
                outcome=result,
                colour=colour,
                dashes=dashes,
                label_x=round(mx + 0.2 * nx, 3),
                label_y=round(my + 0.2 * ny + 0.08, 3),
            )
        )
    return lines


async def atlas_index(request: Request) -> Response:
    catalog = gettext_for(request)
    lang = language_of(request)
    return render(
        request,
        "atlas.html",
        {"nav": "variants", "sections": grid_sections(catalog, lang), "entry": None},
    )


async def atlas_board(request: Request) -> Response:
    key = request.path_params["key"]
    entry = next((e for e in atlas.load() if e.board.key == key), None)
    if entry is None:
        return page_not_found(request)
    catalog = gettext_for(request)
    lang = language_of(request)
    board = entry.board.game().board
    lines = map_lines(entry, catalog, lang)
    kinds = {line.outcome.kind for line in lines if line.outcome is not None}
    legend = [
        (kind, STYLES[kind][0], STYLES[kind][1], label)
        for kind, label in (
            ("win", catalog.gettext("the first player wins")),
            ("draw", catalog.gettext("a draw")),
            ("loss", catalog.gettext("the second player wins")),
        )
        if kind in kinds
    ]
    return render(
        request,
        "atlas.html",
        {
            "nav": "variants",
            "entry": row(entry, catalog, lang),
            "lines": lines,
            "legend": legend,
            "width": board.width,
            "height": board.height,
            "dots": [(d.x, board.height - d.y) for d in board.dots],
            "best": [lines[i].name for i in entry.best_lines],
        },
    )


routes: list[BaseRoute] = [
    Route("/atlas", atlas_index, methods=["GET", "HEAD"], name="atlas"),
    Route("/atlas/{key}", atlas_board, methods=["GET", "HEAD"], name="atlas_board"),
]
