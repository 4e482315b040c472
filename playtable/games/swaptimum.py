"""Swaptimum (Mark Steere, 2023) on an N x N board: the rules of ``/work/shared/rules``.

Red owns rows 1 and N, Blue owns columns a and the last one; each tries to join its two sides
by an orthogonally connected chain. A placement that forms a *crosscut* (a 2x2 block with like
colours diagonally opposite) must be completed by a swap of two checkers that kills every crosscut
just formed and leaves none anywhere; a placement with no such swap is illegal.

The board is two bit masks, one per colour (bit ``row * N + col``, row 0 = rank 1, col 0 =
file a), so crosscut searches, "which placements form a crosscut" and connection tests are a
handful of whole-board integer operations instead of loops over squares.

>>> game = Swaptimum(SwaptimumSettings(size=3))
>>> state = game.replay(["a1", "b1", "b2"])
>>> print(game.diagram(state))
 3 . . .
 2 . R .
 1 R B .
   a b c
blue to move
>>> game.legal_move_texts(state)[:5]
['a2:a1-a2', 'a2:a1-b1', 'a2:a2-b2', 'a2:b1-b2', 'a3']
>>> print(game.diagram(game.play(state, "a2:a1-a2")))
 3 . . .
 2 R R .
 1 B B .
   a b c
red to move
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from playtable.games.base import (
    N_,
    Game,
    IllegalMove,
    NotationError,
    Outcome,
    Player,
    SettingsError,
    Termination,
    other,
    owner_of,
    shown,
)

if TYPE_CHECKING:
    import random

MIN_SIZE = 2
MAX_SIZE = 26  # one letter per column
DEFAULT_SIZE = 9
FILES = "abcdefghijklmnopqrstuvwxyz"
# Refused candidate swaps after which random_move() draws from the full list instead.
SAMPLE_TRIES = 64


# Why a move is refused: catalog messages (a page says them in its language).
GAME_OVER = N_("The game is over.")
OFF_BOARD = N_("The square %(square)s is off the board.")
OCCUPIED = N_("The square %(square)s is already occupied.")
NO_CROSSCUT = N_("A checker on %(square)s forms no crosscut, so no swap is allowed.")
CHOOSE_SWAP = N_("A checker on %(square)s forms a crosscut: choose a swap.")
RESTRICTED = N_("You cannot place a checker on %(square)s: every swap would leave a crosscut.")
SWAP_PAIR = N_("A swap is a pair of squares, not %(swap)s.")
SWAP_OFF_BOARD = N_("The swap's square %(square)s is off the board.")
SWAP_SAME = N_("A swap needs two different squares.")
SWAP_EMPTY = N_("The square %(square)s is empty: only checkers can be swapped.")
SWAP_SAME_COLOUR = N_(
    "The checkers on %(a)s and %(b)s are the same colour: swapping them changes nothing."
)
SWAP_NOT_FORMED = N_("Neither %(a)s nor %(b)s belongs to a crosscut just formed.")
SWAP_NOT_ADJACENT = N_("The squares %(a)s and %(b)s are not adjacent.")
SWAP_LEAVES_CROSSCUT = N_("The swap %(a)s-%(b)s leaves a crosscut at %(block)s.")
NOT_TEXT = N_("A move is a text, not %(text)s.")
SWAP_SYNTAX = N_("In %(text)s, the swap must be two squares joined by a hyphen, such as c3-d4.")
SWAP_TEXT_SAME = N_("In %(text)s, the swap needs two different squares.")
SWAP_ORDER = N_("In %(text)s, write the swap in board order: %(swap)s.")
NO_SQUARE = N_("In %(text)s, %(name)s is not a square of the board (a1 to %(last)s, lower case).")
MOVE_ERRORS = (
    GAME_OVER,
    OFF_BOARD,
    OCCUPIED,
    NO_CROSSCUT,
    CHOOSE_SWAP,
    RESTRICTED,
    SWAP_PAIR,
    SWAP_OFF_BOARD,
    SWAP_SAME,
    SWAP_EMPTY,
    SWAP_SAME_COLOUR,
    SWAP_NOT_FORMED,
    SWAP_NOT_ADJACENT,
    SWAP_LEAVES_CROSSCUT,
    NOT_TEXT,
    SWAP_SYNTAX,
    SWAP_TEXT_SAME,
    SWAP_ORDER,
    NO_SQUARE,
)


@dataclass(frozen=True, slots=True)
class SwaptimumSettings:
    """The only option: the side of the square board."""

    size: int = DEFAULT_SIZE


@dataclass(frozen=True, slots=True)
class SwaptimumState:
    """A position: one bit mask per colour plus whose turn it is and how the game stands.

    ``skipped`` is the player whose turn was skipped right after the last move (they had no
    legal move), so the browser can say so. ``drawn`` marks the guard ending where neither side
    can move and nobody has won.
    """

    red: int
    blue: int
    to_move: Player | None
    ply: int = 0
    winner: Player | None = None
    skipped: Player | None = None
    drawn: bool = False


class SwaptimumMove(NamedTuple):
    """A placement on ``square``, plus the swapped pair when the placement forms a crosscut.

    ``swap`` lists its two squares in board order (column first, then row), as the notation
    does; :meth:`Swaptimum.apply` accepts either order.
    """

    square: int
    swap: tuple[int, int] | None = None


class _Block(NamedTuple):
    """One 2x2 block as two masks: its two diagonals."""

    diagonal: int  # lower-left and upper-right
    antidiagonal: int  # lower-right and upper-left


class Swaptimum(Game[SwaptimumSettings, SwaptimumState, SwaptimumMove]):
    """Swaptimum with a fixed board size; every table the rules need is built once here."""

    name = "swaptimum"
    move_errors = MOVE_ERRORS

    # -- settings --------------------------------------------------------------------------
    @classmethod
    def parse_settings(cls, options: Mapping[str, Any]) -> SwaptimumSettings:
        """``{"size": N}`` with N a whole number from 2 to 26; the size defaults to 9.

        >>> Swaptimum.parse_settings({"size": 7})
        SwaptimumSettings(size=7)
        """
        unknown = sorted(str(key) for key in options if key != "size")
        if unknown:
            raise SettingsError(
                N_("unknown option %(option)s (swaptimum takes: size)"), option=repr(unknown[0])
            )
        size = options.get("size", DEFAULT_SIZE)
        _check_size(size)
        return SwaptimumSettings(size=size)

    def __init__(self, settings: SwaptimumSettings) -> None:
        _check_size(settings.size)
        self.settings = settings
        n = settings.size
        self.size = n
        self.area = n * n
        self.area_bits = (self.area - 1).bit_length()  # random bits that name any square
        self.full = (1 << self.area) - 1
        col_first = sum(1 << (row * n) for row in range(n))
        self.col_first = col_first
        self.col_last = col_first << (n - 1)
        self.row_first = (1 << n) - 1
        self.row_last = self.row_first << (n * (n - 1))
        self.not_first_col = self.full & ~self.col_first  # no wrap-round of a shift left
        self.not_last_col = self.full & ~self.col_last  # nor of a shift right
        # Lower-left corners of the 2x2 blocks: every square off the last row and column.
        self.corners = self.full & ~self.col_last & ~self.row_last
        self.names = [f"{FILES[i % n]}{i // n + 1}" for i in range(self.area)]
        self.index = {name: i for i, name in enumerate(self.names)}
        # Board order (column first, then row) as one comparable number per square.
        self.order = [(i % n) * n + i // n for i in range(self.area)]
        # The 8 squares round each square as a mask: the partners a swap may pick from.
        self.around_masks = [
            sum(1 << j for j in self._around(i, diagonal=True)) for i in range(self.area)
        ]
        self.sides = [self._around(i, diagonal=False) for i in range(self.area)]
        self.blocks = [self._blocks_of(i) for i in range(self.area)]
        self.placements = [SwaptimumMove(i) for i in range(self.area)]
        # The last _crosscut_makers answer of _has_legal_move: (red, blue, player, makers).
        self._last_makers: tuple[int, int, Player | None, int] = (-1, -1, None, 0)
        # _bits() lists the set bits of a board mask a byte at a time from these tables.
        self.bit_tables = tuple(_byte_bits(k) for k in range(-(-self.area // 8)))

    def _around(self, square: int, *, diagonal: bool) -> tuple[int, ...]:
        """The squares sharing a side (and a corner, with ``diagonal``) with ``square``."""
        n = self.size
        row, col = divmod(square, n)
        found = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr or dc) and (diagonal or not (dr and dc)):
                    r, c = row + dr, col + dc
                    if 0 <= r < n and 0 <= c < n:
                        found.append(r * n + c)
        return tuple(found)

    def _blocks_of(self, square: int) -> tuple[_Block, ...]:
        """The (up to four) 2x2 blocks that contain ``square``."""
        n = self.size
        row, col = divmod(square, n)
        found = []
        for r in (row - 1, row):
            for c in (col - 1, col):
                if 0 <= r < n - 1 and 0 <= c < n - 1:
                    a = r * n + c  # the lower-left corner
                    found.append(
                        _Block((1 << a) | (1 << (a + n + 1)), (1 << (a + 1)) | (1 << (a + n)))
                    )
        return tuple(found)

    def options(self) -> dict[str, Any]:
        return {"size": self.size}

    # -- play -------------------------------------------------------------------------------
    def initial(self) -> SwaptimumState:
        return SwaptimumState(red=0, blue=0, to_move="red")

    def to_move(self, state: SwaptimumState) -> Player | None:
        return state.to_move

    def ply(self, state: SwaptimumState) -> int:
        return state.ply

    def outcome(self, state: SwaptimumState) -> Outcome | None:
        if state.winner is not None:
            return Outcome(state.winner, Termination.CONNECTION)
        if state.drawn:
            return Outcome(None, Termination.NO_MOVES)
        return None

    def legal_moves(self, state: SwaptimumState) -> list[SwaptimumMove]:
        """Every legal move: the bare placements, then the placements with their swaps.

        Placements that form no crosscut are found all at once with :meth:`_crosscut_makers`;
        only the few that do form one are examined swap by swap.
        """
        player = state.to_move
        if player is None:
            return []
        red, blue = state.red, state.blue
        empty = self.full & ~(red | blue)
        makers = self._crosscut_makers(red, blue, player)
        placements, tables, swaps = self.placements, self.bit_tables, self._swaps
        moves = [placements[square] for square in _bits(empty & ~makers, tables)]
        for square in _bits(makers, tables):
            moves += [
                _tuple_new(SwaptimumMove, (square, pair))
                for pair in swaps(red, blue, player, square)
            ]
        return moves

    def random_move(self, state: SwaptimumState, rng: random.Random) -> SwaptimumMove:
        """A legal move drawn uniformly at random, without listing every legal move.

        Every legal move is one *slot*: a bare placement is one, and a placement that forms a
        crosscut has one slot per candidate swap (a square of a crosscut just formed and an
        adjacent checker of the other colour, each pair once, as :meth:`_swaps` lists them).
        A slot is drawn uniformly; a bare placement is played, a candidate swap is checked
        (one whole-board crosscut test) and played if legal, else another slot is drawn. Each
        legal move is one slot, so each is drawn with the same chance; after as many refused
        slots as there are slots (at most ``SAMPLE_TRIES``) it draws from :meth:`legal_moves`
        instead, which is uniform too. Placements forming a crosscut are few (under one a
        position in random play on 9x9), so a draw costs about one crosscut scan instead of
        every swap's test.
        """
        player = state.to_move
        if player is None:
            raise IllegalMove(GAME_OVER)
        red, blue = state.red, state.blue
        seen = self._last_makers  # apply() has just asked the same for this position
        if seen[0] == red and seen[1] == blue and seen[2] == player:
            makers = seen[3]
        else:
            makers = self._crosscut_makers(red, blue, player)
        open_squares = self.full & ~(red | blue) & ~makers
        bare = open_squares.bit_count()
        tables = self.bit_tables
        if not makers:
            return self.placements[self._random_square(open_squares, bare, rng)]
        groups, total = self._swap_candidates(red, blue, player, makers)
        total += bare
        n, corners = self.size, self.corners
        for _ in range(min(SAMPLE_TRIES, total)):
            slot = rng.randrange(total)
            if slot < bare:
                return self.placements[self._random_square(open_squares, bare, rng)]
            slot -= bare
            for count, square, r, b, first, partners in groups:  # noqa: B007 (used below)
                if slot < count:
                    break
                slot -= count
            second = _bits(partners, tables)[slot]
            flip = (1 << first) | (1 << second)
            r ^= flip
            b ^= flip
            if not corners & (
                (r & (r >> (n + 1)) & (b >> 1) & (b >> n))
                | (b & (b >> (n + 1)) & (r >> 1) & (r >> n))
            ):
                order = self.order
                pair = (first, second) if order[first] < order[second] else (second, first)
                return _tuple_new(SwaptimumMove, (square, pair))
        return rng.choice(self.legal_moves(state))

    def _random_square(self, mask: int, count: int, rng: random.Random) -> int:
        """One of the ``count`` squares of ``mask``, uniformly: while they are a good share of
        the board, random squares until one is in the mask, else the list of them."""
        if 4 * count >= self.area:
            getrandbits, width = rng.getrandbits, self.area_bits
            while True:
                square = getrandbits(width)
                if mask >> square & 1:  # off the board: no bit
                    return square
        return _bits(mask, self.bit_tables)[rng.randrange(count)]

    def random_swap(
        self, red: int, blue: int, player: Player, square: int, rng: random.Random
    ) -> tuple[int, int] | None:
        """A legal swap after ``player`` places on ``square``, uniformly at random, or ``None``
        if that placement has none (or forms no crosscut).

        The candidate swaps are tested in a random order (a Fisher-Yates shuffle drawn as it
        goes) and the first legal one is played: each legal swap is equally likely to come
        first. It tests about candidates / (legal + 1) of them, and all of them, as
        :meth:`_swaps` does, only when none is legal.
        """
        groups, total = self._swap_candidates(red, blue, player, 1 << square)
        if not total:
            return None
        tables = self.bit_tables
        r, b = groups[0][2], groups[0][3]  # the same placement in every group
        pairs = [
            (first, second)
            for _count, _square, _r, _b, first, partners in groups
            for second in _bits(partners, tables)
        ]
        n, corners, randrange = self.size, self.corners, rng.randrange
        for i in range(total):
            j = randrange(i, total)
            pairs[i], pairs[j] = pairs[j], pairs[i]
            first, second = pairs[i]
            flip = (1 << first) | (1 << second)
            x, y = r ^ flip, b ^ flip
            if not corners & (
                (x & (x >> (n + 1)) & (y >> 1) & (y >> n))
                | (y & (y >> (n + 1)) & (x >> 1) & (x >> n))
            ):
                order = self.order
                return (first, second) if order[first] < order[second] else (second, first)
        return None

    def _swap_candidates(
        self, red: int, blue: int, player: Player, makers: int
    ) -> tuple[list[tuple[int, int, int, int, int, int]], int]:
        """The candidate swaps of each placement in ``makers``, grouped, and how many.

        A group is ``(count, square, red, blue, first, partners)``: after placing on
        ``square`` (``red`` and ``blue`` hold the placement), ``first`` may swap with each of
        the ``count`` squares of the mask ``partners``; the same pairs as :meth:`_swaps`
        examines, before its crosscut test.
        """
        groups = []
        total = 0
        tables, around_masks = self.bit_tables, self.around_masks
        for square in _bits(makers, tables):
            r, b = (red | 1 << square, blue) if player == "red" else (red, blue | 1 << square)
            formed = self._formed(r, b, square)
            for first in _bits(formed, tables):
                opposite = b if r >> first & 1 else r
                partners = around_masks[first] & opposite & ~(formed & ((1 << first) - 1))
                if partners:
                    count = partners.bit_count()
                    groups.append((count, square, r, b, first, partners))
                    total += count
        return groups, total

    def apply(self, state: SwaptimumState, move: SwaptimumMove) -> SwaptimumState:
        """The position after ``move``; raises :class:`IllegalMove` saying why it is refused."""
        player = state.to_move
        if player is None:
            raise IllegalMove(GAME_OVER)
        square, swap = move
        # type() first: the usual case costs one test, and True is no square (bool is an int).
        if not (type(square) is int and 0 <= square < self.area):
            raise IllegalMove(OFF_BOARD, square=shown(square))
        red, blue = state.red, state.blue
        if (red | blue) >> square & 1:
            raise IllegalMove(OCCUPIED, square=self.names[square])
        if player == "red":
            red |= 1 << square
        else:
            blue |= 1 << square
        formed = self._formed(red, blue, square)
        if not formed:
            if swap is not None:
                raise IllegalMove(NO_CROSSCUT, square=self.names[square])
            # A running position has no chain (it would be over), and a bare placement changes
            # only the mover's colour: a chain now runs through the new checker or nowhere.
            if player == "red":
                won = self._joins(red, square, self.row_first, self.row_last)
            else:
                won = self._joins(blue, square, self.col_first, self.col_last)
            return self._turn_after(state, player, red, blue, player if won else None)
        else:
            # A legal swap shows at once that the placement is not restricted; the swaps are
            # listed only to tell a restricted placement from a wrong or missing swap.
            try:
                if swap is None:
                    raise IllegalMove(CHOOSE_SWAP, square=self.names[square])
                flip = self._check_swap(red, blue, formed, swap)
            except IllegalMove:
                if not self._swaps(state.red, state.blue, player, square):
                    raise IllegalMove(RESTRICTED, square=self.names[square]) from None
                raise
            red ^= flip
            blue ^= flip
        return self._after(state, player, red, blue)

    def _check_swap(self, red: int, blue: int, formed: int, swap: Any) -> int:
        """The mask of the two squares of a valid ``swap``; else :class:`IllegalMove` says why.

        ``red`` and ``blue`` hold the placement, ``formed`` the squares of the crosscuts it made.
        """
        if not (isinstance(swap, tuple) and len(swap) == 2):
            raise IllegalMove(SWAP_PAIR, swap=shown(swap))
        first, second = swap
        for square in swap:
            if not _on_board(square, self.area):
                raise IllegalMove(SWAP_OFF_BOARD, square=shown(square))
        a, b = self.names[first], self.names[second]
        if first == second:
            raise IllegalMove(SWAP_SAME)
        occupied = red | blue
        for square in swap:
            if not occupied >> square & 1:
                raise IllegalMove(SWAP_EMPTY, square=self.names[square])
        if (red >> first & 1) == (red >> second & 1):
            raise IllegalMove(SWAP_SAME_COLOUR, a=a, b=b)
        if not (formed >> first & 1 or formed >> second & 1):
            raise IllegalMove(SWAP_NOT_FORMED, a=a, b=b)
        if not self.around_masks[first] >> second & 1:
            raise IllegalMove(SWAP_NOT_ADJACENT, a=a, b=b)
        flip: int = (1 << first) | (1 << second)
        left = self._crosscuts(red ^ flip, blue ^ flip)
        if left:
            corner = (left & -left).bit_length() - 1
            block = f"{self.names[corner]}-{self.names[corner + self.size + 1]}"
            raise IllegalMove(SWAP_LEAVES_CROSSCUT, a=a, b=b, block=block)
        return flip

    def _after(self, state: SwaptimumState, mover: Player, red: int, blue: int) -> SwaptimumState:
        """The state once ``mover``'s move has left ``red`` and ``blue``: win, turn, skip, draw."""
        winner: Player | None = None
        if self._red_connects(red):
            winner = "red"
        elif self._blue_connects(blue):
            winner = "blue"
        return self._turn_after(state, mover, red, blue, winner)

    def _turn_after(
        self, state: SwaptimumState, mover: Player, red: int, blue: int, winner: Player | None
    ) -> SwaptimumState:
        """The state after ``mover``'s move, ``winner`` known: who moves next, or the end."""
        ply = state.ply + 1
        if winner is not None:
            return SwaptimumState(red, blue, None, ply, winner=winner)
        opponent = other(mover)
        if self._has_legal_move(red, blue, opponent):
            return SwaptimumState(red, blue, opponent, ply)
        if self._has_legal_move(red, blue, mover):
            return SwaptimumState(red, blue, mover, ply, skipped=opponent)
        return SwaptimumState(red, blue, None, ply, drawn=True)

    # -- crosscuts ----------------------------------------------------------------------------
    def _crosscuts(self, red: int, blue: int) -> int:
        """The lower-left corners of every crosscut on the board, as a mask.

        Bit ``i`` of ``x >> k`` is square ``i + k``, so shifting by 1, N and N + 1 lines up each
        block's four squares on its corner and one expression tests every block at once.
        """
        n = self.size
        return self.corners & (
            (red & (red >> (n + 1)) & (blue >> 1) & (blue >> n))
            | (blue & (blue >> (n + 1)) & (red >> 1) & (red >> n))
        )

    def _crosscut_makers(self, red: int, blue: int, player: Player) -> int:
        """The empty squares where ``player``'s checker would form at least one crosscut.

        A placement forms a crosscut when the other three squares of a block hold one own and
        two opposing checkers in crosscut pattern; each of the four places the new checker can
        take in a block is one whole-board term, shifted from the corner to that place.
        """
        n = self.size
        mine, theirs = (red, blue) if player == "red" else (blue, red)
        empty = self.full & ~(red | blue)
        # Opponent's checkers on the block's diagonal / antidiagonal, aligned on the corner.
        theirs_diagonal = self.corners & theirs & (theirs >> (n + 1))
        theirs_antidiagonal = self.corners & (theirs >> 1) & (theirs >> n)
        return self.full & (
            (empty & (mine >> (n + 1)) & theirs_antidiagonal)
            | ((mine & (empty >> (n + 1)) & theirs_antidiagonal) << (n + 1))
            | (((empty >> 1) & (mine >> n) & theirs_diagonal) << 1)
            | (((mine >> 1) & (empty >> n) & theirs_diagonal) << n)
        )

    def _formed(self, red: int, blue: int, square: int) -> int:
        """The squares of the crosscuts through ``square`` (0 if none), placement included."""
        squares = 0
        for block in self.blocks[square]:
            diagonal, antidiagonal = block.diagonal, block.antidiagonal
            if (red & diagonal == diagonal and blue & antidiagonal == antidiagonal) or (
                blue & diagonal == diagonal and red & antidiagonal == antidiagonal
            ):
                squares |= diagonal | antidiagonal
        return squares

    def _swaps(self, red: int, blue: int, player: Player, square: int) -> list[tuple[int, int]]:
        """The legal swaps (board order) after ``player`` places on the empty ``square``.

        Empty when the placement forms no crosscut. A pair qualifies when one of its
        squares belongs to a crosscut just formed and the other is an adjacent checker of the
        other colour (the squares of a block are all adjacent to each other, so "another
        square of that crosscut" is included); it is legal when the board then has no
        crosscut at all.
        """
        if player == "red":
            red |= 1 << square
        else:
            blue |= 1 << square
        formed = self._formed(red, blue, square)
        if not formed:
            return []
        n = self.size
        corners, order, around_masks = self.corners, self.order, self.around_masks
        swaps = []
        for first in _bits(formed, self.bit_tables):
            # Adjacent checkers of the other colour, less the crosscut squares already paired
            # with this one as ``first`` (each unordered pair is examined once).
            opposite = blue if red >> first & 1 else red
            partners = around_masks[first] & opposite & ~(formed & ((1 << first) - 1))
            while partners:
                low = partners & -partners
                partners ^= low
                flip = (1 << first) | low
                r, b = red ^ flip, blue ^ flip
                # The whole-board crosscut test of ``_crosscuts``, inlined: it runs per candidate.
                if not corners & (
                    (r & (r >> (n + 1)) & (b >> 1) & (b >> n))
                    | (b & (b >> (n + 1)) & (r >> 1) & (r >> n))
                ):
                    second = low.bit_length() - 1
                    swaps.append(
                        (first, second) if order[first] < order[second] else (second, first)
                    )
        return swaps

    def _has_legal_move(self, red: int, blue: int, player: Player) -> bool:
        """Whether ``player`` can move: any empty square forming no crosscut settles it at once."""
        empty = self.full & ~(red | blue)
        makers = self._crosscut_makers(red, blue, player)
        # One tuple, replaced whole: random_move() of the position after a move reuses it.
        self._last_makers = (red, blue, player, makers)
        if empty & ~makers:
            return True
        return any(
            self._swaps(red, blue, player, square) for square in _bits(makers, self.bit_tables)
        )

    # -- connection -------------------------------------------------------------------------
    def _red_connects(self, red: int) -> bool:
        """Whether red joins row 1 to row N (bit-parallel flood fill up from row 1)."""
        return self._connects(red, self.row_first, self.row_last)

    def _blue_connects(self, blue: int) -> bool:
        """Whether blue joins column a to the last column."""
        return self._connects(blue, self.col_first, self.col_last)

    def _connects(self, mine: int, start: int, goal: int) -> bool:
        """Whether the checkers ``mine`` join side ``start`` to side ``goal`` orthogonally.

        The reached set grows by one step in all four directions per round; the edge masks stop
        a left/right shift from wrapping round to the next row.
        """
        reached = mine & start
        if not reached or not mine & goal:
            return False
        n = self.size
        not_first, not_last = ~self.col_first, ~self.col_last
        while not reached & goal:
            grown = mine & (
                reached
                | (reached << n)
                | (reached >> n)
                | ((reached << 1) & not_first)
                | ((reached >> 1) & not_last)
            )
            if grown == reached:
                return False
            reached = grown
        return True

    def _joins(self, mine: int, square: int, start: int, goal: int) -> bool:
        """Whether the chain of ``mine`` through ``square`` touches both ``start`` and ``goal``.

        The flood fill of :meth:`_connects`, grown from one checker and stopped as soon as it
        touches both sides: it visits one chain, not everything joined to a side.
        """
        if not (mine & start and mine & goal):
            return False
        n = self.size
        not_first, not_last = self.not_first_col, self.not_last_col
        reached = 1 << square
        while not (reached & start and reached & goal):
            grown = mine & (
                reached
                | (reached << n)
                | (reached >> n)
                | ((reached << 1) & not_first)
                | ((reached >> 1) & not_last)
            )
            if grown == reached:
                return False
            reached = grown
        return True

    def winning_path(self, state: SwaptimumState) -> list[int]:
        """One shortest chain of the winner's checkers joining their two sides (BFS), else []."""
        if state.winner is None:
            return []
        n = self.size
        if state.winner == "red":
            mine, starts, goal = state.red, self.row_first, self.row_last
        else:
            mine, starts, goal = state.blue, self.col_first, self.col_last
        came_from: dict[int, int | None] = {
            square: None for square in _bits(mine & starts, self.bit_tables)
        }
        queue = deque(came_from)
        while queue:
            square = queue.popleft()
            if goal >> square & 1:
                path: list[int] = []
                step: int | None = square
                while step is not None:
                    path.append(step)
                    step = came_from[step]
                return path[::-1]
            for side in self.sides[square]:
                if mine >> side & 1 and side not in came_from:
                    came_from[side] = square
                    queue.append(side)
        raise AssertionError(f"no connecting chain on a {n} x {n} board for the winner")

    # -- notation ---------------------------------------------------------------------------
    def parse_move(self, text: str) -> SwaptimumMove:
        """Read ``d4`` or ``d4:c3-d4``: lower case, no spaces, swap squares in board order.

        The notation is strict so that every move has exactly one text in a record: ``D4``,
        ``d04``, `` d4`` and ``d4:d4-c3`` are refused.

        >>> game = Swaptimum(SwaptimumSettings(size=9))
        >>> game.parse_move("d4:c3-d4")
        SwaptimumMove(square=30, swap=(20, 30))
        """
        if not isinstance(text, str):
            raise NotationError(NOT_TEXT, text=shown(text))
        place, colon, swap_text = text.partition(":")
        square = self._parse_square(place, text)
        if not colon:
            return self.placements[square]
        first_text, hyphen, second_text = swap_text.partition("-")
        if not hyphen:
            raise NotationError(SWAP_SYNTAX, text=shown(text))
        first = self._parse_square(first_text, text)
        second = self._parse_square(second_text, text)
        if first == second:
            raise NotationError(SWAP_TEXT_SAME, text=shown(text))
        if self.order[first] > self.order[second]:
            raise NotationError(SWAP_ORDER, text=shown(text), swap=f"{second_text}-{first_text}")
        return SwaptimumMove(square, (first, second))

    def _parse_square(self, name: str, text: str) -> int:
        square = self.index.get(name)
        if square is None:
            last = self.names[-1]
            raise NotationError(NO_SQUARE, text=shown(text), name=shown(name), last=last)
        return square

    def format_move(self, move: SwaptimumMove) -> str:
        """The move's text; the swap is written in board order whatever order it was given in."""
        square, swap = move
        if swap is None:
            return self.names[square]
        first, second = sorted(swap, key=self.order.__getitem__)
        return f"{self.names[square]}:{self.names[first]}-{self.names[second]}"

    def sort_key(self, move: SwaptimumMove) -> tuple[int, ...]:
        """Placement by column then row; a bare placement before its swaps, in board order."""
        square, swap = move
        if swap is None:
            return (self.order[square],)
        first, second = sorted(swap, key=self.order.__getitem__)
        return (self.order[square], self.order[first], self.order[second])

    # -- the browser ------------------------------------------------------------------------
    def view(self, state: SwaptimumState) -> dict[str, Any]:
        """The ``swaptimum`` view of ``docs/protocol.md``."""
        placements: dict[str, list[str]] = {}
        for move in sorted(self.legal_moves(state), key=self.sort_key):
            placements.setdefault(self.names[move.square], []).append(self.format_move(move))
        return {
            "kind": "swaptimum",
            "size": self.size,
            "to_move": state.to_move,
            "winner": state.winner,
            "skipped": state.skipped,
            "board": [self._colour(state, i) for i in range(self.area)],
            "placements": placements,
            "winning_path": self.winning_path(state),
        }

    def closed_view(self, state: SwaptimumState) -> dict[str, Any]:
        view = self.view(state)
        return {**view, "to_move": None, "placements": {}}

    def move_facts(self, before: SwaptimumState, after: SwaptimumState) -> dict[str, Any]:
        """A move event names the player whose turn the move made them skip (or ``None``)."""
        return {"skipped": after.skipped}

    @staticmethod
    def _colour(state: SwaptimumState, square: int) -> Player | None:
        return owner_of(state.red, state.blue, square)

    def diagram(self, state: SwaptimumState) -> str:
        """Rank N at the top, rank numbers on the left and files under the board.

        ``R`` is a red checker, ``B`` a blue one and ``.`` an empty square; the last line says
        whose turn it is (and whose was skipped) or how the game ended.
        """
        n = self.size
        symbols = {"red": "R", "blue": "B", None: "."}
        lines = []
        for row in reversed(range(n)):
            cells = " ".join(symbols[self._colour(state, row * n + col)] for col in range(n))
            lines.append(f"{row + 1:>2} {cells}")
        lines.append("   " + " ".join(FILES[:n]))
        lines.append(self._status(state))
        return "\n".join(lines)

    @staticmethod
    def _status(state: SwaptimumState) -> str:
        if state.winner is not None:
            return f"{state.winner} wins by connection"
        if state.drawn:
            return "drawn: neither side can move"
        status = f"{state.to_move} to move"
        if state.skipped is not None:
            status += f" ({state.skipped}'s turn skipped)"
        return status


