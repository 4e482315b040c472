"""The computer on the clock: how long it thinks, and how long the server waits for it
before it plays the quick move itself (:mod:`playtable.tables.computer`)."""

from __future__ import annotations

from datetime import datetime

from playtable.games import Player
from playtable.tables.clocks import Clocks, RealTime

CAP_MARGIN_S = 0.4  # the most the computer's answer may come after its thinking budget


def think_budget(clocks: Clocks, player: Player, now: datetime, budget_s: float) -> float:
    """The computer's thinking time for its move: its usual ``budget_s``, but never more
    than a twentieth of its time left plus most of the increment."""
    control = clocks.control
    if not isinstance(control, RealTime) or not clocks.runs_for(player):
        return budget_s
    left = clocks.remaining(player, now) or 0.0
    return max(0.0, min(budget_s, left / 20 + 0.8 * control.increment_s, left - 1.0))


def wait_cap(clocks: Clocks, player: Player, now: datetime, budget_s: float, cap_s: float) -> float:
    """How long the server waits for the computer's thinking before it plays the quick move
    itself: its usual ``cap_s``, but on the clock the thinking budget plus a margin of at most
    a twentieth of the time left, so that a move waiting for a busy pool costs no more than
    a tenth of the time left and the computer never loses on time for want of a worker."""
    if not clocks.runs_for(player):
        return cap_s
    left = clocks.remaining(player, now) or 0.0
    return min(cap_s, budget_s + min(CAP_MARGIN_S, left / 20))


__all__ = ["CAP_MARGIN_S", "think_budget", "wait_cap"]
