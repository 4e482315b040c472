"""The HTML pages: the home page form, the table page, and the static files.

Pages only read and create tables through ``request.app.state.service`` (the table service)
and the seat-cookie helpers of :mod:`playtable.web.links`; everything live happens over the
WebSocket once the page has loaded.
"""

from __future__ import annotations

import gettext
import hmac
import secrets
from collections.abc import Mapping
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from playtable.games import GameError, SettingsError
from playtable.tables import AnalysisRefused, TableNotFound
from playtable.web.api import too_many_tables
from playtable.web.client_strings import client_strings
from playtable.web.links import seat_token_from, set_seat_cookie
from playtable.web.templating import STATIC_DIR, gettext_for, render

CSRF_COOKIE = "pt_csrf"
CSRF_FIELD = "csrf"

GAMES = ("dots", "swaptimum")
GRIDS = ("square", "triangle", "hexagon")
STARTS = ("standard", "swedish", "icelandic")
SEATS = ("red", "blue", "random")
OPPONENTS = ("friend", "easy", "medium", "hard")  # a person by link, or the computer's level

#: The home form as a first-time visitor sees it: a 5x5 square Dots and Boxes board.
FORM_DEFAULTS: dict[str, Any] = {
    "game": "dots",
    "dots_grid": "square",
    "dots_rows": "5",
    "dots_cols": "5",
    "dots_size": "4",
    "dots_start": "standard",
    "dots_misere": False,
    "swaptimum_size": "9",
    "seat": "random",
    "opponent": "friend",
}


class FormError(ValueError):
    """A form value that cannot even be handed to the game (not a number, unknown choice)."""


# -- CSRF: double-submit token ------------------------------------------------------------
def _csrf_token(request: Request) -> tuple[str, bool]:
    """The visitor's CSRF token and whether it is new (and must be set as a cookie)."""
    token = request.cookies.get(CSRF_COOKIE, "")
    if 32 <= len(token) <= 128 and token.replace("-", "").replace("_", "").isalnum():
        return token, False
    return secrets.token_urlsafe(32), True


def _set_csrf_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        CSRF_COOKIE,
        token,
        max_age=60 * 60 * 24 * 30,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def _csrf_ok(request: Request, form: FormData) -> bool:
    cookie = request.cookies.get(CSRF_COOKIE, "")
    field = form.get(CSRF_FIELD, "")
    if not cookie or not isinstance(field, str) or not field:
        return False
    return hmac.compare_digest(cookie.encode(), field.encode())


