"""The quick move: a legal, sensible move in a few milliseconds on any board the site offers.

The table service plays it itself when the process pool cannot answer in time, and a worker
plays it when its job starts with no time left to think (see :func:`playtable.ai.bot_move`).

- Dots and Boxes: the easy bot's move (take an offered cell, else a safe line, else the
  sacrifice that gives the fewest cells away).
- Swaptimum: win at once if a placement can, else take the square where the opponent
  would win at once, else a random placement that forms no crosscut, next to the mover's own
  checkers when there is one.
"""

from __future__ import annotations

import random
from typing import Any

from playtable.ai.dots_bots import easy_move
from playtable.games.base import Player, other
from playtable.games.dots.game import DotsAndBoxes
from playtable.games.swaptimum import Swaptimum, SwaptimumMove, SwaptimumState


def quick_game_move(game: Any, state: Any, rng: random.Random) -> Any:
    """The quick move (a move object of ``game``) for the side to move at ``state``."""
    if isinstance(game, DotsAndBoxes):
        return easy_move(game, state, rng)
    if isinstance(game, Swaptimum):
        return quick_swaptimum_move(game, state, rng)
    raise TypeError(f"no quick move for {type(game).__name__}")


def _dilate(game: Swaptimum, mask: int) -> int:
    """The squares orthogonally next to ``mask``."""
    n = game.size
    return game.full & (
        (mask << n) | (mask >> n) | ((mask << 1) & ~game.col_first) | ((mask >> 1) & ~game.col_last)
    )


def _reached(game: Swaptimum, mine: int, side: int) -> int:
    """The checkers of ``mine`` joined to ``side`` (bit-parallel flood fill)."""
    reached = mine & side
    while True:
        grown = reached | (mine & _dilate(game, reached))
        if grown == reached:
            return reached
        reached = grown


def winning_squares(game: Swaptimum, red: int, blue: int, player: Player) -> int:
    """The empty squares where a placement of ``player`` forming no crosscut wins at once."""
    mine, start, goal = (
        (red, game.row_first, game.row_last)
        if player == "red"
        else (blue, game.col_first, game.col_last)
    )
    empty = game.full & ~(red | blue)
    open_squares = empty & ~game._crosscut_makers(red, blue, player)
    near_start = _dilate(game, _reached(game, mine, start)) | start
    near_goal = _dilate(game, _reached(game, mine, goal)) | goal
    return open_squares & near_start & near_goal


def _winning_swap(game: Swaptimum, state: SwaptimumState, makers: int) -> SwaptimumMove | None:
    """A crosscut-forming placement whose swap wins at once (makers are few: cheap)."""
    player = state.to_move
    assert player is not None
    red, blue = state.red, state.blue
    for square in range(makers.bit_length()):
        if not makers >> square & 1:
            continue
        for pair in game._swaps(red, blue, player, square):
            flip = (1 << pair[0]) | (1 << pair[1])
            if player == "red":
                connects = game._red_connects((red | 1 << square) ^ flip)
            else:
                connects = game._blue_connects((blue | 1 << square) ^ flip)
            if connects:
                move = SwaptimumMove(square, pair)
                if game.apply(state, move).winner == player:
                    return move
    return None


def _pick(mask: int, rng: random.Random) -> int:
    squares = [i for i in range(mask.bit_length()) if mask >> i & 1]
    return rng.choice(squares)


def quick_swaptimum_move(
    game: Swaptimum, state: SwaptimumState, rng: random.Random
) -> SwaptimumMove:
    player = state.to_move
    if player is None:
        raise ValueError("the game is over")
    red, blue = state.red, state.blue
    wins = winning_squares(game, red, blue, player)
    if wins:
        return SwaptimumMove(_pick(wins, rng))
    empty = game.full & ~(red | blue)
    makers = game._crosscut_makers(red, blue, player)
    win = _winning_swap(game, state, makers)
    if win is not None:
        return win
    threats = winning_squares(game, red, blue, other(player))
    if threats:
        # Our own placement there, with a swap if it forms a crosscut for us.
        if threats & ~makers:
            return SwaptimumMove(_pick(threats & ~makers, rng))
        squares = [i for i in range(threats.bit_length()) if threats >> i & 1]
        rng.shuffle(squares)
        for square in squares:
            pair = game.random_swap(red, blue, player, square, rng)
            if pair is not None:
                return SwaptimumMove(square, pair)
    open_squares = empty & ~makers
    if open_squares:
        mine = red if player == "red" else blue
        near = open_squares & _dilate(game, mine)
        return SwaptimumMove(_pick(near or open_squares, rng))
    # Every empty square forms a crosscut: a random legal placement with its swap, drawn
    # uniformly without listing every swap.
    return game.random_move(state, rng)
