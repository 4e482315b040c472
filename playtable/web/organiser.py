"""The players' links of a table set up for two other people (a club's organiser: the home
form's colour "Neither"): ``/t/{id}/links`` shows each seat's own invitation, as text and a QR
code, to hand out. Opening one takes nothing; its button seats the first to press it, in that
seat only, so a link seen by a second person (a QR code on the organiser's screen) seats
nobody else. The browser that set the table up sits at neither seat: it keeps the table's
organiser key in a cookie of its own (:func:`playtable.web.links.set_organiser_cookie`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.games import PLAYERS, Player
from playtable.tables import TableNotFound, TableService
from playtable.web import home
from playtable.web.budgets import Budget, over_budget
from playtable.web.errors import error_page, table_not_found
from playtable.web.links import organiser_token_from
from playtable.web.organised import organiser_of
from playtable.web.presentation import game_title, settings_summary
from playtable.web.qr import qr_svg
from playtable.web.templating import gettext_for, page_url, render
from playtable.web.timing import time_control_text


async def players_links(request: Request) -> Response:
    """``/t/{id}/links``: both players' links, for the browser that set the table up."""
    table_id = request.path_params["table_id"]
    service: TableService = request.app.state.service
    catalog = gettext_for(request)
    _ = catalog.gettext
    token = organiser_token_from(request, table_id)
    try:
        if not await organiser_of(service, table_id, token):
            return error_page(
                request,
                403,
                _("No links here"),
                _("This browser did not set up this table, or Red has made a new seat link since."),
            )
        table = await service.snapshot(table_id, None)
    except TableNotFound:
        return table_not_found(request)
    assert token is not None

    def handout(player: Player) -> str | None:
        """The seat's invitation while it is free (taken: nothing left to hand out)."""
        if table["seats"][player]["taken"]:
            return None
        invite = service.invitations.seat(table_id, player)
        return str(request.url_for("join_link", table_id=table_id, invite=invite))

    red_link, red_invites = handout("red"), True
    if red_link is None and not service.invitations.is_organiser(table_id, token):
        # set up before Red's invitation: this browser holds Red's key, its link to hand out
        red_link, red_invites = (
            str(request.url_for("seat_link", table_id=table_id, token=token)),
            False,
        )
    blue_link = handout("blue")
    spec = (table.get("clock") or {}).get("spec")
    same = home.same_settings_query(table["game"], table["options"], spec)
    return render(
        request,
        "players_links.html",
        {
            "title": game_title(table["game"], catalog),
            "summary": settings_summary(table["game"], table["options"], catalog),
            "time_control": time_control_text(request, table),
            "red_link": red_link,
            "red_qr": qr_svg(red_link) if red_link else None,
            "red_invites": red_invites,
            "blue_link": blue_link,
            "blue_qr": qr_svg(blue_link) if blue_link else None,
            "seats": table["seats"],
            "status_url": request.url_for("players_status", table_id=table_id).path,
            "watch": page_url(request, request.url_for("watch", table_id=table_id).path),
            # the evening's next table alike, set up the same way
            "same_settings": f"{page_url(request, '/')}?{same}&seat={home.NOBODY}",
            "nav": "table",
        },
        # The page holds Red's key: not cached. Its address holds none.
        headers={"Cache-Control": "no-store"},
    )


async def players_status(request: Request) -> Response:
    """``/t/{id}/links/status``: whether each player is at the table, for the links page to
    show as they arrive (polled while it is in view); the organiser's cookie only."""
    table_id = request.path_params["table_id"]
    service: TableService = request.app.state.service
    wait = await over_budget(request, Budget.READS)
    if wait is not None:
        return JSONResponse(
            {"error": "too many requests", "code": "rate_limited", "retry_after": wait},
            status_code=429,
            headers={"Retry-After": str(wait)},
        )
    try:
        if not await organiser_of(service, table_id, organiser_token_from(request, table_id)):
            return JSONResponse({"error": "not this browser's table", "code": "forbidden"}, 403)
        seats = (await service.snapshot(table_id, None))["seats"]
    except TableNotFound:
        return JSONResponse({"error": "no such table", "code": "not_found"}, 404)
    return JSONResponse(
        {
            p: {"taken": bool(seats[p]["taken"]), "online": bool(seats[p]["online"])}
            for p in PLAYERS
        },
        headers={"Cache-Control": "no-store"},
    )


routes: list[BaseRoute] = [
    Route("/t/{table_id}/links", players_links, methods=["GET", "HEAD"], name="players_links"),
    Route("/t/{table_id}/links/status", players_status, methods=["GET"], name="players_status"),
]

__all__ = ["players_links", "players_status", "routes"]