# -- the home page --------------------------------------------------------------------------
def _home(
    request: Request,
    form: Mapping[str, Any],
    *,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    token, new = _csrf_token(request)
    response = render(
        request,
        "home.html",
        {"form": form, "error": error, "csrf_token": token, "nav": "home"},
        status_code=status_code,
        headers={"Cache-Control": "no-store"},
    )
    if new:
        _set_csrf_cookie(response, request, token)
    return response


#: Query parameters the home page accepts to preselect settings (``/?game=dots&start=swedish``),
#: as links from the variant pages do; each maps to a form field.
QUERY_FIELDS = {
    "game": "game",
    "grid": "dots_grid",
    "rows": "dots_rows",
    "cols": "dots_cols",
    "start": "dots_start",
    "seat": "seat",
    "opponent": "opponent",
}
CHOICES = {
    "game": GAMES,
    "dots_grid": GRIDS,
    "dots_start": STARTS,
    "seat": SEATS,
    "opponent": OPPONENTS,
}


def form_from_query(query: Mapping[str, str]) -> dict[str, Any]:
    """The home form with the settings a link asks for; anything unknown or malformed is
    ignored (the form still checks every value when it is submitted)."""
    values: dict[str, Any] = dict(FORM_DEFAULTS)
    for param, name in QUERY_FIELDS.items():
        value = query.get(param, "")
        if name in CHOICES:
            if value in CHOICES[name]:
                values[name] = value
        elif value.isdigit() and len(value) <= 2:
            values[name] = value
    size = query.get("size", "")
    if size.isdigit() and len(size) <= 2:
        values["swaptimum_size" if values["game"] == "swaptimum" else "dots_size"] = size
    if "misere" in query:
        values["dots_misere"] = query["misere"] not in ("", "0", "false")
    return values


async def home(request: Request) -> Response:
    return _home(request, form_from_query(request.query_params))


def _submitted(form: FormData) -> dict[str, Any]:
    """The form values to show again after an error (defaults for anything missing)."""
    values: dict[str, Any] = dict(FORM_DEFAULTS)
    for name in FORM_DEFAULTS:
        value = form.get(name)
        if isinstance(value, str):
            values[name] = value.strip()[:40]
    values["dots_misere"] = bool(form.get("dots_misere"))
    return values


def _choice(value: Any, allowed: tuple[str, ...], message: str) -> str:
    if value not in allowed:
        raise FormError(message)
    return str(value)


def _whole_number(value: Any, message: str) -> int:
    text = str(value).strip()
    if not text.lstrip("-").isdigit() or len(text) > 4:
        raise FormError(message)
    return int(text)


def table_request(
    values: Mapping[str, Any], catalog: gettext.NullTranslations
) -> tuple[str, dict[str, Any], str]:
    """The game, options and seat that the home form asks for.

    Range checks are the game's business (it raises :class:`GameError` naming the setting);
    this only turns the form's text into the option types.
    """
    _ = catalog.gettext
    game = _choice(values.get("game"), GAMES, _("Choose a game."))
    options: dict[str, Any]
    if game == "dots":
        grid = _choice(values.get("dots_grid"), GRIDS, _("Choose a grid."))
        options = {"grid": grid}
        if grid == "square":
            options["rows"] = _whole_number(
                values.get("dots_rows"), _("Rows must be a whole number.")
            )
            options["cols"] = _whole_number(
                values.get("dots_cols"), _("Columns must be a whole number.")
            )
        else:
            options["size"] = _whole_number(
                values.get("dots_size"), _("Size must be a whole number.")
            )
        options["start"] = _choice(values.get("dots_start"), STARTS, _("Choose a start."))
        options["misere"] = bool(values.get("dots_misere"))
    else:
        options = {
            "size": _whole_number(
                values.get("swaptimum_size"), _("Board size must be a whole number.")
            )
        }
    seat = _choice(values.get("seat"), SEATS, _("Choose a colour."))
    return game, options, seat


async def create_table(request: Request) -> Response:
    form = await request.form()
    try:
        if not _csrf_ok(request, form):
            return error_page(
                request,
                403,
                gettext_for(request).gettext("This form has expired"),
                gettext_for(request).gettext(
                    "For your safety the table was not created. Reload the home page and "
                    "submit the form again."
                ),
            )
        if too_many_tables(request) is not None:
            # The same per-address limit as the API; the sentence is the translated one the
            # table page shows for rate_limited.
            return error_page(
                request,
                429,
                gettext_for(request).gettext(
                    "Too many actions at once. Wait a moment and try again."
                ),
                "",
            )
        values = _submitted(form)
        catalog = gettext_for(request)
        try:
            game, options, seat = table_request(values, catalog)
            opponent = _choice(
                values.get("opponent"), OPPONENTS, catalog.gettext("Choose an opponent.")
            )
            bot = None if opponent == "friend" else opponent
            created = await request.app.state.service.create_table(game, options, seat, bot=bot)
        except (FormError, GameError) as exc:
            # a game's settings error is a catalog message: said in the page's language
            reason = exc.translate(catalog.gettext) if isinstance(exc, SettingsError) else str(exc)
            return _home(request, values, error=reason[:1].upper() + reason[1:], status_code=400)
    finally:
        await form.close()
    response = RedirectResponse(f"/t/{created.id}", status_code=303)
    set_seat_cookie(response, request, created.id, created.seat_token)
    return response


# -- the table page -------------------------------------------------------------------------
def game_title(game: str, catalog: gettext.NullTranslations) -> str:
    _ = catalog.gettext
    return {"dots": _("Dots and Boxes"), "swaptimum": _("Swaptimum")}.get(game, game)


def settings_summary(
    game: str, options: Mapping[str, Any], catalog: gettext.NullTranslations
) -> str:
    """The table settings in a few words: "5 × 5 boxes · Swedish board · Misère"."""
    _ = catalog.gettext
    parts: list[str] = []
    if game == "dots":
        grid = options.get("grid", "square")
        if grid == "square":
            parts.append(
                _("%(rows)s × %(cols)s boxes")
                % {"rows": options.get("rows"), "cols": options.get("cols")}
            )
        elif grid == "triangle":
            parts.append(_("Triangle grid, side %(size)s") % {"size": options.get("size")})
        else:
            parts.append(_("Hexagon grid, radius %(size)s") % {"size": options.get("size")})
        start = options.get("start", "standard")
        parts.append(
            {
                "standard": _("Standard start"),
                "swedish": _("Swedish board"),
                "icelandic": _("Icelandic board"),
            }.get(start, start)
        )
        if options.get("misere"):
            parts.append(_("Misère"))
    elif game == "swaptimum":
        size = options.get("size")
        parts.append(_("%(size)s × %(size)s board") % {"size": size})
    return " · ".join(parts)


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
    ws_url = f"/t/{table_id}/ws" + ("" if you else "?watch=1")
    page_data = {"table": table, "you": you, "ws_url": ws_url, "version": table.get("version")}
    board_label = _("Dots and Boxes board") if table["game"] == "dots" else _("Swaptimum board")
    return render(
        request,
        "table.html",
        {
            "table": table,
            "you": you,
            "game_title": title,
            "settings_summary": settings_summary(table["game"], table["options"], catalog),
            "board_label": board_label,
            "page_data": page_data,
            "strings": client_strings(catalog),
            "bot_names": bot_names(catalog),
            "nav": "table",
        },
        headers={"Cache-Control": "no-store"},
    )


def bot_names(catalog: gettext.NullTranslations) -> dict[str, str]:
    """How the page names a computer player of each level."""
    _ = catalog.gettext
    return {
        "easy": _("Computer (easy)"),
        "medium": _("Computer (medium)"),
        "hard": _("Computer (hard)"),
    }


async def analysis_page(request: Request) -> Response:
    """The solver's view of a Dots and Boxes game; the numbers come from the JSON API."""
    table_id = request.path_params["table_id"]
    service = request.app.state.service
    catalog = gettext_for(request)
    _ = catalog.gettext
    try:
        await service.check_analysis(table_id)
        table = await service.snapshot(table_id, None)
    except TableNotFound:
        return table_not_found(request)
    except AnalysisRefused:
        if (await service.snapshot(table_id, None))["game"] != "dots":
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
            "back_url": f"/t/{table_id}" if you else f"/t/{table_id}/watch",
            "game_title": game_title(table["game"], catalog),
            "settings_summary": settings_summary(table["game"], table["options"], catalog),
            "page_data": {"table": table, "api": f"/api/tables/{table_id}/analysis"},
            "strings": client_strings(catalog),
            "nav": "table",
        },
        headers={"Cache-Control": "no-store"},
    )


