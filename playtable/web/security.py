"""Security headers on every HTTP response, and a same-origin check on every unsafe request.

A pure ASGI middleware (no response buffering, WebSockets untouched): it adds headers a
route has not set itself, so a page that needs a stricter or different policy still wins.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# No inline script or style anywhere: the pages load ES modules and stylesheets from /static.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# Strict-Transport-Security over HTTPS: a year, for this name only by default (a site under
# a shared parent domain must not force HTTPS on its siblings). PLAYTABLE_HSTS replaces it
# ("max-age=31536000; includeSubDomains; preload", say), "off" sends none.
HSTS = os.environ.get("PLAYTABLE_HSTS", "").strip() or "max-age=31536000"
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def headers_for(https: bool) -> list[tuple[str, str]]:
    headers = [
        ("content-security-policy", CONTENT_SECURITY_POLICY),
        ("x-frame-options", "DENY"),  # frame-ancestors for browsers that predate it
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "same-origin"),
        ("cross-origin-opener-policy", "same-origin"),
        ("permissions-policy", "camera=(), microphone=(), geolocation=()"),
    ]
    if https and HSTS.lower() != "off":
        # Only over HTTPS: sent over plain HTTP it would be ignored, or lock out a test site.
        headers.append(("strict-transport-security", HSTS))
    return headers


def cross_site(scope: Scope) -> bool:
    """Whether a browser says this request comes from a page of another site.

    Browsers send ``Origin`` on every cross-site POST, and ``Sec-Fetch-Site`` when they know
    it; scripts send neither and are not what CSRF is about. This is the CSRF defence for
    every unsafe request, forms included, beside the token the home page form also carries.
    """
    headers = Headers(scope=scope)
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return True
    origin = headers.get("origin")
    if origin is None:
        return False
    if origin == "null":
        return True  # a sandboxed frame or a data: page: never one of ours
    return urlsplit(origin).netloc != headers.get("host")


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = headers_for(scope.get("scheme") == "https")
        if scope["method"] in UNSAFE_METHODS and cross_site(scope):
            response = PlainTextResponse(
                "Refused: this request came from a page of another site.", status_code=403
            )
            for name, value in extra:
                response.headers[name] = value
            await response(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in extra:
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)
