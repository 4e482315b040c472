"""Computer opponents for Dots and Boxes at three levels.

- **easy** plays like a careful beginner: it takes every cell it is offered, never gives a
  cell away while a safe line is left, and when every line gives something away it gives
  the fewest cells it can see.
- **medium** knows the long-chain rule and double-dealing: among safe lines it prefers those
  that leave the turn parity in its favour, and it settles captures, declines and
  sacrifices with a short search of the solver (which values chain-and-loop endgames
  exactly).
- **hard** plays proved moves wherever a proof fits its budget (every position once no
  safe line is left, and the late safe phase), so it settles every loony endgame exactly:
  all-but-two or take-all, which chain or loop to open, when to give control away. Before
  that it fights for control (:mod:`playtable.ai.dots_middle`): a tree search of the safe
  phase whose playouts end in exact values of the endings they reach, with sacrifices of
  one or two boxes among the moves once few safe lines are left, so it steers the parity
  of the long chains as the long-chain rule asks and gives boxes away when that gains
  control. A box offered that is safe to take (Berlekamp's criterion), or the first of a
  long chain (all but the last two boxes are taken without thinking), is taken at once. In
  misère the same proofs and tree search, with misère's moves (a box offered may be left,
  and nobody is given boxes); on boards up to 4x4, the exact search from 26 free lines on.
  On the boards up to 3x3 the first moves come from the opening book
  (:mod:`playtable.ai.book`, read by :func:`playtable.ai.bot_move` before any thinking), so
  it plays those whole games perfectly.

Easy and medium are deterministic for a given random generator; hard's tree search
follows the clock (how many playouts fit), so it is not.
"""

from __future__ import annotations

import json
import random
import time
from collections import OrderedDict

from playtable.ai.dots_middle import MiddleGame, greedy_losses
from playtable.ai.dots_solver import DotsSolver, SolverTimeout
from playtable.games.dots.game import DotsAndBoxes, DotsState

LEVELS = ("easy", "medium", "hard")

# Medium searches only this many choice moves, for at most this long.
MEDIUM_DEPTH = 3
MEDIUM_SECONDS = 0.3
# Medium searches for real once this few lines are free.
MEDIUM_ENDGAME_LINES = 14

# The hard bot draws a random safe line while more than this many are left.
HARD_RANDOM_SAFE = 60
# It tries to prove the position with this share of its time when this few safe lines are
# left (measured on 5x5: 7 to 12 safe lines, 0.03 to 0.35 s; 15 to 17, 0.2 to 18 s), and
# with that share once no safe line is left (endings of 5x5 and 6x6: milliseconds).
HARD_PROOF_SAFE = 10
# ... and on any board with this few lines free, however many are safe: a whole 3x3 board
# (24 lines), a triangle of side 4 or a hexagon of radius 2 proves in well under a second,
# where the middle-game heuristic lost up to 6 boxes of the proved value (a review).
HARD_PROOF_FREE = 30
HARD_PROOF_SHARE = 0.5
# In misère, the hard bot searches for a proof from this many free lines on (the solver's
# own threshold for trying the exact search first, ``DotsSolver.choose``).
MISERE_EXACT_LINES = 26
# Misère boards of at most this many lines (4x4 and smaller) use the exact search from 26
# free lines on; bigger ones the same proofs and tree search as normal play (measured,
# bench/RESULTS.md "Round nineteen": each was the better on its boards).
MISERE_SMALL_LINES = 40
HARD_ENDGAME_SHARE = 0.85

_SOLVERS: OrderedDict[str, DotsSolver] = OrderedDict()
_SOLVER_CACHE_SIZE = 4


def solver_for(game: DotsAndBoxes) -> DotsSolver:
    """The process's solver for this game's settings: its table carries over between moves,
    so a bot that proved a position proves the following ones almost for free."""
    key = json.dumps(game.options(), sort_keys=True)
    solver = _SOLVERS.pop(key, None)
    if solver is None:
        solver = DotsSolver(game)
    _SOLVERS[key] = solver
    while len(_SOLVERS) > _SOLVER_CACHE_SIZE:
        _SOLVERS.popitem(last=False)
    return solver


