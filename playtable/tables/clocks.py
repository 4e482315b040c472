"""Time controls, and each side's clock derived from the stored moves' commit times.

A clock here is never a timer: what a side has left is a pure function of the table's time
control, the moves (who played each, when it was committed, how much transit it was
credited), when the table became full, and the moment asked about. So every server process,
and every process after a restart, computes the same clocks, and the one stored column the
rest of the site needs is the *deadline*: the moment the side to move runs out of time (or a
first move is overdue), which the store indexes and :mod:`playtable.tables.sweep` watches.

>>> control = parse("60+2")
>>> control
RealTime(base_s=60, increment_s=2)
>>> from datetime import UTC
>>> t0 = datetime(2026, 12, 1, tzinfo=UTC)
>>> moves = [Timed("red", t0 + timedelta(seconds=5)), Timed("blue", t0 + timedelta(seconds=9)),
...          Timed("red", t0 + timedelta(seconds=19))]
>>> clocks = derive(control, moves, "blue", seated_at=t0)
>>> clocks.history  # each mover's time left after the move, the increment added
(62.0, 62.0, 54.0)
>>> clocks.remaining("blue", t0 + timedelta(seconds=29))
52.0
>>> clocks.deadline == t0 + timedelta(seconds=19 + 62) + LAG_GRACE
True

Rules (docs/protocol.md "Clocks"):

- **Real time** (Fischer): each side has ``base_s`` seconds; the increment is added when the
  turn passes to the other player (a Dots and Boxes run of boxes is one turn). A side's clock
  starts on its first move: the first move itself costs nothing, but must come within
  :data:`FIRST_MOVE_S` of the turn reaching that side, or the table is aborted.
- **Correspondence**: ``days`` per move; the time left resets when the turn passes.
- No clock runs while a seat is free.
- A move is charged its time at the server minus the transit credited to it, at most
  :data:`LAG_BOUND_S`; so the server calls a flag only :data:`LAG_GRACE` after the clock shows
  zero, since a move still on its way may turn out to have been in time.
- Until both players have moved, running out of time aborts the table (no result).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from playtable.games import PLAYERS, Player, SettingsError
from playtable.tables.downtime import paused, utc

#: Seconds a real-time player has for their first move once the turn reaches them.
FIRST_MOVE_S = 60.0
#: The most transit time (seconds) one move is credited.
LAG_BOUND_S = 0.5
LAG_GRACE = timedelta(seconds=LAG_BOUND_S)
#: Real-time presets (minutes, increment seconds), the home form's choices.
PRESETS: tuple[tuple[int, int], ...] = ((1, 0), (3, 2), (5, 3), (10, 5), (15, 10))
#: Bounds of a real-time control: seconds of base time, seconds of increment.
BASE_MIN_S, BASE_MAX_S = 5, 3 * 3600
INCREMENT_MAX_S = 60
#: The days a correspondence move may take.
DAYS = (1, 2, 3, 5, 7, 14)
DAY_S = 86400


class TimeControlError(SettingsError):
    """A time control outside the documented choices and bounds."""


@dataclass(frozen=True, slots=True)
class Unlimited:
    """No clock (the default): ``spec`` ``"-"``, as PGN's TimeControl for none."""

    def spec(self) -> str:
        return "-"

    def to_json(self) -> dict[str, Any]:
        return {"kind": "unlimited"}


@dataclass(frozen=True, slots=True)
class RealTime:
    """Fischer clocks: ``base_s`` seconds a side, ``increment_s`` added each turn passed."""

    base_s: int
    increment_s: int = 0

    def __post_init__(self) -> None:
        if not BASE_MIN_S <= self.base_s <= BASE_MAX_S:
            raise TimeControlError(
                f"the time per player must be between {BASE_MIN_S} seconds and "
                f"{BASE_MAX_S // 60} minutes"
            )
        if not 0 <= self.increment_s <= INCREMENT_MAX_S:
            raise TimeControlError(f"the increment must be between 0 and {INCREMENT_MAX_S} seconds")

    def spec(self) -> str:
        return f"{self.base_s}+{self.increment_s}"

    def to_json(self) -> dict[str, Any]:
        minutes = self.base_s / 60
        return {
            "kind": "realtime",
            "minutes": int(minutes) if minutes.is_integer() else round(minutes, 4),
            "increment": self.increment_s,
        }


