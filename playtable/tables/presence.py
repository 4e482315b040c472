"""Who is connected: how many sockets each player has open at each table, in this process.

The bus's :class:`~playtable.bus.Presence` adds these counts up across processes; the
service reports a player's count whenever it changes between zero and more.
"""

from __future__ import annotations

from playtable.games import Player


class Presence:
    """Socket counts per (table, player) in this process."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, Player], int] = {}

    def add(self, table_id: str, player: Player) -> bool:
        """Count one more socket; ``True`` if the player just came online."""
        key = (table_id, player)
        self._counts[key] = self._counts.get(key, 0) + 1
        return self._counts[key] == 1

    def remove(self, table_id: str, player: Player) -> bool:
        """Count one socket less; ``True`` if the player just went offline."""
        key = (table_id, player)
        left = self._counts.get(key, 0) - 1
        if left > 0:
            self._counts[key] = left
            return False
        self._counts.pop(key, None)
        return left == 0

    def count(self, table_id: str, player: Player) -> int:
        return self._counts.get((table_id, player), 0)


__all__ = ["Presence"]
