"""The seat at a rematch this browser never visited, found from the game it played before.

A rematch's seat keys are derived from the last game's (``tokens.rematch_token``), so the
browser that holds a seat of a game holds its seat in every rematch that followed, without a
cookie of its own. My games follows them forward (my_games.py). A table page opened straight
at a rematch needs the same: a correspondence player proposes a rematch and closes the tab,
the opponent accepts it days later, and the push of it opens the rematch's page, which showed
the player a spectator's view of their own game.
"""

from __future__ import annotations

from starlette.requests import Request

from playtable.store import Store
from playtable.tables import TableService, tokens
from playtable.web.my_games import seat_cookies

# Rematches followed from a game this browser holds: one statement each (by primary key).
# A browser that missed more rematches in a row than this finds them in My games.
MAX_REMATCHES_BEHIND = 3


async def derived_seat_token(request: Request, table_id: str) -> str | None:
    """The seat key at ``table_id`` that this browser's seat of an earlier game (of which
    ``table_id`` is a rematch, or a rematch of a rematch) opens, if any: checked, so a seat
    whose link was replaced at the rematch since is not found."""
    held = dict(seat_cookies(request))
    if table_id in held or not held:
        return None
    service: TableService = request.app.state.service
    store: Store = request.app.state.store
    frontier = held
    for _ in range(MAX_REMATCHES_BEHIND):
        following = await store.rematch_ids(sorted(frontier))
        ahead: dict[str, str] = {}
        for old_id, new_id in following.items():
            token = tokens.rematch_token(frontier[old_id], new_id)
            if new_id == table_id:
                if await service.seat_of(table_id, token) is not None:
                    return token
            elif new_id not in held:
                ahead[new_id] = token
        if not ahead:
            return None
        frontier = ahead
    return None


__all__ = ["MAX_REMATCHES_BEHIND", "derived_seat_token"]