async def table_page(request: Request) -> Response:
    return await _table(request, watch=False)


async def watch_page(request: Request) -> Response:
    return await _table(request, watch=True)


# -- errors ---------------------------------------------------------------------------------
def error_page(request: Request, status_code: int, heading: str, message: str) -> Response:
    return render(
        request,
        "error.html",
        {"status_code": status_code, "heading": heading, "message": message, "nav": None},
        status_code=status_code,
    )


def table_not_found(request: Request) -> Response:
    _ = gettext_for(request).gettext
    return error_page(
        request,
        404,
        _("There is no such table"),
        _("Check the link you were given, or set up a new table."),
    )


async def not_found_handler(request: Request, exc: Exception) -> Response:
    """For ``Starlette(exception_handlers={404: not_found_handler})``: the site's 404 page."""
    return page_not_found(request)


def page_not_found(request: Request) -> Response:
    _ = gettext_for(request).gettext
    return error_page(
        request,
        404,
        _("Page not found"),
        _("Nothing lives at this address."),
    )


routes: list[BaseRoute] = [
    Route("/", home, methods=["GET", "HEAD"], name="home"),
    Route("/tables", create_table, methods=["POST"], name="create_table"),
    Route("/t/{table_id}", table_page, methods=["GET", "HEAD"], name="table"),
    Route("/t/{table_id}/watch", watch_page, methods=["GET", "HEAD"], name="watch"),
    Route("/t/{table_id}/analysis", analysis_page, methods=["GET", "HEAD"], name="analysis"),
    Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
]
