"""Web Push for correspondence play: a player who asked for it is told of their move while
their tab is closed (RFC 8030 delivery, RFC 8291 encryption, RFC 8292 VAPID; ``pywebpush``).

A subscription belongs to one seat: ``POST /t/{id}/push`` with the browser's
``PushSubscription`` JSON (and the page's language) keeps it, ``DELETE /t/{id}/push`` with
its endpoint drops it; both need the seat cookie, and a JSON body (so no form of another site
can send one). ``GET /push/key`` is the server's VAPID public key for ``applicationServerKey``.
When a move passes the turn at a correspondence table, the :class:`Pusher` sends each of the
player's subscriptions an encrypted ``{"title", "body", "url"}`` in the language it was made
in (the url is the table page under that language's prefix, ``/fi/t/{id}``); one the push
service says is gone (404, 410) is removed.

The VAPID key is ``PLAYTABLE_VAPID_KEY_FILE`` (default ``var/vapid.pem``), made on first
start; every process of one site needs the same one, like the server secret.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import json
import logging
import os
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from playtable import settings
from playtable.games import PLAYERS, Player, other
from playtable.games.base import N_, Termination
from playtable.settings import SettingError
from playtable.store import PushSubscription, Store
from playtable.tables import clocks
from playtable.tables.events import Event, Kind, MoveEvent, RematchAccepted, TableEvent
from playtable.tables.events import GameOver as GameOverEvent
from playtable.tables.table import LoadedTable
from playtable.web.bodies import read_body
from playtable.web.budgets import Budget, over_budget
from playtable.web.keyfiles import made_once
from playtable.web.language import prefix_of
from playtable.web.links import seat_token_from
from playtable.web.presentation import game_title, settings_summary
from playtable.web.push_endpoints import (
    EndpointRefused,
    Unresolved,
    check_resolved,
    host_and_port,
)
from playtable.web.result_words import result_words
from playtable.web.templating import STATIC_DIR, available_languages, translations
from playtable.web.urls import SiteLinks

if TYPE_CHECKING:  # the key and the sending are imported when first needed (push_transport)
    from py_vapid import Vapid02

logger = logging.getLogger(__name__)

DEFAULT_KEY_FILE = "var/vapid.pem"
MAX_BODY = 4096
TTL_S = 86400  # a push service may keep the message a day for a browser that is offline
SUBSCRIPTIONS_PER_SEAT = 4  # a player's browsers told of their move; the oldest makes way
SEND_THREADS = 2  # pushes are sent in threads of their own, never the store's
#: The offers the opponent is pushed, in the table page's words (client_strings.py).
OFFERS = {
    Kind.DRAW_OFFERED: N_("%(player)s offers a draw."),
    Kind.UNDO_REQUESTED: N_("%(player)s asks to take back their last move."),
    Kind.REMATCH_OFFERED: N_("%(player)s proposes a rematch."),
}


def key_path(path: str | None = None) -> Path:
    return Path(path or os.environ.get("PLAYTABLE_VAPID_KEY_FILE") or DEFAULT_KEY_FILE)


def check_key_file(file: Path) -> None:
    """Raises :class:`SettingError` if the key file can be neither read nor made, checked at
    start without loading the key's cryptography (made on first use). Found at the first
    page that asked for the key before: a 503, logged as 'the database is away'."""
    try:
        if file.exists():
            file.open("rb").close()
        else:
            file.parent.mkdir(parents=True, exist_ok=True)
            if not os.access(file.parent, os.W_OK):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file.parent))
    except OSError as error:
        where = f" ({error.filename})" if error.filename and error.filename != str(file) else ""
        raise SettingError(
            f"PLAYTABLE_VAPID_KEY_FILE {file} cannot be read or made: {error.strerror}{where}"
        ) from None


def load_vapid(path: str | None = None) -> Vapid02:
    """The site's VAPID key pair, from ``path`` or ``PLAYTABLE_VAPID_KEY_FILE``; made once."""
    from py_vapid import Vapid02

    file = key_path(path)

    def fresh() -> bytes:
        pair = Vapid02()
        pair.generate_keys()
        pem: bytes = pair.private_pem()
        return pem

    # Of processes starting at once, one makes it and all read the same (web/keyfiles.py).
    return Vapid02.from_pem(made_once(file, fresh))


