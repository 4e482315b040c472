"""Exact values of Dots and Boxes positions made only of chains and loops, in both scorings.

Seen as strings and coins (a cell is a coin, a free line a string, the border the ground),
a position where no open cell has three or more free lines falls apart into *paths* and
*cycles*: every coin has at most two strings. Such a position is described, up to
isomorphism, by the multiset of its components, and its future play depends on nothing else.
So its value is the value of a small abstract game on that multiset, which does not depend on
the board at all: the same table serves square, triangle and hexagon grids, and normal and
misère scoring alike (the scoring only sets the sign of a capture).

A component is a pair ``(n, kind)``: ``n`` coins and

- ``GG`` (2): a path with a string to the ground at both ends (a chain between two border
  lines),
- ``GB`` (1): a path with a ground string at one end; the coin at the other end hangs on one
  string and can be taken,
- ``BB`` (0): a path whose two end coins can both be taken (a chain opened at both ends),
- ``LOOP`` (3): a cycle of ``n`` coins.

The value is the solver's ``u`` (see :mod:`playtable.ai.dots_solver`): net coins for the
side to move, each coin counting ``w`` (+1 normal, -1 misère), with the recurrence
``u(s) = max over strings of (w * k + u(s') if the cut takes k coins, else -u(s'))``.
No reasoning about control or double-dealing is built in: every cut is tried, so the values
are exact in misère too, and loops of any length (the three-coin loops of the hexagon grid
included) are covered. Symmetric cuts are tried once and results are memoised per process.
"""

from __future__ import annotations

import math
import time

BB, GB, GG, LOOP = 0, 1, 2, 3

Component = tuple[int, int]
State = tuple[Component, ...]

# Components taken whole by one line: a lone coin on a ground string, two coins sharing
# their last string. Their coins are "dead" (see ``value``).
_DEAD = {(1, GB): 1, (2, BB): 2}

_MEMO: dict[tuple[State, int, int], int] = {}
MAX_MEMO = 2_000_000  # entries kept before the memo is emptied
_CHECK_EVERY = 0x3FF  # calls between two looks at the clock
_calls = 0
MAX_LOONY = 1 << 16  # loony endgames kept (loony_value) before that memo is emptied
_LOONY: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}


class SolverTimeout(Exception):
    """The solve did not finish within its time budget (also
    :class:`playtable.ai.dots_solver.SolverTimeout`)."""


def _path(n: int, kind: int, out: list[Component]) -> int:
    """Append the path of ``n`` coins of ``kind`` to ``out``; returns coins it takes at once
    (a single coin with no string left is captured)."""
    if n == 1 and kind == BB:
        return 1
    out.append((n, kind))
    return 0


