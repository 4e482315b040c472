"""The tables this browser set up for two other players (the home form's colour "Neither").

Each is a cookie, ``po_{table_id}``, holding Red's key
(:func:`playtable.web.links.set_organiser_cookie`); My games lists those whose key still opens
Red's seat, with their players and results. The players' links page itself is
:mod:`playtable.web.organiser`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.requests import Request

from playtable.tables import TableNotFound, TableService, tokens
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


def organiser_cookies(request: Request) -> list[tuple[str, str]]:
    """``(table id, Red's key)`` of the tables this browser set up for others (unchecked),
    the newest ``MAX_ORGANISED``."""
    return table_cookies(request, ORGANISER_COOKIE_PREFIX, MAX_ORGANISED)


async def organised_tables(service: TableService, request: Request) -> list[OrganisedTable]:
    """The tables this browser set up for two other players whose key still opens Red's seat,
    and the rematches their players made of them (the seats of a rematch are derived from
    the last table's keys, so Red's key finds them too): the running ones first, then the
    finished; the last played first within each. At most ``MAX_ORGANISED`` tables are read."""
    tables: list[OrganisedTable] = []
    for table_id, token in organiser_cookies(request):
        if await service.seat_of(table_id, token) != "red":
            continue  # Red has made a new link since: the links are no longer this browser's
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
            next_id = table.get("rematch_id")
            if next_id is not None:
                token = tokens.rematch_token(token, next_id)
                if await service.seat_of(next_id, token) is None:
                    break  # the rematch's seats are not from these keys: not this evening's
            rematch += 1
    return sorted(tables, key=lambda t: (not t.running, -t.last_played.timestamp()))


__all__ = ["MAX_ORGANISED", "OrganisedTable", "organised_tables", "organiser_cookies"]
