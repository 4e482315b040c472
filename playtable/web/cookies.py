"""Cookie values parsed in linear time, whatever the Python release.

``http.cookies._unquote`` (used by ``SimpleCookie`` and by Starlette's ``request.cookies``)
is quadratic in the backslashes of a quoted value before Python 3.11.10 and 3.12.6
(CVE-2024-7592, python/cpython#123067): one request with a 40 KB ``Cookie: a="\\\\..."``
header held the event loop for 8 s, every table and clock with it. :func:`install` puts the
upstream fix in its place where the running Python still has the old one; the language
middleware and every cookie read go through it.
"""

from __future__ import annotations

import http.cookies
import re

_unquote_sub = re.compile(r"\\(?:([0-3][0-7][0-7])|(.))").sub


def _unquote_replace(match: re.Match[str]) -> str:
    if match[1]:
        return chr(int(match[1], 8))
    return match[2]


def unquote(value: str) -> str:
    """A cookie value without its quotes and escapes (``\\012`` is a new line, ``\\"`` a
    quote), as ``http.cookies._unquote`` reads it, in one pass over the text."""
    if value is None or len(value) < 2 or value[0] != '"' or value[-1] != '"':
        return value
    return _unquote_sub(_unquote_replace, value[1:-1])


def install() -> None:
    """Use :func:`unquote` for the standard library's cookie parsing if it has no fix."""
    if not hasattr(http.cookies, "_unquote_sub"):  # the fixed releases define it
        http.cookies._unquote = unquote  # type: ignore[assignment]


__all__ = ["install", "unquote"]
