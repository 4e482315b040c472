"""The tables this browser set up for two other players (the home form's colour "Neither").

Each is a cookie, ``po_{table_id}``, holding the table's organiser key
(:func:`playtable.web.links.set_organiser_cookie`); My games lists those tables, with their
players and results, and the rematches their players made. The players' links page itself is
:mod:`playtable.web.organiser`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.requests import Request

from playtable.tables import TableNotFound, TableService, invitations, tokens
from playtable.web.budgets import Budget, over_budget
from playtable.web.links import ORGANISER_COOKIE_PREFIX, table_cookies

#: The most tables set up for others that one request is checked for (an evening's dozen).
MAX_ORGANISED = 50


@dataclass(frozen=True)
class OrganisedTable:
    """A table this browser set up for two other players, or a rematch its players made of
    it (``rematch``: the how-manieth, 0 for the table itself), as My games lists it."""

    table: Mapping[str, Any]  # the public table
    running: bool
    last_played: datetime
    rematch: int = 0


async def organiser_of(service: TableService, table_id: str, token: str | None) -> bool:
    """Whether ``token`` (this browser's organiser cookie) is the table's organiser key, or
    Red's key at a table set up before the seats had invitations of their own (while it
    still opens Red's seat); raises :class:`TableNotFound`. Never Red's key at a table set
    up with the seats' own invitations: Red's player would find Blue's invitation there."""
    row = await service.store.table(table_id)  # the row alone: this page has no budget
    if row is None:
        raise TableNotFound(table_id)
    if service.invitations.is_organiser(table_id, token):
        return True
    return not invitations.for_others(row) and tokens.seat_holding(row.seats, token) == "red"


def organiser_cookies(request: Request) -> list[tuple[str, str]]:
    """``(table id, organiser key)`` of the tables this browser set up for others (unchecked),
    the newest ``MAX_ORGANISED``."""
    return table_cookies(request, ORGANISER_COOKIE_PREFIX, MAX_ORGANISED)


async def organised_tables(service: TableService, request: Request) -> list[OrganisedTable]:
    """The tables this browser set up for two other players (:func:`organiser_of`), and the
    rematches their players made of them: the running ones first, then the finished; the
    last played first within each. At most ``MAX_ORGANISED`` tables are read."""
    tables: list[OrganisedTable] = []
    for table_id, token in organiser_cookies(request):
        try:
            if not await organiser_of(service, table_id, token):
                continue  # not this browser's, or (Red's key) Red has made a new link since
        except TableNotFound:
            continue
        rematch = 0
        next_id: str | None = table_id
        while next_id is not None and len(tables) < MAX_ORGANISED:
            try:
                loaded = await service.load(next_id)
                table = await service.snapshot(next_id, None)
            except TableNotFound:
                break
            tables.append(
                OrganisedTable(table, table["outcome"] is None, loaded.last_played, rematch)
            )
            next_id = table.get("rematch_id")  # made by the table's own players
            rematch += 1
            if next_id is not None and await over_budget(request, Budget.READS) is not None:
                break  # a read of the budget each, as the cookies' own tables (my_games.py)
    return sorted(tables, key=lambda t: (not t.running, -t.last_played.timestamp()))


__all__ = [
    "MAX_ORGANISED",
    "OrganisedTable",
    "organised_tables",
    "organiser_cookies",
    "organiser_of",
]
