"""The abstract game of chains and loops against a plain search of the board itself."""

from __future__ import annotations

import math
import random
import time
from typing import Any

import pytest

from playtable.ai import strings
from playtable.ai.analysis import best_moves
from playtable.ai.dots_solver import DotsSolver, plain_value
from playtable.games.dots.game import DotsAndBoxes


def chains_and_loops(g: DotsAndBoxes, rng: random.Random) -> int:
    """A random mask where no open cell has three or more free lines."""
    drawn = g.predrawn
    full = (1 << len(g.board.lines)) - 1
    lines = [i for i in range(len(g.board.lines)) if not drawn >> i & 1]
    rng.shuffle(lines)
    for line in lines:
        free = full & ~drawn
        if all((free & mask).bit_count() <= 2 for _, mask in g._line_cells[line]) and all(
            (free & cell).bit_count() <= 2 for cell in _cells(g)
        ):
            break
        drawn |= 1 << line
    return drawn


def _cells(g: DotsAndBoxes) -> list[int]:
    return [sum(1 << i for i in cell.lines) for cell in g.board.cells]


BOARDS: list[dict[str, Any]] = [
    {"rows": 3, "cols": 3},
    {"rows": 2, "cols": 4},
    {"rows": 3, "cols": 4, "start": "swedish"},
    {"grid": "hexagon", "size": 2},
    {"grid": "triangle", "size": 3},
]


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("options", BOARDS)
def test_component_values_match_the_plain_search(options: dict[str, Any], misere: bool) -> None:
    g = DotsAndBoxes.from_options({**options, "misere": misere})
    solver = DotsSolver(g)
    w = -1 if misere else 1
    rng = random.Random(7)
    for _ in range(25):
        drawn = chains_and_loops(g, rng)
        free = solver.full & ~solver.to_internal(drawn)
        components = solver._components(free)
        assert w * strings.value(components, w) == plain_value(g, drawn), components


def test_three_cell_loop_of_the_hexagon() -> None:
    # Opening a loop of three hands over a chain open at both ends: the other side takes one
    # cell and can decline the last two, or take all three.
    assert strings.cuts((3, strings.LOOP)) == [(0, ((3, strings.BB),))]
    assert strings.value(((3, strings.LOOP),), 1) == -3  # whoever opens it loses all three
    # Misère: the other side cannot refuse them either (every line left takes cells), so
    # the opener hands over all three: u = w * v = -1 * -3.
    assert strings.value(((3, strings.LOOP),), -1) == 3
    # Normal scoring, a loop of three and a chain of four: unlike a loop of four, an opened
    # loop of three cannot be declined (after one cell the last two share one line, and any
    # other line opens the chain), so the opener loses three and wins the four: +1.
    assert strings.value(((3, strings.LOOP), (4, strings.GG)), 1) == 1
    # A loop of four instead: the other side keeps control by handing all four back, then
    # takes the chain: 0.
    assert strings.value(((4, strings.LOOP), (4, strings.GG)), 1) == 0


def test_chain_rules_of_thumb() -> None:
    gg = strings.GG
    # A lone chain of n: the side to move must open it and loses all n (normal scoring).
    for n in range(1, 8):
        assert strings.value(((n, gg),), 1) == -n
    # Two long chains: the controller keeps control by declining two (Berlekamp: 3 + 3 -> the
    # opener gets 2 back from the first chain and loses the second: -(3-2) - 3 + ... = -2).
    assert strings.value(((3, gg), (3, gg)), 1) == -2
    # Two short chains (1 and 2): no control to keep, the opener of the 1 gets the 2.
    assert strings.value(((1, gg), (2, gg)), 1) == 1


def test_hexagon_endgames_with_three_cell_loops_are_exact() -> None:
    """On the hexagon grid three cells meet at a point, so loops of three occur: the solver
    values them through the abstract game, in agreement with the plain search."""
    g = DotsAndBoxes.from_options({"grid": "hexagon", "size": 2})
    solver = DotsSolver(g)
    rng = random.Random(3)
    seen_loop = 0
    for _ in range(400):
        drawn = chains_and_loops(g, rng)
        free = solver.full & ~solver.to_internal(drawn)
        components = solver._components(free)
        if (3, strings.LOOP) in components:
            seen_loop += 1
            assert strings.value(components, 1) == plain_value(g, drawn)
    assert seen_loop >= 3


def test_the_loony_formula_agrees_with_the_search() -> None:
    """Normal scoring, long chains and loops only: the classic formula is what the value
    uses; here it is checked against the plain search of the abstract game."""
    rng = random.Random(11)
    for _ in range(60):
        chains = tuple(sorted(rng.randint(1, 6) for _ in range(rng.randint(0, 3))))
        loops = tuple(sorted(rng.randint(4, 8) for _ in range(rng.randint(0, 2))))
        state = tuple(
            sorted([(n, strings.GG) for n in chains] + [(n, strings.LOOP) for n in loops])
        )
        if state:
            assert strings.loony_value(chains, loops) == strings._value(state, 0, 1, math.inf)


def test_a_big_loony_endgame_gives_up_at_the_deadline() -> None:
    """Thirty chains of different lengths have a billion sub-multisets: the formula's search
    stops at its deadline, as the solver's does. Before it did, an 11x12 board's best-move
    request held a worker for three minutes on a two-second budget."""
    chains = tuple(range(3, 33))
    started = time.perf_counter()
    with pytest.raises(strings.SolverTimeout):
        strings.loony_value(chains, (), started + 0.1)
    assert time.perf_counter() - started < 5


def test_an_11x12_best_move_request_keeps_to_its_budget() -> None:
    options = {"grid": "square", "rows": 11, "cols": 12, "start": "standard"}
    started = time.perf_counter()
    assert best_moves(options, [], 0.3) is None  # not proved from the start, of course
    assert time.perf_counter() - started < 20


def test_dead_components_count_by_their_cells() -> None:
    # Normal scoring: a lone capturable cell is taken at once, so it just adds one.
    chain = ((4, strings.GG),)
    assert strings.value(((1, strings.GB), *chain), 1) == 1 + strings.value(chain, 1)
    # Misère: two lone cells or one pair sharing a line are the same thing.
    rest = ((3, strings.GG), (5, strings.GG))
    two_lone = tuple(sorted(((1, strings.GB), (1, strings.GB), *rest)))
    pair = tuple(sorted(((2, strings.BB), *rest)))
    assert strings.value(two_lone, -1) == strings.value(pair, -1)


def test_the_abstract_game_stops_at_its_deadline() -> None:
    strings._MEMO.clear()
    big = tuple(sorted([(5, strings.GG), (6, strings.GG), (4, strings.LOOP), (7, strings.GB)]))
    with pytest.raises(strings.SolverTimeout):
        strings.value(big, -1, deadline=time.perf_counter() - 1)
    assert isinstance(strings.value(big, -1), int)  # no deadline: it finishes
