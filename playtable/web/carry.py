"""Carry every game of this browser to another device at once (``/games/carry``).

The continue page carries one seat (a link and a QR code per game); a correspondence player
with a dozen games and a new phone would open a dozen pages. My games offers one link for all
of them: the seats this browser holds (the rematches its keys open included) and the tables it
set up for others.

- The link is made on request (a POST from My games) and holds a random code, not the keys.
  The store keeps the keys sealed (AES-GCM) with a key derived from that code, under the
  code's SHA-256: the database never holds a seat key, as for the seats themselves.
- It works once, for :data:`CARRY_MINUTES` minutes (for the browser that took it, again:
  the button pressed twice, the back button). Opening it takes nothing (a chat app's
  preview, a camera app's look at the code): a button on the page (a POST with the page's CSRF
  token) puts the games in the browser that presses it, which then lists them in My games.
- A seat whose link was replaced since is not carried: each key is checked again there.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.store import Store
from playtable.tables import TableNotFound, TableService, tokens
from playtable.web.budgets import Budget, over_budget
from playtable.web.csrf import CSRF_COOKIE, csrf_ok, csrf_token, set_csrf_cookie
from playtable.web.errors import error_page
from playtable.web.links import seat_token_from, set_organiser_cookie, set_seat_cookie
from playtable.web.my_games import my_games, seat_cookies
from playtable.web.organised import organiser_cookies, organiser_of
from playtable.web.qr import qr_svg
from playtable.web.templating import gettext_for, page_url, render

CARRY_MINUTES = 10
_SEALING = b"playtable carry: the seats of one browser"


@dataclass(frozen=True)
class Carried:
    """What one carry holds: ``(table id, key)`` of the seats and of the tables set up for
    others."""

    seats: tuple[tuple[str, str], ...]
    organised: tuple[tuple[str, str], ...]

    def __len__(self) -> int:
        return len(self.seats) + len(self.organised)


def _cipher(code: str) -> AESGCM:
    return AESGCM(hmac.new(code.encode(), _SEALING, hashlib.sha256).digest())


def seal(code: str, carried: Carried) -> str:
    nonce = secrets.token_bytes(12)
    plain = orjson.dumps({"seats": carried.seats, "organised": carried.organised})
    return base64.urlsafe_b64encode(nonce + _cipher(code).encrypt(nonce, plain, None)).decode()


def unseal(code: str, sealed: str) -> Carried | None:
    """The carry sealed with ``code``; ``None`` if it was not (another code, a changed row)."""
    try:
        raw = base64.urlsafe_b64decode(sealed)
        data = orjson.loads(_cipher(code).decrypt(raw[:12], raw[12:], None))
    except (InvalidTag, ValueError):
        return None
    return Carried(
        tuple((str(t), str(k)) for t, k in data["seats"]),
        tuple((str(t), str(k)) for t, k in data["organised"]),
    )


def _plausible(code: str) -> bool:
    return 20 <= len(code) <= 64 and code.replace("-", "").replace("_", "").isalnum()


async def _held(request: Request) -> Carried:
    """What this browser holds now, each key checked (My games' own reading)."""
    service: TableService = request.app.state.service
    seats = tuple((game.table["id"], game.token) for game in await my_games(service, request))
    organised = []
    for table_id, key in organiser_cookies(request):
        try:
            if await organiser_of(service, table_id, key):
                organised.append((table_id, key))
        except TableNotFound:
            continue
    return Carried(seats, tuple(organised))


def _taken_here(request: Request, code: str) -> str | None:
    """Where a carry this browser took is kept until it expires: under the hash of its code
    and of this browser's CSRF secret, which no one else has."""
    secret = request.cookies.get(CSRF_COOKIE, "")
    return tokens.hash_token(f"{code} taken by {secret}") if secret else None


def _to_my_games(request: Request) -> RedirectResponse:
    return RedirectResponse(
        page_url(request, request.url_for("my_games").path),
        status_code=303,
        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
    )


def _expired(request: Request) -> Response:
    _ = gettext_for(request).gettext
    return error_page(
        request,
        410,
        _("This link no longer works"),
        _(
            "A link that carries games to another device works once, for %(minutes)s minutes. "
            "Make a new one in My games on the device that holds the games."
        )
        % {"minutes": CARRY_MINUTES},
    )


async def _refused_form(request: Request) -> Response | None:
    """The page for a form without this browser's CSRF token, or ``None`` if it has it."""
    form = await request.form()
    try:
        if csrf_ok(request, form):
            return None
    finally:
        await form.close()
    _ = gettext_for(request).gettext
    return error_page(request, 403, _("This form has expired"), _("Reload the page and try again."))


def _busy(request: Request, wait: int) -> Response:
    _ = gettext_for(request).gettext
    refused = error_page(
        request, 429, _("Too many actions at once. Wait a moment and try again."), ""
    )
    refused.headers["Retry-After"] = str(wait)
    return refused


async def make_carry(request: Request) -> Response:
    """``POST /games/carry`` (My games' button): a link for this browser's games, shown with
    its QR code on the page this answers with (it holds a secret: not cached, nor kept in the
    history as an address)."""
    _ = gettext_for(request).gettext
    # a row written, as a new table is (the tables' budget), and a table read for each key
    # the cookies name, as My games reads them (the reads')
    keys = len(seat_cookies(request)) + len(organiser_cookies(request))
    wait = await over_budget(request, Budget.TABLES)
    if wait is None:
        wait = await over_budget(request, Budget.READS, units=max(1, keys))
    if wait is not None:
        return _busy(request, wait)
    if (refused := await _refused_form(request)) is not None:
        return refused
    carried = await _held(request)
    if not carried:
        return error_page(
            request,
            404,
            _("No games to carry"),
            _("This browser holds no seat at any table yet."),
        )
    code = secrets.token_urlsafe(24)
    store: Store = request.app.state.store
    expires = datetime.now(UTC) + timedelta(minutes=CARRY_MINUTES)
    await store.add_carry(tokens.hash_token(code), seal(code, carried), expires)
    link = str(request.url_for("carry_open", code=code))
    return render(
        request,
        "carry.html",
        {
            "made": True,
            "link": link,
            "qr": qr_svg(link),
            "games": len(carried.seats),
            "organised": len(carried.organised),
            "minutes": CARRY_MINUTES,
            "back": page_url(request, request.url_for("my_games").path),
            "nav": "games",
        },
        headers={"Cache-Control": "no-store"},
    )


async def open_carry(request: Request) -> Response:
    """``GET /games/carry/{code}`` on the other device: what the link carries, and the button
    that takes it. Opening it takes nothing."""
    code = request.path_params["code"]
    if (wait := await over_budget(request, Budget.READS)) is not None:
        return _busy(request, wait)
    store: Store = request.app.state.store
    sealed = await store.carry(tokens.hash_token(code)) if _plausible(code) else None
    carried = unseal(code, sealed) if sealed is not None else None
    if carried is None:
        # this browser took it (the back button after the button): its games are there
        taken_here = _taken_here(request, code) if _plausible(code) else None
        if taken_here is not None and await store.carry(taken_here) is not None:
            return _to_my_games(request)
        return _expired(request)
    csrf, new_csrf = csrf_token(request)
    response = render(
        request,
        "carry.html",
        {
            "made": False,
            "games": len(carried.seats),
            "organised": len(carried.organised),
            "action": request.url_for("carry_take", code=code).path,
            "csrf": csrf,
            "nav": "games",
        },
        headers={"Cache-Control": "no-store", "X-Robots-Tag": "noindex"},
    )
    if new_csrf:
        set_csrf_cookie(response, request, csrf)
    return response


async def take_carry(request: Request) -> Response:
    """``POST /games/carry/{code}``: the games go into this browser (each key checked again),
    and the link works no more; on to My games. A write, and a read of each table it
    carries: the reads' budget (a forged code costs the store a transaction too)."""
    code = request.path_params["code"]
    if (wait := await over_budget(request, Budget.READS)) is not None:
        return _busy(request, wait)
    if (refused := await _refused_form(request)) is not None:
        return refused
    store: Store = request.app.state.store
    taken_here = _taken_here(request, code)
    sealed = None
    if _plausible(code) and taken_here is not None:
        sealed = await store.take_carry(tokens.hash_token(code), kept_as=taken_here)
        if sealed is None:
            # taken by this browser already: the button pressed twice (the first answer,
            # with the cookies, was dropped for the second), or again after going back
            sealed = await store.carry(taken_here)
    carried = unseal(code, sealed) if sealed is not None else None
    if carried is None:
        return _expired(request)
    service: TableService = request.app.state.service
    response = _to_my_games(request)
    for table_id, key in carried.seats:
        # a seat this browser holds there already stays (the other side of the game, which
        # the carried key would have taken from it for good)
        own = seat_token_from(request, table_id)
        if own is not None and await service.seat_of(table_id, own) is not None:
            continue
        if await service.seat_of(table_id, key) is not None:  # not replaced since
            set_seat_cookie(response, request, table_id, key)
    for table_id, key in carried.organised:
        try:
            if await organiser_of(service, table_id, key):
                set_organiser_cookie(response, request, table_id, key)
        except TableNotFound:
            continue
    return response


routes: list[BaseRoute] = [
    Route("/games/carry", make_carry, methods=["POST"], name="carry_make"),
    Route("/games/carry/{code}", open_carry, methods=["GET", "HEAD"], name="carry_open"),
    Route("/games/carry/{code}", take_carry, methods=["POST"], name="carry_take"),
]

__all__ = ["CARRY_MINUTES", "Carried", "routes", "seal", "unseal"]
