"""The static files (styles, scripts, icons) as a browser should keep them.

A page names each file with a fingerprint of its content in the query
(``/static/style.css?v=3f9c0a1b2c4d``, made by :func:`fingerprint`), so that address never
changes its content: it is kept for a year without asking again (``immutable``). Without
the fingerprint, or with another one (a page of the previous release still open), the file
is served with ``no-cache``: kept, but checked with its ``ETag`` before each use. The script
modules that a page's script imports (``./board.js``) have no query, and a browser's own
guess at how long to keep them (a tenth of their age) would otherwise run a new
``table.js`` with last week's ``board.js`` after a release.

Text files are gzip-compressed (about a quarter of their size on the wire), which matters on
a phone. Only here: a page with a CSRF token and reflected input is not compressed (BREACH).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from starlette.datastructures import QueryParams
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Scope

FOREVER = "public, max-age=31536000, immutable"
CHECK_FIRST = "no-cache"
#: Responses smaller than this are sent as they are: compressing them saves nothing.
COMPRESS_FROM = 1024


@functools.lru_cache(maxsize=256)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def fingerprint(file: Path) -> str:
    """A short hash of ``file``'s content ("" if there is no such file), computed again only
    when the file changes (its modification time or size): an edited file gets a new
    address at once, even in a server that keeps running."""
    try:
        stat = file.stat()
    except OSError:
        return ""
    return _digest(str(file), stat.st_mtime_ns, stat.st_size)


class FingerprintedStatic(StaticFiles):
    """Starlette's static files with the cache policy above."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        named = QueryParams(scope.get("query_string", b"")).get("v")
        current = _digest(str(full_path), stat_result.st_mtime_ns, stat_result.st_size)
        response.headers["Cache-Control"] = FOREVER if named == current else CHECK_FIRST
        return response


def static_app(directory: Path) -> ASGIApp:
    return GZipMiddleware(FingerprintedStatic(directory=directory), minimum_size=COMPRESS_FROM)


__all__ = ["CHECK_FIRST", "FOREVER", "FingerprintedStatic", "fingerprint", "static_app"]
