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

BB, GB, GG, LOOP = 0, 1, 2, 3

Component = tuple[int, int]
State = tuple[Component, ...]

_MEMO: dict[tuple[State, int], int] = {}
MAX_MEMO = 2_000_000  # entries kept before the memo is emptied


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


def value(state: State, w: int) -> int:
    """The ``u`` value of the side to move; ``state`` is a sorted tuple of components."""
    if not state:
        return 0
    key = (state, w)
    known = _MEMO.get(key)
    if known is not None:
        return known
    best = -(1 << 20)
    previous = None
    for index, component in enumerate(state):
        if component == previous:
            continue  # an identical component: the same moves
        previous = component
        rest = state[:index] + state[index + 1 :]
        for taken, parts in cuts(component):
            after = tuple(sorted(rest + parts)) if parts else rest
            result = w * taken + value(after, w) if taken else -value(after, w)
            if result > best:
                best = result
    if len(_MEMO) >= MAX_MEMO:
        _MEMO.clear()
    _MEMO[key] = best
    return best


__all__ = ["BB", "GB", "GG", "LOOP", "cuts", "value"]
