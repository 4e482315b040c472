"""``WS /t/{id}/ws``: one socket per open table page, speaking docs/protocol.md.

The socket never decides anything: it checks the shape of each message, hands the request to
the table service with the seat token from this browser's cookie, and relays what the bus
says about the table. Bad input gets an ``error`` message and the connection stays open.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from playtable.aio import cancel_and_wait
from playtable.bus import Subscription
from playtable.games import Player
from playtable.store.failures import RefusalLog, database_away
from playtable.tables import Stale, TableError, TableNotFound, TableService
from playtable.tables.views import VIEWER_FIELDS
from playtable.web.budgets import Budget, Budgets, over_budget
from playtable.web.connections import Connections, Place
from playtable.web.limits import Limits, TokenBucket
from playtable.web.links import seat_token_from
from playtable.web.wire import dumps, encoded, table_text

PROTOCOL = 2
UNVERSIONED = ("presence", "spectators", "quick")  # event kinds that change no version
RESYNC_SPREAD = 1.0  # seconds over which the sockets of a process re-read after an overflow

log = logging.getLogger(__name__)
#: Socket requests refused while the database is away, logged a few lines an outage.
_refusals = RefusalLog(log)
#: Sockets being told that their seat has a new link (kept until told: TableSocket.evict).
_EVICTIONS: set[asyncio.Task[None]] = set()


class _BadMessage(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _same_origin(websocket: WebSocket) -> bool:
    """Whether the page that opened the socket is ours (browsers always send Origin)."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser: a script holding a token acts for itself
    return urlsplit(origin).netloc == websocket.headers.get("host")


