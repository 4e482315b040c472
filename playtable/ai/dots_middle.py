"""The hard Dots and Boxes bot in the middle game: the fight for control, by playouts
that end in proofs.

Between the opening and the positions the solver proves within a move's budget, what
decides a game is *control*: who is forced to open the first long chain once the lines that
give nothing away (safe lines) have run out. The long-chain rule counts it (the parity of the
safe moves left plus the long chains and loops the endgame will hold), but which chains form
depends on the lines still to come. So the bot plays the safe phase out many times:

- **Playouts**: both sides draw random safe lines (a random order of the safe lines, each
  drawn if still safe when its turn comes: every step is uniform among the lines still
  safe) until no safe line is left (a safe line offers nothing, so no box is taken on the
  way; after a root sacrifice the opponent first takes what it is given).
- **Proofs at the end**: that position, a set of chains and loops hanging off a few
  junctions with the side to move about to give something away, is valued exactly by the C
  search (Berlekamp's and Barker and Korf's loony-endgame reductions make it a matter of
  milliseconds on 5x5 and 6x6: the right take-all or all-but-two, which chain to open and
  when a loop costs control are all in that value). A proof that takes too long is replaced
  by the long-chain estimate of :meth:`DotsSolver._estimate`.
- **Choice**: every safe line, and near the end of the safe phase every sacrifice of at most
  two boxes (giving boxes away to flip the parity and gain control), is a candidate. A tree
  search (UCT) shares the playouts among them and among the replies to them, so a line is
  judged by its best refutation rather than by the average reply; a playout is scored
  mostly by whether the game is won from the present score, partly by the margin.

Between moves the module keeps only the solver's tables (see
:func:`playtable.ai.dots_bots.solver_for`) and the proved values of the endings met, for the
current solver (:class:`Endings`, at most ``MAX_ENDINGS``).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from playtable.ai.dots_solver import DotsSolver, SolverTimeout
from playtable.games.dots.game import DotsAndBoxes, DotsState

try:
    from playtable.ai._dotscore import Core
except ImportError:  # pragma: no cover - no C compiler where the package was installed
    Core = None  # type: ignore[assignment,misc]

# Sacrifices are candidates once this few safe lines are left (earlier, giving a box away
# to change the parity is premature: the parity changes again with every safe move).
SACRIFICE_SAFE_LINES = 16
# A proof at the end of a playout may take this share of the time left, at most.
PROOF_SHARE = 0.1
PROOF_MAX_S = 0.2
# The table of a private C search (boards of more than 64 lines, while more than 64 are free).
PRIVATE_TABLE_BITS = 15
MAX_ENDINGS = 200_000  # proved playout endings kept per solver
EXPLORATION = 0.5  # the UCT constant, for rewards in [0, 1]
MARGIN_WEIGHT = 0.2  # share of a playout's reward given by the margin, not the result
MAX_NODES = 100_000  # tree nodes per decision


@dataclass(slots=True)
class Endings:
    """The proved values of playout endings for one solver, by board mask of drawn lines:
    ``u`` for the side to move there."""

    values: dict[int, int] = field(default_factory=dict)
    proofs: int = 0
    estimates: int = 0


_ENDINGS: dict[int, Endings] = {}


def endings_for(solver: DotsSolver) -> Endings:
    found = _ENDINGS.get(id(solver))
    if found is None or len(found.values) > MAX_ENDINGS:
        _ENDINGS.clear()  # solvers come and go with the games; keep the current one only
        found = _ENDINGS[id(solver)] = Endings()
    return found


def safe_lines(cell_masks: tuple[int, ...], free: int) -> int:
    """The free lines that make no cell completable: every cell they touch keeps two or more
    free lines after them."""
    unsafe = 0
    for mask in cell_masks:
        left = free & mask
        if left and left.bit_count() <= 2:
            unsafe |= left
    return free & ~unsafe


def capture_lines(cell_masks: tuple[int, ...], free: int) -> int:
    """The free lines that complete a cell."""
    lines = 0
    for mask in cell_masks:
        left = free & mask
        if left and not left & (left - 1):
            lines |= left
    return lines


class MiddleGame:
    """One decision of the hard bot in the safe phase (see the module docstring)."""

    def __init__(
        self,
        game: DotsAndBoxes,
        solver: DotsSolver,
        state: DotsState,
        rng: random.Random,
        deadline: float,
    ) -> None:
        self.game = game
        self.solver = solver
        self.state = state
        self.rng = rng
        self.deadline = deadline
        self.cell_masks = game._cell_masks
        self.line_cells = game._line_cells
        self.full = (1 << len(game.board.lines)) - 1
        self.w = solver.weight
        self.misere = self.w < 0
        red, blue = game.score(state)
        mine, theirs = (red, blue) if state.to_move == "red" else (blue, red)
        self.score_u = self.w * (mine - theirs)  # the boxes already won, in u units
        self.endings = endings_for(solver)
        self._root_core = self._core_for_root(state.drawn)

    # -- proofs at the end of a playout ---------------------------------------------------------
    def _core_for_root(self, drawn: int) -> object | None:
        """The solver's C search when every ending of this decision fits it (boards of at
        most 64 lines, or at most 64 free now), else None (a private search per ending)."""
        solver = self.solver
        if Core is None or not solver.native:
            return None
        internal = solver.to_internal(drawn)
        if solver.n_lines > 64 and (solver.full & ~internal).bit_count() > 64:
            return None
        return solver._native(internal)

    def ending_value(self, drawn: int) -> int:
        """``u`` for the side to move at ``drawn`` (no safe line, no capture left): proved
        if the time allows, else the long-chain estimate."""
        known = self.endings.values.get(drawn)
        if known is not None:
            return known
        if drawn == self.full:
            return 0
        solver = self.solver
        internal = solver.to_internal(drawn)
        free = solver.full & ~internal
        left = self.deadline - time.perf_counter()
        seconds = min(PROOF_MAX_S, PROOF_SHARE * left)
        value: int | None = None
        if seconds > 0.001 and Core is not None and solver.native:
            value = self._prove(internal, free, seconds)
        if value is None:
            self.endings.estimates += 1
            return solver._estimate(free, 0, 0)
        self.endings.proofs += 1
        self.endings.values[drawn] = value
        return value

    def _prove(self, internal: int, free: int, seconds: float) -> int | None:
        solver = self.solver
        limit = len(solver.cell_masks) + 1
        found = solver._native(internal) if self._root_core is not None else None
        if found is not None:
            core, mask = found
            return core.search(mask, -limit, limit, seconds)
        if free.bit_count() > 64:
            return None
        lines = [b for b in range(solver.n_lines) if free >> b & 1]
        position = {bit: j for j, bit in enumerate(lines)}

        def project(mask: int) -> int:
            image = 0
            for bit, j in position.items():
                if mask >> bit & 1:
                    image |= 1 << j
            return image

        cells = [project(m) for m in solver.cell_masks if m & free]
        core = Core(cells, len(lines), (), 0, PRIVATE_TABLE_BITS, misere=self.w < 0)
        return core.search(0, -limit, limit, seconds)

    # -- playouts -------------------------------------------------------------------------------
    def _take_all(self, drawn: int) -> tuple[int, int]:
        """Every box offered, taken by the side to move: (drawn after, boxes taken)."""
        taken = 0
        cell_masks = self.cell_masks
        while True:
            lines = capture_lines(cell_masks, self.full & ~drawn)
            if not lines:
                return drawn, taken
            bit = lines & -lines
            drawn |= bit
            for _, mask in self.line_cells[bit.bit_length() - 1]:
                if drawn & mask == mask:
                    taken += 1

    def playout(self, drawn: int, root_to_move: bool, gained: int) -> int:
        """Random safe lines from ``drawn`` to the end of the safe phase (``root_to_move``:
        whose turn at ``drawn``; ``gained``: u won by the root mover since the root). Returns
        the final margin in u units for the root mover."""
        line_cells = self.line_cells
        safe = safe_lines(self.cell_masks, self.full & ~drawn)
        order = [b for b in range(safe.bit_length()) if safe >> b & 1]
        self.rng.shuffle(order)
        for line in order:
            if not safe >> line & 1:
                continue
            bit = 1 << line
            drawn |= bit
            safe &= ~bit
            for _, mask in line_cells[line]:
                left = mask & ~drawn
                if left.bit_count() <= 2:
                    safe &= ~left
            root_to_move = not root_to_move
        value = self.ending_value(drawn)
        return self.score_u + gained + (value if root_to_move else -value)

    def reward(self, final: int) -> float:
        """A playout's worth to the root mover, in [0, 1]: mostly whether the game is won,
        partly by how much (so that, among won games, bigger wins rank higher)."""
        outcome = 1.0 if final > 0 else 0.5 if final == 0 else 0.0
        cells = len(self.cell_masks)
        return (1 - MARGIN_WEIGHT) * outcome + MARGIN_WEIGHT * (final + cells) / (2 * cells)

    def node(self, drawn: int) -> Node:
        """A new tree node at ``drawn``.

        With boxes offered, the side to move takes them all and moves on, or declines the
        last two with the double-dealing line (the other side takes them and moves). Else
        it draws a safe line, or, once few are left, gives one or two boxes away (the other
        side then decides as above): a way to pass the turn on and change the parity.
        """
        free = self.full & ~drawn
        moves: list[Move] = []
        offered = capture_lines(self.cell_masks, free)
        if offered:
            after, taken = self._take_all(drawn)
            moves.append(Move((offered & -offered).bit_length() - 1, after, taken, False))
            for line in double_deals(self.game, drawn, offered):
                after, taken = self._take_all(drawn | 1 << line)
                moves.append(Move(line, after, -taken, True))
            if not self.misere:
                return Node(moves)
        safe = safe_lines(self.cell_masks, free)
        for line in range(safe.bit_length()):
            if safe >> line & 1:
                # In misère a box offered may be left for the other side (who takes it or
                # leaves it in turn): a safe line declines it.
                moves.append(Move(line, drawn | 1 << line, 0, True))
        if self.misere:
            # Giving boxes away is what both sides want in misère, and the other side need
            # not take them: the tree offers none (the proofs at the end do give them).
            return Node(moves)
        if moves and len(moves) <= SACRIFICE_SAFE_LINES:
            for line in sacrifices(self.game, drawn, 2):
                moves.append(Move(line, drawn | 1 << line, 0, True))
        return Node(moves)

    def choose(self, only: set[int] | None = None, fallback: int | None = None) -> int:
        """The root's best line by a tree search of the safe phase until the deadline
        (UCT: each move is tried by its upper confidence bound, the replies too, so a line
        whose random continuations mostly win but which one reply refutes loses its rank);
        the most tried move wins. ``only``, if given, restricts the root's lines. If not one
        playout fits: ``fallback``, else the first move."""
        root_drawn = self.state.drawn
        root = self.node(root_drawn)
        if only is not None:
            kept = [move for move in root.moves if move.line in only]
            if kept:
                root = Node(kept)
            else:
                # Lines of a proof that the tree does not consider.
                return min(only) if fallback is None else fallback
        if not root.moves:
            raise ValueError("no move to choose")
        # Keyed by the lines drawn alone: the same lines reached with the boxes shared out
        # otherwise share a node (a game apart in principle; keying by the boxes too made
        # more nodes and, measured on 6x6 under load, lost games: see bench/RESULTS.md).
        tree: dict[int, Node] = {root_drawn: root}
        w = self.w
        while time.perf_counter() < self.deadline:
            drawn, root_to_move, gained = root_drawn, True, 0
            path: list[tuple[Node, int, bool]] = []
            while True:
                node = tree.get(drawn)
                if node is None:
                    if len(tree) < MAX_NODES:
                        tree[drawn] = self.node(drawn)
                    break
                if not node.moves:
                    break
                index = node.select()
                path.append((node, index, root_to_move))
                move = node.moves[index]
                drawn = move.after
                gained += w * move.gain if root_to_move else -w * move.gain
                if move.passes:
                    root_to_move = not root_to_move
            if not self.misere and capture_lines(self.cell_masks, self.full & ~drawn):
                # A leaf with boxes offered: the side to move takes them (the tree tries
                # declining once the leaf is expanded). In misère they are left: the
                # playout's safe lines decline them, and the proof at its end values them.
                drawn, taken = self._take_all(drawn)
                gained += w * taken if root_to_move else -w * taken
            reward = self.reward(self.playout(drawn, root_to_move, gained))
            for node, index, mover_is_root in path:
                node.visits[index] += 1
                node.totals[index] += reward if mover_is_root else 1.0 - reward
                node.n += 1
        if not root.n:
            return root.moves[0].line if fallback is None else fallback
        best = max(range(len(root.moves)), key=lambda i: (root.visits[i], root.totals[i]))
        return root.moves[best].line


@dataclass(frozen=True, slots=True)
class Move:
    """A move of the tree: its line, the position after it (boxes offered by the move, or
    taken by it, already taken), the boxes the mover gains (negative: given away), and
    whether the turn passes to the other side."""

    line: int
    after: int
    gain: int
    passes: bool


@dataclass(slots=True)
class Node:
    """A position of the safe phase in the tree of :meth:`MiddleGame.choose`: its moves
    and, per move, the visits and the rewards for the side to move here."""

    moves: list[Move]
    visits: list[int] = field(default_factory=list)
    totals: list[float] = field(default_factory=list)
    n: int = 0

    def __post_init__(self) -> None:
        self.visits = [0] * len(self.moves)
        self.totals = [0.0] * len(self.moves)

    def select(self) -> int:
        """The move to try: an untried one, else the one of highest upper bound."""
        visits = self.visits
        for index, count in enumerate(visits):
            if not count:
                return index
        scale = EXPLORATION * math.sqrt(math.log(self.n))
        best, chosen = -1.0, 0
        totals = self.totals
        for index, count in enumerate(visits):
            bound = totals[index] / count + scale / math.sqrt(count)
            if bound > best:
                best, chosen = bound, index
        return chosen


def double_deals(game: DotsAndBoxes, drawn: int, offered: int) -> list[int]:
    """The double-dealing lines: for a capture into a cell with two free lines, that cell's
    other line, which hands both cells over with one line and keeps the initiative."""
    free = ((1 << len(game.board.lines)) - 1) & ~drawn
    found: set[int] = set()
    for line in range(offered.bit_length()):
        if not offered >> line & 1:
            continue
        for _, mask in game._line_cells[line]:
            left = free & mask
            if left.bit_count() == 2:
                found.add((left & ~(1 << line)).bit_length() - 1)
    return sorted(line for line in found if not offered >> line & 1)


def greedy_loss(game: DotsAndBoxes, drawn: int, seeds: list[int] | None = None) -> int:
    """How many cells the opponent can take in a row after ``drawn`` by always capturing.

    The cells taken do not depend on the order of the captures (a cell one line short of
    complete stays so until that line is drawn), so a work list of such cells finds them
    all, each looked at only when a neighbour's line was drawn: milliseconds on the
    largest boards, where a scan of every free line per capture took a tenth of a second.
    ``seeds``, when given, holds every cell that may be one line short at ``drawn`` (see
    :func:`greedy_losses`), which spares the scan of every cell.
    """
    cell_masks = game._cell_masks
    line_cells = game._line_cells
    if seeds is None:
        waiting = [c for c, mask in enumerate(cell_masks) if (mask & ~drawn).bit_count() == 1]
    else:
        waiting = list(seeds)
    taken = 0
    while waiting:
        rest = cell_masks[waiting.pop()] & ~drawn
        if not rest or rest & (rest - 1):
            continue  # taken meanwhile (or, for a starting cell, never one line short)
        drawn |= rest
        for bit, mask in line_cells[rest.bit_length() - 1]:
            left = mask & ~drawn
            if not left:
                taken += 1
            elif not left & (left - 1):
                waiting.append(bit.bit_length() - 1)
    return taken


def greedy_losses(game: DotsAndBoxes, drawn: int, lines: list[int]) -> dict[int, int]:
    """:func:`greedy_loss` after each of ``lines`` drawn at ``drawn``. A line changes only
    its own cells, so the cells one line short after it are among those that were before
    and its own: one scan of the board for all the lines, where a scan each took most of
    the easy bot's time on 12x12 (126 lines x 144 cells, 4 ms in the server's loop when
    it plays the quick move)."""
    short = [c for c, mask in enumerate(game._cell_masks) if (mask & ~drawn).bit_count() == 1]
    line_cells = game._line_cells
    return {
        line: greedy_loss(
            game,
            drawn | 1 << line,
            short + [bit.bit_length() - 1 for bit, _ in line_cells[line]],
        )
        for line in lines
    }


def sacrifices(game: DotsAndBoxes, drawn: int, most: int) -> list[int]:
    """The lines that give away at least one box and at most ``most`` (as the opponent
    takes them greedily)."""
    full = (1 << len(game.board.lines)) - 1
    free = full & ~drawn
    safe = safe_lines(game._cell_masks, free)
    unsafe = [line for line in range(free.bit_length()) if (free & ~safe) >> line & 1]
    return [line for line, loss in greedy_losses(game, drawn, unsafe).items() if 1 <= loss <= most]


__all__ = [
    "SACRIFICE_SAFE_LINES",
    "MiddleGame",
    "SolverTimeout",
    "capture_lines",
    "greedy_loss",
    "greedy_losses",
    "sacrifices",
    "safe_lines",
]
