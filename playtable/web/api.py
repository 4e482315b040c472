"""The JSON API: create a table, read a table, download its record."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.ai import LEVELS
from playtable.games import GameError
from playtable.tables import AnalysisBusy, AnalysisRefused, TableNotFound, TableService, clocks
from playtable.web.bodies import read_body
from playtable.web.budgets import SOLVER_UNITS_A_SECOND, Budget, Budgets, over_budget

MAX_BODY = 16 * 1024


def _service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def too_many_tables(request: Request) -> Response | None:
    """The refusal for an address over its tables a minute, or ``None`` if it may create one."""
    seconds = await over_budget(request, Budget.TABLES)
    if seconds is None:
        return None
    per_minute = request.app.state.limits.tables_per_minute
    response = _error(
        429,
        f"too many new tables from your address (at most {per_minute} a minute); "
        f"try again in {seconds} s",
    )
    response.headers["Retry-After"] = str(seconds)
    return response


async def create_table(request: Request) -> Response:
    # Requiring JSON also keeps other sites out: a cross-site form cannot send this type.
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return _error(415, "send the table as JSON (Content-Type: application/json)")
    body = await read_body(request, MAX_BODY)
    if body is None:
        return _error(413, f"the request is larger than {MAX_BODY // 1024} KiB")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to parse
        return _error(400, "the request body is not valid JSON")
    if not isinstance(data, Mapping):
        return _error(400, 'expected a JSON object {"game", "options", "seat"}')
    unknown = sorted(set(data) - {"game", "options", "seat", "opponent", "time_control"})
    if unknown:
        return _error(400, f"unknown field {unknown[0]!r}")
    game = data.get("game")
    options = data.get("options", {})
    seat = data.get("seat", "random")
    if not isinstance(game, str):
        return _error(400, '"game" must be the name of a game, such as "dots"')
    if not isinstance(options, Mapping):
        return _error(400, '"options" must be a JSON object')
    if not isinstance(seat, str):
        return _error(400, '"seat" must be "red", "blue" or "random"')
    opponent = data.get("opponent")
    bot: str | None = None
    if opponent is not None:
        if not isinstance(opponent, Mapping) or set(opponent) != {"bot"}:
            return _error(400, '"opponent" must be {"bot": "easy"}, "medium" or "hard", or null')
        bot = opponent["bot"]
        if bot not in LEVELS:
            return _error(400, '"opponent" must be {"bot": "easy"}, "medium" or "hard", or null')
    try:
        control = clocks.from_json(data.get("time_control"))
    except GameError as error:
        return _error(400, str(error))
    refusal = await too_many_tables(request)
    if refusal is not None:
        return refusal
    service = _service(request)
    try:
        created = await service.create_table(game, options, seat, bot=bot, time_control=control)
    except GameError as error:
        return _error(400, str(error))
    body_out: dict[str, Any] = {
        "id": created.id,
        "seat": created.seat,
        "seat_url": str(
            request.url_for("seat_link", table_id=created.id, token=created.seat_token)
        ),
        "invite_url": None
        if bot
        else str(request.url_for("join_link", table_id=created.id, invite=created.invite_token)),
        "watch_url": str(request.url_for("watch", table_id=created.id)),
    }
    return JSONResponse(body_out, status_code=201)


async def get_table(request: Request) -> Response:
    try:
        return JSONResponse(await _service(request).api_view(request.path_params["table_id"]))
    except TableNotFound as error:
        return _error(404, error.message)


def _busy(seconds: int) -> Response:
    response = JSONResponse(
        {
            "error": f"too many analyses from your address; try again in {seconds} s",
            "code": "rate_limited",
            "retry_after": seconds,
        },
        status_code=429,
    )
    response.headers["Retry-After"] = str(seconds)
    return response


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _queue_full(error: AnalysisBusy) -> Response:
    response = JSONResponse(
        {"error": error.message, "code": error.code, "retry_after": error.retry_after},
        status_code=503,
    )
    response.headers["Retry-After"] = str(error.retry_after)
    return response


async def analysis(request: Request) -> Response:
    # A read of the stored values (the page asks about once a second while the background
    # analysis works): the reads' budget. The work it may queue is bounded apart (8 tables
    # waiting, each analysed once); the best moves, solved on request, spend the analyses'.
    wait = await over_budget(request, Budget.READS)
    if wait is not None:
        return _busy(wait)
    table_id = request.path_params["table_id"]
    try:
        return JSONResponse(await _service(request).analysis(table_id, _address(request)))
    except TableNotFound as error:
        return _error(404, error.message)
    except AnalysisRefused as error:
        return _error(409, error.message)
    except AnalysisBusy as error:
        return _queue_full(error)


async def best_moves(request: Request) -> Response:
    wait = await over_budget(request, Budget.ANALYSES)
    if wait is not None:
        return _busy(wait)
    ply = request.query_params.get("ply", "")
    if not (ply.isascii() and ply.isdigit()) or len(ply) > 4:
        return _error(400, '"ply" must be the number of moves before the position, such as 0')
    table_id = request.path_params["table_id"]
    address = _address(request)
    budgets: Budgets = request.app.state.budgets
    # An address that used up its solver time gets only the answers already kept.
    solver_wait = await budgets.left(Budget.SOLVER_TIME, address)
    try:
        found = await _service(request).best_moves(table_id, int(ply), address, solver_wait)
    except TableNotFound as error:
        return _error(404, error.message)
    except AnalysisRefused as error:
        return _error(409, error.message)
    except AnalysisBusy as error:
        # Out of its own solver time, the address waits; else the pool is full for everyone.
        return _busy(error.retry_after) if solver_wait is not None else _queue_full(error)
    if found.solver_s > 0:
        units = math.ceil(found.solver_s * SOLVER_UNITS_A_SECOND)
        await budgets.spend(Budget.SOLVER_TIME, address, units)
    return JSONResponse(found.answer)


async def record_text(request: Request) -> Response:
    table_id = request.path_params["table_id"]
    try:
        record = await _service(request).record(table_id)
    except TableNotFound as error:
        return PlainTextResponse(error.message, status_code=404)
    return PlainTextResponse(
        record.to_text(),
        headers={"Content-Disposition": f'inline; filename="playtable-{table_id}.txt"'},
    )


async def record_json(request: Request) -> Response:
    try:
        record = await _service(request).record(request.path_params["table_id"])
    except TableNotFound as error:
        return _error(404, error.message)
    return JSONResponse(record.to_json())


routes: list[BaseRoute] = [
    Route("/api/tables", create_table, methods=["POST"], name="api_create_table"),
    Route("/api/tables/{table_id}", get_table, methods=["GET"], name="api_table"),
    Route("/api/tables/{table_id}/analysis", analysis, methods=["GET"], name="api_analysis"),
    Route("/api/tables/{table_id}/analysis/best", best_moves, methods=["GET"], name="api_best"),
    Route("/t/{table_id}/record.json", record_json, methods=["GET"], name="record_json"),
    Route("/t/{table_id}/record", record_text, methods=["GET"], name="record_text"),
]