class TableSocket:
    def __init__(
        self,
        websocket: WebSocket,
        service: TableService,
        table_id: str,
        limits: Limits,
        connections: Connections,
    ) -> None:
        self.websocket = websocket
        self.connections = connections  # this process's sockets
        client = websocket.client
        self.address = client.host if client else "unknown"
        self.limits = limits
        self.service = service
        self.table_id = table_id
        watch = websocket.query_params.get("watch") == "1"
        # A page of another site must not act with this browser's seat cookie.
        self.token = (
            None if watch or not _same_origin(websocket) else seat_token_from(websocket, table_id)
        )
        self.player: Player | None = None
        self.counted = False  # this socket's presence is counted (once, whatever it sends)
        self.place: Place | None = None  # its share of the connection caps, once admitted
        self.seat_lost = False  # the seat got a new key: told, closed, counted out
        self.join_tried = False  # a valid join came (the join deadline is met)
        self.joined = False
        self.resubscribing: asyncio.Task[None] | None = None
        self.resync: asyncio.Task[None] | None = None
        self.resync_later = False  # whether ``resync`` is still pausing before its re-read
        self.sent_version = -1
        self.sent_personal: dict[str, Any] | None = None  # the viewer's fields last sent
        self.rematch_sent = False  # this seated player was given the rematch table's link
        self.rematch_lock = asyncio.Lock()
        self.subscription: Subscription | None = None
        self.pump: asyncio.Task[None] | None = None
        self.send_lock = asyncio.Lock()
        # A token bucket per socket: bursts of clicks are fine, a flood is not.
        self.bucket = TokenBucket(limits.message_burst, limits.messages_per_second)
        self.refused_in_a_row = 0

    @functools.cached_property
    def handlers(self) -> dict[str, Callable[[dict[str, Any]], Awaitable[None]]]:
        """The handler of each message type (made at the first message: a socket refused
        at the handshake never needs them)."""
        service = self.service
        return {
            "join": self.on_join,
            "ping": self.on_ping,
            "move": self.on_move,
            "resign": self.on_simple(service.resign),
            "offer_draw": self.on_simple(service.offer_draw, Budget.OFFERS),
            "request_undo": self.on_simple(service.request_undo, Budget.OFFERS),
            "rematch": self.on_rematch,
            "decline_rematch": self.on_simple(service.decline_rematch),
            "answer_draw": self.on_answer(service.answer_draw),
            "answer_undo": self.on_answer(service.answer_undo),
            "say": self.on_say,
            "nickname": self.on_nickname,
        }

    # -- the connection's life --------------------------------------------------------------
    async def run(self) -> None:
        """Serve the connection, counted in the process's ``connections``."""
        connections, address = self.connections, self.address
        if self.token is None and (
            connections.cooling(address)
            or (connections.full(self.table_id, address, None) and connections.told_lately(address))
        ):
            # A spectator for sure, over its join budget or a cap and told so lately:
            # refused at the handshake (HTTP 403) before the table is read (connections.py).
            await self.websocket.close(1013)
            return
        exists, self.player = await self.service.seat_at(self.table_id, self.token)
        if not exists or (self.player is None and connections.cooling(address)):
            # Refused at the handshake (HTTP 403): an unknown table holds no socket here.
            await self.websocket.close(1008)
            return
        self.place = place = connections.admit(self.table_id, address, self.player, self)
        if place is None and self.player is None and connections.told_lately(address):
            await self.websocket.close(1013)  # told lately: refused at the handshake
            return
        await self.websocket.accept()
        if place is None:
            if self.player is None:
                connections.tell(address)
            # Accepted first, so the page gets a reason it can show rather than a failed
            # upgrade. Seated players are never refused for the spectators' numbers.
            await self.send_error(
                "too_many_connections",
                "This table has too many open connections; try again later.",
            )
            await self.websocket.close(1013)  # try again later
            return
        loop = asyncio.get_running_loop()
        join_by = loop.time() + self.limits.join_seconds if self.limits.join_seconds else None
        try:
            while True:
                try:
                    # asyncio.timeout, not wait_for: no extra task for every message.
                    async with asyncio.timeout(self.limits.idle_seconds or None) as timeout:
                        if not self.join_tried and join_by is not None:
                            timeout.reschedule(min(timeout.when() or join_by, join_by))
                        message = await self.websocket.receive()
                except TimeoutError:
                    if not self.join_tried and join_by is not None:
                        # A page joins at once; a socket that never does hears no event
                        # (a seat's new key among them) and must not hold a place.
                        await self.send_error("protocol", 'Send {"type": "join"} first.')
                        await self.websocket.close(1008)
                        break
                    # A page keeps its socket with "ping"; silence this long is a dead peer
                    # or an idle hoarder of connections.
                    await self.send_error("idle", "Closed after a long silence; reconnect.")
                    await self.websocket.close(1001)
                    break
                if message["type"] == "websocket.disconnect":
                    break
                await self.handle(message)
                if self.refused_in_a_row >= self.limits.flood_close_after:
                    await self.websocket.close(1008, "flood")
                    break
        except WebSocketDisconnect:
            pass
        finally:
            await self.leave()

    def give_up_place(self) -> None:
        """No longer count this socket: its share of the caps, and its presence."""
        if self.place is not None:
            self.connections.release(self.place)
            self.place = None
        if self.counted:
            self.counted = False
            self.service.disconnected(self.table_id, self.player)

    async def leave(self) -> None:
        # Bookkeeping first and without awaiting: this task may already be cancelled.
        self.give_up_place()
        for task in (self.resubscribing, self.resync):
            if task is not None:
                task.cancel()
        if self.pump is not None:
            self.pump.cancel()
        if self.subscription is not None:
            await self.subscription.close()
        if self.pump is not None:
            await cancel_and_wait([self.pump])

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_text(dumps(message))

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            await self.websocket.send_text(text)

    async def send_error(
        self,
        code: str,
        message: str,
        version: int | None = None,
        *,
        cause: TableError | None = None,
        request: str | None = None,
    ) -> None:
        error: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if version is not None:
            error["version"] = version
        if request is not None:
            error["request"] = request  # the message type it answers (docs/protocol.md)
        if cause is not None and cause.reason is not None:
            # a game's catalog message and its values: the page says it in its language
            error["reason"], error["params"] = cause.reason, cause.params
        await self.send(error)

    # -- one client message -----------------------------------------------------------------
    async def handle(self, raw: Mapping[str, Any]) -> None:
        kind: str | None = None
        try:
            # The allowance first: a flood of garbage must not cost a JSON parse per frame.
            if not self.bucket.take():
                self.refused_in_a_row += 1
                raise _BadMessage("rate_limited", "Too many messages; slow down a little.")
            self.refused_in_a_row = 0
            message = self.parse(raw)
            kind = message["type"]
            handler = self.handlers.get(kind)
            if handler is None:
                raise _BadMessage("unknown_type", f"Unknown message type {kind!r}.")
            if not self.joined and kind not in ("join", "ping"):
                raise _BadMessage("protocol", 'Send {"type": "join"} first.')
            await handler(message)
        except _BadMessage as bad:
            await self.send_error(bad.code, bad.message, request=kind)
        except TableNotFound as error:
            await self.send_error(error.code, error.message, request=kind)
        except Stale as error:
            await self.send_error(error.code, error.message, error.version, request=kind)
            await self.send_state()
        except TableError as error:
            await self.send_error(
                error.code, error.message, error.version, cause=error, request=kind
            )
        except (asyncio.CancelledError, WebSocketDisconnect):
            raise
        except Exception as error:
            if database_away(error):
                # Nothing was done: the player may try again (the heartbeat and the sweep
                # log the outage itself).
                _refusals.refused(f"table {self.table_id}: {kind}", error)
                await self.send_error(
                    "unavailable",
                    "The server cannot reach its database: that was not done. Try again soon.",
                    request=kind,
                )
                return
            # A bug of ours must not cost the players their connection: log it, say so.
            log.exception("table %s: request failed", self.table_id)
            await self.send_error(
                "internal",
                "The server failed to handle that request; please try again.",
                request=kind,
            )

    def parse(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        text = raw.get("text")
        limit = self.limits.message_bytes
        too_large = _BadMessage("too_large", f"Messages are limited to {limit // 1024} KiB.")
        if text is None:
            if len(raw.get("bytes") or b"") > limit:
                raise too_large
            raise _BadMessage("malformed", "Send messages as JSON text, not binary frames.")
        if len(text) > limit or len(text.encode()) > limit:
            raise too_large
        try:
            message = orjson.loads(text)
        except (ValueError, RecursionError):
            raise _BadMessage("malformed", "The message is not valid JSON.") from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise _BadMessage("malformed", 'A message is a JSON object with a "type".')
        return message

    # -- handlers ---------------------------------------------------------------------------
    async def on_ping(self, message: dict[str, Any]) -> None:
        await self.send({"type": "pong"})

    async def on_join(self, message: dict[str, Any]) -> None:
        protocol = message.get("protocol")
        if type(protocol) is not int or protocol != PROTOCOL:
            raise _BadMessage(
                "protocol", f"This server speaks protocol {PROTOCOL}; reload the page."
            )
        since = message.get("since")
        if since is not None and type(since) is not int:
            raise _BadMessage("malformed", '"since" must be a version number or null.')
        if self.seat_lost:
            return  # told and closing: never counted again
        self.join_tried = True  # a join that then fails (the store away) is no hoarder
        wait = await over_budget(self.websocket, Budget.READS)
        if wait is not None:
            # Each join costs a full state: past the address's budget the page is told, and
            # the socket closed so that the page tries again later (its reconnect backs off).
            # Until then its address's spectator sockets are refused at the handshake.
            self.connections.cool_down(self.address, wait)
            await self.send_error(
                "rate_limited", f"Too many page loads from your address; try again in {wait} s."
            )
            await self.websocket.close(1013)
            raise WebSocketDisconnect(1013)
        if not self.counted:
            self.counted = True
            self.service.connected(self.table_id, self.player)
        if self.subscription is None and self.resubscribing is None:
            # Subscribe, then read: nothing published after the read can be missed, and
            # anything older is recognised by its version and dropped. Without the bus
            # (Redis away) the page still gets the table from the store, and the socket
            # subscribes again in the background.
            try:
                self.subscription = await self.service.subscribe(
                    self.table_id, seated=self.player is not None
                )
            except Exception:
                log.warning("table %s: subscribing failed; retrying", self.table_id, exc_info=True)
                self.resubscribing = asyncio.create_task(self.resubscribe())
        # Whatever ``since`` says, the full state brings the client up to date: it is small,
        # and it covers presence, which has no version of its own.
        self.rematch_sent = False  # every join repeats the link (docs/protocol.md)
        await self.send_state()
        if self.seat_lost:
            return
        self.joined = True
        self.start_relay()

    def start_relay(self) -> None:
        # Relaying starts after the first state, so the client sees that first; what was
        # published meanwhile waits in the subscription and is sent if newer.
        if self.pump is None and self.subscription is not None and self.joined:
            self.pump = asyncio.create_task(self.relay(self.subscription))

    async def resubscribe(self) -> None:
        """Subscribe again with back-off and jitter until the bus answers, then catch up."""
        delay = 0.5
        while True:
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
            try:
                self.subscription = await self.service.subscribe(
                    self.table_id, seated=self.player is not None
                )
            except Exception:
                delay = min(delay * 2, 3.0)
                continue
            self.resubscribing = None
            await self.send_state()  # what was published while the bus was away (and the seat)
            self.start_relay()
            return

    async def on_move(self, message: dict[str, Any]) -> None:
        ply = message.get("ply")
        move = message.get("move")
        if type(ply) is not int or ply < 0:
            raise _BadMessage("malformed", '"ply" must be the number of moves played so far.')
        if not isinstance(move, str) or not move:
            raise _BadMessage("malformed", '"move" must be a move in text notation.')
        # The thinking time the page measured: the lag compensation of docs/protocol.md.
        think = message.get("think_s")
        think_s = (
            float(think) if isinstance(think, int | float) and type(think) is not bool else None
        )
        await self.service.play_move(self.table_id, self.token, ply, move, think_s)

    def on_simple(
        self, action: Callable[[str, str | None], Awaitable[int]], budget: Budget | None = None
    ) -> Callable[[dict[str, Any]], Awaitable[None]]:
        async def handler(message: dict[str, Any]) -> None:
            if budget is not None:
                await self.spend(budget)
            await action(self.table_id, self.token)

        return handler

    async def spend(self, budget: Budget) -> None:
        """One unit of the client address's ``budget``; raises ``rate_limited`` if none is
        left (the computer thinks about every offer, a rematch makes a table)."""
        wait = await over_budget(self.websocket, budget)
        if wait is not None:
            raise _BadMessage(
                "rate_limited", f"Too many of those from your address; try again in {wait} s."
            )

    def on_answer(
        self, action: Callable[[str, str | None, bool], Awaitable[int]]
    ) -> Callable[[dict[str, Any]], Awaitable[None]]:
        async def handler(message: dict[str, Any]) -> None:
            accept = message.get("accept")
            if not isinstance(accept, bool):
                raise _BadMessage("malformed", '"accept" must be true or false.')
            await action(self.table_id, self.token, accept)

        return handler

    async def on_say(self, message: dict[str, Any]) -> None:
        said = message.get("message")
        if not isinstance(said, str):
            raise _BadMessage("malformed", '"message" must be one of the quick messages.')
        # A few at once, then one every few seconds, for the seat whatever its sockets (a
        # spectator's is refused by the service: not seated).
        if self.player is not None and not self.connections.may_talk(self.table_id, self.player):
            raise _BadMessage("rate_limited", "One quick message at a time, please.")
        if self.player is not None:
            # and so many a minute across the site's processes (the seat's sockets may be
            # on several)
            budgets: Budgets = self.websocket.app.state.budgets
            wait = await budgets.take(Budget.QUICK_MESSAGES, f"{self.table_id}/{self.player}")
            if wait is not None:
                raise _BadMessage("rate_limited", f"Too many quick messages; wait {wait} s.")
        await self.service.say(self.table_id, self.token, said)

    async def on_nickname(self, message: dict[str, Any]) -> None:
        name = message.get("name")
        if not isinstance(name, str) or len(name) > 200:
            raise _BadMessage("malformed", '"name" must be a text of at most 24 characters.')
        await self.spend(Budget.OFFERS)  # every change is shown to the whole table
        await self.service.set_nickname(self.table_id, self.token, name)

    async def on_rematch(self, message: dict[str, Any]) -> None:
        await self.spend(Budget.TABLES)
        sent_before = self.rematch_sent
        await self.service.rematch(self.table_id, self.token)
        # The link comes once: with the relayed change that agreed the rematch, or here if
        # the relay has not sent it yet. Asking again once agreed sends it again.
        await self.send_rematch_link(again=sent_before)

    # -- from the table to the client -------------------------------------------------------
    async def send_state(self, only_if_newer: bool = False) -> None:
        """The whole table, as ``state``: after a join, or when this socket missed a version
        (``only_if_newer``: a re-read that found the version this socket has sends nothing)."""
        shared, live, seat = await self.service.snapshot_parts(self.table_id, self.token)
        if self.player is not None and seat != self.player:
            await self.lose_seat()  # the seat has a new key since this socket opened
            return
        version: int = shared["version"]
        if only_if_newer and version <= self.sent_version:
            return
        personal = self.service.personal({**shared, **live}, self.player)
        table = table_text(shared, live, personal)
        text = f'{{"type":"state","version":{version},"table":{table}}}'
        # The send may wait on a slow client: what is relayed meanwhile is judged by this.
        if version >= self.sent_version:
            self.sent_version, self.sent_personal = version, personal
        await self.send_text(text)
        if shared.get("rematch_id") is not None and not self.rematch_sent:
            # However this socket came to the version that agreed a rematch (a join, a
            # re-read after a missed message or a lost bus, a refused stale request), the
            # relay then skips that version's change: the link must come with the state.
            await self.send_rematch_link()

    async def read_again(self) -> None:
        await asyncio.sleep(random.uniform(0, RESYNC_SPREAD))
        self.resync_later = False  # reading now: no longer to be cancelled for a sooner read
        await self.send_state(only_if_newer=True)

    async def send_rematch_link(self, again: bool = False) -> None:
        """Send this player's seat link at the rematch table, once there is one; once per
        join (the relay and a request may both get here), or ``again`` on request. The lock
        makes the look and the send one step: a caller that finds no link yet (a stale read)
        or whose read fails leaves the link to the next caller instead of swallowing it."""
        if self.player is None:
            return
        async with self.rematch_lock:
            if self.rematch_sent and not again:
                return
            url = await self.service.rematch_url(self.table_id, self.token)
            if url is None:
                return
            await self.send({"type": "rematch", "url": url})
            self.rematch_sent = True

    async def relay(self, subscription: Subscription) -> None:
        try:
            async for message in subscription:
                await self.forward(message)
        except asyncio.CancelledError:
            raise
        except Exception:
            # The client went away mid-send; the receive loop notices and cleans up.
            log.debug("relay to a table socket stopped", exc_info=True)

    async def forward(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "reread":
            self.resync_soon(at_once=True)  # this table's news came without its message
            return
        if kind != "table":
            # Overflow (the bus lost messages, or we fell behind): read the table afresh, once,
            # after a random pause, so the sockets of a process that lost Redis do not all
            # read the store at the same moment.
            self.resync_soon()
            return
        version: int = message["version"]
        self.service.observed(message)
        if "patch" in message:
            if message["base"] != self.sent_version:
                if version > self.sent_version:
                    self.resync_soon(at_once=True)  # a version went missing on the way
                return  # else already covered by a state we sent
            text = self.encode_patch(message)
        else:
            events: list[dict[str, Any]] = message["events"]
            # Presence, the spectators' count and quick messages change no version.
            presence_only = all(e.get("kind") in UNVERSIONED for e in events)
            if version < self.sent_version or (version == self.sent_version and not presence_only):
                return  # already covered by a state we sent
            text = self.encode_whole(message)
        self.sent_version = version
        await self.send_text(text)
        if self.player is not None and any(
            e.get("kind") == "seat_key_replaced" and e.get("player") == self.player
            for e in message["events"]
        ):
            try:
                await self.check_seat()
            except Exception:
                # The relay goes on (its end would leave this page deaf): the re-read checks
                # the seat again with the state it sends.
                log.warning("table %s: the seat check failed", self.table_id, exc_info=True)
                self.resync_soon(at_once=True)
        if not self.rematch_sent and any(
            e.get("kind") == "rematch_accepted" for e in message["events"]
        ):
            try:
                await self.send_rematch_link()
            except Exception:
                # The relay goes on (its end would leave this page deaf); the player's own
                # request, a re-read or the next join sends the link.
                log.warning("table %s: the rematch link was not sent", self.table_id, exc_info=True)

    async def check_seat(self) -> None:
        """The seat's link was replaced (``seat_key_replaced``): a socket opened with the old
        key is told and closed, which gives up its presence and its share of the seat's
        connections; the page connects again as what its cookie holds now (a spectator, or
        the player again on the device that made the new link)."""
        if self.player is None or await self.service.seat_of(self.table_id, self.token):
            return
        await self.lose_seat()

    def evict(self) -> None:
        """Counted out at once (its key no longer opens the seat, and the owner's new link
        needs the place: :meth:`Connections.admit`), then told why and closed."""
        self.give_up_place()
        task = asyncio.create_task(self.lose_seat())
        _EVICTIONS.add(task)
        task.add_done_callback(_EVICTIONS.discard)

    async def lose_seat(self) -> None:
        """This socket's key no longer opens its seat: counted out at once (whenever the
        page answers the close), told why, and closed."""
        if self.seat_lost:
            return
        self.seat_lost = True
        self.give_up_place()
        await self.send_error(
            "seat_key_replaced",
            "This seat has a new link: this page no longer plays here.",
        )
        await self.websocket.close(1008)

    def resync_soon(self, at_once: bool = False) -> None:
        pending = self.resync is not None and not self.resync.done()
        if pending and at_once and self.resync_later:
            assert self.resync is not None
            self.resync.cancel()  # still pausing before its re-read: read now instead
            pending = False
        if not pending:
            self.resync_later = not at_once
            self.resync = asyncio.create_task(self.send_state() if at_once else self.read_again())

    def _personal(self, table_id: str, seats: Any) -> dict[str, Any]:
        return self.service.personal({"id": table_id, "seats": seats}, self.player)

    def encode_patch(self, message: dict[str, Any]) -> str:
        """The ``change`` text of a patch message for this socket: the shared text (encoded
        once for every socket of the process), plus the viewer's own fields if they changed."""
        shared = encoded(message, _change_text)
        seats = next((o["value"] for o in message["patch"] if o["path"] == "/seats"), None)
        if seats is None:
            return shared
        personal = self._personal(message["table_id"], seats)
        if personal == self.sent_personal:
            return shared
        self.sent_personal = personal
        extra = ",".join(
            dumps({"op": "replace", "path": f"/{field}", "value": value})
            for field, value in personal.items()
        )
        return f"{shared[:-2]},{extra}]}}"  # shared ends with the patch's ']}'

    def encode_whole(self, message: dict[str, Any]) -> str:
        """The ``change`` text of a message that carries the whole table."""
        shared = encoded(message, _change_text)
        personal = self._personal(message["table_id"], message["table"]["seats"])
        self.sent_personal = personal
        return f"{shared[:-2]},{dumps(personal)[1:]}}}"  # shared ends with the table's '}}'


def _change_text(message: Mapping[str, Any]) -> str:
    """A bus message as the ``change`` message of docs/protocol.md, the viewer's fields
    left out (they are spliced in per socket)."""
    head = {
        "type": "change",
        "version": message["version"],
        "base": message["base"],
        "events": message["events"],
    }
    if "patch" in message:
        return dumps({**head, "patch": message["patch"]})
    table = {k: v for k, v in message["table"].items() if k not in VIEWER_FIELDS}
    return dumps({**head, "table": table})


async def table_socket(websocket: WebSocket) -> None:
    state = websocket.app.state
    table_id = websocket.path_params["table_id"]
    socket = TableSocket(websocket, state.service, table_id, state.limits, state.connections)
    await socket.run()