def _check_size(size: Any) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise SettingsError(
            N_("size must be a whole number from %(low)s to %(high)s"), low=MIN_SIZE, high=MAX_SIZE
        )


def _on_board(square: Any, area: int) -> bool:
    return isinstance(square, int) and not isinstance(square, bool) and 0 <= square < area


def _bits(mask: int, tables: tuple[tuple[tuple[int, ...], ...], ...]) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first, a byte at a time.

    ``tables`` are ``_byte_bits(k)`` for every byte of the board's masks (``bit_tables``).
    """
    bits: list[int] = []
    if not mask:  # often: no placement forms a crosscut
        return bits
    # As many bytes as tables by construction: zip(strict=True) would only cost time.
    for table, byte in zip(tables, mask.to_bytes(len(tables), "little")):  # noqa: B905
        if byte:
            bits += table[byte]
    return bits


@functools.cache
def _byte_bits(index: int) -> tuple[tuple[int, ...], ...]:
    """For every value of byte ``index`` of a mask, the indices of its set bits.

    >>> _byte_bits(1)[0b101]
    (8, 10)
    """
    offset = 8 * index
    return tuple(
        tuple(offset + bit for bit in range(8) if value >> bit & 1) for value in range(256)
    )


_tuple_new = tuple.__new__  # builds a SwaptimumMove without its Python-level __new__