@dataclass(frozen=True, slots=True)
class Correspondence:
    """``days`` per move; ``spec`` is PGN's moves/seconds form, ``"1/259200"`` for 3 days."""

    days: int

    def __post_init__(self) -> None:
        if self.days not in DAYS:
            raise TimeControlError(
                f"correspondence days must be one of {', '.join(map(str, DAYS))}"
            )

    def spec(self) -> str:
        return f"1/{self.days * DAY_S}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": "correspondence", "days": self.days}


TimeControl = Unlimited | RealTime | Correspondence
UNLIMITED = Unlimited()

_REALTIME = re.compile(r"(\d{1,5})\+(\d{1,3})")
_CORRESPONDENCE = re.compile(r"1/(\d{1,8})")


def parse(spec: str | None) -> TimeControl:
    """The time control of a stored or recorded ``spec``; raises :class:`TimeControlError`.

    >>> parse("-"), parse("300+3"), parse("1/172800")
    (Unlimited(), RealTime(base_s=300, increment_s=3), Correspondence(days=2))
    """
    if spec in (None, "", "-"):
        return UNLIMITED
    assert spec is not None
    if match := _REALTIME.fullmatch(spec):
        return RealTime(int(match[1]), int(match[2]))
    if (match := _CORRESPONDENCE.fullmatch(spec)) and int(match[1]) % DAY_S == 0:
        return Correspondence(int(match[1]) // DAY_S)
    raise TimeControlError(f"not a time control: {spec!r}")


def from_json(data: Any) -> TimeControl:
    """The API's ``time_control`` (see docs/protocol.md); raises :class:`TimeControlError`.

    >>> from_json({"kind": "realtime", "minutes": 3, "increment": 2})
    RealTime(base_s=180, increment_s=2)
    >>> from_json(None)
    Unlimited()
    """
    if data is None:
        return UNLIMITED
    if not isinstance(data, Mapping):
        raise TimeControlError('"time_control" must be a JSON object with a "kind"')
    kind = data.get("kind")
    fields = {
        "unlimited": {"kind"},
        "realtime": {"kind", "minutes", "increment"},
        "correspondence": {"kind", "days"},
    }
    if not isinstance(kind, str) or kind not in fields:
        raise TimeControlError('"kind" must be "unlimited", "realtime" or "correspondence"')
    unknown = sorted(set(data) - fields[kind])
    if unknown:
        raise TimeControlError(f"unknown field {unknown[0]!r} in the time control")
    if kind == "unlimited":
        return UNLIMITED
    if kind == "correspondence":
        days = data.get("days")
        if type(days) is not int:
            raise TimeControlError('"days" must be a whole number')
        return Correspondence(days)
    minutes, increment = data.get("minutes"), data.get("increment", 0)
    if (
        not isinstance(minutes, int | float)
        or isinstance(minutes, bool)
        or type(increment) is not int
        or not -1e6 < minutes < 1e6  # NaN, infinities (JSON as Python reads it) and the absurd
    ):
        raise TimeControlError('"minutes" must be a number and "increment" a whole number')
    return RealTime(round(minutes * 60), increment)


class Expiry(enum.StrEnum):
    """What happens at a table's deadline."""

    FLAG = "flag"  # the side to move loses on time
    ABORT = "abort"  # not both players have moved: the table ends without a result


@dataclass(frozen=True, slots=True)
class Timed:
    """A move as the clock sees it: who played it, when it was committed, transit credited."""

    player: Player
    at: datetime
    lag_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Restart:
    """Where the clocks start again after a take-back: the moves from ``ply`` on were taken
    back at ``at``, and each side had ``left`` seconds then (real time; empty otherwise).

    Nobody's clock jumps at a take-back: the side whose move was taken back moves again from
    the moment it was allowed, with the time it had; the side that allowed it keeps the time
    its clock showed. (Derived from the remaining moves alone, the requester would be charged
    everything since the move before, the opponent's thinking and the wait included.)
    """

    ply: int
    at: datetime
    left: Mapping[Player, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "at": _iso(self.at), "left": dict(self.left)}

    @classmethod
    def from_json(cls, data: Any) -> Restart | None:
        """The stored restart, or None for none (or one that does not parse)."""
        if not isinstance(data, Mapping):
            return None
        try:
            at = datetime.fromisoformat(str(data["at"]).replace("Z", "+00:00"))
            left = {p: float(v) for p, v in dict(data.get("left") or {}).items() if p in PLAYERS}
            return cls(int(data["ply"]), utc(at), cast(Mapping[Player, float], left))
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class Clocks:
    """Both clocks of a table, derived from its moves; ask :meth:`remaining` at any moment."""

    control: TimeControl
    #: Real time: each side's time left when the current stretch began (``since``).
    banked: Mapping[Player, float] = field(default_factory=dict)
    #: Whose clock is counting down (``None``: nobody's, e.g. during a first-move window).
    running: Player | None = None
    #: The side to move while a deadline applies (the running side or a first mover).
    waiting_for: Player | None = None
    since: datetime | None = None
    deadline: datetime | None = None
    expiry: Expiry | None = None
    #: The mover's time left after each move (PGN's ``[%clk]``); ``None`` when unclocked.
    history: tuple[float | None, ...] = ()

    def remaining(self, player: Player, now: datetime) -> float | None:
        """Seconds ``player`` has left at ``now`` (never below 0); ``None`` without a clock."""
        control = self.control
        if isinstance(control, Unlimited):
            return None
        if isinstance(control, Correspondence):
            if player in self.banked:  # the side that ran out of time
                return self.banked[player]
            if self.waiting_for == player and self.deadline is not None:
                return max(0.0, (self.deadline - now).total_seconds())
            return float(control.days * DAY_S)
        left = self.banked.get(player, float(control.base_s))
        if self.running == player and self.since is not None:
            ran = (now - self.since).total_seconds() - paused(self.since, now)
            left -= max(0.0, ran)
        return max(0.0, left)

    def runs_for(self, player: Player) -> bool:
        """Whether ``player``'s real-time clock is running (its thinking costs it time)."""
        return isinstance(self.control, RealTime) and self.running == player

    def due(self, now: datetime) -> bool:
        """Whether the deadline has passed at ``now``."""
        return self.deadline is not None and now >= self.deadline

    def in_time(self, now: datetime, lag_s: float = 0.0) -> bool:
        """Whether a move arriving at ``now`` with ``lag_s`` of credited transit is in time."""
        if self.deadline is None:
            return True
        if self.expiry is Expiry.FLAG and isinstance(self.control, RealTime):
            return now - timedelta(seconds=min(lag_s, LAG_BOUND_S)) <= self.deadline - LAG_GRACE
        return now <= self.deadline

    def to_json(self, now: datetime) -> dict[str, Any] | None:
        """The ``clock`` object of the public table (docs/protocol.md), ``None`` unclocked."""
        if isinstance(self.control, Unlimited):
            return None
        return {
            "control": self.control.to_json(),
            "spec": self.control.spec(),
            "remaining": {p: _ms(self.remaining(p, now)) for p in PLAYERS},
            "running": self.running,
            "waiting_for": self.waiting_for,
            "deadline": None if self.deadline is None else _iso(self.deadline),
            "expiry": None if self.expiry is None else self.expiry.value,
            "now": _iso(now),
        }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


def _iso(moment: datetime) -> str:
    return utc(moment).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def derive(
    control: TimeControl,
    moves: Sequence[Timed],
    to_move: Player | None,
    seated_at: datetime | None,
    flagged: Player | None = None,
    ended: tuple[Player, datetime] | None = None,
    restarts: Sequence[Restart] = (),
) -> Clocks:
    """Both clocks after ``moves``; ``to_move`` is ``None`` once the game is over and
    ``seated_at`` is when the second seat was taken (``None`` while one is free);
    ``flagged`` is the player who lost on time (their clock shows zero). ``ended`` is who
    was on turn and when, for a game over off the board (a resignation, an agreement, a
    flag): the clocks stop as they stood then, the last move's increment earned and the
    side on turn charged its time so far. ``restarts``: the take-backs' (see
    :class:`Restart`), in the order they were made; the moves after each one's ply are
    timed from it. No clock runs while the whole site was down (:func:`paused`)."""
    if isinstance(control, Unlimited):
        return Clocks(control, history=tuple(None for _ in moves))
    seated = None if seated_at is None else utc(seated_at)
    started: set[Player] = set()
    history: list[float | None] = []
    banked: dict[Player, float] = {}
    previous: datetime | None = None
    turn_began: datetime | None = seated  # when the turn passed to the side now moving
    # (Restarts past the moves are not this list's: a take-back drops those it passes.)
    starting: dict[int, list[Restart]] = {}
    for restart in restarts:
        starting.setdefault(restart.ply, []).append(restart)
    for index, move in enumerate(moves):
        for restart in starting.get(index, ()):
            banked.update(restart.left)
            previous = turn_began = restart.at
        at = utc(move.at)
        if index + 1 < len(moves):
            following: Player | None = moves[index + 1].player
        else:  # after the last move: the side to move, or the one on turn when it ended
            following = to_move if to_move is not None or ended is None else ended[0]
        if isinstance(control, RealTime):
            left = banked.get(move.player, float(control.base_s))
            if move.player in started and seated is not None and at >= seated:
                began = max(previous or seated, seated)
                stretch = (at - began).total_seconds() - paused(began, at)
                left -= max(0.0, stretch - min(move.lag_s, LAG_BOUND_S))
            if following is not None and following != move.player:
                left += control.increment_s
            banked[move.player] = left
            history.append(left)
        else:
            began = turn_began if turn_began is not None else at
            used = (at - began).total_seconds() - paused(began, at)
            history.append(max(0.0, control.days * DAY_S - used))
        started.add(move.player)
        previous = at
        if following is not None and following != move.player:
            turn_began = at if seated is None else max(at, seated)
    for restart in starting.get(len(moves), ()):
        banked.update(restart.left)
        previous = turn_began = restart.at
    if to_move is None and ended is not None and isinstance(control, RealTime):
        player, stopped = ended[0], utc(ended[1])
        if player in started and seated is not None:
            since = max(previous, seated) if previous is not None else seated
            spent = max(0.0, (stopped - since).total_seconds() - paused(since, stopped))
            banked[player] = max(0.0, banked.get(player, float(control.base_s)) - spent)
    if flagged is not None:
        banked[flagged] = 0.0  # its clock shows zero (in correspondence too, not its days)
    if to_move is None or seated is None:
        return Clocks(control, banked, history=tuple(history))
    since = max(previous, seated) if previous is not None else seated
    expiry = Expiry.FLAG if started == set(PLAYERS) else Expiry.ABORT
    if isinstance(control, Correspondence):
        began = turn_began if turn_began is not None else since
        deadline = began + timedelta(days=control.days, seconds=paused(began))
        return Clocks(control, banked, None, to_move, since, deadline, expiry, tuple(history))
    if to_move not in started:
        deadline = since + timedelta(seconds=FIRST_MOVE_S + paused(since))
        return Clocks(control, banked, None, to_move, since, deadline, Expiry.ABORT, tuple(history))
    left = banked.get(to_move, float(control.base_s))
    deadline = since + timedelta(seconds=left + paused(since)) + LAG_GRACE
    return Clocks(control, banked, to_move, to_move, since, deadline, expiry, tuple(history))


def transit_credit(clocks: Clocks, now: datetime, think_s: float | None) -> float:
    """The transit a move is credited: its time at the server (since its turn's stretch
    began) minus the thinking time the page measured, within ``[0, LAG_BOUND_S]``."""
    if think_s is None or clocks.since is None or think_s < 0:
        return 0.0
    at_server = (utc(now) - clocks.since).total_seconds() - paused(clocks.since, utc(now))
    return min(LAG_BOUND_S, max(0.0, at_server - think_s))


__all__ = [
    "DAYS",
    "FIRST_MOVE_S",
    "LAG_BOUND_S",
    "PRESETS",
    "UNLIMITED",
    "Clocks",
    "Correspondence",
    "Expiry",
    "RealTime",
    "TimeControl",
    "TimeControlError",
    "Timed",
    "Unlimited",
    "derive",
    "from_json",
    "parse",
    "transit_credit",
    "utc",
]
