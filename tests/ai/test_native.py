"""The C search (playtable/ai/_dotscore.c) against the pure Python one, in both scorings."""

from __future__ import annotations

import os
import random
import time
from typing import Any

import pytest

from playtable.ai.dots_solver import NATIVE, DotsSolver, SolverTimeout, plain_value
from playtable.games.dots.game import DotsAndBoxes, DotsState

if not NATIVE:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(
            "playtable.ai._dotscore is not built: CI has a C compiler, the install must build it",
            pytrace=False,
        )
    pytest.skip(
        "SKIPPING: playtable.ai._dotscore is not built (no C compiler)", allow_module_level=True
    )

from playtable.ai._dotscore import Core


def game(misere: bool = True, **options: Any) -> DotsAndBoxes:
    return DotsAndBoxes.from_options({**options, "misere": misere})


def random_state(g: DotsAndBoxes, rng: random.Random, free: int) -> DotsState:
    state = g.initial()
    while len(g.legal_moves(state)) > free and g.to_move(state) is not None:
        state = g.apply(state, rng.choice(g.legal_moves(state)))
    return state


BOARDS = [
    {"rows": 2, "cols": 2},
    {"rows": 3, "cols": 3},
    {"rows": 3, "cols": 3, "start": "swedish"},
    {"rows": 3, "cols": 3, "start": "icelandic"},
    {"rows": 4, "cols": 4},
    {"grid": "triangle", "size": 3},
    {"grid": "hexagon", "size": 2},
    # More than 64 lines: searched on the free lines only.
    {"rows": 6, "cols": 6},
    {"grid": "hexagon", "size": 3},
]


def test_solvers_search_in_c_by_default() -> None:
    assert DotsSolver(game(rows=3, cols=3)).native
    assert DotsSolver(game(False, rows=3, cols=3)).native
    # The C search has the default reductions only: none in misère, all in normal scoring.
    assert not DotsSolver(game(False, rows=3, cols=3), chain_rule=False).native
    with pytest.raises(ValueError, match="default reductions"):
        DotsSolver(game(rows=3, cols=3), reductions=True, native=True)


def test_published_values() -> None:
    assert (
        DotsSolver(game(False, rows=2, cols=2)).solve(game(False, rows=2, cols=2).initial()).value
        == 2
    )
    g = game(False, rows=3, cols=3)
    solution = DotsSolver(g).solve(g.initial(), all_best=False)
    assert solution.value == -3 and solution.nodes > 0


