"""The rules review: corner cases of ../shared/rules (swaptimum.md, dots-and-boxes.md) that the
other engine tests leave unchecked, on every board size the site offers."""

from __future__ import annotations

import itertools
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playtable.games.base import IllegalMove, Outcome, SettingsError
from playtable.games.dots.game import DotsAndBoxes
from playtable.games.dots.geometry import HEXAGON_MAX, SQUARE_MAX, TRIANGLE_MAX
from playtable.games.swaptimum import Swaptimum, SwaptimumSettings, SwaptimumState


# -- Dots and Boxes: the starts on every grid and size -----------------------------------------
def boards() -> st.SearchStrategy[dict[str, object]]:
    square = st.builds(
        lambda r, c: {"grid": "square", "rows": r, "cols": c},
        st.integers(1, SQUARE_MAX),
        st.integers(1, SQUARE_MAX),
    )
    triangle = st.builds(lambda n: {"grid": "triangle", "size": n}, st.integers(1, TRIANGLE_MAX))
    hexagon = st.builds(lambda n: {"grid": "hexagon", "size": n}, st.integers(1, HEXAGON_MAX))
    return st.one_of(square, triangle, hexagon)


def completes(game: DotsAndBoxes, drawn: int) -> list[int]:
    return [
        cell.index for cell in game.board.cells if all(drawn >> line & 1 for line in cell.lines)
    ]


@settings(max_examples=150, deadline=None)
@given(boards())
def test_the_swedish_start_draws_the_whole_outline_but_never_a_cell(
    options: dict[str, object],
) -> None:
    """Every outline line is drawn except one that would complete a cell by itself; no cell is
    complete at the start; nothing inside the outline is drawn."""
    game = DotsAndBoxes.from_options({**options, "start": "swedish"})
    drawn = game.initial().drawn
    assert completes(game, drawn) == []
    for line in game.board.lines:
        bit = 1 << line.index
        if not line.is_outline:
            assert not drawn & bit, line.name
        elif not drawn & bit:
            assert completes(game, drawn | bit), f"{line.name} left undrawn for no cell"
    state = game.initial()
    assert (state.red, state.blue, state.to_move, state.ply) == (0, 0, "red", 0)
    assert game.legal_moves(state) == [
        line.index for line in game.board.lines if not drawn >> line.index & 1
    ]


@pytest.mark.parametrize("grid", ["square", "triangle", "hexagon"])
def test_a_swedish_board_of_one_cell_leaves_the_last_line_in_board_order(grid: str) -> None:
    options = {"rows": 1, "cols": 1} if grid == "square" else {"size": 1}
    game = DotsAndBoxes.from_options({"grid": grid, **options, "start": "swedish"})
    (cell,) = game.board.cells
    assert game.legal_moves(game.initial()) == [max(cell.lines)]
    after = game.apply(game.initial(), max(cell.lines))
    assert game.outcome(after) == Outcome("red", "score", (1, 0))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, SQUARE_MAX), st.integers(1, SQUARE_MAX))
def test_the_icelandic_start_draws_the_left_and_bottom_sides_exactly(rows: int, cols: int) -> None:
    game = DotsAndBoxes.from_options({"rows": rows, "cols": cols, "start": "icelandic"})
    drawn = game.initial().drawn
    names = {line.name for line in game.board.lines if drawn >> line.index & 1}
    letters = "abcdefghijklm"
    bottom = {f"{letters[c]}1-{letters[c + 1]}1" for c in range(cols)}
    left = {f"a{r + 1}-a{r + 2}" for r in range(rows)}
    assert names == bottom | left
    assert completes(game, drawn) == []


@pytest.mark.parametrize("grid", ["triangle", "hexagon"])
def test_the_icelandic_start_is_refused_off_the_square_grid(grid: str) -> None:
    with pytest.raises(SettingsError, match="square grid only"):
        DotsAndBoxes.from_options({"grid": grid, "size": 2, "start": "icelandic"})


# -- Dots and Boxes: the end and the score ----------------------------------------------------
def test_a_misere_tie_is_a_draw() -> None:
    game = DotsAndBoxes.from_options({"rows": 1, "cols": 2, "misere": True})
    state = game.replay(["a1-b1", "b1-c1", "a1-a2", "b1-b2", "a2-b2", "c1-c2", "b2-c2"])
    assert game.score(state) == (1, 1)
    assert game.outcome(state) == Outcome(None, "score", (1, 1))


def test_the_last_line_completing_two_cells_ends_the_game_with_both() -> None:
    """The one extra move of a double cell is not owed when no line is left."""
    game = DotsAndBoxes.from_options({"rows": 1, "cols": 2, "start": "swedish"})
    end = game.play(game.initial(), "b1-b2")
    assert (game.score(end), end.to_move) == ((2, 0), None)
    with pytest.raises(IllegalMove, match="over"):
        game.apply(end, 0)


