"""What the picture and position routes (web/pictures.py) answer when they draw nothing: an
unknown table, a bad ``?ply``, a request over the budget or that would wait too long, each in
the visitor's language (``Content-Language``), as ``{"error", "code"}`` for ``position.json``."""

from __future__ import annotations

from babel.numbers import format_decimal
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from playtable.web.language import preferred
from playtable.web.templating import language_of, translations


def _language(request: Request) -> str:
    """The language to answer in: the page's, or (these addresses usually carry no prefix)
    the visitor's choice or their browser's."""
    if not getattr(request.state, "url_prefix", ""):
        return preferred(request.headers)
    return language_of(request)


def _said(
    lang: str, kind: str, status: int, message: str, code: str, seconds: int | None = None
) -> Response:
    """An error in the visitor's language: ``{"error", "code"}`` (and ``retry_after``) for
    ``position.json``, which pages read, else plain text; never kept by a cache."""
    headers = {"Cache-Control": "no-store", "Content-Language": lang}
    if seconds is not None:
        headers["Retry-After"] = str(seconds)
    if kind == "json":
        body: dict[str, object] = {"error": message, "code": code}
        if seconds is not None:
            body["retry_after"] = seconds
        return JSONResponse(body, status_code=status, headers=headers)
    return PlainTextResponse(message, status_code=status, headers=headers)


def refusal(request: Request, kind: str, status: int, seconds: int) -> Response:
    """A request over the budget (429) or that would wait too long (503)."""
    lang = _language(request)
    gettext = translations(lang).gettext
    if status == 429:
        message = gettext("Too many actions at once. Wait a moment and try again.")
        return _said(lang, kind, status, message, "rate_limited", seconds)
    message = gettext("Too many pictures are being drawn right now. Try again in a moment.")
    return _said(lang, kind, status, message, "busy", seconds)


def not_found(request: Request, kind: str) -> Response:
    lang = _language(request)
    message = translations(lang).gettext("There is no such table")
    return _said(lang, kind, 404, message, "not_found")


def bad_ply(request: Request, kind: str, last: int) -> Response:
    lang = _language(request)
    gettext = translations(lang).gettext
    message = gettext(
        "The position is given by the number of moves before it, from 0 to %(last)s."
    ) % {"last": format_decimal(last, locale=lang)}
    return _said(lang, kind, 400, message, "bad_ply")


def gif_takes_no_ply(request: Request) -> Response:
    lang = _language(request)
    message = translations(lang).gettext(
        "The animation shows the whole game: it takes no position."
    )
    return _said(lang, "gif", 400, message, "bad_ply")


__all__ = ["bad_ply", "gif_takes_no_ply", "not_found", "refusal"]