@pytest.mark.parametrize("misere", [True, False], ids=["misère", "normal"])
@pytest.mark.parametrize("options", BOARDS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_same_values_and_best_moves_as_python(options: dict[str, Any], misere: bool) -> None:
    g = game(misere, **options)
    rng = random.Random(11)
    native = DotsSolver(g)  # one table for every position, as in a game
    for _ in range(25):
        state = random_state(g, rng, rng.randint(2, 13))
        if g.to_move(state) is None:
            continue
        got = native.solve(state)
        want = DotsSolver(g, native=False).solve(state)
        assert (got.value, got.best_moves) == (want.value, want.best_moves), state.drawn


def test_a_tiny_table_still_gives_exact_values() -> None:
    # 64 entries: entries are replaced all the time, children overwrite their parents' bucket.
    rng = random.Random(8)
    for misere, options in (
        (True, {"rows": 4, "cols": 4}),
        (True, {"grid": "triangle", "size": 4}),
        (False, {"rows": 4, "cols": 4}),
    ):
        g = game(misere, **options)
        tiny = DotsSolver(g)
        tiny.table_bits = 6
        for _ in range(6):
            state = random_state(g, rng, 16)
            want = DotsSolver(g, native=False).solve(state)
            got = tiny.solve(state)
            assert (got.value, got.best_moves) == (want.value, want.best_moves), state.drawn


def test_agrees_with_the_plain_search_on_small_positions() -> None:
    rng = random.Random(5)
    for misere in (True, False):
        for options in BOARDS[:7]:
            g = game(misere, **options)
            solver = DotsSolver(g)
            for _ in range(20):
                state = random_state(g, rng, rng.randint(1, 11))
                assert solver.value(state.drawn) == plain_value(g, state.drawn)


def test_a_projected_core_is_rebuilt_after_a_take_back() -> None:
    g = game(rows=6, cols=6)  # 84 lines
    rng = random.Random(3)
    state = random_state(g, rng, 14)
    later = g.apply(state, g.legal_moves(state)[0])
    solver = DotsSolver(g)
    solver.solve(later)
    core = solver._core
    # ``state`` lacks a line the core's projection took as drawn: it needs a new core.
    assert solver.solve(state).value == DotsSolver(g, native=False).solve(state).value
    assert solver._core is not core


def test_the_time_limit_holds() -> None:
    g = game(rows=4, cols=4)
    state = random_state(g, random.Random(2026), 34)
    solver = DotsSolver(g)
    start = time.perf_counter()
    with pytest.raises(SolverTimeout):
        solver.solve(state, time_limit=0.2)
    assert time.perf_counter() - start < 1.0
    # What it learnt before the clock stopped it is sound: the next solve agrees.
    small = random_state(g, random.Random(1), 10)
    assert solver.solve(small).value == DotsSolver(g, native=False).solve(small).value


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([1], 65, [], 0, 10), "1 to 64 lines"),
        (([1], 3, [], 0, 40), "table_bits"),
        (([0b111, 0b111, 0b111], 3, [], 0, 10), "at most two cells"),
        (([1], 2, [[0, 5]], 0, 10), "permutation"),
    ],
)
def test_bad_arguments_are_refused(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Core(*args)


def test_bad_searches_are_refused() -> None:
    core = Core([0b0011, 0b0110], 4, [], 0, 10)
    with pytest.raises(ValueError, match="beyond"):
        core.search(1 << 5, -3, 3, 1.0)
    with pytest.raises(ValueError, match="window"):
        core.search(0, 3, 3, 1.0)
    assert core.search(0, -3, 3, 1.0) is not None
    assert core.nodes > 0 and core.entries > 0
    core.clear()
    assert core.entries == 0


@pytest.mark.parametrize(
    "options",
    [{"rows": 3, "cols": 3}, {"rows": 4, "cols": 4}, {"grid": "triangle", "size": 3}],
    ids=["3x3", "4x4", "triangle-3"],
)
def test_the_cutoffs_keep_every_window_sound(options: dict[str, Any]) -> None:
    # The enhanced transposition cutoff and the loony bound only cut a node short: whatever
    # the window, the fail-soft result must still bound the exact value the right way.
    g = game(False, **options)
    solver = DotsSolver(g)
    rng = random.Random(21)
    fast = Core(solver.cell_masks, solver.n_lines, solver.perms[1:], 10, 16, misere=False)
    plain = Core(
        solver.cell_masks, solver.n_lines, [], 10, 16, misere=False, etc=False, loony=False
    )
    cells = len(solver.cell_masks)
    for _ in range(60):
        state = random_state(g, rng, rng.randint(8, 18))
        drawn = solver.to_internal(state.drawn)
        exact = plain.search(drawn, -cells - 1, cells + 1, 60.0)
        assert exact is not None
        low = rng.randint(-cells, cells - 1)
        high = low + 1 if rng.random() < 0.6 else rng.randint(low + 1, cells + 1)
        got = fast.search(drawn, low, high, 60.0)
        assert got is not None
        if got <= low:
            assert exact <= got, (state.drawn, low, high)
        elif got >= high:
            assert exact >= got, (state.drawn, low, high)
        else:
            assert exact == got, (state.drawn, low, high)
    assert fast.nodes > 0


def test_the_profile_counts_every_node_once() -> None:
    g = game(False, rows=3, cols=3)
    solver = DotsSolver(g)
    core = Core(solver.cell_masks, solver.n_lines, solver.perms[1:], 10, 16, misere=False)
    assert core.search(0, -10, 10, 60.0) == -3
    profile = core.profile
    kinds = profile["offered"] + profile["safe"] + profile["loony"] + profile["simple"]
    assert kinds == sum(profile["by_free"]) > 0
    # Nodes cut short before the count (by the forced captures' bounds) are not counted.
    assert kinds <= core.nodes
    assert profile["by_free"][0] == 0  # a full board returns before it is counted
