"""Computer opponents and the Dots and Boxes solver.

The table service calls :func:`choose_move` from a process pool: it takes only plain,
picklable values (the game's name and options and the moves so far, as in a record) and
returns a move text, so nothing but the record crosses the process boundary. Each worker
process keeps its solvers' tables between calls, which makes a bot's later moves cheaper.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from playtable.games import GameError, load

LEVELS = ("easy", "medium", "hard")
DEFAULT_BUDGET_S = 1.4  # leaves room under the 2 seconds a bot may take


def choose_move(
    game_name: str,
    options: Mapping[str, Any],
    moves: Sequence[str],
    level: str,
    seed: int | None = None,
    budget_s: float = DEFAULT_BUDGET_S,
) -> str:
    """The move text a bot of ``level`` ("easy", "medium", "hard") plays after ``moves``.

    Raises :class:`~playtable.games.GameError` for an unknown game, bad options, an illegal
    record or a finished game, and :class:`ValueError` for an unknown level.

    >>> choose_move("dots", {"rows": 1, "cols": 1}, ["a1-b1", "a1-a2", "b1-b2"], "easy")
    'a2-b2'
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    game = load(game_name, options)
    state = game.replay(moves)
    if game.to_move(state) is None:
        raise GameError("the game is over: there is no move to choose")
    rng = random.Random(seed)
    if game_name == "dots":
        from playtable.ai.dots_bots import choose_dots_move
        from playtable.games.dots.game import DotsAndBoxes

        assert isinstance(game, DotsAndBoxes)
        return game.format_move(choose_dots_move(game, state, level, rng, budget_s))
    from playtable.ai.swaptimum_mcts import choose_swaptimum_move
    from playtable.games.swaptimum import Swaptimum

    assert isinstance(game, Swaptimum)
    return game.format_move(choose_swaptimum_move(game, state, level, rng, budget_s))


__all__ = ["DEFAULT_BUDGET_S", "LEVELS", "choose_move"]
