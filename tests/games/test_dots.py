"""Dots and Boxes rules on hand-built positions."""

from __future__ import annotations

import copy
import os
import pickle
import random

import pytest

from playtable.games.base import IllegalMove, NotationError, Player, SettingsError
from playtable.games.dots import game as dots_module
from playtable.games.dots.game import DotsAndBoxes, DotsState
from playtable.games.dots.geometry import hexagon, square, triangle


def game(**options: object) -> DotsAndBoxes:
    return DotsAndBoxes.from_options(options)


# -- geometry ---------------------------------------------------------------------------------


@pytest.mark.parametrize("rows,cols", [(r, c) for r in range(1, 13) for c in range(1, 13)])
def test_square_counts(rows: int, cols: int) -> None:
    board = square(rows, cols)
    assert len(board.cells) == rows * cols
    assert len(board.lines) == 2 * rows * cols + rows + cols
    assert len(board.dots) == (rows + 1) * (cols + 1)


@pytest.mark.parametrize("n", range(1, 11))
def test_triangle_counts(n: int) -> None:
    board = triangle(n)
    assert (len(board.cells), len(board.lines), len(board.dots)) == (
        n * n,
        3 * n * (n + 1) // 2,
        (n + 1) * (n + 2) // 2,
    )
    assert all(len(cell.lines) == 3 for cell in board.cells)


@pytest.mark.parametrize("r", range(1, 7))
def test_hexagon_counts(r: int) -> None:
    board = hexagon(r)
    assert (len(board.cells), len(board.lines), len(board.dots)) == (
        3 * r * (r - 1) + 1,
        9 * r * r - 3 * r,
        6 * r * r,
    )
    assert all(len(cell.lines) == 6 for cell in board.cells)


def test_square_notation_is_chess_like() -> None:
    board = square(4, 4)
    names = {line.name for line in board.lines}
    assert {"a1-b1", "a1-a2", "d5-e5", "e4-e5"} <= names
    assert "b1-a1" not in names
    assert [d.name for d in board.dots][:6] == ["a1", "b1", "c1", "d1", "e1", "a2"]


def test_every_line_has_one_or_two_cells_and_names_are_unique() -> None:
    for board in (square(3, 5), triangle(4), hexagon(3)):
        assert len({line.name for line in board.lines}) == len(board.lines)
        assert all(1 <= len(line.cells) <= 2 for line in board.lines)
        for cell in board.cells:
            for index in cell.lines:
                assert cell.index in board.lines[index].cells


# -- settings ---------------------------------------------------------------------------------


def test_default_table_is_5x5_standard() -> None:
    g = DotsAndBoxes.from_options({})
    assert g.options() == {
        "grid": "square",
        "rows": 5,
        "cols": 5,
        "start": "standard",
        "misere": False,
    }
    assert len(g.legal_moves(g.initial())) == 60