class Lines:
    """The free lines of a position sorted by what drawing them does."""

    def __init__(self, game: DotsAndBoxes, drawn: int) -> None:
        self.captures: list[int] = []  # complete at least one cell
        self.safe: list[int] = []  # make no cell completable
        self.sacrifices: list[int] = []  # make a cell completable for the opponent
        full = (1 << len(game.board.lines)) - 1
        free = full & ~drawn
        for line in game.legal_moves(DotsState(drawn, 0, 0, "red", 0)):
            counts = [(free & mask).bit_count() for _, mask in game._line_cells[line]]
            if 1 in counts:
                self.captures.append(line)
            elif 2 in counts:
                self.sacrifices.append(line)
            else:
                self.safe.append(line)


def easy_move(game: DotsAndBoxes, state: DotsState, rng: random.Random) -> int:
    """The easy bot's line, a naive player's: take an offered box, else a safe line, else
    the sacrifice that gives the fewest boxes away. In misère, where the fewer boxes win,
    the same naive player the other way round: a safe line, else the sacrifice that gives
    the most boxes away, and a box only when every line takes one."""
    lines = Lines(game, state.drawn)
    if game.settings.misere:
        return _easy_misere(game, state.drawn, lines, rng)
    if lines.captures:
        return rng.choice(lines.captures)
    if lines.safe:
        return rng.choice(lines.safe)
    losses = greedy_losses(game, state.drawn, lines.sacrifices)
    fewest = min(losses.values())
    return rng.choice(sorted(line for line, loss in losses.items() if loss == fewest))


def _easy_misere(game: DotsAndBoxes, drawn: int, lines: Lines, rng: random.Random) -> int:
    if lines.safe:
        return rng.choice(lines.safe)
    if lines.sacrifices:
        losses = greedy_losses(game, drawn, lines.sacrifices)
        most = max(losses.values())
        return rng.choice(sorted(line for line, loss in losses.items() if loss == most))
    return rng.choice(lines.captures)


def _parity_choice(
    game: DotsAndBoxes, solver: DotsSolver, state: DotsState, safe: list[int], rng: random.Random
) -> int:
    """A safe line after which the long-chain rule favours the mover (the opponent is then
    to move, so the opponent's estimate should be lowest)."""
    scored: dict[int, int] = {}
    for line in safe:
        free = solver.full & ~solver.to_internal(state.drawn | 1 << line)
        scored[line] = solver._estimate(free, 0, 0)
    lowest = min(scored.values())
    return rng.choice(sorted(line for line, score in scored.items() if score == lowest))


def medium_move(game: DotsAndBoxes, state: DotsState, rng: random.Random, deadline: float) -> int:
    solver = solver_for(game)
    lines = Lines(game, state.drawn)
    free_count = len(lines.captures) + len(lines.safe) + len(lines.sacrifices)
    short = min(deadline, time.perf_counter() + MEDIUM_SECONDS)
    if free_count <= MEDIUM_ENDGAME_LINES or not lines.safe or lines.captures:
        try:
            line, _, _ = solver.choose(state, deadline=short, max_depth=MEDIUM_DEPTH)
            return line
        except SolverTimeout:
            return easy_move(game, state, rng)
    if len(lines.safe) > 40 or game.settings.misere:
        return rng.choice(lines.safe)  # too early for the parity to mean anything
    return _parity_choice(game, solver, state, lines.safe, rng)


def safe_capture(game: DotsAndBoxes, drawn: int, captures: list[int]) -> int | None:
    """A capture that is optimal whatever follows (normal scoring): its line's other cell,
    if any, does not have exactly two free lines, so taking costs nothing (Berlekamp)."""
    free = ((1 << len(game.board.lines)) - 1) & ~drawn
    for line in captures:
        if all((free & mask).bit_count() != 2 for _, mask in game._line_cells[line]):
            return line
    return None