def public_key(vapid: Vapid02) -> str:
    """The ``applicationServerKey``: the uncompressed P-256 point, base64url."""
    from cryptography.hazmat.primitives import serialization

    raw = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class Pusher:
    """Sends the push messages; ``on_change`` is the table service's hook after a change."""

    def __init__(self, store: Store, links: SiteLinks, key_file: str | None = None) -> None:
        self.store = store
        self.links = links
        self.key_file = key_file
        self._vapid: Vapid02 | None = None
        check_key_file(key_path(self.key_file))
        self.subject = os.environ.get("PLAYTABLE_VAPID_SUBJECT") or "mailto:playtable@localhost"
        if not self.subject.startswith(("mailto:", "https:")):  # RFC 8292's two kinds
            raise SettingError(
                f"PLAYTABLE_VAPID_SUBJECT must be a mailto: or https: address, not {self.subject!r}"
            )
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent = 0
        # http and private addresses allowed as endpoints: a push service on the site's own
        # network (and the tests' stand-in for one); never on a public site.
        self.private_endpoints = settings.flag("PLAYTABLE_PUSH_PRIVATE_ENDPOINTS")
        # A push service that answers slowly holds a thread for up to the send's timeout:
        # its own few, so the store and the rest of the site never wait behind it.
        self._threads = ThreadPoolExecutor(SEND_THREADS, thread_name_prefix="push")

    @property
    def vapid(self) -> Vapid02:
        """The key pair, read (or made) when first needed."""
        if self._vapid is None:
            self._vapid = load_vapid(self.key_file)
        return self._vapid

    def on_change(self, table: LoadedTable, events: tuple[Event, ...]) -> None:
        """A change was committed (the table service's hook): at a correspondence table, a
        move that passed the turn tells the player now to move, and the game's end tells
        each player who did not end it themselves (both, when a deadline passed), since a
        player who plays by the day may not open the table again for days. An offer (a draw,
        a take-back, a rematch of the finished game) tells the player it is made to, and a
        rematch accepted carries both players' subscriptions to it."""
        if not isinstance(table.time_control, clocks.Correspondence):
            return
        for accepted in (e for e in events if isinstance(e, RematchAccepted)):
            self._start(self._rematch(table, accepted))
        for offer in (e for e in events if isinstance(e, TableEvent) and e.kind in OFFERS):
            if other(offer.player) not in table.bots:
                self._start(self._tell(table, other(offer.player), offer.kind.value))
        if any(isinstance(event, GameOverEvent) for event in events):
            actor = next((e.player for e in events if isinstance(e, MoveEvent | TableEvent)), None)
            for player in PLAYERS:
                if player != actor and player not in table.bots:
                    self._start(self._tell(table, player, "over"))
            return
        if not any(isinstance(event, MoveEvent) for event in events) or not table.moves:
            return
        to_move = table.to_move()
        if to_move is None or to_move == table.moves[-1].player or to_move in table.bots:
            return
        self._start(self._tell(table, to_move, "move"))

    def _start(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    def _words(table: LoadedTable, player: Player, lang: str, what: str) -> tuple[str, str]:
        """The title and body of a push to ``player`` in ``lang`` of ``what`` ("move",
        "over" or an offer's kind): what happened, and on a line of its own which game."""
        catalog = translations(lang)
        _ = catalog.gettext
        # Which of the player's games (they play several at once): its name and settings,
        # and the name the opponent chose, if any (each message said the same before).
        row = table.row
        parts = [game_title(row.game, catalog), settings_summary(row.game, row.options, catalog)]
        name = row.nicknames.get(other(player))
        if name:
            colour = _("Red") if other(player) == "red" else _("Blue")
            parts.append(_("%(name)s (%(player)s)") % {"name": name, "player": colour})
        which = " · ".join(part for part in parts if part)
        if what == "move":
            return _("Your move at Playtable"), _("Your opponent has moved.") + "\n" + which
        names = {"red": _("Red"), "blue": _("Blue")}
        if what == "rematch":  # accepted by the opponent: the player's colour is swapped
            title = _("%(player)s accepted the rematch.") % {"player": names[other(player)]}
            body = _("Rematch: you play %(player)s this time.") % {"player": names[other(player)]}
            return title, body + "\n" + which
        if what != "over":  # an offer, made by the opponent: said as the table page says it
            return _(OFFERS[Kind(what)]) % {"player": names[other(player)]}, which
        outcome = table.outcome()
        assert outcome is not None
        if outcome.reason is Termination.TIMEOUT and outcome.winner is not None:
            loser = other(outcome.winner)
            if player == loser:
                body = _("You ran out of time. %(winner)s wins.") % {
                    "winner": names[outcome.winner]
                }
            else:
                body = _("%(loser)s ran out of time. You win.") % {"loser": names[loser]}
        else:
            body = result_words(outcome.to_json(), catalog, lang)
        return _("The game is over."), body + "\n" + which

    async def _rematch(self, table: LoadedTable, accepted: RematchAccepted) -> None:
        """The rematch of ``table`` was accepted: each player's subscriptions go on to their
        seat there (colours swapped), and the player who proposed it, who may not look at
        the finished game again, is told that it begins."""
        try:
            for player in PLAYERS:
                for subscription in await self.store.push_subscriptions(table.id, player):
                    await self.store.add_push_subscription(
                        accepted.table, other(player), subscription, keep=SUBSCRIPTIONS_PER_SEAT
                    )
        except Exception:  # the store away: the rematch's pages offer push again
            logger.warning("table %s: push not carried to its rematch", table.id, exc_info=True)
        proposer = other(accepted.player)
        if proposer not in table.bots:
            await self._tell(table, proposer, "rematch", at=accepted.table)

    async def _tell(
        self, table: LoadedTable, player: Player, what: str, at: str | None = None
    ) -> None:
        """Push ``what`` to ``player`` of ``table``: their subscriptions there, or (``at``,
        the rematch, which the message opens) those of their seat there, colours swapped."""
        table_id = at or table.id
        seat = other(player) if at else player  # whose subscriptions, at ``table_id``
        subscriptions = await self.store.push_subscriptions(table_id, seat)
        if not subscriptions:
            return
        from playtable.web import push_transport

        for subscription in subscriptions:
            title, body = self._words(table, player, subscription.lang, what)
            payload = json.dumps(
                {
                    "title": title,
                    "body": body,
                    # The table page in that language: the tab the player keeps open.
                    "url": prefix_of(subscription.lang) + self.links.table(table_id),
                }
            )
            try:
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._threads, self._send, subscription, payload)
                self.sent += 1
            except EndpointRefused as error:  # its host now resolves to a private address
                logger.warning("table %s: push endpoint refused (%s)", table_id, error)
                if not isinstance(error, Unresolved):
                    endpoint = subscription.endpoint
                    await self.store.remove_push_subscription(table_id, seat, endpoint)
            except push_transport.WebPushException as error:
                status = error.response.status_code if error.response is not None else None
                if status in (404, 410):  # the browser unsubscribed: forget it
                    endpoint = subscription.endpoint
                    await self.store.remove_push_subscription(table_id, seat, endpoint)
                else:
                    logger.warning("table %s: push failed (%s)", table_id, status)
            except Exception:
                logger.warning("table %s: push failed", table_id, exc_info=True)

    async def check(self, endpoint: str) -> None:
        """Raise :class:`EndpointRefused` unless the server may send to ``endpoint``. Its
        host is resolved; one that does not resolve here and now is let through, to be
        checked again at each send."""
        host_and_port(endpoint, private_ok=self.private_endpoints)
        loop = asyncio.get_running_loop()
        with contextlib.suppress(Unresolved):
            await loop.run_in_executor(self._threads, self._check_resolved, endpoint)

    def _check_resolved(self, endpoint: str) -> None:
        check_resolved(endpoint, private_ok=self.private_endpoints)

    def _send(self, subscription: PushSubscription, payload: str) -> None:
        from playtable.web import push_transport

        self._check_resolved(subscription.endpoint)
        push_transport.send(
            subscription.endpoint,
            {"p256dh": subscription.p256dh, "auth": subscription.auth},
            payload,
            vapid=self.vapid,
            subject=self.subject,
            ttl=TTL_S,
            private_ok=self.private_endpoints,
        )

    async def close(self) -> None:
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
        self._threads.shutdown(wait=False, cancel_futures=True)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _seat_and_body(request: Request) -> tuple[Player, dict[str, Any]] | Response:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return _error(415, "send JSON (Content-Type: application/json)")
    body = await read_body(request, MAX_BODY)
    if body is None:
        return _error(413, "the request is too large")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return _error(400, "the request body is not valid JSON")
    table_id = request.path_params["table_id"]
    you = await request.app.state.service.seat_of(table_id, seat_token_from(request, table_id))
    if you is None:
        return _error(403, "only a player of this table can be told of their moves")
    if not isinstance(data, dict):
        return _error(400, "expected a JSON object")
    return you, data


