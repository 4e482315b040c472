"""The computer as a player meets it (a review of the computer and the analysis): how long
it keeps a player waiting, and that its quick answers are right."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from playtable.ai import analysis_work, bot_move
from playtable.ai.analysis_work import analyse_chunk
from playtable.ai.dots_bots import Lines, safe_capture, solver_for
from playtable.ai.dots_solver import DotsSolver
from playtable.games import load
from playtable.games.dots.game import DotsAndBoxes

# A 12x12 game against the hard computer (a review, played in the browser), up to the
# moment Red opened a chain of 13 boxes: 85 lines free, too many to prove, two safe lines.
CHAIN_12X12 = (
    "j3-k3 b10-b11 j12-k12 g2-g3 d2-d3 k3-k4 e6-e7 c3-c4 g3-g4 a7-b7 g11-h11 k9-k10 h10-h11 "
    "a13-b13 b11-c11 j12-j13 b9-c9 i9-j9 g5-g6 h6-h7 a3-b3 l5-m5 j11-k11 f3-f4 h1-i1 c4-d4 "
    "h9-h10 c7-d7 j10-k10 i10-j10 a1-a2 a6-a7 c11-c12 i3-j3 c7-c8 c5-c6 e6-f6 e5-f5 e3-f3 "
    "k4-k5 g8-h8 e1-f1 j1-k1 k5-l5 g1-g2 e8-e9 i1-i2 k13-l13 c1-c2 i12-i13 e10-f10 i6-j6 "
    "g6-h6 f12-f13 g11-g12 i4-j4 k1-k2 f7-f8 k7-k8 k2-l2 a4-b4 k8-k9 k10-k11 j10-j11 m8-m9 "
    "k6-k7 g3-h3 g13-h13 e13-f13 i7-j7 c8-c9 f8-g8 d4-d5 d4-e4 j2-j3 j5-k5 c2-c3 f4-g4 "
    "f3-g3 k8-l8 f10-g10 i5-i6 e4-f4 e3-e4 h4-h5 k11-k12 j11-j12 m1-m2 k7-l7 l7-l8 b5-c5 "
    "f5-f6 e5-e6 d8-e8 d1-d2 e2-e3 g7-g8 f7-g7 l12-l13 h9-i9 f1-f2 m10-m11 m2-m3 h2-h3 "
    "g2-h2 c6-d6 c4-c5 c5-d5 d5-d6 b7-c7 d11-d12 j7-k7 h12-i12 m3-m4 d6-e6 d5-e5 e4-e5 "
    "f4-f5 f9-g9 a3-a4 b3-b4 i8-i9 d7-d8 c8-d8 l8-m8 i13-j13 i12-j12 m5-m6 j13-k13 k12-l12 "
    "b10-c10 c10-c11 k12-k13 c12-c13 a9-a10 d12-e12 d10-d11 l3-m3 f13-g13 h3-i3 k4-l4 l4-l5 "
    "d1-e1 b7-b8 b8-c8 b8-b9 a11-b11 k6-l6 l6-l7 d9-d10 e12-e13 e12-f12 a8-a9 b11-b12 "
    "b12-c12 e8-f8 e11-e12 d11-e11 h5-i5 e9-e10 f11-g11 l13-m13 b2-b3 i1-j1 h7-i7 e11-f11 "
    "f11-f12 f12-g12 g12-g13 b1-c1 f6-f7 e7-f7 e7-e8 d7-e7 c6-c7 c10-d10 d6-d7 c12-d12 "
    "g10-g11 g10-h10 c11-d11 f10-f11 e10-e11 d10-e10 d9-e9 d8-d9 c9-d9 c9-c10 b9-b10 "
    "k10-l10 f9-f10 e9-f9 f8-f9 g8-g9 g9-g10 g9-h9 h8-h9 h8-i8 a1-b1 k2-k3 j2-k2 j1-j2 "
    "i2-j2 i2-i3 h2-i2 h1-h2 g1-h1 l1-m1 a6-b6 b6-b7 b5-b6 k9-l9 b6-c6 l9-l10 l8-l9 l9-m9 "
    "l11-m11 l12-m12 m12-m13 h3-h4 g12-h12 g4-h4 h11-h12 h12-h13 h13-i13 m6-m7 j6-k6 "
)


def test_the_hard_computer_takes_a_long_chain_without_thinking_over_each_box() -> None:
    """Taking the chain, the hard computer thought its whole budget (1.4 s) over each box:
    the player watched 'The computer is thinking…' for 18 s. All but the last two boxes of a
    chain are taken at once now (the solver's own reduction), the choice at the end thought
    over as before."""
    options = {"rows": 12, "cols": 12}
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    moves = CHAIN_12X12.split()
    state = game.replay(moves)
    assert state.to_move == "blue"
    bot_move("dots", options, moves[:-1], "hard", seed=1, budget_s=0.05)  # a warm solver
    took = []
    while True:
        lines = Lines(game, state.drawn)
        if not lines.captures or state.to_move != "blue":
            break
        started = time.perf_counter()
        reply = bot_move("dots", options, moves, "hard", seed=1, budget_s=1.4)
        took.append(time.perf_counter() - started)
        line = game.parse_move(reply.move)
        assert line in lines.captures, reply  # it takes the box
        moves.append(reply.move)
        state = game.apply(state, line)
        if sum(1 for seconds in took if seconds < 0.5) >= 10:
            break
    # The first ten boxes of the chain: each well under the budget (1.4 s each before).
    assert len(took) >= 10, took
    assert all(seconds < 0.5 for seconds in took[:10]), took


BOARDS = [
    {"rows": 3, "cols": 3},
    {"rows": 2, "cols": 5},
    {"rows": 4, "cols": 4, "start": "swedish"},
    {"grid": "triangle", "size": 4},
    {"grid": "hexagon", "size": 2},
]


@pytest.mark.parametrize("options", BOARDS)
def test_a_capture_taken_without_thinking_is_always_a_best_move(options: dict[str, Any]) -> None:
    """Wherever the hard computer takes a box at once, the plain exact search agrees that
    taking it is optimal: among the best moves, in positions of random games."""
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        state = game.initial()
        while game.to_move(state) is not None:
            lines = Lines(game, state.drawn)
            free = len(lines.captures) + len(lines.safe) + len(lines.sacrifices)
            if lines.captures and free <= 22:
                sure = solver_for(game).sure_capture(state.drawn)
                if sure is not None and safe_capture(game, state.drawn, lines.captures) is None:
                    plain = DotsSolver(game, reductions=False, native=False)
                    best = plain.solve(state, time_limit=30).best_moves
                    assert sure in best, (game.format_move(sure), state)
                    checked += 1
                    break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if checked >= 6:
            break
    assert checked >= 6, checked


# The first moves of a 9x9 Swaptimum game against the medium computer (a review).
SWAPTIMUM_9X9 = ["a3", "c1", "a8", "i4", "f6", "b2", "f4", "e1", "b4", "c3", "f2", "i2"]


def test_the_swaptimum_analysis_estimates_do_not_swing_from_one_side_to_the_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The analysis board of a 9x9 game said 'Blue wins 100% of the simulated games' after
    Red's first move, 'Red wins 100%' after Blue's, then 67%, 83%...: each estimate was the
    win rate of the search's most visited move, two or three games on a busy machine (0.25 s
    of search), so every opening position swung from one extreme to the other. It is red's
    share of all the games the search simulated from the position, as docs/protocol.md says:
    with the same few games, the first positions of an even opening stay near even."""
    monkeypatch.setattr(analysis_work, "ESTIMATE_PLAYOUTS", 150)  # a busy machine's count
    found = analyse_chunk(
        "swaptimum", {"size": 9}, SWAPTIMUM_9X9, list(range(len(SWAPTIMUM_9X9))), 1, 60, 600
    )
    shares = [round(f.red_share or 0, 2) for f in found]
    assert len(shares) == len(SWAPTIMUM_9X9)
    assert all(0.25 <= share <= 0.75 for share in shares), shares
