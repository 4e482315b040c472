"""An exact Dots and Boxes solver: alpha-beta negamax on the bit mask of drawn lines.

What is searched
----------------
The future of a Dots and Boxes position depends only on which lines are drawn: the cells
already claimed never change hands, and the side to move is whoever must draw next. So the
solver's *value* of a position is the net number of cells the side to move still gets from
here on under perfect play (cells it will claim minus cells the opponent will claim), and the
transposition table is keyed on the drawn lines alone: positions reached by different move
orders, or with the same lines but a different score, share one entry.

Misère
------
In misère the side with fewer cells wins, so each side wants to *minimise* its own net cells.
The value reported is still "net cells for the side to move" (``v``), now under optimal
misère play: ``v(s) = min over moves of (k + v(s') if the move claims k cells, else -v(s'))``.
Internally the search maximises ``u = w * v`` with a cell weight ``w`` of +1 (normal) or -1
(misère): then ``u(s) = max(w * k + u(s'), -u(s'))`` in both cases, one negamax serves both
scorings, and the reported value is ``w * u``. Minimising the net count is the same as
maximising the winning margin, so the sign of ``v`` decides who wins.

Speed-ups, each one sound (tests and ``bench/verify_solver.py`` check them against the plain
search on random positions):

- **Safe capture** (normal scoring only): if a cell can be completed by a line whose other
  cell (if any) does not have exactly two free lines, taking it is optimal (Berlekamp; Barker
  and Korf 2012), so it is the only move searched. Such captures are played in a loop inside
  the node, with no branching and no table entry.
- **Chain capture** (normal scoring only): a completable cell at the end of a chain of at least
  three cells (the cells beyond it have exactly two free lines, and the chain ends at the
  border or at a cell with three or more free lines) can be taken at once: both classic
  continuations, "take all" and "all but two, then double-deal", start by taking it.
  Neither reduction holds in misère, where taking a cell can be the losing move.
- **Chains and loops** (both scorings): a position where no open cell has three free lines
  is a set of paths and cycles of cells; it is not searched but valued exactly by the
  abstract game of :mod:`playtable.ai.strings` on the multiset of its components.
- **Dead components** (misère): a line that takes a whole component (a lone cell, or two
  cells sharing their last line) is never better than playing on, since whoever draws the
  last line elsewhere ends up with those cells whatever happens in between. Such lines are
  searched only when nothing else is left, and the table key counts those cells instead of
  naming their lines (positions that differ only there have the same value).
- **Symmetry**: the table key is the least image of the drawn mask under the board's
  symmetries that map the pre-drawn lines onto themselves (up to 8 on a square, 6 on a
  triangle, 12 on a hexagon).
- **Move ordering**: the table's best move, then captures, then lines that give nothing away,
  then sacrifices (in misère: captures, sacrifices, then safe lines, as measured); within
  each group, lines nearest the centre first. Lines are relabelled
  internally so that bit order *is* centre-out order, which makes the ordering free.
- **Bounds**: the table holds a lower and an upper bound per position, so null-window
  re-searches (for the list of best moves) reuse everything.
- **The search in C** (``playtable/ai/_dotscore.c``, built by every install that has a C
  compiler): every exact search (no horizon) runs there, the same negamax with the same
  reductions, key and move order, on 64-bit masks with a fixed table of two-entry buckets
  (32 MB, huge pages), about 40 times the nodes per second of pure Python. A board of more
  than 64 lines is projected onto its free lines once at most 64 are free. It leaves out the
  chains-and-loops shortcut (exact either way) and uses a symmetry only when the searched
  position's image is within two lines of it (else the symmetry cannot pay). In normal
  scoring it adds two cutoffs, exact either way: the *loony bound* (a cell offered at the end
  of a chain whose next cell's other line claims nothing is worth at least 0 to the side to
  move: taking both and moving on, or declining them, gives 2 + x or -2 - x for the same
  position; Berlekamp's loony theorem, as Barker and Korf use it) and the *enhanced
  transposition cutoff* (the positions after the safe lines and after each lone cell is
  taken are probed in the table before any move is searched), and prunes two dominated
  sacrifices (a half-hearted handout of a chain of two cells, never better than its middle
  line; the second line of a lone cell, the same move as the first). ``table_bits`` sizes
  its table (2 ** 28 entries, 4 GiB, solves 3x5 from the empty board in about 4 CPU minutes
  and 4x4 in under 6; see ``bench/solver.py --empty``). Without the
  extension, or with ``native=False``, everything runs in Python, the reference the tests
  compare it with.
- **Iterative deepening** under a time budget: searches limited to ``d`` choice moves
  (forced captures do not count), leaves at the horizon scored heuristically; each pass fills
  the table's best moves for the next, and a pass whose tree never reached the horizon is
  exact and ends the solve. :class:`SolverTimeout` is raised when the budget runs out.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from playtable.ai import strings
from playtable.ai.strings import SolverTimeout as SolverTimeout  # re-exported: the public name
from playtable.games.dots.game import DotsAndBoxes, DotsState
from playtable.games.dots.geometry import Board

try:  # the C search (playtable/ai/_dotscore.c), built by setup.py
    from playtable.ai._dotscore import Core
except ImportError:  # pragma: no cover - no C compiler where the package was installed
    Core = None  # type: ignore[assignment,misc]

NATIVE = Core is not None

_EXACT = 1 << 30  # table depth of an entry whose subtree never reached a horizon
_CHECK_EVERY = 0x7F  # nodes between two looks at the clock
_CHUNK = 12  # bits per lookup table when permuting a mask by a symmetry
_LOW = (1 << _CHUNK) - 1


@dataclass(frozen=True, slots=True)
class Solution:
    """What the solver proved about one position.

    ``value`` is the net number of cells the side to move gets from here on under perfect
    play (see the module docstring for misère); ``best_moves`` lists every line (board index)
    that achieves it, in board order; ``nodes`` counts searched positions.
    """

    value: int
    best_moves: tuple[int, ...]
    nodes: int
    seconds: float


@dataclass(slots=True)
class _Stats:
    nodes: int = 0
    horizon: int = 0
    deadline: float = math.inf
    extra: dict[str, int] = field(default_factory=dict)


def board_symmetries(board: Board) -> list[tuple[int, ...]]:
    """Every isometry of the board's drawing as a permutation of its lines (identity first).

    Found generically: each rotation by a multiple of 30 degrees about the centre of the dots,
    with and without a mirror, is kept when it maps the set of dots onto itself. That covers
    the square (90 degrees), triangle and hexagon (60 degrees) grids alike.
    """
    xs = [d.x for d in board.dots]
    ys = [d.y for d in board.dots]
    cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
    where = {
        (round(d.x - cx, 4) + 0.0, round(d.y - cy, 4) + 0.0): i for i, d in enumerate(board.dots)
    }
    line_of = {(line.a, line.b): line.index for line in board.lines}
    found: list[tuple[int, ...]] = []
    for mirror in (False, True):
        for step in range(12):
            angle = step * math.pi / 6
            cos, sin = math.cos(angle), math.sin(angle)
            dot_map: list[int] = []
            for d in board.dots:
                x, y = d.x - cx, d.y - cy
                if mirror:
                    x = -x
                key = (round(x * cos - y * sin, 4) + 0.0, round(x * sin + y * cos, 4) + 0.0)
                image = where.get(key)
                if image is None:
                    break
                dot_map.append(image)
            else:
                perm = []
                for line in board.lines:
                    a, b = dot_map[line.a], dot_map[line.b]
                    perm.append(line_of[(min(a, b), max(a, b))])
                found.append(tuple(perm))
    unique = list(dict.fromkeys(found))
    identity = tuple(range(len(board.lines)))
    unique.sort(key=lambda p: p != identity)
    return unique


def permute_mask(mask: int, perm: Sequence[int]) -> int:
    """The image of a set of lines under a permutation of the lines (slow; for tests)."""
    image = 0
    for i, j in enumerate(perm):
        if mask >> i & 1:
            image |= 1 << j
    return image


class DotsSolver:
    """An exact solver for one Dots and Boxes game (grid, size, start and scoring fixed).

    The transposition table persists between calls, so solving the positions of one game in
    turn gets cheaper as it goes. ``reductions`` and ``symmetry`` exist to measure and verify
    the speed-ups; the defaults are the fast, sound choice (reductions are never used in
    misère unless forced with ``reductions=True``).

    >>> game = DotsAndBoxes.from_options({"rows": 2, "cols": 2})
    >>> DotsSolver(game).solve(game.initial()).value
    2
    """

    def __init__(
        self,
        game: DotsAndBoxes,
        *,
        reductions: bool | None = None,
        symmetry: bool = True,
        chain_rule: bool = True,
        endgame: bool = True,
        native: bool | None = None,
        table_bits: int | None = None,
    ) -> None:
        self.game = game
        if table_bits is not None:
            self.table_bits = table_bits  # the C search's table: 2 ** table_bits entries
        board = game.board
        self.weight = -1 if game.settings.misere else 1
        # None: the sound choice, reductions in normal scoring only. True in misère exists
        # only so that the verification script can show they are wrong there.
        self.reductions = not game.settings.misere if reductions is None else reductions
        self.chain_rule = chain_rule and self.reductions
        self.endgame = endgame  # exact in both scorings
        # The C search serves the exact searches (the same search, with the sound choice of
        # reductions); ``native=False`` keeps everything in Python, the reference the tests
        # compare it with.
        if game.settings.misere:
            usable = not self.reductions
        else:
            usable = self.reductions and self.chain_rule
        if native and (Core is None or not usable):
            raise ValueError(
                "the C search needs playtable.ai._dotscore built (a C compiler) and the "
                "default reductions (none in misère, all in normal scoring)"
            )
        self.native = usable and Core is not None if native is None else native
        self._core: Core | None = None
        self._core_lines: tuple[int, ...] | None = None  # internal bit of each core line
        self._core_base = 0
        n = len(board.lines)
        self.n_lines = n
        # Relabel the lines centre-out: internal bit i is board line order[i].
        xs = [d.x for d in board.dots]
        ys = [d.y for d in board.dots]
        cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)

        def distance(index: int) -> tuple[float, int]:
            line = board.lines[index]
            a, b = board.dots[line.a], board.dots[line.b]
            return (round(math.hypot((a.x + b.x) / 2 - cx, (a.y + b.y) / 2 - cy), 6), index)

        self.order: tuple[int, ...] = tuple(sorted(range(n), key=distance))
        self.internal: tuple[int, ...] = tuple(
            i for i, _ in sorted(enumerate(self.order), key=lambda pair: pair[1])
        )  # board line -> internal bit
        self.full = (1 << n) - 1
        self.cell_masks: tuple[int, ...] = tuple(
            sum(1 << self.internal[i] for i in cell.lines) for cell in board.cells
        )
        line_cells: list[list[int]] = [[] for _ in range(n)]
        for mask in self.cell_masks:
            for bit in range(n):
                if mask >> bit & 1:
                    line_cells[bit].append(mask)
        self.line_cells: tuple[tuple[int, ...], ...] = tuple(tuple(c) for c in line_cells)
        self.line_cell_ids: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.cell_masks.index(m) for m in cells) for cells in line_cells
        )
        self.predrawn = self.to_internal(game.predrawn)
        # Lines with a cell on one side only are "strings to the ground": two of them on the
        # same cell are interchangeable (swapping them is an automorphism of the position),
        # so only one is searched and the key records how many are drawn, not which.
        self.ground_groups: tuple[tuple[int, tuple[int, ...]], ...] = ()
        if reductions is not False:
            groups = []
            for cell in board.cells:
                outline = [self.internal[i] for i in cell.lines if board.lines[i].is_outline]
                if len(outline) >= 2:
                    outline.sort()
                    prefixes = tuple(
                        sum(1 << b for b in outline[:k]) for k in range(len(outline) + 1)
                    )
                    groups.append((sum(1 << b for b in outline), prefixes))
            self.ground_groups = tuple(groups)

        # Symmetries that keep the pre-drawn lines, as permutations of internal bits.
        perms: list[tuple[int, ...]] = []
        # On big boards symmetric positions are rare after the first moves, and the lookup
        # tables would cost more to build than they save.
        if symmetry and n <= self.max_symmetric_lines:
            for perm in board_symmetries(board):
                internal_perm = [0] * n
                for i, j in enumerate(perm):
                    internal_perm[self.internal[i]] = self.internal[j]
                if permute_mask(self.predrawn, internal_perm) == self.predrawn:
                    perms.append(tuple(internal_perm))
        else:
            perms.append(tuple(range(n)))
        self.perms = perms
        self.inverse = [tuple(sorted(range(n), key=p.__getitem__)) for p in perms]
        self.chunks = (n + _CHUNK - 1) // _CHUNK
        self._tables = [self._lookup_tables(p) for p in perms[1:]]

        self.tt: dict[int, tuple[int, int, int, int]] = {}
        # Values of chains-and-loops positions met so far, by free lines.
        self._endgames: dict[int, int] = {}
        self.stats = _Stats()

    # -- labels -------------------------------------------------------------------------------
    def to_internal(self, mask: int) -> int:
        return permute_mask(mask, self.internal)

    def to_board(self, mask: int) -> int:
        return permute_mask(mask, self.order)

    def _lookup_tables(self, perm: Sequence[int]) -> list[list[int]]:
        """Per chunk of 12 bits, the image of every value: permuting a mask is a few lookups."""
        tables = []
        for chunk in range(self.chunks):
            base = chunk * _CHUNK
            width = min(_CHUNK, self.n_lines - base)
            table = [0] * (1 << width)
            for value in range(1, 1 << width):
                low = value & -value
                table[value] = table[value ^ low] | 1 << perm[base + low.bit_length() - 1]
            tables.append(table)
        return tables

    def canonical(self, drawn: int) -> tuple[int, int]:
        """The least image of ``drawn`` under the symmetries, and which symmetry gave it."""
        best, which = drawn, 0
        if len(self._tables) == 0:
            return best, which
        mask = (1 << _CHUNK) - 1
        for s, tables in enumerate(self._tables, 1):
            image = 0
            shift = 0
            for table in tables:
                image |= table[drawn >> shift & mask]
                shift += _CHUNK
            if image < best:
                best, which = image, s
        return best, which

    # -- the search -----------------------------------------------------------------------------
    def _search(self, drawn: int, alpha: int, beta: int, depth: int) -> int:
        """Negamax value ``u`` (see the module docstring) of the side to move at ``drawn``.

        Fail-soft: a result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound.
        """
        stats = self.stats
        stats.nodes += 1
        if not stats.nodes & _CHECK_EVERY and time.perf_counter() > stats.deadline:
            raise SolverTimeout
        full = self.full
        w = self.weight
        cell_masks = self.cell_masks
        gained = 0  # u-value of the forced captures made at this node
        while True:
            free = full & ~drawn
            if not free:
                return gained
            capture_lines = 0
            chain_lines = 0
            high_lines = 0  # free lines of cells with three or more
            open_cells = 0
            for m in cell_masks:
                fm = free & m
                if fm:
                    open_cells += 1
                    k = fm.bit_count()
                    if k == 1:
                        capture_lines |= fm
                    elif k == 2:
                        chain_lines |= fm
                    else:
                        high_lines |= fm
            if not (capture_lines and self.reductions):
                break
            forced = capture_lines & ~chain_lines
            if not forced and self.chain_rule:
                forced = self._long_chain_capture(free, capture_lines & chain_lines)
            if not forced:
                break
            bit = forced & -forced
            drawn |= bit
            for m in self.line_cells[bit.bit_length() - 1]:
                if drawn & m == m:
                    gained += w
        if not high_lines and self.endgame:
            # Only chains and loops are left: their abstract game decides (exact in both
            # scorings, see playtable.ai.strings), no search of the board needed.
            simple = self._endgames.get(free)
            if simple is None:
                simple = strings.value(self._components(free), w, stats.deadline)
                self._endgames[free] = simple
            return gained + simple
        # |u| can never exceed the cells still open.
        if open_cells <= alpha - gained:
            return gained + open_cells
        if -open_cells >= beta - gained:
            return gained - open_cells
        alpha -= gained
        beta -= gained

        # The table key (inlined ``_key``: this is the hottest line of the solver).
        key = drawn
        dead = 0
        if w < 0:
            # Misère: lines that take a whole component (a lone cell, or two cells sharing
            # their last line). Taking one is never better than playing on and leaving it
            # to whoever draws the last line elsewhere, so they are not searched (while
            # anything else is left), and the value depends only on how many cells they
            # hold, not where: the key counts them instead of naming their lines.
            dead = capture_lines & ~chain_lines & ~high_lines
            if dead:
                key |= dead
        for group, prefixes in self.ground_groups:
            part = key & group
            if part and part != group:
                key = key & ~group | prefixes[part.bit_count()]
        sym = 0
        if self._tables and free.bit_count() >= self.sym_min_free:
            low = key & _LOW
            high = key >> _CHUNK
            best_key = key
            if self.chunks == 2:
                for s, (t0, t1) in enumerate(self._tables, 1):
                    image = t0[low] | t1[high]
                    if image < best_key:
                        best_key, sym = image, s
            else:
                for s, tables in enumerate(self._tables, 1):
                    image = 0
                    shift = 0
                    for table in tables:
                        image |= table[key >> shift & _LOW]
                        shift += _CHUNK
                    if image < best_key:
                        best_key, sym = image, s
            key = best_key
        if dead:
            coins = 0
            for m in cell_masks:
                if free & m & dead:
                    coins += 1
            key |= coins << self.n_lines
        entry = self.tt.get(key)
        first = 0
        if entry is not None:
            lower, upper, move, entry_depth = entry
            if entry_depth == _EXACT:
                if lower >= beta:
                    return gained + lower
                if upper <= alpha:
                    return gained + upper
                if lower == upper:
                    return gained + lower
                alpha = max(alpha, lower)
                beta = min(beta, upper)
            elif entry_depth >= depth and (lower >= beta or upper <= alpha or lower == upper):
                # A horizon-limited result: usable in this pass, but it taints exactness.
                stats.horizon += 1
                return gained + (lower if lower >= beta or lower == upper else upper)
            if move >= 0:
                first = 1 << (self.inverse[sym][move] if sym else move)
        if depth <= 0:
            stats.horizon += 1
            return gained + self._estimate(free, capture_lines, chain_lines)

        horizon_before = stats.horizon
        best = -(1 << 20)
        best_bit = 0
        a = alpha
        if capture_lines and self.reductions:
            # Offered cells that no reduction takes: take one, or decline with the
            # double-dealing line; drawing elsewhere first is never better than taking.
            allowed = capture_lines | self._declines(free, capture_lines & chain_lines)
            first &= allowed & free
            groups: tuple[int, ...] = (
                first,
                capture_lines & ~first,
                allowed & ~capture_lines & ~first,
            )
        else:
            moves = free & ~self._redundant(free)
            if moves & ~dead:
                moves &= ~dead  # see the key
            first &= moves
            capture_lines &= moves
            chain_lines &= moves
            safe = moves & ~capture_lines & ~chain_lines
            if w > 0:
                groups = (
                    first,
                    capture_lines & ~first,
                    safe & ~first,
                    chain_lines & ~capture_lines & ~first,
                )
            else:
                # Misère: taking first still orders best (measured), but sacrifices before
                # safe lines.
                groups = (
                    first,
                    capture_lines & ~first,
                    chain_lines & ~capture_lines & ~first,
                    safe & ~first,
                )
        line_cells = self.line_cells
        search = self._search
        for group in groups:
            while group:
                bit = group & -group
                group ^= bit
                after = drawn | bit
                claimed = 0
                if bit & capture_lines:
                    for m in line_cells[bit.bit_length() - 1]:
                        if after & m == m:
                            claimed += w
                if best_bit and beta - a > 1:
                    # Principal variation search: prove the move is no better first.
                    if claimed:
                        value = claimed + search(after, a - claimed, a + 1 - claimed, depth)
                        if a < value < beta:
                            value = claimed + search(after, value - claimed, beta - claimed, depth)
                    else:
                        value = -search(after, -a - 1, -a, depth - 1)
                        if a < value < beta:
                            value = -search(after, -beta, -value, depth - 1)
                elif claimed:
                    value = claimed + search(after, a - claimed, beta - claimed, depth)
                else:
                    value = -search(after, -beta, -a, depth - 1)
                if value > best:
                    best = value
                    best_bit = bit
                    if value > a:
                        a = value
                        if a >= beta:
                            break
            else:
                continue
            break

        entry_depth = depth if stats.horizon != horizon_before else _EXACT
        move = best_bit.bit_length() - 1
        if sym:
            move = self.perms[sym][move]
        if entry is not None and entry[3] == _EXACT and entry_depth != _EXACT:
            # A proof outranks a horizon-limited result: keep its bounds, take the new move.
            self.tt[key] = (entry[0], entry[1], move, _EXACT)
            return gained + best
        if entry is not None and entry[3] == entry_depth:
            lower, upper = entry[0], entry[1]
        else:
            lower, upper = -(1 << 20), 1 << 20
        if best <= alpha:
            upper = min(upper, best)
        elif best >= beta:
            lower = max(lower, best)
        else:
            lower = upper = best
        self.tt[key] = (lower, upper, move, entry_depth)
        return gained + best

    max_symmetric_lines = 84
    # The table is emptied before a solve when it holds more: about 160 bytes an entry, so
    # some 160 MB per process at most, and emptying it takes about 0.1 s of a move's budget.
    max_entries = 1_000_000
    sym_min_free = 10  # canonicalise the key only when at least this many lines are free

    def _key(self, drawn: int, free: int) -> tuple[int, int]:
        """The table key of ``drawn`` and the symmetry used; see ``ground_groups``."""
        for group, prefixes in self.ground_groups:
            part = drawn & group
            if part and part != group:
                drawn = drawn & ~group | prefixes[part.bit_count()]
        if free.bit_count() >= self.sym_min_free:
            return self.canonical(drawn)
        return drawn, 0

    def _redundant(self, free: int) -> int:
        """Free ground lines that duplicate another free ground line of the same cell."""
        extra = 0
        for group, _ in self.ground_groups:
            part = free & group
            if part & (part - 1):
                extra |= part & (part - 1)  # all but the lowest
        return extra

    def _long_chain_capture(self, free: int, candidates: int) -> int:
        """A capture line (among ``candidates``) at the end of a chain of three or more cells.

        ``candidates`` are lines completing a cell whose other cell has two free lines. Walk
        from that cell along the free lines while the cells have exactly two free lines; the
        chain must end at the border or at a cell with three or more free lines (never at a
        completable cell: that is a chain open at both ends, or a loop, where the double-deal
        differs).
        """
        line_cells = self.line_cells
        while candidates:
            bit = candidates & -candidates
            candidates ^= bit
            line = bit.bit_length() - 1
            # The cell beyond the capture: the one with two free lines.
            cell = 0
            for m in line_cells[line]:
                if (free & m).bit_count() == 2:
                    cell = m
            length = 1  # cells ahead of the completable one
            came = bit
            ok = False
            while True:
                out = free & cell & ~came
                out_line = out.bit_length() - 1
                nxt = 0
                for m in line_cells[out_line]:
                    if m != cell:
                        nxt = m
                if not nxt:
                    ok = True
                    break
                k = (free & nxt).bit_count()
                if k == 2:
                    length += 1
                    cell, came = nxt, out
                    if length > 64:
                        break
                    continue
                ok = k >= 3
                break
            if ok and length >= 2:
                return bit
        return 0

    def _components(self, free: int) -> strings.State:
        """The chains and loops of a position where no open cell has three free lines, as
        the sorted components of :mod:`playtable.ai.strings`."""
        cell_masks = self.cell_masks
        line_ids = self.line_cell_ids
        seen = 0
        parts: list[strings.Component] = []
        for index, mask in enumerate(cell_masks):
            if seen >> index & 1 or not free & mask:
                continue
            seen |= 1 << index
            stack = [index]
            cells = ground = links = 0
            while stack:
                cell = stack.pop()
                cells += 1
                lines = free & cell_masks[cell]
                while lines:
                    bit = lines & -lines
                    lines ^= bit
                    ids = line_ids[bit.bit_length() - 1]
                    if len(ids) == 1:
                        ground += 1
                        continue
                    links += 1
                    other = ids[1] if ids[0] == cell else ids[0]
                    if not seen >> other & 1:
                        seen |= 1 << other
                        stack.append(other)
            if not ground and links // 2 == cells:
                parts.append((cells, strings.LOOP))
            else:
                parts.append((cells, ground))  # BB, GB or GG: the ground strings it has
        parts.sort()
        return tuple(parts)

    def _declines(self, free: int, chain_captures: int) -> int:
        """The double-dealing lines: for each capture into a cell with two free lines, that
        cell's other free line (drawing it hands over both cells and keeps the initiative)."""
        lines = 0
        line_cells = self.line_cells
        while chain_captures:
            bit = chain_captures & -chain_captures
            chain_captures ^= bit
            for m in line_cells[bit.bit_length() - 1]:
                fm = free & m
                if fm.bit_count() == 2:
                    lines |= fm & ~bit
        return lines

    def _estimate(self, free: int, capture_lines: int, chain_lines: int) -> int:
        """A horizon score in ``u`` units, from the long-chain rule.

        Every move ends a turn except those that complete cells, and a move completes one
        cell or, in a double-cross, two. So the turns left are ``F - C + D`` (free lines,
        open cells, double-crosses to come), and the side to move makes the last turn, the
        one that takes the last chain, when that number is even. Each long chain but the
        last should cost its controller one double-cross, so ``D`` is estimated as the long
        chains (three cells or more) already formed, less one. Control is scored as a
        quarter of the open cells; the cells offered right now are added. Only a guide for
        horizon nodes: proved values never depend on it.
        """
        if not self.reductions:
            return 0
        open_cells, long_chains = self._census(free)
        turns = free.bit_count() - open_cells + max(long_chains - 1, 0)
        control = max(1, open_cells // 4)
        offered = capture_lines.bit_count()
        return offered + (control if turns % 2 == 0 else -control)

    def _census(self, free: int) -> tuple[int, int]:
        """(open cells, chains and loops of three cells or more with two free lines each)."""
        cell_masks = self.cell_masks
        line_ids = self.line_cell_ids
        seen = 0
        open_cells = 0
        long_chains = 0
        for index, mask in enumerate(cell_masks):
            fm = free & mask
            if not fm:
                continue
            open_cells += 1
            if seen >> index & 1 or fm.bit_count() != 2:
                continue
            seen |= 1 << index
            length = 1
            for start in (fm & -fm, fm & (fm - 1)):
                cell, line = index, start
                while True:
                    ids = line_ids[line.bit_length() - 1]
                    nxt = ids[0] if ids[0] != cell else (ids[1] if len(ids) > 1 else -1)
                    if nxt < 0 or seen >> nxt & 1:
                        break
                    nfm = free & cell_masks[nxt]
                    if nfm.bit_count() != 2:
                        break
                    seen |= 1 << nxt
                    length += 1
                    line = nfm & ~line
                    cell = nxt
            if length >= 3:
                long_chains += 1
        return open_cells, long_chains

    # -- the C search -------------------------------------------------------------------------
    # The C search's table: 2 ** 21 entries of 16 bytes (32 MB; a worker keeps up to four
    # solvers). 2 ** 20 and 2 ** 22 took the same time on the 4x4 misère endgames. Whole-board
    # proofs (bench/solver.py, the atlas) pass a bigger ``table_bits``: 2 ** 28 entries is 4 GiB.
    table_bits = 21

    def _native(self, drawn: int) -> tuple[Core, int] | None:
        """The C search for the positions that follow ``drawn``, and ``drawn`` in its labels.

        A board of at most 64 lines is searched whole, with its symmetries. A bigger board is
        projected onto the lines free at ``drawn`` once at most 64 are (the drawn lines and
        the finished cells play no part in what follows); that core serves every later
        position of the game, and a position outside it (after a take-back) gets a new one.
        """
        if not self.native:
            return None
        core = self._core
        if core is not None and (
            self._core_lines is None or drawn & self._core_base == self._core_base
        ):
            return core, self._project(drawn)
        free = self.full & ~drawn
        if self.n_lines <= 64:
            core = Core(
                self.cell_masks,
                self.n_lines,
                self.perms[1:],
                self.sym_min_free,
                self.table_bits,
                misere=self.weight < 0,
            )
            self._core_lines = None
        elif free.bit_count() <= 64:
            self._core_lines = lines = tuple(b for b in range(self.n_lines) if free >> b & 1)
            self._core_base = drawn
            cells = [self._project(m) for m in self.cell_masks if m & free]
            core = Core(cells, len(lines), (), 0, self.table_bits, misere=self.weight < 0)
        else:
            return None
        self._core = core
        return core, self._project(drawn)

    def _project(self, mask: int) -> int:
        """``mask`` (internal labels) in the labels of the C search."""
        lines = self._core_lines
        if lines is None:
            return mask
        image = 0
        for j, bit in enumerate(lines):
            if mask >> bit & 1:
                image |= 1 << j
        return image

    def _exact(self, drawn: int, alpha: int, beta: int) -> int:
        """The exact fail-soft ``u`` at ``drawn`` within (alpha, beta): the C search where it
        serves (see ``native``), else :meth:`_search` with no horizon."""
        found = self._native(drawn)
        if found is None:
            return self._search(drawn, alpha, beta, _EXACT)
        core, mask = found
        seconds = self.stats.deadline - time.perf_counter()
        if seconds <= 0:
            raise SolverTimeout
        before = core.nodes
        # |u| never exceeds the cells, so a wider window means the same; an empty window
        # (a caller's cutoff test) becomes the null window at alpha.
        limit = len(self.cell_masks) + 1
        alpha, beta = min(max(alpha, -limit), limit), max(min(beta, limit), -limit)
        if alpha >= beta:
            beta = alpha + 1
        result = core.search(mask, alpha, beta, min(seconds, 1e9))
        self.stats.nodes += core.nodes - before
        if result is None:
            raise SolverTimeout
        return result

    # -- the interface --------------------------------------------------------------------------
    def value(self, drawn: int, *, deadline: float = math.inf, depth: int = _EXACT) -> int:
        """The exact value ``v`` of the side to move at board mask ``drawn``."""
        self.stats.deadline = deadline
        bound = len(self.cell_masks)
        if depth >= _EXACT:
            return self.weight * self._exact(self.to_internal(drawn), -bound, bound)
        return self.weight * self._search(self.to_internal(drawn), -bound, bound, depth)

    def solve(
        self,
        state: DotsState,
        *,
        time_limit: float = math.inf,
        all_best: bool = True,
        deepening: bool = True,
    ) -> Solution:
        """Prove the value of ``state`` and its best moves within ``time_limit`` seconds.

        With ``deepening``, passes limited to 2, 4, 6, ... choice moves run first and order
        the moves of the exact pass (not when the C search serves: it goes straight to the
        exact search, faster than any Python pass). ``all_best`` asks for every optimal move
        (one null-window search per move); otherwise ``best_moves`` holds one. Raises
        :class:`SolverTimeout`.
        """
        start = time.perf_counter()
        if len(self.tt) > self.max_entries:
            self.tt.clear()
            self._endgames.clear()
        stats = self.stats
        nodes_before = stats.nodes
        stats.deadline = start + time_limit
        drawn = self.to_internal(state.drawn)
        free = self.full & ~drawn
        if not free or state.to_move is None:
            return Solution(0, (), 0, time.perf_counter() - start)
        bound = len(self.cell_masks)
        value = 0
        depth = 2 if deepening and self._native(drawn) is None else _EXACT
        while True:
            stats.horizon = 0
            if depth >= _EXACT:
                value = self._exact(drawn, -bound, bound)
                break
            value = self._search(drawn, -bound, bound, depth)
            if stats.horizon == 0:
                break
            depth += 2
        best = self._root_moves(drawn, value, all_best)
        return Solution(
            self.weight * value,
            tuple(sorted(self.order[b] for b in best)),
            stats.nodes - nodes_before,
            time.perf_counter() - start,
        )

    def choose(
        self,
        state: DotsState,
        *,
        deadline: float,
        max_depth: int = _EXACT,
        exact_first_lines: int = 26,
    ) -> tuple[int, int, bool]:
        """A good move for a bot: proved if the clock allows, else the deepest pass's best.

        With at most ``exact_first_lines`` free lines, a full-depth search gets the first
        85% of the time (horizon passes would cost about four times as much to reach the same
        proof), 95% in misère (whose horizon passes score every leaf 0, so they say little);
        otherwise, or if that fails, passes limited to 1, 2, 3, ...
        choice moves run until one is proved, reaches ``max_depth`` or the clock stops it
        (the table keeps what the failed attempt proved, which speeds up the passes).

        Returns (board line, value ``v`` of the deepest finished pass, whether it is proved);
        a proved move is optimal. Raises :class:`SolverTimeout` only if not even the
        one-move pass finished.
        """
        if len(self.tt) > self.max_entries:
            self.tt.clear()
            self._endgames.clear()
        drawn = self.to_internal(state.drawn)
        free = (self.full & ~drawn).bit_count()
        if free <= exact_first_lines and max_depth == _EXACT:
            now = time.perf_counter()
            share = 0.85 if self.weight > 0 else 0.95
            self.stats.deadline = now + share * (deadline - now)
            try:
                value, line, _ = self._root_search(drawn, _EXACT)
                return self.order[line], self.weight * value, True
            except SolverTimeout:
                pass
        self.stats.deadline = deadline
        found: tuple[int, int, bool] | None = None
        depth = 1
        while True:
            try:
                value, line, exact = self._root_search(drawn, depth)
            except SolverTimeout:
                if found is None:
                    raise
                return found
            found = (self.order[line], self.weight * value, exact)
            if exact or depth >= max_depth:
                return found
            depth += 1

    def sure_capture(self, drawn: int) -> int | None:
        """A capture at board mask ``drawn`` that the search's reductions take without
        looking (normal scoring only; ``None`` in misère or if there is none): one whose
        line leaves no cell with one free line behind (Berlekamp's criterion), or the first
        box of a chain of three or more offered from one end. Taking it is never worse than
        any other line (the all-but-two choice comes at the chain's last two boxes), so a
        bot plays it at once: the board line."""
        if not self.chain_rule:
            return None
        free = self.full & ~self.to_internal(drawn)
        capture_lines = chain_lines = 0
        for m in self.cell_masks:
            k = (free & m).bit_count()
            if k == 1:
                capture_lines |= free & m
            elif k == 2:
                chain_lines |= free & m
        forced = capture_lines & ~chain_lines
        if not forced and capture_lines:
            forced = self._long_chain_capture(free, capture_lines & chain_lines)
        if not forced:
            return None
        return self.order[(forced & -forced).bit_length() - 1]

    def native_serves(self, drawn: int) -> bool:
        """Whether the C search can take the position at board mask ``drawn`` (built, the
        sound reductions, and a board of at most 64 lines or at most 64 free)."""
        if not self.native:
            return False
        free = (self.full & ~self.to_internal(drawn)).bit_count()
        return self.n_lines <= 64 or free <= 64

    def prove(self, state: DotsState, *, deadline: float) -> tuple[int, int]:
        """An optimal move by the exact search alone: (board line, value ``v``). The value
        first, then one null-window search per line (the table's best first) until one
        achieves it: on the endings of 6x6 a fifth to a thirtieth of the time of a
        full-window search of every line. Raises :class:`SolverTimeout` past ``deadline``
        (a :func:`time.perf_counter` time); what was proved stays in the tables."""
        left = max(deadline - time.perf_counter(), 0.0)
        solution = self.solve(state, time_limit=left, all_best=False, deepening=False)
        return solution.best_moves[0], solution.value

    def optimal_moves(self, state: DotsState, value: int, *, deadline: float) -> tuple[int, ...]:
        """Every board line that achieves the proved value ``value`` (``v``) of ``state``, by
        a null-window search per line. Raises :class:`SolverTimeout` past ``deadline``."""
        self.stats.deadline = deadline
        drawn = self.to_internal(state.drawn)
        best = self._root_moves(drawn, self.weight * value, True)
        return tuple(sorted(self.order[b] for b in best))

    def _root_search(self, drawn: int, depth: int) -> tuple[int, int, bool]:
        """Full-window search of every root move: (value ``u``, internal line, proved)."""
        stats = self.stats
        stats.horizon = 0
        free = self.full & ~drawn
        w = self.weight
        bound = len(self.cell_masks)
        key, sym = self._key(drawn, free)
        entry = self.tt.get(key)
        order = [i for i in range(self.n_lines) if free >> i & 1]
        if entry is not None and entry[2] >= 0:
            first = self.inverse[sym][entry[2]] if sym else entry[2]
            if first in order:
                order.remove(first)
                order.insert(0, first)
        best, best_line = -(1 << 20), order[0]
        for line in order:
            after = drawn | 1 << line
            claimed = sum(w for m in self.line_cells[line] if after & m == m)
            if depth >= _EXACT:
                if claimed:
                    value = claimed + self._exact(after, best - claimed, bound - claimed)
                else:
                    value = -self._exact(after, -bound, -best)
            elif claimed:
                value = claimed + self._search(after, best - claimed, bound - claimed, depth)
            else:
                value = -self._search(after, -bound, -best, depth - 1)
            if value > best:
                best, best_line = value, line
        move = self.perms[sym][best_line] if sym else best_line
        old = self.tt.get(key)
        if old is None or old[3] != _EXACT:
            self.tt[key] = (-(1 << 20), 1 << 20, move, old[3] if old else depth)
        return best, best_line, stats.horizon == 0

    def _root_moves(self, drawn: int, value: int, all_best: bool) -> list[int]:
        """Internal lines whose exact value is ``value`` (every one, or the first found)."""
        free = self.full & ~drawn
        w = self.weight
        key, sym = self._key(drawn, free)
        entry = self.tt.get(key)
        candidates = [free.bit_length() - 1]
        order = [i for i in range(self.n_lines) if free >> i & 1]
        if entry is not None and entry[2] >= 0:
            first = self.inverse[sym][entry[2]] if sym else entry[2]
            if first in order:
                order.remove(first)
                order.insert(0, first)
        candidates = order
        best: list[int] = []
        for line in candidates:
            bit = 1 << line
            after = drawn | bit
            claimed = sum(w for m in self.line_cells[line] if after & m == m)
            if claimed:
                # value >= target  <=>  child >= target - claimed
                child = self._exact(after, value - claimed - 1, value - claimed)
                achieved = claimed + child >= value
            else:
                child = self._exact(after, -value, -value + 1)
                achieved = -child >= value
            if achieved:
                best.append(line)
                if not all_best:
                    break
        return best


def plain_value(game: DotsAndBoxes, drawn: int, memo: dict[int, int] | None = None) -> int:
    """The value ``v`` by plain memoised negamax: no pruning, no reductions, no symmetry.

    The reference every speed-up is checked against, and the benchmark's baseline.
    """
    full = (1 << len(game.board.lines)) - 1
    line_cells = game._line_cells
    w = -1 if game.settings.misere else 1
    table: dict[int, int] = {} if memo is None else memo

    def u(mask: int) -> int:
        if mask == full:
            return 0
        known = table.get(mask)
        if known is not None:
            return known
        best = -(1 << 20)
        free = full & ~mask
        while free:
            bit = free & -free
            free ^= bit
            after = mask | bit
            claimed = 0
            for _, cell in line_cells[bit.bit_length() - 1]:
                if after & cell == cell:
                    claimed += w
            value = claimed + u(after) if claimed else -u(after)
            if value > best:
                best = value
        table[mask] = best
        return best

    return w * u(drawn)
