"""The static files (styles, scripts, icons) as a browser should keep them.

A page names each file with a fingerprint of its content in the query
(``/static/style.css?v=3f9c0a1b2c4d``, made by :func:`fingerprint`), so that address never
changes its content: it is kept for a year without asking again (``immutable``), and its
``ETag`` is that fingerprint. An address with another fingerprint (a page rendered by a
process of the other release, during a rolling upgrade) is answered 404 with ``no-store``,
never with this release's bytes: those under the other release's address ran one release's
``table.js`` with the other's ``feedback.js`` (a page without a board), and a cache that
confirmed them later kept them there for a year. A proxy retries such a 404 on another
process (``docs/deploy.md``). Without a fingerprint the file is served with ``no-cache``:
kept, but checked before each use.

Text files are gzip-compressed (about a quarter of their size on the wire), which matters on
a phone. Only here: a page with a CSRF token and reflected input is not compressed (BREACH).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

from starlette.datastructures import Headers, QueryParams
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

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
        named = QueryParams(scope.get("query_string", b"")).get("v")
        current = _digest(str(full_path), stat_result.st_mtime_ns, stat_result.st_size)
        if named is not None and named != current:
            return other_release()
        response = FileResponse(full_path, status_code=status_code, stat_result=stat_result)
        # The content's own fingerprint, not Starlette's (of the modification time and size,
        # which two releases' files share when a build sets every time alike).
        response.headers["ETag"] = f'"{current}"'
        response.headers["Cache-Control"] = CHECK_FIRST if named is None else FOREVER
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response


def other_release() -> Response:
    """The answer to an address whose fingerprint names content this process does not have:
    kept by no cache, since the process of the release that has it may answer the next try."""
    return Response(
        "Not found", status_code=404, media_type="text/plain", headers={"Cache-Control": "no-store"}
    )


_BYTE_RANGE = re.compile(r"^(\d+)-(\d*)$|^-(\d+)$")


def readable_range(value: str) -> bool:
    """Whether ``value`` is a Range of bytes whose every part can be served (RFC 9110 14.1.1):
    ``bytes=0-9``, ``bytes=100-``, ``bytes=-5``, several of them separated by commas."""
    unit, _, ranges = value.partition("=")
    if unit.strip().lower() != "bytes":
        return False
    for part in ranges.split(","):
        match = _BYTE_RANGE.match(part.strip())
        if match is None:
            return False
        first, last = match.group(1), match.group(2)
        if first is not None and last and int(last) < int(first):
            return False
    return True


def accepts_gzip(value: str) -> bool:
    """Whether an ``Accept-Encoding`` allows gzip: named with a quality above 0, or ``*`` above
    0 and gzip not refused (RFC 9110 12.5.3: ``gzip;q=0`` is a refusal)."""
    qualities: dict[str, float] = {}
    for part in value.split(","):
        coding, *params = (field.strip() for field in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, number = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(number)
                except ValueError:
                    quality = 0.0
        if coding:
            qualities[coding.lower()] = quality if 0 <= quality <= 1 else 0.0
    if "gzip" in qualities:
        return qualities["gzip"] > 0
    return qualities.get("*", 0.0) > 0


class _ReadHeaders:
    """The request's ``Range`` and ``Accept-Encoding`` as the files below can take them:
    Starlette answered a Range it could not read (another unit, ``bytes=5-1``) with a 400 of
    English plain text, where RFC 9110 lets a server ignore it (and requires it for an unknown
    unit); its gzip took ``gzip;q=0``, the client's refusal, for a yes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers: list[tuple[bytes, bytes]] = []
            for name, value in scope["headers"]:
                if name == b"range" and not readable_range(value.decode("latin-1")):
                    continue  # served whole
                if name == b"accept-encoding":
                    value = b"gzip" if accepts_gzip(value.decode("latin-1")) else b"identity"
                headers.append((name, value))
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)


def read_headers(app: ASGIApp) -> ASGIApp:
    """``app`` behind :class:`_ReadHeaders`: a Range it cannot read ignored, gzip only when
    the client's qualities allow it."""
    return _ReadHeaders(app)


def static_app(directory: Path) -> ASGIApp:
    files = GZipMiddleware(FingerprintedStatic(directory=directory), minimum_size=COMPRESS_FROM)
    return _ReadHeaders(files)


__all__ = [
    "CHECK_FIRST",
    "FOREVER",
    "FingerprintedStatic",
    "accepts_gzip",
    "fingerprint",
    "other_release",
    "read_headers",
    "readable_range",
    "static_app",
]
