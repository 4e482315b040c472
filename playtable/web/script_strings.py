"""The scripts' translated strings as a module of their own, kept by the browser.

Every table, analysis, rules and variant page used to carry the strings its scripts show
(:func:`playtable.web.client_strings.client_strings`) as a JSON block: 17.7 KB of the
table page's 42 KB, the same on every visit in a language, sent again with each page (and
the pages are not compressed: they hold a CSRF token beside text others write). They are
now a module, ``/strings/fi-boxes.js?v=<hash of its content>``, one per language and kind of
board (boxes on a square grid, cells on a triangle or hexagon grid), answered with a year of
caching when the address names the current content (404 when it names another release's, as
for a static file); the page's import map (:mod:`playtable.web.modules`) points
``js/strings.js``, which ``js/i18n.js`` imports, at it.
"""

from __future__ import annotations

import functools
import hashlib
import json

from starlette.datastructures import QueryParams
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from playtable.web.client_strings import client_strings
from playtable.web.static_files import (
    CHECK_FIRST,
    COMPRESS_FROM,
    FOREVER,
    other_release,
    read_headers,
)
from playtable.web.templating import available_languages, translations

KINDS = {"boxes": False, "cells": True}


@functools.cache
def module_text(lang: str, cells: bool) -> bytes:
    """The module: ``export default {...};`` with the strings of ``lang`` (made once)."""
    strings = json.dumps(dict(client_strings(translations(lang), cells)), ensure_ascii=False)
    return f"export default {strings};\n".encode()


@functools.cache
def version(lang: str, cells: bool) -> str:
    return hashlib.sha256(module_text(lang, cells)).hexdigest()[:12]


def strings_address(lang: str, cells: bool = False) -> str:
    """Where a page's scripts find their strings: the address names the content."""
    kind = "cells" if cells else "boxes"
    return f"/strings/{lang}-{kind}.js?v={version(lang, cells)}"


class _Strings:
    """``/strings/{lang}-{kind}.js``: the module, else 404."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path"].rpartition("/")[2]
        lang, _, rest = name.partition("-")
        kind = rest.removesuffix(".js")
        if (
            scope["method"] not in ("GET", "HEAD")
            or not rest.endswith(".js")
            or lang not in available_languages()
            or kind not in KINDS
        ):
            await Response("Not found", status_code=404, media_type="text/plain")(
                scope, receive, send
            )
            return
        cells = KINDS[kind]
        tag = f'"{version(lang, cells)}"'
        named = QueryParams(scope.get("query_string", b"")).get("v")
        if named is not None and named != version(lang, cells):
            await other_release()(scope, receive, send)  # the other release's strings
            return
        headers = {"Cache-Control": CHECK_FIRST if named is None else FOREVER, "ETag": tag}
        asked = dict(scope["headers"]).get(b"if-none-match", b"").decode("latin-1")
        if tag in [part.strip().removeprefix("W/") for part in asked.split(",")]:
            response = Response(status_code=304, headers=headers)
        else:
            # (to a HEAD, the server sends the headers of this answer without its body)
            response = Response(
                module_text(lang, cells), media_type="text/javascript", headers=headers
            )
        await response(scope, receive, send)


def strings_app() -> ASGIApp:
    return read_headers(GZipMiddleware(_Strings(), minimum_size=COMPRESS_FROM))


routes = [Mount("/strings", strings_app(), name="strings")]

__all__ = ["module_text", "routes", "strings_address"]
