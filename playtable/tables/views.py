"""What a table looks like from outside: the ``table`` object of docs/protocol.md, the
viewer's own fields, the API summary and the game record.

Pure functions of a :class:`~playtable.tables.table.LoadedTable`. The service knows no URL
formats: links are made by a :class:`Links` builder handed to it (the web layer's, built on
its named routes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from playtable.games import PLAYERS, GameError, Player, Termination, other
from playtable.games.records import GameRecord, clk_seconds
from playtable.store import TableRow
from playtable.tables import invitations
from playtable.tables.clocks import Unlimited
from playtable.tables.table import LoadedTable

#: The fields of the ``table`` object that depend on who is looking.
VIEWER_FIELDS = ("you", "invite_url")


class Links(Protocol):
    """The site's addresses of a table, as paths (``/t/…``)."""

    def seat(self, table_id: str, token: str) -> str: ...

    def invite(self, table_id: str, invite_token: str) -> str: ...

    def watch(self, table_id: str) -> str: ...


@dataclass(frozen=True)
class Census:
    """Who is at the table on any server process: the players online, and how many watch."""

    online: frozenset[str] = frozenset()
    spectators: int = 0


def seat_view(row: TableRow, player: Player, online: frozenset[str]) -> dict[str, Any]:
    if player in row.bots:
        return {"taken": True, "online": True, "bot": row.bots[player]}
    seat: dict[str, Any] = {"taken": player in row.seats, "online": player in online}
    if not seat["taken"] and invitations.for_others(row):
        seat["own_invitation"] = True  # only its own invitation seats anyone: none is shown
    if player in row.nicknames:
        seat["nickname"] = row.nicknames[player]
    return seat


#: The fields of the ``table`` object that change without a new version (who is online,
#: how many watch, the clocks as of now): every change message carries them whole.
LIVE_FIELDS = ("seats", "spectators", "clock")


def public(
    table: LoadedTable, census: Census, links: Links, now: datetime | None = None
) -> dict[str, Any]:
    """The ``table`` object as everybody may see it, with the viewer's own fields empty;
    ``clock`` as of ``now`` (``None`` for a table without a time control)."""
    return {**versioned(table, links), **live(table, census, now)}


def versioned(table: LoadedTable, links: Links) -> dict[str, Any]:
    """The public fields that only a new version of the table changes (all but
    :data:`LIVE_FIELDS`), with the viewer's own fields empty."""
    row = table.row
    outcome = table.outcome()
    if outcome is not None and table.game.outcome(table.state) is None:
        # Ended by resignation or agreement while the rules would still allow moves: the
        # board must not offer any.
        view = table.game.closed_view(table.state)
    else:
        view = table.game.view(table.state)
    return {
        "id": row.id,
        "game": row.game,
        "options": row.options,
        "version": row.version,
        "ply": table.ply,
        "moves": [m.move for m in table.moves],
        "movers": [m.player for m in table.moves],
        "to_move": table.to_move(),
        "outcome": None if outcome is None else outcome.to_json(),
        "you": None,
        "offers": table.offers.public(),
        "rematch_id": row.rematch_id,
        "invite_url": None,
        "watch_url": links.watch(row.id),
        "view": view,
        **clock_history(table),
    }


def clock_history(table: LoadedTable) -> dict[str, Any]:
    """``{"clock_history": [...]}`` once a timed game is over, else nothing: the mover's time
    left after each move, as the record's ``[%clk]`` writes it (for the replay's clocks).
    Never while the game runs, so that a move's patch does not grow with the game."""
    if table.outcome() is None or isinstance(table.time_control, Unlimited):
        return {}
    return {"clock_history": [clk_seconds(left or 0.0) for left in table.clocks().history]}


