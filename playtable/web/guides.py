"""The rules pages and the Dots and Boxes variant pages.

Every number these pages print (lines, moves, pre-drawn lines) is computed here from the
game engine, and every diagram is a position the engine built, drawn in the browser by the
same code that draws the live board (``static/js/diagrams.js`` calls ``dots.js`` and
``swaptimum.js`` in their static mode). The words are in the templates, in the catalogs.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from playtable.games import load
from playtable.games import swaptimum as swaptimum_engine
from playtable.games.dots import geometry
from playtable.games.dots.game import DotsAndBoxes
from playtable.games.swaptimum import Swaptimum, SwaptimumState
from playtable.web.atlas import variant_values
from playtable.web.errors import page_not_found
from playtable.web.presentation import counts_cells
from playtable.web.script_strings import strings_address
from playtable.web.templating import gettext_for, language_of, render


@dataclass(frozen=True)
class Variant:
    """A Dots and Boxes variant we offer: its page, its table settings, its diagram."""

    slug: str
    template: str
    #: the settings of the diagram and of the worked numbers on the page
    options: dict[str, Any]
    #: the home form's query string that preselects the variant
    form: dict[str, str] = field(default_factory=dict)


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "swedish-board",
        "variants/swedish_board.html",
        {"rows": 4, "cols": 4, "start": "swedish"},
        {"game": DotsAndBoxes.name, "grid": "square", "rows": "4", "cols": "4", "start": "swedish"},
    ),
    Variant(
        "icelandic-board",
        "variants/icelandic_board.html",
        {"rows": 4, "cols": 4, "start": "icelandic"},
        {
            "game": DotsAndBoxes.name,
            "grid": "square",
            "rows": "4",
            "cols": "4",
            "start": "icelandic",
        },
    ),
    Variant(
        "misere",
        "variants/misere.html",
        {"rows": 4, "cols": 4, "misere": True},
        {"game": DotsAndBoxes.name, "grid": "square", "rows": "4", "cols": "4", "misere": "1"},
    ),
    Variant(
        "triangle-grid",
        "variants/triangle_grid.html",
        {"grid": "triangle", "size": 4},
        {"game": DotsAndBoxes.name, "grid": "triangle", "size": "4"},
    ),
    Variant(
        "hexagon-grid",
        "variants/hexagon_grid.html",
        {"grid": "hexagon", "size": 2},
        {"game": DotsAndBoxes.name, "grid": "hexagon", "size": "2"},
    ),
)
VARIANTS_BY_SLUG = {variant.slug: variant for variant in VARIANTS}


def variant_name(slug: str, catalog: gettext.NullTranslations) -> str:
    """The name of a variant in the page's language, as its page's title shows it."""
    _ = catalog.gettext
    return {
        "swedish-board": _("Swedish board"),
        "icelandic-board": _("Icelandic board"),
        "misere": _("Misère"),
        "triangle-grid": _("Triangle grid"),
        "hexagon-grid": _("Hexagon grid"),
    }[slug]


def size_limits() -> dict[str, tuple[int, int]]:
    """The smallest and largest board of each grid and of Swaptimum, as the engines take them
    (a square board's rows and columns each, a triangle's side, a hexagon's radius), read
    from the engines' modules when asked."""
    return {
        "square": (1, geometry.SQUARE_MAX),
        "triangle": (1, geometry.TRIANGLE_MAX),
        "hexagon": (1, geometry.HEXAGON_MAX),
        "swaptimum": (swaptimum_engine.MIN_SIZE, swaptimum_engine.MAX_SIZE),
    }


def default_board() -> dict[str, Any]:
    """The board of a new Dots and Boxes table (the engine's default settings)."""
    return DotsAndBoxes.parse_settings({}).options()


def dots(options: dict[str, Any]) -> DotsAndBoxes:
    game = load(DotsAndBoxes.name, options)
    assert isinstance(game, DotsAndBoxes)
    return game


def board_facts(options: dict[str, Any]) -> dict[str, int]:
    """The numbers of a board: its dots, lines, cells, pre-drawn lines and moves per game."""
    game = dots(options)
    initial = game.initial()
    return {
        "dots": len(game.board.dots),
        "lines": len(game.board.lines),
        "cells": len(game.board.cells),
        "predrawn": bin(game.predrawn).count("1"),
        "moves": len(game.legal_moves(initial)),
        "sides": max(len(cell.lines) for cell in game.board.cells),
    }


def dots_diagram(options: dict[str, Any]) -> dict[str, Any]:
    """The starting position of ``options`` as the board script draws it."""
    game = dots(options)
    return {"kind": "dots", "table": {"view": game.view(game.initial()), "moves": []}}


def form_query(form: dict[str, str]) -> str:
    return "&".join(f"{key}={value}" for key, value in form.items())


# -- Swaptimum diagrams: positions built through the engine ---------------------------------
def _swaptimum_position(
    size: int, red: list[str], blue: list[str], to_move: str = "red"
) -> tuple[Swaptimum, SwaptimumState]:
    game = load(Swaptimum.name, {"size": size})
    assert isinstance(game, Swaptimum)
    red_mask = sum(1 << game.index[name] for name in red)
    blue_mask = sum(1 << game.index[name] for name in blue)
    return game, SwaptimumState(red_mask, blue_mask, "red" if to_move == "red" else "blue")


def _swaptimum_diagram(
    game: Swaptimum, state: SwaptimumState, moves: list[str], marked: list[str]
) -> dict[str, Any]:
    view = game.view(state)
    view["marked"] = marked
    return {"kind": "swaptimum", "table": {"view": view, "moves": moves}}


def swaptimum_diagrams() -> dict[str, dict[str, Any]]:
    """The diagrams of the Swaptimum rules page, each checked against the engine."""
    diagrams: dict[str, dict[str, Any]] = {}
    # A crosscut, the moment Blue's b3 forms it (before the swap that must follow).
    game, state = _swaptimum_position(4, ["b2", "c3"], ["c2", "b3"], "blue")
    assert game._crosscuts(state.red, state.blue)
    diagrams["crosscut"] = _swaptimum_diagram(game, state, [], ["b2", "c2", "b3", "c3"])

    # The same placement with each kind of swap: inside the crosscut, and with a neighbour.
    game, before = _swaptimum_position(4, ["b2", "c3", "d4"], ["c2", "a1"], "blue")
    legal = {game.format_move(move) for move in game.legal_moves(before)}
    for key, text in (("swap_inside", "b3:b3-c3"), ("swap_outside", "b3:a1-b2")):
        assert text in legal, text
        after = game.play(before, text)
        diagrams[key] = _swaptimum_diagram(game, after, [text], [])

    # A restricted placement: every swap that would kill the crosscut forms a new one. The
    # position is reached from the empty board by the engine, Red and Blue placing in turn
    # (equal counts, Red to move: no swap ever changes the counts), so it can occur in a game.
    game, built = _swaptimum_position(*RESTRICTED)
    state = game.initial()
    for red, blue in zip(RESTRICTED[1], RESTRICTED[2], strict=True):
        state = game.play(game.play(state, red), blue)
    assert (state.red, state.blue, state.to_move) == (built.red, built.blue, "red")
    assert game.outcome(state) is None
    assert not game._crosscuts(state.red, state.blue)
    restricted = RESTRICTED_SQUARE
    square = game.index[restricted]
    assert game._crosscut_makers(state.red, state.blue, state.to_move or "red") >> square & 1
    assert all(move.square != square for move in game.legal_moves(state))
    diagrams["restricted"] = _swaptimum_diagram(game, state, [], [restricted])

    # A win on the opponent's turn: Blue's swap completes Red's chain.
    game, state = _swaptimum_position(5, [], [])
    for text in OPPONENT_WIN:
        state = game.play(state, text)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == "red"
    diagrams["opponent_win"] = _swaptimum_diagram(game, state, [OPPONENT_WIN[-1]], [])
    return diagrams


#: A game on a 5 x 5 board whose last move, Blue's, swaps Red's chain into place.
OPPONENT_WIN = (
    "c1", "d5", "b5", "a1", "b2", "c2", "b3", "b1:b2-c2", "b4", "c3:b4-c3", "a4", "a3:a4-b4",
)  # fmt: skip

#: A 6 x 6 position, Red to move with 16 checkers each, where Red may not place on
#: RESTRICTED_SQUARE (the red and the blue checkers, in the order they are placed):
#:
#:     6 . R B R B .
#:     5 R B B R R B
#:     4 B B B R R R
#:     3 R R . B B B
#:     2 B R R B B R
#:     1 . B R B R R
#:       a b c d e f
RESTRICTED: tuple[int, list[str], list[str], str] = (
    6,
    ["c1", "e1", "f1", "b2", "c2", "f2", "a3", "b3",
     "d4", "e4", "f4", "a5", "d5", "e5", "b6", "d6"],
    ["b1", "d1", "a2", "d2", "e2", "d3", "e3", "f3",
     "a4", "b4", "c4", "b5", "c5", "f5", "c6", "e6"],
    "red",
)  # fmt: skip
RESTRICTED_SQUARE = "c3"


# -- the pages ------------------------------------------------------------------------------
async def dots_rules(request: Request) -> Response:
    return render(
        request,
        "rules/dots_and_boxes.html",
        {
            "nav": "rules-dots",
            "square": board_facts({"rows": 4, "cols": 4}),
            "default": {**default_board(), **board_facts(default_board())},
            "triangle": board_facts({"grid": "triangle", "size": 4}),
            "hexagon": board_facts({"grid": "hexagon", "size": 2}),
            "diagrams": {"standard": dots_diagram({"rows": 4, "cols": 4})},
            "strings": strings_address(language_of(request)),
            "variants": VARIANTS,
            "limits": size_limits(),
        },
    )


async def swaptimum_rules(request: Request) -> Response:
    return render(
        request,
        "rules/swaptimum.html",
        {
            "nav": "rules-swaptimum",
            "diagrams": swaptimum_diagrams(),
            "limits": size_limits(),
            "strings": strings_address(language_of(request)),
        },
    )


async def variants_index(request: Request) -> Response:
    return render(
        request,
        "variants/index.html",
        {
            "nav": "variants",
            "variants": VARIANTS,
            "names": {v.slug: variant_name(v.slug, gettext_for(request)) for v in VARIANTS},
            "facts": {v.slug: board_facts(v.options) for v in VARIANTS},
            "diagrams": {v.slug: dots_diagram(v.options) for v in VARIANTS},
            "strings": strings_address(language_of(request)),
        },
    )


async def variant_page(request: Request) -> Response:
    variant = VARIANTS_BY_SLUG.get(request.path_params["slug"])
    if variant is None:
        return page_not_found(request)
    standard_options = {k: v for k, v in variant.options.items() if k not in ("start", "misere")}
    return render(
        request,
        variant.template,
        {
            "nav": "variants",
            "variant": variant,
            "variant_name": variant_name(variant.slug, gettext_for(request)),
            "play_url": "/?" + form_query(variant.form),
            "facts": board_facts(variant.options),
            "standard": board_facts(standard_options),
            "square": board_facts({"rows": 4, "cols": 4}),
            "swedish": board_facts({"rows": 4, "cols": 4, "start": "swedish"}),
            "diagrams": {"start": dots_diagram(variant.options)},
            "limits": size_limits(),
            # the triangle's and the hexagon's diagrams label their cells as cells
            "strings": strings_address(
                language_of(request), counts_cells(DotsAndBoxes.name, variant.options)
            ),
            "solved": variant_values(variant.slug, gettext_for(request), language_of(request)),
        },
    )


routes: list[BaseRoute] = [
    Route("/rules/dots-and-boxes", dots_rules, methods=["GET", "HEAD"], name="dots_rules"),
    Route("/rules/swaptimum", swaptimum_rules, methods=["GET", "HEAD"], name="swaptimum_rules"),
    Route("/variants", variants_index, methods=["GET", "HEAD"], name="variants"),
    Route("/variants/{slug}", variant_page, methods=["GET", "HEAD"], name="variant"),
]
