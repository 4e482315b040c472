"""The site's HTML error pages, in the visitor's language."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from playtable.web.templating import gettext_for, render


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


async def not_found_handler(request: Request, exc: Exception) -> Response:
    """For ``Starlette(exception_handlers={404: not_found_handler})``: the site's 404 page."""
    return page_not_found(request)


__all__ = ["error_page", "not_found_handler", "page_not_found", "table_not_found"]
