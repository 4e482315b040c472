"""The site's HTML error pages, in the visitor's language."""

from __future__ import annotations

import logging
import sqlite3

import asyncpg
import sqlalchemy as sa
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from playtable.store.failures import RefusalLog, database_away
from playtable.web.language import NEGOTIATED, preferred, prefix_of
from playtable.web.security import headers_for
from playtable.web.templating import gettext_for, render

log = logging.getLogger(__name__)
#: Requests refused while the database is away, logged a few lines an outage.
_refusals = RefusalLog(log)


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


def page_not_found(request: Request) -> Response:
    _ = gettext_for(request).gettext
    return error_page(request, 404, _("Page not found"), _("Nothing lives at this address."))


def _in_visitors_language(request: Request) -> None:
    """An address without a language prefix that leads nowhere says nothing of the
    visitor's language: answer in the one they chose or their browser prefers."""
    if getattr(request.state, "url_prefix", "") == "":
        lang = preferred(request.headers)
        request.state.lang, request.state.url_prefix = lang, prefix_of(lang)
        # said in the response's Content-Language and Vary (language.py)
        setattr(request.state, NEGOTIATED, True)


def _api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _answer(request: Request, status_code: int, heading: str, message: str) -> Response:
    """The API's JSON error, or the error page."""
    if _api(request):
        return JSONResponse({"error": message}, status_code=status_code)
    return error_page(request, status_code, heading, message)


async def not_found_handler(request: Request, exc: Exception) -> Response:
    """For ``Starlette(exception_handlers={404: not_found_handler})``: the site's 404 page."""
    _in_visitors_language(request)
    return page_not_found(request)


async def method_not_allowed_handler(request: Request, exc: Exception) -> Response:
    """The 405 of an address asked with a method it does not take (``PUT /``); the API
    answers in JSON, in English as all its errors."""
    if not _api(request):
        _in_visitors_language(request)
    _ = gettext_for(request).gettext
    message = _("This address cannot be used that way. Go back to the page you came from.")
    response = _answer(request, 405, _("Request not supported"), message)
    allowed = exc.headers.get("Allow") if isinstance(exc, HTTPException) and exc.headers else None
    if allowed:
        response.headers["Allow"] = allowed
    return response


#: The exception classes a database away raises (``store/failures.py`` decides which are).
DATABASE_ERRORS: tuple[type[Exception], ...] = (
    OSError,
    TimeoutError,
    RuntimeError,  # DatabaseFileGone
    sa.exc.SQLAlchemyError,
    sqlite3.Error,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
)


async def database_error_handler(request: Request, exc: Exception) -> Response:
    """A page or API request the database could not answer: 503 with a sentence in the
    visitor's language and ``Retry-After``, logged in one line (the heartbeat says when the
    outage begins and ends). Any other error goes on to :func:`server_error_handler`."""
    if not database_away(exc):
        raise exc
    _refusals.refused(f"{request.method} {request.url.path}", exc)
    _ = gettext_for(request).gettext
    response = _answer(
        request,
        503,
        _("The game cannot be reached just now"),
        _("The server cannot reach its database for a moment. Try again in a few seconds."),
    )
    response.headers["Retry-After"] = "5"
    return response


async def server_error_handler(request: Request, exc: Exception) -> Response:
    """A failure nothing else caught (logged by the server as well): a page in the
    visitor's language with the site's headers, never a bare English "Internal Server
    Error". This runs outside the other middleware, so it adds the security headers itself."""
    try:
        _ = gettext_for(request).gettext
        message = _("Something went wrong on the server. Try again.")
        response = _answer(request, 500, _("Server error"), message)
    except Exception:  # the error page itself failed: say it plainly
        log.exception("the error page for a server error failed")
        response = PlainTextResponse("Internal Server Error", status_code=500)
    for name, value in headers_for(request.url.scheme == "https"):
        response.headers.setdefault(name, value)
    return response


__all__ = [
    "DATABASE_ERRORS",
    "database_error_handler",
    "error_page",
    "method_not_allowed_handler",
    "not_found_handler",
    "page_not_found",
    "server_error_handler",
    "table_not_found",
]
