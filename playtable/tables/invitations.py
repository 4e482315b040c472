"""The secrets of a table that the server derives from its own secret instead of storing them:
the table's invitation (to its free seat), each seat's own invitation at a table set up for two
other players (a club's organiser: the home form's colour "Neither"), and that table's
organiser key. Only the server can make them, and it can show them again at any time.
"""

from __future__ import annotations

import hmac
from collections.abc import Collection
from dataclasses import dataclass

from playtable.games import PLAYERS, Player
from playtable.store import TableRow
from playtable.tables import tokens

#: The stored invitation hash of a table set up for two others: no invitation's, so the
#: table's own invitation (to whichever seat is free) opens nothing there. Each seat is taken
#: with its own invitation only, and a player seated there is shown none to hand on: Red could
#: otherwise take Blue's seat too, from a second browser, and play the game against themselves.
FOR_OTHERS = ""


def for_others(row: TableRow) -> bool:
    """Whether the table was set up for two other players (the home form's "Neither")."""
    return row.invite_hash == FOR_OTHERS


@dataclass(frozen=True)
class Invitation:
    """What an invitation link opens: ``seat``, or whichever seat is free (``None``: the
    table's own invitation)."""

    seat: Player | None

    def free_seat(self, taken: Collection[Player]) -> Player | None:
        """The seat it gives at a table whose ``taken`` seats are taken, if it gives one."""
        return next((p for p in PLAYERS if p not in taken and self.seat in (None, p)), None)


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


class Invitations:
    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def table(self, table_id: str) -> str:
        """The table's invitation: the free seat goes to whoever takes it first (the store
        keeps its hash)."""
        return tokens.derive(self._secret, f"invite:{table_id}")

    def seat(self, table_id: str, player: Player) -> str:
        """The invitation to ``player``'s seat only, at a table set up for two others: a
        player handed it cannot end up in the other seat, nor a second person in this one."""
        return tokens.derive(self._secret, f"invite:{table_id}:{player}")

    def opened_by(self, table_id: str, token: str) -> Invitation | None:
        """What ``token`` invites to at the table, if it is one of its invitations; every
        candidate is compared (in constant time), so the time taken tells nothing."""
        found: Invitation | None = None
        if _same(token, self.table(table_id)):
            found = Invitation(None)
        for player in PLAYERS:
            if _same(token, self.seat(table_id, player)):
                found = Invitation(player)
        return found

    def opened_at(self, row: TableRow, token: str) -> Invitation | None:
        """What ``token`` invites to at the stored table ``row``: :meth:`opened_by`, but the
        table's own invitation only where the store keeps its hash (not at a table set up
        for two others)."""
        found = self.opened_by(row.id, token)
        if found is not None and found.seat is None and not tokens.matches(token, row.invite_hash):
            return None
        return found

    def organiser(self, table_id: str) -> str:
        """The key of the browser that set the table up for two others: it opens the players'
        links page and its news, and no seat."""
        return tokens.derive(self._secret, f"organiser:{table_id}")

    def is_organiser(self, table_id: str, token: str | None) -> bool:
        return token is not None and _same(token, self.organiser(table_id))


__all__ = ["FOR_OTHERS", "Invitation", "Invitations", "for_others"]
