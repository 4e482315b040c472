"""The exact solver against published values and against a plain search written here."""

from __future__ import annotations

import random
from typing import Any

import pytest

from playtable.ai.dots_solver import DotsSolver, board_symmetries, permute_mask
from playtable.games.dots.game import DotsAndBoxes, DotsState


def game(**options: Any) -> DotsAndBoxes:
    return DotsAndBoxes.from_options(options)


def reference_value(g: DotsAndBoxes, state: DotsState) -> int:
    return _ref(g, state, {})


def _ref(g: DotsAndBoxes, state: DotsState, memo: dict[int, int]) -> int:
    if g.to_move(state) is None:
        return 0
    known = memo.get(state.drawn)
    if known is not None:
        return known
    values = []
    for move in g.legal_moves(state):
        after = g.apply(state, move)
        claimed = g.claimed_by(state, after)
        if claimed:
            values.append(claimed + _ref(g, after, memo))
        else:
            values.append(-_ref(g, after, memo))
    best = min(values) if g.settings.misere else max(values)
    memo[state.drawn] = best
    return best


def random_state(g: DotsAndBoxes, rng: random.Random, free_left: int) -> DotsState:
    state = g.initial()
    while len(g.legal_moves(state)) > free_left:
        state = g.apply(state, rng.choice(g.legal_moves(state)))
    return state


def test_published_2x2() -> None:
    g = game(rows=2, cols=2)
    assert DotsSolver(g).solve(g.initial()).value == 2


def test_published_3x3() -> None:
    g = game(rows=3, cols=3)
    solution = DotsSolver(g).solve(g.initial(), all_best=False, deepening=False)
    assert solution.value == -3


SMALL = [
    {"rows": 1, "cols": 1},
    {"rows": 1, "cols": 2},
    {"rows": 2, "cols": 2},
    {"rows": 1, "cols": 3},
    {"rows": 2, "cols": 2, "start": "swedish"},
    {"rows": 2, "cols": 3, "start": "swedish"},
    {"rows": 2, "cols": 2, "start": "icelandic"},
    {"grid": "triangle", "size": 1},
    {"grid": "triangle", "size": 2},
    {"grid": "hexagon", "size": 1},
    {"grid": "hexagon", "size": 2, "start": "swedish"},
]


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("options", SMALL, ids=lambda o: "-".join(map(str, o.values())))
def test_small_boards_from_the_start(options: dict[str, Any], misere: bool) -> None:
    g = game(**options, misere=misere)
    solution = DotsSolver(g).solve(g.initial())
    assert solution.value == reference_value(g, g.initial())
    # Every listed best move achieves the value, and no other move does.
    state = g.initial()
    for move in g.legal_moves(state):
        after = g.apply(state, move)
        claimed = g.claimed_by(state, after)
        child = _ref(g, after, {})
        value = claimed + child if claimed else -child
        assert (value == solution.value) == (move in solution.best_moves)


@pytest.mark.parametrize("misere", [False, True])
def test_random_positions_against_reference(misere: bool) -> None:
    """Every reduction at once, on random positions of many boards (a few hundred)."""
    rng = random.Random(7 if misere else 3)
    boards = [
        {"rows": 2, "cols": 3},
        {"rows": 3, "cols": 3},
        {"rows": 3, "cols": 3, "start": "swedish"},
        {"grid": "triangle", "size": 3},
        {"grid": "hexagon", "size": 2},
    ]
    games = [game(**b, misere=misere) for b in boards]
    solvers = [DotsSolver(g) for g in games]
    for _ in range(150):
        index = rng.randrange(len(games))
        g = games[index]
        state = random_state(g, rng, rng.randint(1, 11))
        assert solvers[index].value(state.drawn) == _ref(g, state, {}), (g.options(), state)


@pytest.mark.parametrize(
    "reduction",
    [{"chain_rule": False, "endgame": False}, {"endgame": False}, {"chain_rule": False}],
)
def test_each_reduction_alone(reduction: dict[str, bool]) -> None:
    rng = random.Random(11)
    g = game(rows=3, cols=3)
    solver = DotsSolver(g, symmetry=False, **reduction)
    for _ in range(40):
        state = random_state(g, rng, rng.randint(2, 12))
        assert solver.value(state.drawn) == _ref(g, state, {})


def test_capture_reductions_are_wrong_in_misere() -> None:
    """Why the solver never uses them there: forcing them on finds a wrong value."""
    rng = random.Random(5)
    g = game(rows=2, cols=3, misere=True)
    forced = DotsSolver(g, reductions=True)
    wrong = 0
    for _ in range(80):
        state = random_state(g, rng, rng.randint(3, 10))
        wrong += forced.value(state.drawn) != _ref(g, state, {})
    assert wrong > 0


@pytest.mark.parametrize(
    "options,count",
    [
        ({"rows": 3, "cols": 3}, 8),
        ({"rows": 2, "cols": 3}, 4),
        ({"grid": "triangle", "size": 3}, 6),
        ({"grid": "hexagon", "size": 2}, 12),
        ({"rows": 4, "cols": 4, "start": "swedish"}, 8),
        ({"rows": 3, "cols": 3, "start": "icelandic"}, 2),
    ],
)
def test_symmetries_keep_predrawn_lines(options: dict[str, Any], count: int) -> None:
    g = game(**options)
    assert len(DotsSolver(g).perms) == count
    assert len(board_symmetries(g.board)) in (4, 6, 8, 12)


@pytest.mark.parametrize(
    "options", [{"rows": 3, "cols": 3}, {"grid": "triangle", "size": 3}, {"rows": 2, "cols": 3}]
)
def test_symmetric_positions_have_equal_values(options: dict[str, Any]) -> None:
    g = game(**options)
    rng = random.Random(2)
    plain = DotsSolver(g, symmetry=False)
    for _ in range(10):
        state = random_state(g, rng, rng.randint(4, 11))
        value = plain.value(state.drawn)
        for perm in board_symmetries(g.board):
            image = permute_mask(state.drawn, perm)
            assert plain.value(image) == value
        # The canonical key is the same for every image.
        solver = DotsSolver(g)
        internal = solver.to_internal(state.drawn)
        keys = {
            solver.canonical(solver.to_internal(permute_mask(state.drawn, p)))[0]
            for p in board_symmetries(g.board)
        }
        assert keys == {solver.canonical(internal)[0]}


def test_time_limit_raises() -> None:
    from playtable.ai.dots_solver import SolverTimeout

    g = game(rows=4, cols=4)
    with pytest.raises(SolverTimeout):
        DotsSolver(g).solve(g.initial(), time_limit=0.05)


def test_the_solver_is_the_expected_build() -> None:
    """Pure Python unless ``PLAYTABLE_EXPECT_COMPILED=1`` (``make test-compiled``), like the
    engine: the compiled build compiles the solver and the chains-and-loops game too."""
    import os

    from playtable.ai import dots_solver, strings

    expected = os.environ.get("PLAYTABLE_EXPECT_COMPILED") == "1"
    for module in (dots_solver, strings):
        assert (not module.__file__ or not module.__file__.endswith(".py")) is expected