@pytest.mark.parametrize(
    "options,word",
    [
        ({"rows": 0}, "rows"),
        ({"cols": 13}, "columns"),  # the setting as a person calls it (the form says so)
        ({"rows": "4"}, "rows"),
        ({"rows": True}, "rows"),
        ({"grid": "circle"}, "grid"),
        ({"grid": "triangle", "size": 11}, "size"),
        ({"grid": "hexagon", "size": 7}, "size"),
        ({"grid": "triangle", "rows": 3}, "rows"),
        ({"grid": "square", "size": 3}, "size"),
        ({"start": "danish"}, "start"),
        ({"grid": "hexagon", "start": "icelandic"}, "Icelandic"),
        ({"misere": "yes"}, "misere"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_settings_name_the_option(options: dict[str, object], word: str) -> None:
    with pytest.raises(SettingsError, match=word):
        DotsAndBoxes.from_options(options)


# -- starting positions ----------------------------------------------------------------------


def test_swedish_4x4_has_24_first_moves_and_16_predrawn_lines() -> None:
    g = game(rows=4, cols=4, start="swedish")
    state = g.initial()
    assert len(g.legal_moves(state)) == 24
    assert state.drawn.bit_count() == 16
    assert all(not g.board.lines[m].is_outline for m in g.legal_moves(state))


def test_swedish_corner_needs_two_and_edge_box_three() -> None:
    g = game(rows=4, cols=4, start="swedish")
    drawn = g.initial().drawn
    missing = [4 - sum(drawn >> i & 1 for i in cell.lines) for cell in g.board.cells]
    corners = {0, 3, 12, 15}
    inner = {5, 6, 9, 10}
    assert all(missing[c] == 2 for c in corners)
    assert all(missing[c] == 4 for c in inner)
    assert all(missing[c] == 3 for c in set(range(16)) - corners - inner)


def test_swedish_single_cell_leaves_its_last_line_open() -> None:
    g = game(rows=1, cols=1, start="swedish")
    assert g.legal_move_texts(g.initial()) == ["a2-b2"]
    state = g.play(g.initial(), "a2-b2")
    assert g.score(state) == (1, 0)
    assert g.outcome(state) is not None and g.outcome(state).winner == "red"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "options,first_moves",
    [
        ({"grid": "triangle", "size": 1}, 1),  # one triangle: two sides pre-drawn
        ({"grid": "triangle", "size": 3}, 18 - 9),
        ({"grid": "hexagon", "size": 1}, 1),
        ({"grid": "hexagon", "size": 2}, 30 - 18),
        ({"rows": 1, "cols": 3}, 10 - 8),
    ],
)
def test_swedish_on_every_grid(options: dict[str, object], first_moves: int) -> None:
    g = DotsAndBoxes.from_options({**options, "start": "swedish"})
    state = g.initial()
    assert len(g.legal_moves(state)) == first_moves
    # No cell is ever complete at the start.
    assert g.score(state) == (0, 0)
    for cell in g.board.cells:
        assert any(not state.drawn >> i & 1 for i in cell.lines)


def test_icelandic_draws_left_and_bottom_only() -> None:
    g = game(rows=3, cols=3, start="icelandic")
    state = g.initial()
    predrawn = {g.board.lines[i].name for i in range(len(g.board.lines)) if state.drawn >> i & 1}
    assert predrawn == {"a1-b1", "b1-c1", "c1-d1", "a1-a2", "a2-a3", "a3-a4"}
    assert len(g.legal_moves(state)) == 24 - 6


def test_icelandic_single_cell() -> None:
    g = game(rows=1, cols=1, start="icelandic")
    assert g.legal_move_texts(g.initial()) == ["a2-b2", "b1-b2"]


@pytest.mark.parametrize(
    "options",
    [
        {"rows": 3, "cols": 4},
        {"grid": "triangle", "size": 5},
        {"grid": "hexagon", "size": 3},
    ],
)
def test_standard_start_draws_nothing(options: dict[str, object]) -> None:
    g = DotsAndBoxes.from_options(options)
    assert g.initial().drawn == 0
    assert len(g.legal_moves(g.initial())) == len(g.board.lines)


# -- moves, the extra move, scoring ---------------------------------------------------------


def test_turn_passes_when_no_cell_is_completed() -> None:
    g = game(rows=2, cols=2)
    state = g.play(g.initial(), "a1-b1")
    assert g.to_move(state) == "blue"
    state = g.play(state, "b1-c1")
    assert g.to_move(state) == "red"


def test_completing_a_cell_gives_one_extra_move() -> None:
    g = game(rows=2, cols=2)
    state = g.replay(["a1-b1", "a1-a2", "b1-b2"])  # red, blue, red
    assert g.to_move(state) == "blue"
    state = g.play(state, "a2-b2")  # blue closes a1's box
    assert g.score(state) == (0, 1)
    assert g.to_move(state) == "blue"
    state = g.play(state, "c1-c2")  # no box: the turn passes
    assert g.to_move(state) == "red"


def test_one_line_completing_two_cells_scores_two_and_gives_one_extra_move() -> None:
    g = game(rows=1, cols=2)
    # Everything but the middle line b1-b2.
    state = g.replay(["a1-b1", "b1-c1", "a1-a2", "c1-c2", "a2-b2", "b2-c2"])
    assert g.to_move(state) == "red"
    before = state
    state = g.play(state, "b1-b2")
    assert g.claimed_by(before, state) == 2
    assert g.score(state) == (2, 0)
    assert g.outcome(state) is not None


def test_double_cell_mid_game_keeps_the_turn_once() -> None:
    g = game(rows=1, cols=3)
    moves = ["a1-b1", "b1-c1", "a1-a2", "c1-c2", "a2-b2", "b2-c2", "c2-d2"]
    state = g.replay(moves)
    mover = g.to_move(state)
    state = g.play(state, "b1-b2")  # closes a1 and b1 boxes at once
    assert g.to_move(state) == mover
    assert g.score(state)[0 if mover == "red" else 1] == 2


def test_predrawn_lines_belong_to_nobody() -> None:
    g = game(rows=2, cols=2, start="swedish")
    # Corner box a1 has a1-b1 and a1-a2 drawn; blue may close it after red's b1-b2.
    state = g.play(g.initial(), "b1-b2")
    assert g.to_move(state) == "blue"
    state = g.play(state, "a2-b2")
    assert g.score(state) == (0, 1)


def test_illegal_moves_are_refused_without_change() -> None:
    g = game(rows=2, cols=2, start="swedish")
    state = g.initial()
    with pytest.raises(IllegalMove, match="is drawn at the start"):
        g.play(state, "a1-b1")
    state = g.play(state, "b1-b2")
    with pytest.raises(IllegalMove, match="already drawn"):
        g.play(state, "b1-b2")
    with pytest.raises(NotationError, match="no dot"):
        g.play(state, "a1-z9")
    with pytest.raises(NotationError, match="neighbours"):
        g.play(state, "a1-c3")
    with pytest.raises(NotationError):
        g.play(state, "a1b1")
    with pytest.raises(IllegalMove):
        g.apply(state, 999)
    with pytest.raises(IllegalMove, match="no line True"):
        g.apply(state, True)  # a bool is an int to Python, not a line
    assert g.to_move(state) == "blue" and g.ply(state) == 1


def test_reversed_dots_are_accepted_and_formatted_canonically() -> None:
    g = game(rows=2, cols=2)
    assert g.parse_move("b1-a1") == g.parse_move("a1-b1")
    assert g.format_move(g.parse_move("a2-a1")) == "a1-a2"


@pytest.mark.parametrize("misere,winner", [(False, "red"), (True, "blue")])
def test_normal_scoring_and_misere(misere: bool, winner: str) -> None:
    g = game(rows=1, cols=2, start="swedish", misere=misere)
    assert g.legal_move_texts(g.initial()) == ["b1-b2"]
    state = g.play(g.initial(), "b1-b2")  # red closes both boxes: 2-0
    assert g.score(state) == (2, 0)
    outcome = g.outcome(state)
    assert outcome is not None
    assert outcome.winner == winner
    assert g.to_move(state) is None


def test_draw_on_equal_score() -> None:
    g = game(rows=1, cols=2)
    state = g.replay(["a1-b1", "b1-c1", "a1-a2", "b1-b2"])  # red, blue, red, blue
    state = g.play(state, "a2-b2")  # red closes a1
    state = g.play(state, "c1-c2")  # red again, no box
    state = g.play(state, "b2-c2")  # blue closes b1
    outcome = g.outcome(state)
    assert g.score(state) == (1, 1)
    assert outcome is not None and outcome.winner is None and outcome.score == (1, 1)


def test_game_over_refuses_moves() -> None:
    g = game(rows=1, cols=1, start="swedish")
    state = g.play(g.initial(), "a2-b2")
    assert g.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        g.apply(state, 0)


def test_triangle_and_hexagon_cells_are_claimed() -> None:
    g = game(grid="triangle", size=1)
    state = g.replay(["a1-c1", "a1-b2"])
    assert g.to_move(state) == "red"
    state = g.play(state, "c1-b2")
    assert g.score(state) == (1, 0)
    h = game(grid="hexagon", size=1)
    state = h.replay(h.legal_move_texts(h.initial()))
    assert h.score(state) == (0, 1)  # the sixth line is blue's (moves alternate)


def test_view_matches_state() -> None:
    g = game(rows=2, cols=2, start="swedish")
    state = g.replay(["b1-b2", "a2-b2"])
    view = g.view(state)
    assert view["kind"] == "dots" and view["score"] == {"red": 0, "blue": 1}
    assert sum(line["drawn"] for line in view["lines"]) == 10
    assert sum(line["predrawn"] for line in view["lines"]) == 8
    owners = [cell["owner"] for cell in view["cells"]]
    assert owners.count("blue") == 1 and owners.count(None) == 3
    assert view["legal_moves"] == g.legal_move_texts(state)
    assert (view["width"], view["height"]) == (2, 2)


def test_diagram_shows_lines_and_owners() -> None:
    g = game(rows=1, cols=1, start="swedish")
    text = g.diagram(g.play(g.initial(), "a2-b2"))
    assert text.splitlines()[:4] == ["2 +---+", "  | R |", "1 +---+", "  a   b"]
    assert "red wins" in text


# -- the fast paths against the rules written plainly -----------------------------------------


def _reference_step(g: DotsAndBoxes, state: DotsState, line: int) -> DotsState:
    """One move by the rules file, from the board's geometry alone (no precomputed masks)."""
    mover = state.to_move
    assert mover is not None
    drawn = state.drawn | 1 << line
    claimed = 0
    for c in g.board.lines[line].cells:
        if all(drawn >> side & 1 for side in g.board.cells[c].lines):
            claimed |= 1 << c
    red = state.red | (claimed if mover == "red" else 0)
    blue = state.blue | (claimed if mover == "blue" else 0)
    nxt: Player | None = mover if claimed else ("blue" if mover == "red" else "red")
    if drawn == (1 << len(g.board.lines)) - 1:
        nxt = None
    return DotsState(drawn, red, blue, nxt, state.ply + 1)


BOARDS: list[dict[str, object]] = [
    {"rows": 1, "cols": 1},
    {"rows": 5, "cols": 5},
    {"rows": 3, "cols": 7, "start": "icelandic"},
    {"rows": 12, "cols": 12, "start": "swedish", "misere": True},
    {"grid": "triangle", "size": 4, "start": "swedish"},
    {"grid": "hexagon", "size": 6},
]


@pytest.mark.parametrize("options", BOARDS, ids=str)
def test_random_games_follow_the_plain_rules(options: dict[str, object]) -> None:
    g = game(**options)
    rng = random.Random(20261129)
    for _ in range(20):
        state = g.initial()
        while g.outcome(state) is None:
            free = [i for i in range(len(g.board.lines)) if not state.drawn >> i & 1]
            # The board-specialised legal_moves and the plain method agree, lowest line first.
            assert g.legal_moves(state) == DotsAndBoxes.legal_moves(g, state) == free
            line = rng.choice(free)
            expected = _reference_step(g, state, line)
            state = g.apply(state, line)
            assert state == expected and hash(state) == hash(expected)
        assert g.legal_moves(state) == [] and g.to_move(state) is None
        assert sum(g.score(state)) == len(g.board.cells)


def test_games_pickle_and_copy() -> None:
    g = game(rows=3, cols=4, start="swedish", misere=True)
    state = g.replay(["b1-b2", "a2-b2"])
    for clone in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert clone.options() == g.options()
        assert clone.legal_moves(state) == g.legal_moves(state)
    assert pickle.loads(pickle.dumps(state)) == state


def test_the_engine_is_the_expected_build() -> None:
    """Pure Python unless ``PLAYTABLE_EXPECT_COMPILED=1`` (``make test-compiled``).

    A source checkout must run game.py itself: a compiled module left beside it by an in-place
    build would be imported instead, and every later edit of game.py silently ignored.
    """
    expected = os.environ.get("PLAYTABLE_EXPECT_COMPILED") == "1"
    assert dots_module.COMPILED is expected, dots_module.__file__
    # Only the interpreted engine swaps in the generated legal_moves.
    assert ("legal_moves" in vars(game())) is not expected
