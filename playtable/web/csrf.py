"""CSRF protection of the site's own forms: a double-submit token (cookie + form field)."""

from __future__ import annotations

import hmac
import secrets

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

CSRF_COOKIE = "pt_csrf"
CSRF_FIELD = "csrf"


def csrf_token(request: Request) -> tuple[str, bool]:
    """The visitor's CSRF token and whether it is new (and must be set as a cookie)."""
    token = request.cookies.get(CSRF_COOKIE, "")
    if 32 <= len(token) <= 128 and token.replace("-", "").replace("_", "").isalnum():
        return token, False
    return secrets.token_urlsafe(32), True


def set_csrf_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        CSRF_COOKIE,
        token,
        max_age=60 * 60 * 24 * 30,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def csrf_ok(request: Request, form: FormData) -> bool:
    cookie = request.cookies.get(CSRF_COOKIE, "")
    field = form.get(CSRF_FIELD, "")
    if not cookie or not isinstance(field, str) or not field:
        return False
    return hmac.compare_digest(cookie.encode(), field.encode())


__all__ = ["CSRF_COOKIE", "CSRF_FIELD", "csrf_ok", "csrf_token", "set_csrf_cookie"]