def versioned_after_move(
    before: Mapping[str, Any], table: LoadedTable
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """:func:`versioned` of ``table`` made from ``before`` (that of the version before it)
    when the change between them was one move, with the JSON Patch from ``before``: the
    game's :meth:`~playtable.games.base.Game.view_after` brings the board up to date from the
    move alone, where building the view again and comparing the two walks the whole board.
    ``None`` for any other change, or a game without the shortcut: build and compare then."""
    moves: list[str] = before["moves"]
    if (
        before["id"] != table.id
        or before["version"] != table.version - 1
        or len(moves) != table.ply - 1
    ):
        return None
    last = table.moves[-1]
    game = table.game
    outcome = table.outcome()
    if outcome is not None and game.outcome(table.state) is None:
        return None  # ended off the board (a clock that ran out): the closed view
    try:
        shortcut = game.view_after(before["view"], game.parse_move(last.move), table.state)
    except GameError:
        return None
    if shortcut is None:
        return None
    view, view_operations = shortcut
    body = {
        **before,
        "version": table.version,
        "ply": table.ply,
        "moves": [*moves, last.move],
        "movers": [*before["movers"], last.player],
        "to_move": table.to_move(),
        "outcome": None if outcome is None else outcome.to_json(),
        "offers": table.offers.public(),
        "rematch_id": table.row.rematch_id,
        "view": view,
    }
    operations: list[dict[str, Any]] = [
        {"op": "replace", "path": "/version", "value": table.version},
        {"op": "replace", "path": "/ply", "value": table.ply},
        {"op": "add", "path": "/moves/-", "value": last.move},
        {"op": "add", "path": "/movers/-", "value": last.player},
    ]
    for field in ("to_move", "outcome", "offers", "rematch_id"):
        if body[field] != before[field]:
            operations.append({"op": "replace", "path": f"/{field}", "value": body[field]})
    for field, value in clock_history(table).items():  # the move that ended a timed game
        body[field] = value
        operations.append({"op": "add", "path": f"/{field}", "value": value})
    operations += [{**op, "path": "/view" + op["path"]} for op in view_operations]
    return body, operations


def live(table: LoadedTable, census: Census, now: datetime | None) -> dict[str, Any]:
    """The :data:`LIVE_FIELDS` of the ``table`` object."""
    row = table.row
    return {
        "seats": {p: seat_view(row, p, census.online) for p in PLAYERS},
        "spectators": census.spectators,
        "clock": None if now is None else table.clocks().to_json(now),
    }


def personal(
    public_table: Mapping[str, Any], you: Player | None, invite_url: Callable[[], str]
) -> dict[str, Any]:
    """The viewer's own fields of ``public_table`` (:data:`VIEWER_FIELDS`): who they are and,
    for a player facing a free seat only, the invitation link (none at a table set up for two
    others, whose seats are taken with their own invitations only)."""
    free = public_table["seats"][other(you)] if you is not None else {"taken": True}
    facing_free_seat = not free["taken"] and not free.get("own_invitation")
    return {"you": you, "invite_url": invite_url() if facing_free_seat else None}


def api_view(table: LoadedTable) -> dict[str, Any]:
    """The public summary of ``GET /api/tables/{id}``: no token, no view."""
    outcome = table.outcome()
    running = outcome is None
    return {
        "id": table.row.id,
        "game": table.row.game,
        "options": table.row.options,
        "moves": table.move_texts(),
        "ply": table.ply,
        "version": table.version,
        "to_move": table.game.to_move(table.state) if running else None,
        "outcome": None if outcome is None else outcome.to_json(),
        "legal_moves": table.game.legal_move_texts(table.state) if running else [],
    }


_NAME_TAGS: tuple[tuple[str, Player], ...] = (("Red", "red"), ("Blue", "blue"))


def record(table: LoadedTable) -> GameRecord:
    """The game so far as a record (``to_text()``, ``to_json()``)."""
    outcome = table.outcome()
    result: str | None = None if outcome is None else (outcome.winner or "draw")
    if outcome is not None and outcome.reason is Termination.ABORTED:
        result = "aborted"
    # The names the players chose (PGN's White and Black); PGN's Date: the day the game
    # began; Reason: how it ended (docs/notation.md).
    metadata = {tag: table.row.nicknames[p] for tag, p in _NAME_TAGS if p in table.row.nicknames}
    metadata["Date"] = table.row.created_at.date().isoformat()
    if outcome is not None:
        metadata["Reason"] = outcome.reason.value
    control = table.time_control
    timed = not isinstance(control, Unlimited)
    return GameRecord(
        table.row.game,
        table.row.options,
        tuple(table.move_texts()),
        result,
        metadata,
        time_control=control.spec() if timed else None,
        clocks=table.clocks().history if timed else (),
    )


__all__ = [
    "LIVE_FIELDS",
    "VIEWER_FIELDS",
    "Census",
    "Links",
    "api_view",
    "clock_history",
    "live",
    "personal",
    "public",
    "record",
    "versioned",
]
