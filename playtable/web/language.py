"""The page language: a URL prefix (``/fi/...``, ``/cs/...``, ``/ko/...``; English at ``/``).

An ASGI middleware strips the prefix before routing, so every route is written once, and
puts the language on ``request.state.lang`` (read by :func:`templating.language_of`).
Redirects answered under a prefix keep it, so a form posted at ``/fi/tables`` lands on
``/fi/t/<id>``.

Only the bare home page ``/`` negotiates: an explicit choice remembered in a cookie wins,
then the browser's ``Accept-Language``; a visitor who prefers Finnish is sent to ``/fi/``.
Choosing English in the language switcher adds ``?lang=en``, which sets that cookie and
redirects to the plain address, so the English home page stays English for someone whose
browser prefers another language.
"""

from __future__ import annotations

import re
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, quote, urlencode

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from playtable.web.templating import DEFAULT_LANGUAGE, available_languages

LANG_COOKIE = "pt_lang"
# The links a player sends someone else (an invitation, a seat, a table to watch) or their
# own other device (every game at once, web/carry.py).
SHARED_LINK = re.compile(r"^/(t/[^/]+/(join/|seat/|watch/?$)|games/carry/[^/]+$)")
LANG_PARAM = "lang"
#: The request state's flag: the page's language came from the request's headers.
NEGOTIATED = "language_negotiated"
COOKIE_LIFETIME = 365 * 24 * 3600


def prefix_of(lang: str) -> str:
    """The path prefix of ``lang``: ``""`` for English, ``"/fi"`` for Finnish."""
    return "" if lang == DEFAULT_LANGUAGE else f"/{lang}"


def split_prefix(path: str) -> tuple[str, str]:
    """``"/fi/rules/x"`` -> ``("fi", "/rules/x")``; a path without a prefix is English."""
    for lang in available_languages():
        if lang == DEFAULT_LANGUAGE:
            continue
        prefix = f"/{lang}"
        if path == prefix or path.startswith(prefix + "/"):
            return lang, path[len(prefix) :] or "/"
    return DEFAULT_LANGUAGE, path


def negotiate(accept_language: str) -> str:
    """The best of our languages for an ``Accept-Language`` header (English if none fits)."""
    offered = available_languages()
    choices: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")):
        fields = part.strip().split(";")
        tag = fields[0].strip().lower()
        quality = 1.0
        for field in fields[1:]:
            name, _, value = field.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
                if not 0 <= quality <= 1:  # no qvalue (RFC 9110 12.4.2): nan, inf, 1e999
                    quality = 0.0
        if not tag or quality <= 0:
            continue
        choices.append((-quality, position, tag))
    for _, _, tag in sorted(choices):
        primary = tag.split("-")[0]
        if primary in offered:
            return primary
    return DEFAULT_LANGUAGE


def preferred(headers: Headers) -> str:
    """The visitor's language where the address says none: the choice remembered in the
    cookie, else the browser's ``Accept-Language``."""
    return _cookie_language(headers) or negotiate(headers.get("accept-language", ""))


def _cookie_language(headers: Headers) -> str | None:
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header is the browser's problem, not ours
        return None
    morsel = cookie.get(LANG_COOKIE)
    if morsel and morsel.value in available_languages():
        return morsel.value
    return None