@settings(max_examples=60, deadline=None)
@given(
    boards().filter(lambda o: o.get("size", 1) <= 3 and o.get("rows", 1) * o.get("cols", 1) <= 9),
    st.sampled_from(["standard", "swedish"]),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_every_game_follows_the_extra_move_rule_to_the_end(
    options: dict[str, object], start: str, misere: bool, rng: object
) -> None:
    """Random games, move by move against the plain rules: a line that completes k cells
    (k = 1 or 2) gives the mover k cells and one more line unless none is left; any other line
    passes the turn; the winner is the side with more cells (fewer in misère), equal is a draw."""
    game = DotsAndBoxes.from_options({**options, "start": start, "misere": misere})
    state = game.initial()
    while game.outcome(state) is None:
        move = rng.choice(game.legal_moves(state))  # type: ignore[attr-defined]
        before = completes(game, state.drawn)
        after = game.apply(state, move)
        done = set(completes(game, after.drawn)) - set(before)
        assert len(done) <= 2
        mover = state.to_move
        gained = after.red.bit_count() - state.red.bit_count()
        gained_blue = after.blue.bit_count() - state.blue.bit_count()
        assert (gained, gained_blue) == ((len(done), 0) if mover == "red" else (0, len(done)))
        if after.drawn == (1 << len(game.board.lines)) - 1:
            assert after.to_move is None
        elif done:
            assert after.to_move == mover
        else:
            assert after.to_move == ("blue" if mover == "red" else "red")
        state = after
    red, blue = game.score(state)
    assert red + blue == len(game.board.cells)
    outcome = game.outcome(state)
    assert outcome is not None
    if red == blue:
        assert outcome.winner is None
    else:
        assert outcome.winner == ("red" if (red > blue) != misere else "blue")


# -- Swaptimum: every game on the small boards ------------------------------------------------
@pytest.mark.parametrize("n", [2, 3])
def test_every_swaptimum_game_on_a_small_board_ends_with_one_winner(n: int) -> None:
    """The whole game tree of 2x2 and 3x3, every legal move from every reachable position:
    no placement is ever restricted, no turn is skipped, no game is drawn, and every game
    ends with exactly one chain (the winner's) within N x N moves."""
    game = Swaptimum(SwaptimumSettings(n))
    start = game.initial()
    seen = {(start.red, start.blue, start.to_move)}
    queue = deque([start])
    finished = 0
    while queue:
        state = queue.popleft()
        player = state.to_move
        assert player is not None
        empty = game.full & ~(state.red | state.blue)
        moves = game.legal_moves(state)
        assert {move.square for move in moves} == {i for i in range(game.area) if empty >> i & 1}
        for move in moves:
            after = game.apply(state, move)
            assert after.skipped is None and not after.drawn
            assert after.red.bit_count() + after.blue.bit_count() == after.ply <= n * n
            red_chain = game._red_connects(after.red)
            blue_chain = game._blue_connects(after.blue)
            assert not (red_chain and blue_chain)
            if red_chain or blue_chain:
                assert after.winner == ("red" if red_chain else "blue") and after.to_move is None
                finished += 1
                continue
            assert after.winner is None and after.to_move == ("blue" if player == "red" else "red")
            assert empty != 1 << move.square, "a full board without a chain"
            key = (after.red, after.blue, after.to_move)
            if key not in seen:
                seen.add(key)
                queue.append(after)
    assert finished > 0


def test_every_full_crosscut_free_4x4_board_has_exactly_one_chain() -> None:
    """'Two such chains can never exist together': every crosscut-free 4x4 board, checked."""
    game = Swaptimum(SwaptimumSettings(4))
    for cells in itertools.product((0, 1), repeat=16):
        red = sum(1 << i for i, c in enumerate(cells) if c)
        blue = game.full & ~red
        if game._crosscuts(red, blue):
            continue
        # A full board without crosscuts has exactly one chain.
        assert game._red_connects(red) != game._blue_connects(blue), (red, blue)


def test_the_placements_own_square_swapped_out_completes_the_opponents_chain() -> None:
    """Blue's placement on a1 forms the crosscut a1 (B) b1 (R) / a2 (R) b2 (B); the swap a1-b1
    puts red on a1 and blue on b1. Red's column a (a1 a2 a3) now joins rows 1 and 3: Red wins
    on Blue's turn, and nobody else."""
    game = Swaptimum(SwaptimumSettings(3))
    state = SwaptimumState(
        red=(1 << game.index["b1"]) | (1 << game.index["a2"]) | (1 << game.index["a3"]),
        blue=(1 << game.index["b2"]) | (1 << game.index["c2"]),
        to_move="blue",
        ply=5,
    )
    after = game.play(state, "a1:a1-b1")
    assert game.outcome(after) == Outcome("red", "connection")
    assert [game.names[i] for i in game.winning_path(after)] == ["a1", "a2", "a3"]
