"""What the replay and the analysis board read besides the live table.

- ``GET /t/{id}/position.json?ply=n``: the position after ``n`` moves (docs/protocol.md),
  replayed from the public record like the pictures, and kept, drawn (off the event
  loop) and budgeted like them.
- ``GET /t/{id}/you.json``: the seat this browser holds at the table (from its seat cookie),
  so the analysis page words the values from the viewer's side. Never cached, never a token.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.pictures import drawings
from playtable.tables import TableService
from playtable.web import pictures
from playtable.web.links import seat_token_from


async def position_json(request: Request) -> Response:
    return await pictures.answer(request, "json", drawings.position_json, "application/json")


async def you_json(request: Request) -> Response:
    table_id = request.path_params["table_id"]
    service: TableService = request.app.state.service
    headers = {"Cache-Control": "no-store", "Vary": "Cookie"}
    if not await service.exists(table_id):
        return JSONResponse({"error": "no such table"}, status_code=404, headers=headers)
    you = await service.seat_of(table_id, seat_token_from(request, table_id))
    return JSONResponse({"you": you}, headers=headers)


routes: list[BaseRoute] = [
    Route("/t/{table_id}/position.json", position_json, methods=["GET"], name="position_json"),
    Route("/t/{table_id}/you.json", you_json, methods=["GET"], name="you_json"),
]
