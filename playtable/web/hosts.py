"""The site's own names: requests for any other ``Host`` are refused (``PLAYTABLE_ALLOWED_HOSTS``).

The site writes absolute links from the request's ``Host`` (the invitation link, the
spectator link, the link preview's ``og:url``, the continue page's QR code, the API's
``join_url``). Behind a proxy that passes any ``Host`` through, a forged one would put
another site's name in those links, and in any cache in front of the site. With the
setting, such a request gets a 400 page in the visitor's language and a socket is refused
at its handshake; without it (the default, as for ``make run``) every name is served. The
health checks (``/healthz``, ``/readyz``) answer whatever the name: probes come by address.

Patterns are names (``playtable.example``) or a leading wildcard (``*.playtable.example``,
which does not match ``playtable.example`` itself), compared without the port and case.
"""

from __future__ import annotations

import os
import re

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from playtable.settings import SettingError
from playtable.web.errors import error_page
from playtable.web.health import PATHS
from playtable.web.templating import gettext_for

HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")


def allowed_hosts() -> list[str]:
    """``PLAYTABLE_ALLOWED_HOSTS``, comma-separated; empty means every name. A port written
    with a name is dropped (names are compared without theirs: with it, every request was
    refused); a misplaced wildcard is a :class:`SettingError`."""
    raw = os.environ.get("PLAYTABLE_ALLOWED_HOSTS", "")
    patterns = []
    for item in raw.split(","):
        pattern = item.strip().lower()
        if not pattern:
            continue
        if "*" in pattern and not (pattern.startswith("*.") and "*" not in pattern[1:]):
            raise SettingError(
                f"PLAYTABLE_ALLOWED_HOSTS: a name has its wildcard only as '*.', not {item!r}"
            )
        name = host_name(pattern.replace("*.", "x.", 1))  # "[::1]:8000" gives "::1"
        if name is not None and pattern.startswith("*."):
            name = "*." + name[2:]
        patterns.append(name or pattern)
    return patterns


def host_name(header: str | None) -> str | None:
    """The name in a ``Host`` header without its port (``[::1]:8000`` gives ``::1``), or
    None for a missing or malformed one."""
    if not header:
        return None
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        rest = value[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return value[1:end] or None
    name, colon, port = value.partition(":")
    if colon and not (port.isascii() and port.isdigit()):
        return None
    # a DNS name (letters, digits, hyphens, dot-separated labels; a trailing dot is the root)
    # or an IPv4 address: a wildcard pattern must not let "evil/.site.example" through
    bare = name.removesuffix(".")
    return bare if HOST_NAME.fullmatch(bare) else None


def matches(name: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if pattern.startswith("*."):
            if name.endswith(pattern[1:]):
                return True
        elif name == pattern:
            return True
    return False


class AllowedHostsMiddleware:
    """Inside the language middleware, so the refusal is a page in the visitor's language."""

    def __init__(self, app: ASGIApp, hosts: list[str]) -> None:
        for pattern in hosts:
            if "*" in pattern and not (pattern.startswith("*.") and "*" not in pattern[1:]):
                raise ValueError(f"a host pattern has its wildcard only as '*.': {pattern!r}")
        self.app = app
        self.hosts = [pattern.lower() for pattern in hosts]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in PATHS:
            await self.app(scope, receive, send)
            return
        header = None
        for key, value in scope.get("headers", ()):
            if key == b"host":
                header = value.decode("latin-1")
                break
        name = host_name(header)
        if name is not None and matches(name, self.hosts):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await _refusal(Request(scope))(scope, receive, send)


def _refusal(request: Request) -> Response:
    _ = gettext_for(request).gettext
    return error_page(
        request,
        400,
        _("Unknown site address"),
        _("This server does not answer to that address. Check the link you were given."),
    )


__all__ = ["AllowedHostsMiddleware", "allowed_hosts", "host_name", "matches"]