def cuts(component: Component) -> list[tuple[int, tuple[Component, ...]]]:
    """Every distinct result of cutting one string of ``component``: (coins taken, parts)."""
    n, kind = component
    results: list[tuple[int, tuple[Component, ...]]] = []
    if kind == LOOP:
        return [(0, ((n, BB),))]
    if kind == GG:
        results.append((0, ((n, GB),)))  # a ground string (both are alike)
        for i in range(1, n // 2 + 1):
            results.append((0, ((i, GB), (n - i, GB))))
        return results
    if kind == GB:
        # The ground string: the coin on it drops to one string (or is taken, if alone).
        results.append((1, ()) if n == 1 else (0, ((n, BB),)))
        for i in range(1, n):
            parts: list[Component] = [(i, GB)]
            taken = _path(n - i, BB, parts)
            results.append((taken, tuple(parts)))
        return results
    # BB: only the n - 1 strings between coins; cutting near either end is alike.
    for i in range(1, n // 2 + 1):
        parts = []
        taken = _path(i, BB, parts) + _path(n - i, BB, parts)
        results.append((taken, tuple(parts)))
    return results


def value(state: State, w: int, deadline: float = math.inf) -> int:
    """The ``u`` value of the side to move; ``state`` is a sorted tuple of components.

    Dead components (taken whole by one line) are set apart first. In normal scoring taking
    them at once is optimal (the opponent could take them as well, for the same count). In
    misère taking one is never better than playing on and leaving its coins to whoever takes
    the last coin elsewhere (the same holds for the opponent), so only their number matters.
    A position of long chains and loops of four or more alone, in normal scoring, is valued by
    the classic formula (:func:`loony_value`); everything else is searched. Raises
    :class:`SolverTimeout` past ``deadline`` (a :func:`time.perf_counter` time); what was
    finished stays in the memo.
    """
    rest, dead = _split(state)
    if w > 0:
        if all(kind == GG or (kind == LOOP and n >= 4) for n, kind in rest):
            return dead + loony_value(
                tuple(n for n, kind in rest if kind == GG),
                tuple(n for n, kind in rest if kind == LOOP),
                deadline,
            )
        return dead + _value(rest, 0, w, deadline)
    return _value(rest, dead, w, deadline)


def _split(parts: State | list[Component]) -> tuple[State, int]:
    """(the components that are not dead, sorted; the coins of the dead ones)."""
    dead = 0
    rest = []
    for part in parts:
        coins = _DEAD.get(part)
        if coins:
            dead += coins
        else:
            rest.append(part)
    rest.sort()
    return tuple(rest), dead


def _value(state: State, dead: int, w: int, deadline: float) -> int:
    """``u`` of ``state`` plus ``dead`` set-apart coins (misère; always 0 in normal scoring):
    they go to whoever takes the last coin of ``state``."""
    if not state:
        return w * dead  # the side to move must take them
    key = (state, dead, w)
    known = _MEMO.get(key)
    if known is not None:
        return known
    global _calls
    _calls += 1
    if not _calls & _CHECK_EVERY and time.perf_counter() > deadline:
        raise SolverTimeout
    best = -(1 << 20)
    previous = None
    for index, component in enumerate(state):
        if component == previous:
            continue  # an identical component: the same moves
        previous = component
        rest = state[:index] + state[index + 1 :]
        for taken, parts in cuts(component):
            after, more = _split(rest + parts) if parts else (rest, 0)
            if w > 0:
                # Normal scoring: new dead coins are taken at once, by whoever moves next.
                if taken:
                    result = taken + more + _value(after, 0, w, deadline)
                else:
                    result = -(more + _value(after, 0, w, deadline))
            elif taken:
                result = -taken + _value(after, dead + more, w, deadline)
            else:
                result = -_value(after, dead + more, w, deadline)
            if result > best:
                best = result
    if len(_MEMO) >= MAX_MEMO:
        _MEMO.clear()
    _MEMO[key] = best
    return best


def loony_value(chains: tuple[int, ...], loops: tuple[int, ...], deadline: float = math.inf) -> int:
    """Net coins for the side to move, normal scoring, with only chains between two ground
    strings (``chains``, sorted lengths) and loops of four or more (``loops``): whoever moves
    must open one, and the other side either takes it all and moves next, or keeps control by
    declining the last two coins of a chain of three or more (four of a loop); a chain of two
    is opened in its middle, which leaves no such choice (Berlekamp). Checked against the
    search in the tests.

    The work grows with the sub-multisets of the strings (two to the power of their number
    when their lengths differ), so a big board's endgame of thirty strings can take minutes:
    raises :class:`SolverTimeout` past ``deadline`` like :func:`value`."""
    if not chains and not loops:
        return 0
    key = (chains, loops)
    known = _LOONY.get(key)
    if known is not None:
        return known
    global _calls
    _calls += 1
    if not _calls & _CHECK_EVERY and time.perf_counter() > deadline:
        raise SolverTimeout
    best = -(1 << 20)
    for i, n in enumerate(chains):
        if i and chains[i - 1] == n:
            continue
        rest = loony_value(chains[:i] + chains[i + 1 :], loops, deadline)
        taken = n + rest
        controller = taken if n <= 2 else max(taken, n - 4 - rest)
        best = max(best, -controller)
    for i, n in enumerate(loops):
        if i and loops[i - 1] == n:
            continue
        rest = loony_value(chains, loops[:i] + loops[i + 1 :], deadline)
        controller = max(n + rest, n - 8 - rest)
        best = max(best, -controller)
    if len(_LOONY) >= MAX_LOONY:
        _LOONY.clear()
    _LOONY[key] = best
    return best


__all__ = ["BB", "GB", "GG", "LOOP", "SolverTimeout", "cuts", "loony_value", "value"]
