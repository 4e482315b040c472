"""The table page, its spectator view and its analysis page, and the static files.

Pages only read tables through ``request.app.state.service`` (the table service) and the
seat-cookie helpers of :mod:`playtable.web.links`; everything live happens over the
WebSocket once the page has loaded. The home page and its form are :mod:`playtable.web.home`.
"""

from __future__ import annotations

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route

from playtable.games import PLAYERS
from playtable.tables import AnalysisRefused, TableNotFound
from playtable.tables.invitations import Invitation
from playtable.web import home
from playtable.web.budgets import Budget, over_budget
from playtable.web.csrf import csrf_ok, csrf_token, set_csrf_cookie
from playtable.web.errors import error_page, table_not_found
from playtable.web.links import refused, seat_token_from, set_seat_cookie, to_table
from playtable.web.presentation import (
    board_label,
    bot_names,
    counts_cells,
    game_title,
    quick_messages,
    settings_summary,
)
from playtable.web.rematch_seats import derived_seat_token
from playtable.web.script_strings import strings_address
from playtable.web.static_files import static_app
from playtable.web.templating import STATIC_DIR, gettext_for, language_of, render
from playtable.web.timing import table_time
from playtable.web.wire import dumps, html_safe, table_text


# -- the table page -------------------------------------------------------------------------
async def _table(
    request: Request, *, watch: bool, invite: str | None = None, invited: Invitation | None = None
) -> Response:
    table_id = request.path_params["table_id"]
    service = request.app.state.service
    catalog = gettext_for(request)
    wait = await over_budget(request, Budget.READS)
    if wait is not None:
        response = error_page(
            request,
            429,
            catalog.gettext("Too many actions at once. Wait a moment and try again."),
            "",
        )
        response.headers["Retry-After"] = str(wait)
        return response
    seat_token = seat_token_from(request, table_id)
    if seat_token is None and not watch and invite is None:
        # a rematch of a game this browser played, opened before it was ever visited here
        seat_token = await derived_seat_token(request, table_id)
    try:
        shared, live, you = await service.snapshot_parts(table_id, None if watch else seat_token)
    except TableNotFound:
        return table_not_found(request)
    personal = service.personal({**shared, **live}, you)
    table = {**shared, **live, **personal}
    _ = catalog.gettext
    token, new_token = csrf_token(request)  # the forms' (the abort button, the invitation's)
    invitation = None
    if invite is not None and invited is not None:
        free = invited.free_seat([p for p in PLAYERS if table["seats"][p]["taken"]])
        if free is None:
            return to_table(request, table_id)  # nobody to invite any more: just watch
        request.state.shows_invitation = True  # its language links keep it (templating.py)
        invitation = {
            "action": request.url_for("join_link", table_id=table_id, invite=invite).path,
            "csrf": token,
            "button": _("Take the red seat") if free == "red" else _("Take the blue seat"),
        }
    title = game_title(table["game"], catalog)
    ws_url = request.url_for("table_socket", table_id=table_id).path + ("" if you else "?watch=1")
    # The table's shared part is encoded once per version for every page and socket (wire.py).
    rest = dumps({"you": you, "ws_url": ws_url, "version": table.get("version")})
    page_data = Markup(html_safe(f'{{"table":{table_text(shared, live, personal)},{rest[1:]}'))
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
            "strings": strings_address(
                language_of(request), counts_cells(table["game"], table["options"])
            ),
            "bot_names": bot_names(catalog),
            "quick_messages": quick_messages(catalog),
            "invitation": invitation,
            # "New table with these settings": the home form with this table's (a club's
            # organiser sets up the evening's tables alike)
            "same_settings": home.same_settings_query(
                table["game"],
                table["options"],
                (table.get("clock") or {}).get("spec"),
                next(((p, s["bot"]) for p, s in table["seats"].items() if s.get("bot")), None),
            ),
            "nav": "table",
            "csrf_token": token,
            **table_time(request, table, you),
        },
        headers={"Cache-Control": "no-store"},
    )
    if new_token:
        set_csrf_cookie(response, request, token)
    if you is not None and seat_token is not None:
        set_seat_cookie(response, request, table_id, seat_token)  # renewed by each visit
    if invitation is not None:
        # The address carries the invitation: out of search indexes (the site-wide
        # Referrer-Policy, same-origin, already keeps it from other sites; no-referrer would
        # make the browser send "Origin: null" with the form, which the site refuses).
        response.headers["X-Robots-Tag"] = "noindex"
    return response


async def invitation_page(request: Request) -> Response:
    """The invitation link: the table, watching, with a button that takes the free seat.

    Opening the link takes nothing: a chat app's preview, a link checker or a browser
    prefetching it only sees the game. The seat goes to whoever presses the button (a POST
    carrying the page's CSRF token), and only while it is free.
    """
    table_id = request.path_params["table_id"]
    invite = request.path_params["invite"]
    service = request.app.state.service
    stored = await service.store.table(table_id)  # the row alone, before any budget
    if stored is None:
        return table_not_found(request)
    invited = service.invitations.opened_at(stored, invite)
    if invited is None:
        return refused(request, table_id, invitation=True)
    if await service.seat_of(table_id, seat_token_from(request, table_id)) is not None:
        return to_table(request, table_id)
    if request.method != "POST":
        return await _table(request, watch=True, invite=invite, invited=invited)
    form = await request.form()
    try:
        fresh = csrf_ok(request, form)
    finally:
        await form.close()
    if not fresh:
        _ = gettext_for(request).gettext
        return error_page(
            request,
            403,
            _("This form has expired"),
            _("Open the invitation link again and take the seat from there."),
        )
    claimed = await service.claim_invite(table_id, invite)
    response = to_table(request, table_id)
    if claimed is not None:
        set_seat_cookie(response, request, table_id, claimed[1])
    return response


async def analysis_page(request: Request) -> Response:
    """The analysis board of a game; the values come from the JSON API as they are made."""
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
        # every game has an analysis (tests/web/test_analysis_page.py): refused only until
        # the game is over, unless the computer sits at the table
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
            "board_label": board_label(table["game"], catalog),
            "settings_summary": settings_summary(table["game"], table["options"], catalog),
            "page_data": {
                "table": table,
                "api": request.url_for("api_analysis", table_id=table_id).path,
            },
            "strings": strings_address(
                language_of(request), counts_cells(table["game"], table["options"])
            ),
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
    Route("/tables", home.to_home, methods=["GET", "HEAD"]),
    Route("/t/{table_id}", table_page, methods=["GET", "HEAD"], name="table"),
    Route("/t/{table_id}/watch", watch_page, methods=["GET", "HEAD"], name="watch"),
    Route("/t/{table_id}/analysis", analysis_page, methods=["GET", "HEAD"], name="analysis"),
    Route(
        "/t/{table_id}/join/{invite}",
        invitation_page,
        methods=["GET", "HEAD", "POST"],
        name="join_link",
    ),
    Mount("/static", static_app(STATIC_DIR), name="static"),
]
