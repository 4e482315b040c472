"""Who holds the sockets of this process, so that no one address can crowd out the rest.

Seated players always get in: the cap on a table's sockets counts spectators only, and a
seat has a (generous) cap of its own. Every address has a cap on its sockets in all and on
one table, so a single machine cannot exhaust the process's file descriptors or a table's
spectator places. The counts live in each process; a balancer spreads addresses anyway.

A refusal is explained once: the first socket an address has refused is accepted to be told
why (``too_many_connections``, ``rate_limited``), and the spectator sockets it opens again
while the reason still holds are refused at the handshake (HTTP 403) before any work, so a
client that reconnects in a loop costs an HTTP request each, not a table read and a message.
When the process sees its clients' own addresses (no proxy in front), an address over its join
budget has its WebSocket upgrades refused even before that, by the HTTP protocol
(:data:`UPGRADES_REFUSED`, read by :mod:`playtable.web.server`): answered 429 with the seconds
to wait, before any WebSocket or application work; and an address told that it holds as many
sockets as it may has its upgrades without a seat cookie answered 403 there
(:data:`SPECTATORS_FULL`) until one of its sockets closes.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from playtable.games import Player
from playtable.web.limits import Limits, TokenBucket

K = TypeVar("K")

#: Client addresses whose WebSocket upgrades this process refuses, until a ``time.monotonic()``
#: time. Process-wide: the HTTP protocol has no application to ask (web/server.py).
UPGRADES_REFUSED: dict[str, float] = {}
#: Client addresses that hold as many spectator sockets as one address may, with the
#: ``time.monotonic()`` time they were told so: the HTTP protocol refuses their upgrades that
#: carry no seat cookie (a spectator's) for ``TOLD_FOR`` seconds from then.
SPECTATORS_FULL: dict[str, float] = {}

TOLD_FOR = 10.0  # seconds a refusal explained to an address is not explained again
#: A seated player's quick messages: this many at once, then one every ``1 / TALK_RATE`` s,
#: counted per seat, whatever number of sockets (or pages) the player sends them from.
TALK_BURST = 3
TALK_RATE = 0.25
REMEMBERED = 10_000  # addresses remembered at most (told, or over their join budget)


class SeatHolder(Protocol):
    """A seated socket, as the caps see it: the key it was opened with, and a way to count
    it out at once when that key no longer opens its seat."""

    token: str | None

    def evict(self) -> None: ...


@dataclass(frozen=True, eq=False)
class Place:
    """One admitted socket: what it counts against (each place is its own, by identity)."""

    table_id: str
    address: str
    player: Player | None
    holder: SeatHolder | None = field(default=None, repr=False)


class Connections:
    def __init__(
        self, limits: Limits, clock: Callable[[], float] = time.monotonic, direct: bool = False
    ) -> None:
        self.limits = limits
        self.clock = clock
        self.direct = direct  # the client addresses are the connections' own (no proxy)
        self._told: dict[str, float] = {}  # address -> when a cap refusal was explained to it
        self._cooling: dict[str, float] = {}  # address -> until when its joins are refused
        self.spectators: Counter[str] = Counter()  # table -> spectator sockets
        self.seats: Counter[tuple[str, Player]] = Counter()  # (table, seat) -> sockets
        self.by_address: Counter[str] = Counter()
        self.by_address_table: Counter[tuple[str, str]] = Counter()
        self.holders: dict[tuple[str, Player], list[Place]] = {}  # a seat's admitted sockets
        self._talk: dict[tuple[str, Player], TokenBucket] = {}  # (table, seat) -> its allowance

    def admit(
        self,
        table_id: str,
        address: str,
        player: Player | None,
        holder: SeatHolder | None = None,
    ) -> Place | None:
        """Count a new socket in, or ``None`` if one of the caps says no.

        A seat has one key: when its cap is reached, the sockets still counted there that
        were opened with another key than ``holder``'s (a link since replaced: ones that
        never joined, so heard no ``seat_key_replaced``) are counted out first, so that
        the owner's new link gets in at once."""
        if player is not None and holder is not None and self.full(table_id, address, player):
            for stale in list(self.holders.get((table_id, player), ())):
                if stale.holder is not None and stale.holder.token != holder.token:
                    stale.holder.evict()
        if self.full(table_id, address, player):
            return None
        place = Place(table_id, address, player, holder)
        if player is not None:
            self.seats[(table_id, player)] += 1
            self.holders.setdefault((table_id, player), []).append(place)
        else:
            self.spectators[table_id] += 1
        self.by_address[address] += 1
        self.by_address_table[(address, table_id)] += 1
        return place

    def full(self, table_id: str, address: str, player: Player | None) -> bool:
        """Whether one of the caps refuses a new socket (nothing counted)."""
        limits = self.limits
        if player is not None:
            return self.seats[(table_id, player)] >= limits.sockets_per_seat
        return (
            self.spectators[table_id] >= limits.sockets_per_table
            or self.by_address[address] >= limits.sockets_per_address
            or self.by_address_table[(address, table_id)] >= limits.sockets_per_address_per_table
        )

    def told_lately(self, address: str) -> bool:
        """Whether the address was told within ``TOLD_FOR`` seconds why a cap refused it: its
        next refused sockets need no explanation."""
        told = self._told.get(address)
        return told is not None and self.clock() - told < TOLD_FOR

    def tell(self, address: str) -> None:
        """The address is being told why a cap refused it."""
        now = self.clock()
        _remember(self._told, address, now, lambda at: now - at < TOLD_FOR)
        if self.direct and self.by_address[address] >= self.limits.sockets_per_address:
            real = time.monotonic()
            _remember(SPECTATORS_FULL, address, real, lambda at: real - at < TOLD_FOR)

    def cool_down(self, address: str, seconds: float) -> None:
        """The address's joins are over its budget for ``seconds`` (it was told so)."""
        now = self.clock()
        _remember(self._cooling, address, now + seconds, lambda until: until > now)
        if self.direct:
            real = time.monotonic()
            _remember(UPGRADES_REFUSED, address, real + seconds, lambda until: until > real)

    def cooling(self, address: str) -> bool:
        """Whether the address's joins are still over their budget, as it was told."""
        until = self._cooling.get(address)
        return until is not None and self.clock() < until

    def may_talk(self, table_id: str, player: Player) -> bool:
        """Whether the seat may send a quick message now (one of its allowance is spent).
        Kept per seat, not per socket: a player with sixteen sockets open had sixteen times
        the allowance. A seat's allowance outlives its sockets (closing them all and opening
        new ones gives nothing back); those full again are forgotten when many are kept."""
        now = self.clock()
        key = (table_id, player)
        if key not in self._talk and len(self._talk) >= REMEMBERED:
            for seat in [seat for seat, kept in self._talk.items() if _refilled(kept, now)]:
                del self._talk[seat]
        bucket = self._talk.get(key)
        if bucket is None:
            bucket = self._talk[key] = TokenBucket(TALK_BURST, TALK_RATE)
            bucket.checked_at = now
        return bucket.take(now)

    def release(self, place: Place) -> None:
        if self.direct:
            SPECTATORS_FULL.pop(place.address, None)  # a place is free again
        _drop(self.by_address, place.address)
        _drop(self.by_address_table, (place.address, place.table_id))
        if place.player is not None:
            _drop(self.seats, (place.table_id, place.player))
            key = (place.table_id, place.player)
            held = self.holders.get(key, [])
            if place in held:
                held.remove(place)
            if not held:
                self.holders.pop(key, None)
        else:
            _drop(self.spectators, place.table_id)


def _remember(
    memory: dict[str, float], address: str, value: float, current: Callable[[float], bool]
) -> None:
    """``memory[address] = value``, forgetting what is no longer ``current`` when full."""
    if len(memory) >= REMEMBERED and address not in memory:
        for key in [key for key, kept in memory.items() if not current(kept)]:
            del memory[key]
        if len(memory) >= REMEMBERED:
            memory.clear()
    memory[address] = value


def _refilled(bucket: TokenBucket, now: float) -> bool:
    """Whether ``bucket`` holds its whole burst again at ``now`` (a new one is the same)."""
    return bucket.allowance + (now - bucket.checked_at) * bucket.rate >= bucket.burst


def _drop(counter: Counter[K], key: K) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


__all__ = ["SPECTATORS_FULL", "UPGRADES_REFUSED", "Connections", "Place"]
