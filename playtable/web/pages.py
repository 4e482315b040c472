"""The table page, its spectator view and its analysis page, and the static files.

Pages only read tables through ``request.app.state.service`` (the table service) and the
seat-cookie helpers of :mod:`playtable.web.links`; everything live happens over the
WebSocket once the page has loaded. The home page and its form are :mod:`playtable.web.home`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from playtable import games
from playtable.ai.analysis import analysable
from playtable.tables import AnalysisRefused, TableNotFound
from playtable.web import home
from playtable.web.client_strings import client_strings
from playtable.web.csrf import csrf_token, set_csrf_cookie
from playtable.web.errors import error_page, table_not_found
from playtable.web.links import seat_token_from
from playtable.web.presentation import board_label, bot_names, game_title, settings_summary
from playtable.web.templating import STATIC_DIR, gettext_for, render
from playtable.web.timing import table_time


# -- the table page -------------------------------------------------------------------------
async def _table(request: Request, *, watch: bool) -> Response:
    table_id = request.path_params["table_id"]
    service = request.app.state.service
    catalog = gettext_for(request)
    try:
        you = None if watch else await service.seat_of(table_id, seat_token_from(request, table_id))
        table = await service.snapshot(table_id, you)
    except TableNotFound:
        return table_not_found(request)
    _ = catalog.gettext
    title = game_title(table["game"], catalog)
    ws_url = request.url_for("table_socket", table_id=table_id).path + ("" if you else "?watch=1")
    page_data = {"table": table, "you": you, "ws_url": ws_url, "version": table.get("version")}
    token, new_token = csrf_token(request)  # the abort button's form
    response = render(
        request,
        "table.html",
        {
            "table": table,
            "you": you,
            "game_title": title,
            "settings_summary": settings_summary(table["game"], table["options"], catalog),
            "board_label": board_label(table["game"], catalog),
            "page_data": page_data,
            "strings": client_strings(catalog),
            "bot_names": bot_names(catalog),
            "nav": "table",
            "csrf_token": token,
            **table_time(request, table, you),
        },
        headers={"Cache-Control": "no-store"},
    )
    if new_token:
        set_csrf_cookie(response, request, token)
    return response


async def analysis_page(request: Request) -> Response:
    """The solver's view of a Dots and Boxes game; the numbers come from the JSON API."""
    table_id = request.path_params["table_id"]
    service = request.app.state.service
    catalog = gettext_for(request)
    _ = catalog.gettext
    try:
        table = await service.snapshot(table_id, None)
        await service.check_analysis(table_id)
    except TableNotFound:
        return table_not_found(request)
    except AnalysisRefused:
        if not analysable(games.load(table["game"], table["options"])):
            message = _("The analysis is for Dots and Boxes games only.")
        else:
            message = _(
                "The analysis opens when the game is over; during a game only at a table "
                "against the computer."
            )
        return error_page(request, 409, _("No analysis yet"), message)
    you = await service.seat_of(table_id, seat_token_from(request, table_id))
    return render(
        request,
        "analysis.html",
        {
            "table": table,
            "back_url": request.url_for("table" if you else "watch", table_id=table_id).path,
            "game_title": game_title(table["game"], catalog),
            "settings_summary": settings_summary(table["game"], table["options"], catalog),
            "page_data": {
                "table": table,
                "api": request.url_for("api_analysis", table_id=table_id).path,
            },
            "strings": client_strings(catalog),
            "nav": "table",
        },
        headers={"Cache-Control": "no-store"},
    )


async def table_page(request: Request) -> Response:
    return await _table(request, watch=False)


async def watch_page(request: Request) -> Response:
    return await _table(request, watch=True)


routes: list[BaseRoute] = [
    Route("/", home.home, methods=["GET", "HEAD"], name="home"),
    Route("/tables", home.create_table, methods=["POST"], name="create_table"),
    Route("/t/{table_id}", table_page, methods=["GET", "HEAD"], name="table"),
    Route("/t/{table_id}/watch", watch_page, methods=["GET", "HEAD"], name="watch"),
    Route("/t/{table_id}/analysis", analysis_page, methods=["GET", "HEAD"], name="analysis"),
    Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
]
