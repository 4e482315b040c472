"""Seat cookies and the seat link.

A seat token arrives once in a link and is then moved into an HttpOnly cookie scoped to the
table, and the browser is redirected so the token leaves the address bar and the history.
The invitation link, which needs a person to press a button, is a page
(:func:`playtable.web.pages.invitation_page`).
"""

from __future__ import annotations

import re

from starlette.requests import HTTPConnection, Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.tables import TableService, tokens
from playtable.web.errors import error_page, table_not_found
from playtable.web.templating import DEFAULT_LANGUAGE, gettext_for, language_of

# Seconds a seat cookie lives, renewed by every visit to the table page and to /games: 400
# days, the most a browser keeps a cookie (RFC 6265bis). A correspondence game can run longer
# than any fixed lifetime (14 days a move), so the renewal is what keeps a player seated.
COOKIE_LIFETIME = 400 * 24 * 3600


SEAT_COOKIE_PREFIX = "pt_"  # a seat cookie's name: this and the table's id


def cookie_name(table_id: str) -> str:
    return f"{SEAT_COOKIE_PREFIX}{table_id}"


def set_seat_cookie(response: Response, request: HTTPConnection, table_id: str, token: str) -> None:
    """Remember the seat at ``table_id`` in this browser (and only for this table)."""
    _set_key_cookie(response, request, cookie_name(table_id), token, COOKIE_LIFETIME)


def _set_key_cookie(
    response: Response, request: HTTPConnection, name: str, token: str, lifetime: int
) -> None:
    """A cookie holding a table's key: never for scripts, sent with this site's own requests
    and its top-level navigation only."""
    response.set_cookie(
        name,
        token,
        max_age=lifetime,
        path="/",
        secure=request.url.scheme in ("https", "wss"),
        httponly=True,
        samesite="lax",
    )


def table_cookies(connection: HTTPConnection, prefix: str, most: int) -> list[tuple[str, str]]:
    """``(table id, value)`` of the cookies named ``prefix`` and a table id that the request
    carries (unchecked): the newest ``most``. Browsers send cookies oldest first, and a
    renewed cookie keeps its place (RFC 6265 5.3: it keeps its creation time), so the last
    ones are the tables taken last."""
    name = re.compile(rf"{re.escape(prefix)}([{tokens.ID_ALPHABET}]{{{tokens.ID_LENGTH}}})")
    found = []
    for key, value in connection.cookies.items():
        match = name.fullmatch(key)
        if match and value:
            found.append((match[1], value))
    return found[-most:]


# A table set up for two other players (the home form's "Neither"): this browser keeps the
# table's organiser key (tables/invitations.py), read only by the players' links page
# (playtable.web.organiser) and My games; it opens no seat. A club evening's links are handed
# out within days.
ORGANISER_COOKIE_PREFIX = "po_"
ORGANISER_COOKIE_LIFETIME = 14 * 24 * 3600


def set_organiser_cookie(
    response: Response, request: HTTPConnection, table_id: str, token: str
) -> None:
    """Remember, in this browser, the links of a table it set up for two other players."""
    name = f"{ORGANISER_COOKIE_PREFIX}{table_id}"
    _set_key_cookie(response, request, name, token, ORGANISER_COOKIE_LIFETIME)


def organiser_token_from(connection: HTTPConnection, table_id: str) -> str | None:
    """The organiser's key of a table this browser set up for two other players (or, set up
    before the seats had invitations of their own, Red's key), if any (unchecked)."""
    return connection.cookies.get(f"{ORGANISER_COOKIE_PREFIX}{table_id}") or None


def seat_token_from(connection: HTTPConnection, table_id: str) -> str | None:
    """The seat token this browser holds for ``table_id``, if any (unchecked)."""
    return connection.cookies.get(cookie_name(table_id)) or None


def _service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


def to_table(request: Request, table_id: str) -> RedirectResponse:
    # The link carried a secret: keep it out of caches and out of the next page's Referer.
    return RedirectResponse(
        request.url_for("table", table_id=table_id).path,
        status_code=303,
        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
    )


def refused(request: Request, table_id: str, *, invitation: bool) -> Response:
    """The page for a seat or invitation link that does not fit the table, in the visitor's
    language, pointing to the spectator's view."""
    _ = gettext_for(request).gettext
    lang = language_of(request)
    prefix = "" if lang == DEFAULT_LANGUAGE else f"/{lang}"
    watch = (
        str(request.base_url).rstrip("/")
        + prefix
        + request.url_for("watch", table_id=table_id).path
    )
    if invitation:
        heading = _("This invitation is not valid")
        message = _(
            "This invitation link is not valid for this table. You can watch the game at %(url)s."
        )
    else:
        heading = _("This seat link is not valid")
        message = _(
            "This seat link is not valid for this table. Ask the player who sent it for a new "
            "one, or watch the game at %(url)s."
        )
    return error_page(request, 403, heading, message % {"url": watch})


async def seat_link(request: Request) -> Response:
    table_id = request.path_params["table_id"]
    token = request.path_params["token"]
    service = _service(request)
    if await service.seat_of(table_id, token) is None:
        if not await service.exists(table_id):
            return table_not_found(request)
        return refused(request, table_id, invitation=False)
    response = to_table(request, table_id)
    set_seat_cookie(response, request, table_id, token)
    return response


routes: list[BaseRoute] = [
    Route("/t/{table_id}/seat/{token}", seat_link, methods=["GET"], name="seat_link"),
]

__all__ = [
    "ORGANISER_COOKIE_PREFIX",
    "SEAT_COOKIE_PREFIX",
    "cookie_name",
    "organiser_token_from",
    "refused",
    "routes",
    "seat_token_from",
    "set_organiser_cookie",
    "set_seat_cookie",
    "table_cookies",
    "to_table",
]