def _text(value: Any, limit: int) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _too_many(wait: int) -> Response:
    response = _error(429, "too many requests: wait a moment and try again")
    response.headers["Retry-After"] = str(wait)
    return response


async def subscribe(request: Request) -> Response:
    """A seat's subscription: kept, or (every visit of the player's page sends it again,
    push.js) found kept already. Only a new one spends the offers' budget: a player who
    reloads their pages was refused draw offers once the visits had spent it."""
    if (wait := await over_budget(request, Budget.READS)) is not None:
        return _too_many(wait)
    found = await _seat_and_body(request)
    if isinstance(found, Response):
        return found
    you, data = found
    pusher: Pusher = request.app.state.pusher
    subscription = data.get("subscription")
    keys = subscription.get("keys") if isinstance(subscription, dict) else None
    endpoint = _text(subscription.get("endpoint"), 1024) if isinstance(subscription, dict) else None
    p256dh = _text(keys.get("p256dh"), 128) if isinstance(keys, dict) else None
    auth = _text(keys.get("auth"), 64) if isinstance(keys, dict) else None
    if not (endpoint and p256dh and auth):
        return _error(400, 'expected {"subscription": {"endpoint", "keys": {"p256dh", "auth"}}}')
    lang = str(data["lang"]) if data.get("lang") in available_languages() else "en"
    subscription = PushSubscription(endpoint, p256dh, auth, lang)
    store: Store = request.app.state.store
    table_id = request.path_params["table_id"]
    if subscription in await store.push_subscriptions(table_id, you):
        return JSONResponse({"subscribed": True})  # kept already: nothing new
    # a new one: a request the server sends at every move that passes the turn
    if (wait := await over_budget(request, Budget.OFFERS)) is not None:
        return _too_many(wait)
    try:
        await pusher.check(endpoint)
    except EndpointRefused as error:
        return _error(400, str(error))
    await store.add_push_subscription(table_id, you, subscription, keep=SUBSCRIPTIONS_PER_SEAT)
    return JSONResponse({"subscribed": True}, status_code=201)


