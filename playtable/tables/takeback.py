"""Where the clocks start again when a take-back is allowed (:class:`clocks.Restart`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from playtable.games import PLAYERS, Player
from playtable.tables.clocks import Clocks, RealTime, Restart, Unlimited, utc


def restart_at(
    clocks: Clocks,
    ply: int,
    now: datetime | None,
    movers: Sequence[Player],
    to_move: Player | None,
) -> Restart | None:
    """The restart of a take-back to ``ply`` allowed at ``now``; None without a clock (or
    without a moment).

    ``movers`` played the moves so far and ``to_move`` moves next. Each side keeps the time
    it has, less the increments the moves taken back had earned it: else playing a move and
    taking it back (the computer always allows it) would add an increment a time, and the
    first move taken back would leave more than the base time."""
    control = clocks.control
    if isinstance(control, Unlimited) or now is None:
        return None
    left: dict[Player, float] = {}
    if isinstance(control, RealTime):
        left = {p: clocks.remaining(p, now) or 0.0 for p in PLAYERS}
        for index in range(ply, len(movers)):
            following = movers[index + 1] if index + 1 < len(movers) else to_move
            if following is not None and following != movers[index]:
                left[movers[index]] -= control.increment_s
        left = {p: round(max(0.0, value), 3) for p, value in left.items()}
    return Restart(ply, utc(now), left)


__all__ = ["restart_at"]