def _cookie_header(lang: str, secure: bool) -> str:
    parts = [f"{LANG_COOKIE}={lang}", "Path=/", f"Max-Age={COOKIE_LIFETIME}", "SameSite=Lax"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


class LanguageMiddleware:
    """Read the language from the path prefix; negotiate it on the bare home page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        lang, rest = split_prefix(path)
        headers = Headers(scope=scope)
        query = scope.get("query_string", b"").decode("latin-1")
        params = parse_qsl(query, keep_blank_values=True)
        chosen = next((v for k, v in params if k == LANG_PARAM), None)
        remember: str | None = None

        if scope["type"] == "http":
            english = f"/{DEFAULT_LANGUAGE}"
            if (path == english or path.startswith(english + "/")) and scope["method"] in (
                "GET",
                "HEAD",
            ):
                # /en/rules -> /rules: English has no prefix, but an address written with
                # one (by hand, or by analogy with /fi/) is the choice of English.
                target = (path[len(english) :] or "/") + (f"?{query}" if query else "")
                cookie = _cookie_header(DEFAULT_LANGUAGE, scope.get("scheme") == "https")
                await _redirect(scope, send, target, cookie=cookie)
                return
            if lang != DEFAULT_LANGUAGE and rest == "/" and path != f"/{lang}/":
                # /fi -> /fi/ : one address per page
                await _redirect(scope, send, f"/{lang}/" + (f"?{query}" if query else ""))
                return
            if chosen in available_languages() and scope["method"] in ("GET", "HEAD"):
                # an explicit choice: remember it, and show the page at its plain address
                kept = urlencode([(k, v) for k, v in params if k != LANG_PARAM])
                target = prefix_of(chosen) + rest + (f"?{kept}" if kept else "")
                await _redirect(
                    scope,
                    send,
                    target,
                    cookie=_cookie_header(chosen, scope.get("scheme") == "https"),
                )
                return
            if chosen in available_languages():
                remember = chosen
            elif lang != DEFAULT_LANGUAGE:
                remember = lang
            if path == "/" and chosen not in available_languages():
                wanted = preferred(headers)
                if wanted != DEFAULT_LANGUAGE:
                    await _redirect(
                        scope, send, f"/{wanted}/" + (f"?{query}" if query else ""), vary=True
                    )
                    return
            if remember == _cookie_language(headers):
                remember = None

        negotiated = path == "/"
        if lang == DEFAULT_LANGUAGE and SHARED_LINK.match(path):
            # Invitation, seat and spectator links carry no language (the sender's is not
            # the receiver's): they answer, and lead to the table, in the receiver's language.
            lang = preferred(headers)
            negotiated = True

        scope = dict(scope)
        scope["path"] = rest
        scope["raw_path"] = rest.encode()
        if params and chosen is not None:
            others = [(k, v) for k, v in params if k != LANG_PARAM]
            scope["query_string"] = urlencode(others).encode()
        state = scope.setdefault("state", {})
        state["lang"] = lang
        # Whether the answer follows the browser's language and choice (their cookie) rather
        # than the address: an error page of an unprefixed address sets it too (errors.py).
        state[NEGOTIATED] = negotiated
        state["page_path"] = rest
        prefix = prefix_of(lang)
        state["url_prefix"] = prefix  # read by templating.page_url
        secure = scope.get("scheme") == "https"
        host = headers.get("host")
        own_origin = f"{scope.get('scheme', 'http')}://{host}" if host else None

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                location = response_headers.get("location")
                if location and own_origin and location.startswith(own_origin):
                    # Starlette writes some redirects (an added trailing slash) with the
                    # Host the client sent: kept on this site whatever that said, and in
                    # the page's language.
                    location = location[len(own_origin) :] or "/"
                    if not location.startswith("/") or location.startswith("//"):
                        location = "/"
                    response_headers["location"] = location
                if (
                    prefix
                    and location
                    and location.startswith("/")
                    and not location.startswith("//")
                    and split_prefix(location)[0] == DEFAULT_LANGUAGE
                ):
                    response_headers["location"] = prefix + location
                if remember:
                    response_headers.append("set-cookie", _cookie_header(remember, secure))
                # The language the page was written in: a handler may have chosen it after
                # this middleware (an unprefixed address's error page, in the browser's).
                response_headers.setdefault("content-language", state.get("lang", lang))
                if state.get(NEGOTIATED):
                    response_headers.append("vary", "Accept-Language, Cookie")
            await send(message)

        # A socket's messages have no headers to adjust: no wrapper on each of them.
        await self.app(scope, receive, send_with_language if scope["type"] == "http" else send)


def safe_location(location: str) -> str:
    """``location`` as a redirect that stays on this site, in ASCII.

    The path is the request's own, decoded: ``//evil.example/`` or ``/\\evil.example/``
    would send the browser to another host (an open redirect), and a path in Korean cannot
    go into a header as it is. One leading slash, and the rest percent-encoded.

    >>> safe_location("//evil.example/?a=1"), safe_location("/\\evil.example/")
    ('/evil.example/?a=1', '/evil.example/')
    >>> safe_location("/ko/규칙")
    '/ko/%EA%B7%9C%EC%B9%99'
    """
    path, mark, query = location.partition("?")
    path = "/" + path.lstrip("/\\")
    return quote(path, safe="/%:@!$&'()*+,;=~-._") + mark + query


async def _redirect(
    scope: Scope, send: Send, location: str, *, vary: bool = False, cookie: str | None = None
) -> None:
    location = safe_location(location)
    headers = [(b"location", location.encode("latin-1")), (b"content-length", b"0")]
    if cookie:
        headers.append((b"set-cookie", cookie.encode("latin-1")))
    if vary:
        headers.append((b"vary", b"Accept-Language, Cookie"))
    headers.append((b"cache-control", b"no-store"))
    await send({"type": "http.response.start", "status": 302, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
