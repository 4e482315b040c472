"""Who holds the sockets of this process, so that no one address can crowd out the rest.

Seated players always get in: the cap on a table's sockets counts spectators only, and a
seat has a (generous) cap of its own. Every address has a cap on its sockets in all and on
one table, so a single machine cannot exhaust the process's file descriptors or a table's
spectator places. The counts live in each process; a balancer spreads addresses anyway.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TypeVar

from playtable.games import Player
from playtable.web.limits import Limits

K = TypeVar("K")


@dataclass(frozen=True)
class Place:
    """One admitted socket: what it counts against."""

    table_id: str
    address: str
    player: Player | None


class Connections:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.spectators: Counter[str] = Counter()  # table -> spectator sockets
        self.seats: Counter[tuple[str, Player]] = Counter()  # (table, seat) -> sockets
        self.by_address: Counter[str] = Counter()
        self.by_address_table: Counter[tuple[str, str]] = Counter()

    def admit(self, table_id: str, address: str, player: Player | None) -> Place | None:
        """Count a new socket in, or ``None`` if one of the caps says no."""
        limits = self.limits
        if player is not None:
            if self.seats[(table_id, player)] >= limits.sockets_per_seat:
                return None
        else:
            if self.spectators[table_id] >= limits.sockets_per_table:
                return None
            if self.by_address[address] >= limits.sockets_per_address:
                return None
            if self.by_address_table[(address, table_id)] >= limits.sockets_per_address_per_table:
                return None
        place = Place(table_id, address, player)
        if player is not None:
            self.seats[(table_id, player)] += 1
        else:
            self.spectators[table_id] += 1
        self.by_address[address] += 1
        self.by_address_table[(address, table_id)] += 1
        return place

    def release(self, place: Place) -> None:
        _drop(self.by_address, place.address)
        _drop(self.by_address_table, (place.address, place.table_id))
        if place.player is not None:
            _drop(self.seats, (place.table_id, place.player))
        else:
            _drop(self.spectators, place.table_id)


def _drop(counter: Counter[K], key: K) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


__all__ = ["Connections", "Place"]
