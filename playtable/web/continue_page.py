"""Continue on another device (``/t/{id}/continue``): this browser's seat link as text and a
QR code, and a new link for the seat when the old one was seen by someone else.

The seat link (the token in a URL) is shown only here, on a page a player opens on purpose
to carry the seat to another device, and on the players' links page of a table set up for
two other players (:mod:`playtable.web.organiser`), which shows its QR codes the same way.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.tables import GameOver, NotSeated, TableNotFound, TableService, tokens
from playtable.web.csrf import csrf_ok, csrf_token, set_csrf_cookie
from playtable.web.errors import error_page, table_not_found
from playtable.web.links import seat_token_from, set_seat_cookie
from playtable.web.my_games import opponent_text
from playtable.web.presentation import game_title, settings_summary
from playtable.web.qr import qr_svg
from playtable.web.templating import gettext_for, page_url, render
from playtable.web.timing import time_control_text


def renewed_mark(token: str) -> str:
    """What the continue page's address carries after a new link was made: derived from the
    new key, so "This is a new link" shows only where it is true (an address typed with
    ``?renewed=1`` said it of a link never replaced), and says nothing of the key itself."""
    return hashlib.sha256(f"renewed:{token}".encode()).hexdigest()[:16]


async def continue_page(request: Request) -> Response:
    """``/t/{id}/continue``: this seat's link as text and QR code, for another device."""
    table_id = request.path_params["table_id"]
    service: TableService = request.app.state.service
    _ = gettext_for(request).gettext
    token = seat_token_from(request, table_id)
    try:
        you = await service.seat_of(table_id, token)
        if you is None:
            if not await service.exists(table_id):
                raise TableNotFound(table_id)
            return error_page(
                request,
                403,
                _("No seat here"),
                _("This browser holds no seat at this table."),
            )
    except TableNotFound:
        return table_not_found(request)
    assert token is not None
    link = str(request.url_for("seat_link", table_id=table_id, token=token))
    csrf, new_csrf = csrf_token(request)
    table = await service.snapshot(table_id, you)
    catalog = gettext_for(request)
    response = render(
        request,
        "continue.html",
        {
            "table_id": table_id,
            # which table's seat this is: a player with several games open tells them apart
            "title": game_title(table["game"], catalog),
            "summary": settings_summary(table["game"], table["options"], catalog),
            "time_control": time_control_text(request, table),
            "colour": _("Red") if you == "red" else _("Blue"),
            "opponent": opponent_text(request, table, you),
            "link": link,
            "qr": qr_svg(link),
            "back": page_url(request, request.url_for("table", table_id=table_id).path),
            "nav": "games",
            "csrf": csrf,
            # A value of this page alone: the new key is derived from it and the old key,
            # so a retried form whose answer was lost gets the same key (renew_seat_link).
            "renewal": secrets.token_urlsafe(16),
            # Until the rematch is made (whose seats come from this key): decisions.py.
            "can_renew": table["outcome"] is None or table.get("rematch_id") is None,
            "renewed": hmac.compare_digest(  # bytes: a str with non-ASCII would raise
                request.query_params.get("renewed", "").encode(), renewed_mark(token).encode()
            ),
        },
        # The page holds a secret: not cached. Its address holds none, so the site's
        # Referrer-Policy (same-origin) stays: no-referrer would make the browser send
        # "Origin: null" with the page's form, which the site refuses as another site's.
        headers={"Cache-Control": "no-store"},
    )
    if new_csrf:
        set_csrf_cookie(response, request, csrf)
    return response


async def renew_seat_link(request: Request) -> Response:
    """``POST /t/{id}/continue``: a new seat link for this browser's seat; the old one, and
    every other device that holds it, no longer opens the seat (a link or QR code that
    someone else saw)."""
    table_id = request.path_params["table_id"]
    service: TableService = request.app.state.service
    _ = gettext_for(request).gettext
    form = await request.form()
    try:
        if not csrf_ok(request, form):
            return error_page(
                request, 403, _("This form has expired"), _("Reload the page and try again.")
            )
        old = seat_token_from(request, table_id)
        renewal = form.get("renewal")
        wanted = (
            tokens.renewal_token(old, table_id, renewal)
            if old and isinstance(renewal, str) and 16 <= len(renewal) <= 64
            else None
        )
        try:
            token = await service.new_seat_token(table_id, old, wanted)
        except TableNotFound:
            return table_not_found(request)
        except NotSeated:
            # The same form sent again (its first answer, with the new key, was lost on the
            # way: the browser resends the form on reload) gets the key it was given.
            if wanted is None or await service.seat_of(table_id, wanted) is None:
                return error_page(
                    request, 403, _("No seat here"), _("This browser holds no seat at this table.")
                )
            token = wanted
        except GameOver:
            return error_page(
                request,
                409,
                _("The link was not changed"),
                _("The rematch has begun: make a new link at the new table instead."),
            )
    finally:
        await form.close()
    # A device that held the old link and asked to be told of the seat's moves is told no
    # more: every subscription goes, and the player's own pages send theirs again (push.js).
    seat = await service.seat_of(table_id, token)
    if seat is not None:
        await request.app.state.store.remove_seat_push_subscriptions(table_id, seat)
    target = page_url(request, request.url_for("continue", table_id=table_id).path)
    response = RedirectResponse(f"{target}?renewed={renewed_mark(token)}", status_code=303)
    set_seat_cookie(response, request, table_id, token)
    return response


routes: list[BaseRoute] = [
    Route("/t/{table_id}/continue", continue_page, methods=["GET"], name="continue"),
    Route("/t/{table_id}/continue", renew_seat_link, methods=["POST"], name="renew_seat"),
]

__all__ = ["continue_page", "renew_seat_link", "renewed_mark", "routes"]
