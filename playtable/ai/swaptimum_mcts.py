"""Monte Carlo tree search (UCT) for Swaptimum.

The tree uses the real rules (``Swaptimum.apply``), so every move it can choose is legal.
Below the tree, games are finished by a fast playout on bare bit masks:

- connectivity as two masks per colour: its checkers joined to each of its two sides (a
  bit-parallel flood fill, grown only when a new checker touches one), so a winning
  placement is one bit expression: an empty square next to (or on) both sides' regions;
- the mover wins at once when it can, else blocks the opponent's winning square, else
  places at random, preferring squares that form no crosscut (a placement that forms one
  takes a random legal swap, drawn by ``Swaptimum.random_swap`` without listing them all);
  a swap recolours two squares, so the four masks are filled again from the sides then.

Levels differ by their budget (a number of playouts and a share of the time budget), and
medium and hard then check, in the time left, that their move leaves the opponent no win in
one they could have stopped (:meth:`MCTS.guarded`).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass

from playtable.games.base import Player
from playtable.games.swaptimum import Swaptimum, SwaptimumMove, SwaptimumState

PLAYOUTS = {"easy": 60, "medium": 600, "hard": 5000}
# Each level also stops at a share of the budget, so that the levels stay apart on a busy
# machine, where no level reaches its playout count in time.
TIME_SHARE = {"easy": 0.08, "medium": 0.25, "hard": 0.85}
GUARDED = ("medium", "hard")  # levels that never leave a blockable win in one
EXPLORATION = 0.4
RAVE_K = 300  # visits at which a child's own mean and its AMAF mean weigh the same
MAKER_CHANCE = 0.1  # how often a playout tries a crosscut-forming placement when it need not


class Playout:
    """Fast random games from a position, for one board size."""

    def __init__(self, game: Swaptimum) -> None:
        self.game = game
        self.final: list[int] = [0, 0]
        n = game.size
        self.n = n
        self.area = game.area
        self.full = game.full
        self.sides = game.sides
        # Per colour (0 red, 1 blue): the two sides it must join.
        self.goals = ((game.row_first, game.row_last), (game.col_first, game.col_last))
        self.not_first_col = game.full & ~game.col_first
        self.not_last_col = game.full & ~game.col_last
        # The squares orthogonally next to each square, as a mask.
        self.around = [sum(1 << j for j in game.sides[i]) for i in range(game.area)]

    def grow(self, reached: int, mine: int) -> int:
        """``reached`` (a subset of ``mine``) and every checker of ``mine`` joined to it."""
        n, not_first, not_last = self.n, self.not_first_col, self.not_last_col
        while True:
            grown = mine & (
                reached
                | (reached << n)
                | (reached >> n)
                | ((reached << 1) & not_first)
                | ((reached >> 1) & not_last)
            )
            if grown == reached:
                return reached
            reached = grown

    def dilate(self, mask: int) -> int:
        """The squares orthogonally next to ``mask``."""
        n = self.n
        return self.full & (
            (mask << n)
            | (mask >> n)
            | ((mask << 1) & self.not_first_col)
            | ((mask >> 1) & self.not_last_col)
        )

    def run(self, state: SwaptimumState, rng: random.Random) -> Player | None:
        """Play ``state`` out at random; the winner (``None`` for the drawn guard ending)."""
        if state.to_move is None:
            return state.winner
        game = self.game
        masks = [state.red, state.blue]
        self.final = masks  # the colours at the end of the playout, for AMAF
        mover = 0 if state.to_move == "red" else 1
        # touch[colour][k]: that colour's checkers joined to its side k (a bit-parallel flood
        # fill, grown only when a new checker touches it).
        touch = [[0, 0], [0, 0]]
        goals = self.goals
        around = self.around
        grow = self.grow

        def add(square: int, colour: int) -> bool:
            """``colour`` has just placed on ``square``: True if that colour now connects."""
            bit = 1 << square
            mine = masks[colour]
            near = around[square] | bit
            reached = touch[colour]
            side_a, side_b = goals[colour]
            if reached[0] & near or side_a & bit:
                reached[0] = grow(reached[0] | bit, mine)
            if reached[1] & near or side_b & bit:
                reached[1] = grow(reached[1] | bit, mine)
            return bool(reached[0] & reached[1])

        def rebuild() -> int:
            """Both colours' joined sets from scratch; the colour that connects (-1 if none)."""
            result = -1
            for colour in (0, 1):
                mine = masks[colour]
                side_a, side_b = goals[colour]
                reached = touch[colour]
                reached[0] = grow(mine & side_a, mine)
                reached[1] = grow(mine & side_b, mine)
                if reached[0] & reached[1] and result < 0:
                    result = colour
            return result

        if rebuild() >= 0:  # cannot happen for a running game, but stay safe
            return state.winner
        empties = [i for i in range(self.area) if not (masks[0] | masks[1]) >> i & 1]
        rng.shuffle(empties)
        players: tuple[Player, Player] = ("red", "blue")
        stuck = 0
        while True:
            red, blue = masks
            empty = self.full & ~(red | blue)
            if not empty:
                return None
            colour = mover
            player = players[colour]
            makers = game._crosscut_makers(red, blue, player)
            open_squares = empty & ~makers
            side_a, side_b = goals[colour]
            reach_a = self.dilate(touch[colour][0]) | side_a
            reach_b = self.dilate(touch[colour][1]) | side_b
            wins = open_squares & reach_a & reach_b
            if wins:
                return player
            other = 1 - colour
            o_a, o_b = goals[other]
            threats = (
                empty
                & (self.dilate(touch[other][0]) | o_a)
                & (self.dilate(touch[other][1]) | o_b)
                & open_squares
            )
            square = -1
            if threats:
                square = (threats & -threats).bit_length() - 1
            elif open_squares and (not makers & empty or rng.random() >= MAKER_CHANCE):
                for j, candidate in enumerate(empties):
                    if open_squares >> candidate & 1:
                        square = candidate
                        empties[j] = empties[-1]
                        empties.pop()
                        break
            if square >= 0:
                if threats:
                    empties.remove(square)
                masks[colour] |= 1 << square
                stuck = 0
                if add(square, colour):
                    return player
                mover = other
                continue
            # A crosscut-forming placement with a random legal swap, drawn without listing
            # the placement's swaps (Swaptimum.random_swap; None if it has none).
            candidates = [s for s in empties if makers >> s & 1]
            rng.shuffle(candidates)
            done = False
            for candidate in candidates:
                pair = game.random_swap(red, blue, player, candidate, rng)
                if pair is None:
                    continue
                a, b = pair
                masks[colour] |= 1 << candidate
                flip = (1 << a) | (1 << b)
                masks[0] ^= flip
                masks[1] ^= flip
                empties.remove(candidate)
                done = True
                break
            if not done:
                if open_squares:
                    continue  # no legal swap anywhere: place on an open square after all
                stuck += 1
                if stuck == 2:
                    return None
                mover = other
                continue
            stuck = 0
            connected = rebuild()
            if connected >= 0:
                return players[connected]
            mover = other


