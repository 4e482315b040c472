"""Computer opponents and the Dots and Boxes solver.

The table service calls :func:`bot_move` from a process pool: it takes only plain,
picklable values (the game's name and options and the moves so far, as in a record) and
returns a move text, so nothing but the record crosses the process boundary. Each worker
process keeps its solvers' tables between calls, which makes a bot's later moves cheaper.

Time: a bot thinks for at most ``budget_s`` seconds and, given ``deadline`` (a wall-clock
time, :func:`time.time`, fixed by the caller when the bot's turn began), never past it, so
time spent waiting for a worker is taken off the thinking. With less than
:data:`MIN_THINK_S` left it plays :func:`quick_move` at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from playtable.games import GameError, load
from playtable.games.dots.game import DotsAndBoxes

LEVELS = ("easy", "medium", "hard")
DEFAULT_BUDGET_S = 1.4  # leaves room under the 2 seconds a bot may take
MIN_THINK_S = 0.05  # with less time than this left, a bot plays the quick move


class BotMove(NamedTuple):
    """A bot's answer: the move text, and whether it was the quick move for lack of time."""

    move: str
    quick: bool


def bot_move(
    game_name: str,
    options: Mapping[str, Any],
    moves: Sequence[str],
    level: str,
    seed: int | None = None,
    budget_s: float = DEFAULT_BUDGET_S,
    deadline: float | None = None,
) -> BotMove:
    """The move a bot of ``level`` plays after ``moves``, thinking at most ``budget_s``
    seconds and never past ``deadline`` (:func:`time.time` seconds), if given.

    Raises :class:`~playtable.games.GameError` for an unknown game, bad options, an illegal
    record or a finished game, and :class:`ValueError` for an unknown level.
    """
    start = time.perf_counter()
    left = budget_s if deadline is None else min(budget_s, deadline - time.time())
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    game = load(game_name, options)
    state = game.replay(moves)
    if game.to_move(state) is None:
        raise GameError("the game is over: there is no move to choose")
    rng = random.Random(seed)
    until = start + left  # on the perf_counter clock, which the searches read
    if level == "hard" and isinstance(game, DotsAndBoxes):
        from playtable.ai import book

        known = book.lookup(game, state)  # a proof made ahead of time costs no thinking
        if known is not None:
            return BotMove(game.format_move(rng.choice(known[1])), False)
    if until - time.perf_counter() < MIN_THINK_S:
        from playtable.ai.quick import quick_game_move

        return BotMove(game.format_move(quick_game_move(game, state, rng)), True)
    if isinstance(game, DotsAndBoxes):
        from playtable.ai.dots_bots import choose_dots_move

        return BotMove(game.format_move(choose_dots_move(game, state, level, rng, until)), False)
    from playtable.ai.swaptimum_mcts import choose_swaptimum_move
    from playtable.games.swaptimum import Swaptimum

    assert isinstance(game, Swaptimum)
    return BotMove(game.format_move(choose_swaptimum_move(game, state, level, rng, until)), False)


def choose_move(
    game_name: str,
    options: Mapping[str, Any],
    moves: Sequence[str],
    level: str,
    seed: int | None = None,
    budget_s: float = DEFAULT_BUDGET_S,
    deadline: float | None = None,
) -> str:
    """The move text of :func:`bot_move` (same arguments).

    >>> choose_move("dots", {"rows": 1, "cols": 1}, ["a1-b1", "a1-a2", "b1-b2"], "easy")
    'a2-b2'
    """
    return bot_move(game_name, options, moves, level, seed, budget_s, deadline).move


def quick_move(
    game_name: str, options: Mapping[str, Any], moves: Sequence[str], seed: int | None = None
) -> str:
    """A legal move in milliseconds on any board (see :mod:`playtable.ai.quick`).

    Raises :class:`~playtable.games.GameError` like :func:`bot_move`.

    >>> quick_move("swaptimum", {"size": 3}, ["a1", "c1", "a2"])
    'a3'
    """
    from playtable.ai.quick import quick_game_move

    game = load(game_name, options)
    state = game.replay(moves)
    if game.to_move(state) is None:
        raise GameError("the game is over: there is no move to choose")
    return game.format_move(quick_game_move(game, state, random.Random(seed)))


def warm_up() -> int:
    """Import what a bot and the solver need; the pool runs it once per new worker process,
    so that the first real move does not pay for it. Returns the process id."""
    import os

    import playtable.ai.analysis
    import playtable.ai.dots_bots
    import playtable.ai.quick
    import playtable.ai.swaptimum_mcts  # noqa: F401
    from playtable.ai import book

    book._book()  # parsed once per worker
    return os.getpid()


__all__ = [
    "DEFAULT_BUDGET_S",
    "LEVELS",
    "MIN_THINK_S",
    "BotMove",
    "bot_move",
    "choose_move",
    "quick_move",
    "warm_up",
]