def _margin(game: DotsAndBoxes, state: DotsState) -> int:
    """The boxes of the side to move minus the other side's."""
    red, blue = game.score(state)
    return red - blue if state.to_move == "red" else blue - red


def hard_move(game: DotsAndBoxes, state: DotsState, rng: random.Random, deadline: float) -> int:
    """Proved moves where the proof fits the budget; in the safe phase the control fight of
    :mod:`playtable.ai.dots_middle`; past both, the deepest search that finishes."""
    solver = solver_for(game)
    lines = Lines(game, state.drawn)
    if len(lines.safe) > HARD_RANDOM_SAFE and not lines.captures:
        # Far from any endgame on a big board: the parity will change many times yet.
        return rng.choice(lines.safe)
    if game.settings.misere and len(game.board.lines) <= MISERE_SMALL_LINES:
        if (
            lines.safe
            and len(lines.captures) + len(lines.safe) + len(lines.sacrifices) > MISERE_EXACT_LINES
        ):
            # Too far from the end for the exact search: the tree search of the safe phase.
            return MiddleGame(game, solver, state, rng, deadline).choose()
        # Near the end of a small board: the deepest search that finishes (a proof, most
        # often: the exact search gets 95% of the time from 26 free lines on).
        try:
            line, _, _ = solver.choose(state, deadline=deadline)
            return line
        except SolverTimeout:
            return medium_move(game, state, rng, deadline)
    if lines.captures and not game.settings.misere:  # (Berlekamp's criterion is normal play's)
        sure = safe_capture(game, state.drawn, lines.captures)
        if sure is None:
            # The boxes of a long chain, all but its last two: thinking over each one (the
            # whole budget on a board too big to prove) kept a player waiting 18 s while
            # the computer took a chain of 13 boxes on 12x12.
            sure = solver.sure_capture(state.drawn)
        if sure is not None:
            return sure
    now = time.perf_counter()
    middle = bool(lines.safe)
    # A proof in pure Python (no C search, or more than 64 lines free on a big board)
    # would not finish: the time goes to the searches below instead.
    provable = solver.native_serves(state.drawn)
    free = len(lines.captures) + len(lines.safe) + len(lines.sacrifices)
    if provable and (not middle or len(lines.safe) <= HARD_PROOF_SAFE or free <= HARD_PROOF_FREE):
        share = HARD_PROOF_SHARE if middle else HARD_ENDGAME_SHARE
        try:
            line, value = solver.prove(state, deadline=now + share * (deadline - now))
            # Won (in misère: with fewer boxes), or no safe line left: the proof's line.
            if not middle or solver.weight * (_margin(game, state) + value) > 0:
                return line
            # Drawn or lost against perfect play: among the lines that keep the proved
            # value, the tree search looks for the one that gives a fallible opponent the
            # most chances to go wrong.
            try:
                only = set(solver.optimal_moves(state, value, deadline=deadline))
            except SolverTimeout:
                return line
            if len(only) == 1:
                return line
            return MiddleGame(game, solver, state, rng, deadline).choose(only, line)
        except SolverTimeout:
            pass
    if middle:
        return MiddleGame(game, solver, state, rng, deadline).choose()
    try:
        line, _, _ = solver.choose(state, deadline=deadline)
        return line
    except SolverTimeout:
        return medium_move(game, state, rng, deadline)


def choose_dots_move(
    game: DotsAndBoxes, state: DotsState, level: str, rng: random.Random, deadline: float
) -> int:
    """The bot's line (board index) for the side to move at ``state``, found by ``deadline``
    (a :func:`time.perf_counter` time)."""
    if level == "easy":
        return easy_move(game, state, rng)
    if level == "medium":
        return medium_move(game, state, rng, deadline)
    if level == "hard":
        return hard_move(game, state, rng, deadline)
    raise ValueError(f"level must be one of {', '.join(LEVELS)}")