@dataclass(eq=False)
class Node:
    """A tree node: the position after ``move`` (computed on the first visit).

    ``wins`` count for the side that played ``move``; ``amaf_*`` are the all-moves-as-first
    statistics: playouts through the parent in which that side ended up holding the square
    of ``move``, however it got there.
    """

    move: SwaptimumMove | None
    parent: Node | None
    state: SwaptimumState | None = None
    children: list[Node] | None = None
    visits: int = 0
    wins: float = 0.0
    amaf_visits: int = 0
    amaf_wins: float = 0.0


class MCTS:
    """UCT with RAVE from one position; ``choose`` runs playouts until a count or a deadline.

    RAVE (Gelly and Silver) matters here as in Hex: with a few hundred playouts per move,
    "this square was good for me whenever I got it" is a far better early guide than the few
    playouts through each child, and its weight fades as a child's own visits grow.
    """

    def __init__(self, game: Swaptimum, rng: random.Random) -> None:
        self.game = game
        self.rng = rng
        self.playout = Playout(game)
        self.last_playouts = 0
        # The mover's share of all the games ``choose`` simulated from its position (the
        # analysis' win-rate estimate); ``None`` until a search has run. Not the rate of the
        # most visited move alone: with the hundred-odd games of a busy machine's quarter
        # second that move had two or three, and the estimate swung from 0 to 1 and back.
        self.last_win_rate: float | None = None

    def immediate_win(self, state: SwaptimumState) -> SwaptimumMove | None:
        """A move that wins on the spot, if the side to move has one."""
        game = self.game
        mover = state.to_move
        for move in game.legal_moves(state):
            if game.apply(state, move).winner == mover:
                return move
        return None

    @staticmethod
    def _score(child: Node, log_n: float) -> float:
        # Without AMAF data, first-play urgency: try what has never been tried.
        amaf = child.amaf_wins / child.amaf_visits if child.amaf_visits else 1.0
        if not child.visits:
            return amaf + EXPLORATION * math.sqrt(log_n)
        beta = math.sqrt(RAVE_K / (3 * child.visits + RAVE_K))
        mean = (1 - beta) * child.wins / child.visits + beta * amaf
        return mean + EXPLORATION * math.sqrt(log_n / child.visits)

    def choose(
        self,
        state: SwaptimumState,
        playouts: int,
        deadline: float,
        guard_until: float | None = None,
    ) -> SwaptimumMove:
        """The search's move; with ``guard_until`` (a later :func:`time.perf_counter` time),
        one that leaves the opponent no win in one if the time allows finding one."""
        win = self.immediate_win(state)
        if win is not None:
            self.last_win_rate = 1.0
            return win
        game = self.game
        rng = self.rng
        root = Node(None, None, state)
        done = 0
        score = self._score
        # The clock is read before every playout (a 9x9 playout takes milliseconds, more on
        # a loaded machine: checking every fourth let the move run 0.2 s past its deadline).
        while done < playouts and time.perf_counter() < deadline:
            node = root
            path = [root]
            assert node.state is not None
            # Selection and expansion: all children at once, each state on its first visit.
            while node.state is not None and node.state.to_move is not None:
                if node.children is None:
                    moves = game.legal_moves(node.state)
                    rng.shuffle(moves)
                    node.children = [Node(move, node) for move in moves]
                    if not node.children:
                        break
                log_n = math.log(node.visits + 1)
                child = max(node.children, key=lambda c: score(c, log_n))
                path.append(child)
                if child.state is None:
                    assert child.move is not None
                    child.state = game.apply(node.state, child.move)
                    node = child
                    break
                node = child
            # Playout and back-propagation.
            assert node.state is not None
            winner = self.playout.run(node.state, rng)
            final = (
                self.playout.final
                if node.state.to_move is not None
                else [
                    node.state.red,
                    node.state.blue,
                ]
            )
            for parent, child in itertools.pairwise(path):
                mover = parent.state.to_move if parent.state else None
                child.visits += 1
                if winner is None:
                    child.wins += 0.5
                elif winner == mover:
                    child.wins += 1.0
                # AMAF: every sibling whose square the mover ended up holding.
                mine = final[0] if mover == "red" else final[1]
                won = 1.0 if winner == mover else 0.5 if winner is None else 0.0
                for sibling in parent.children or ():
                    assert sibling.move is not None
                    if mine >> sibling.move.square & 1:
                        sibling.amaf_visits += 1
                        sibling.amaf_wins += won
            root.visits += 1
            done += 1
        self.last_playouts = done
        children = [c for c in root.children or () if c.visits]
        if not children:  # no playout finished in time: the guard still applies
            self.last_win_rate = None
            legal = game.legal_moves(state)
            if guard_until is None:
                return legal[0]
            return self.guarded(state, legal, guard_until) or legal[0]
        best = max(children, key=lambda c: c.visits)
        self.last_win_rate = sum(c.wins for c in children) / sum(c.visits for c in children)
        assert best.move is not None
        if guard_until is None:
            return best.move
        ranked = sorted(root.children or (), key=lambda c: -c.visits)
        return self.guarded(state, [c.move for c in ranked if c.move], guard_until) or best.move

    def guarded(
        self, state: SwaptimumState, ranked: list[SwaptimumMove], until: float
    ) -> SwaptimumMove | None:
        """The first of ``ranked`` after which the opponent cannot win at once, looked for
        among the moves that touch the opponent's winning squares first (a block, or a swap
        that breaks the threat); ``None`` if none is found. The playouts alone let a
        blockable win in one through (6 of 21 such positions at 1.4 s). A move that ends the
        game is safe only if the mover wins: a swap can complete the opponent's chain, and
        such a move leaves no win in one because it has already lost.

        The moves that touch the threat are all tried whatever the time (a few, at 0.14 ms
        each on 9x9): on a busy machine the deadline came first and the bot let a win in one
        through. Only the search among the other moves stops at ``until``."""
        game = self.game
        mover = state.to_move
        first = game.apply(state, ranked[0])
        if first.winner == mover:
            return ranked[0]
        squares = 0
        if first.winner is None:
            threat = self.immediate_win(first)
            if threat is None:
                return ranked[0]
            squares = 1 << threat.square
            for square in threat.swap or ():
                squares |= 1 << square
        rest = ranked[1:]
        blockers = [m for m in rest if _touches(m, squares)]
        others = [m for m in rest if not _touches(m, squares)]
        for index, move in enumerate(blockers + others):
            if index >= len(blockers) and time.perf_counter() > until:
                return None
            after = game.apply(state, move)
            if after.winner == mover or (
                after.winner is None and self.immediate_win(after) is None
            ):
                return move
        return None


def _touches(move: SwaptimumMove, squares: int) -> bool:
    if squares >> move.square & 1:
        return True
    return any(squares >> square & 1 for square in move.swap or ())


def choose_swaptimum_move(
    game: Swaptimum, state: SwaptimumState, level: str, rng: random.Random, deadline: float
) -> SwaptimumMove:
    """The bot's move for the side to move at ``state``, by ``deadline`` (a
    :func:`time.perf_counter` time)."""
    if level not in PLAYOUTS:
        raise ValueError(f"level must be one of {', '.join(PLAYOUTS)}")
    # The level's share of the time left; the rest covers the immediate-win scan.
    now = time.perf_counter()
    # Medium and hard then make sure their move leaves no win in one that can be stopped.
    guard = deadline if level in GUARDED else None
    return MCTS(game, rng).choose(
        state, PLAYOUTS[level], now + TIME_SHARE[level] * (deadline - now), guard
    )