async def _seat_and_endpoint(request: Request) -> tuple[Player, str] | Response:
    """The seat and the ``{"endpoint"}`` of a request about one subscription, under the
    reads' budget; else the answer that refuses it."""
    if (wait := await over_budget(request, Budget.READS)) is not None:
        return _too_many(wait)
    found = await _seat_and_body(request)
    if isinstance(found, Response):
        return found
    you, data = found
    endpoint = _text(data.get("endpoint"), 1024)
    if endpoint is None:
        return _error(400, 'expected {"endpoint"}')
    return you, endpoint


async def unsubscribe(request: Request) -> Response:
    """The seat forgets a subscription: a write to the store, under the reads' budget (it had
    none: a player at their own table could keep the store's writes busy)."""
    found = await _seat_and_endpoint(request)
    if isinstance(found, Response):
        return found
    you, endpoint = found
    removed = await request.app.state.store.remove_push_subscription(
        request.path_params["table_id"], you, endpoint
    )
    return JSONResponse({"removed": removed})


async def kept(request: Request) -> Response:
    """Whether the seat keeps this browser's subscription: a page opened straight from a
    push (a rematch the server carried the subscriptions to) says push is on where it is,
    instead of offering to turn on what is on. A read: the reads' budget."""
    found = await _seat_and_endpoint(request)
    if isinstance(found, Response):
        return found
    you, endpoint = found
    store: Store = request.app.state.store
    subscriptions = await store.push_subscriptions(request.path_params["table_id"], you)
    return JSONResponse({"kept": any(s.endpoint == endpoint for s in subscriptions)})


async def service_worker(request: Request) -> Response:
    """The service worker, at the site's root so that it may serve every page's pushes."""
    return FileResponse(
        STATIC_DIR / "push-sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},
    )


async def key(request: Request) -> Response:
    return JSONResponse({"key": public_key(request.app.state.pusher.vapid)})


routes: list[BaseRoute] = [
    Route("/push/key", key, methods=["GET"], name="push_key"),
    Route("/push-sw.js", service_worker, methods=["GET"], name="push_worker"),
    Route("/t/{table_id}/push", subscribe, methods=["POST"], name="push_subscribe"),
    Route("/t/{table_id}/push", unsubscribe, methods=["DELETE"], name="push_unsubscribe"),
    Route("/t/{table_id}/push/kept", kept, methods=["POST"], name="push_kept"),
]

__all__ = ["Pusher", "load_vapid", "public_key", "routes"]
