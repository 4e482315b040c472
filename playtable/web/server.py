"""The HTTP protocol ``playtable serve`` runs: uvicorn's, with guards against slow clients.

uvicorn waits for a request's headers and body as long as the client likes, so a few
hundred connections that send half a request (slowloris) hold the server's file descriptors
for ever. Here every request must arrive whole within :attr:`read_timeout` seconds of its
first byte (or of the connection, for the first one), else it is answered 408 and closed;
and one address may have at most :attr:`pending_per_address` requests arriving at once (the
others are answered 503 at once), so one machine cannot take every slot. An address over its
join budget (web/connections.py) has its WebSocket upgrades answered 429 here, before any
WebSocket or application work. Behind a reverse
proxy the proxy's own timeouts do this job (``docs/deploy.md``), and the guard is a spare.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from typing import ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from playtable import settings
from playtable.web.connections import SPECTATORS_FULL, TOLD_FOR, UPGRADES_REFUSED
from playtable.web.links import SEAT_COOKIE_PREFIX


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket implementation: its default, on websockets' sans-I/O core. wsproto's
    takes 16% less server CPU a move in a quiet game (`bench/latency.py --ws`), but under a
    flood of junk frames it parses them in pure Python: the other tables' move median went
    from 8-18 ms to 52-68 ms (tests/test_flood.py failed with it). Both hold back the sends
    to a page that stops reading instead of buffering them.

    A text message that is not UTF-8 is the client's fault, answered as RFC 6455 says (close
    1007), and logged in one line: uvicorn logged each at ERROR with a traceback, so any
    visitor could fill the operator's log with them."""

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            try:
                text = data.decode()
            except UnicodeDecodeError:
                self.frames = []
                self.logger.info("%s - WebSocket closed: a text message not in UTF-8", self._peer())
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
            self.frames = []
            self.queue.put_nowait({"type": "websocket.receive", "text": text})
            if not self.read_paused:
                self.read_paused = True
                self.transport.pause_reading()
            return
        super().send_receive_event_to_app()

    def _peer(self) -> str:
        return f"{self.client[0]}:{self.client[1]}" if self.client else "unknown"


WS_PROTOCOL = WebSocketProtocol

READ_TIMEOUT = settings.number("PLAYTABLE_READ_TIMEOUT", 10.0, above=0)
SEAT_COOKIE = SEAT_COOKIE_PREFIX.encode()
PENDING_PER_ADDRESS = settings.whole_number("PLAYTABLE_PENDING_PER_ADDRESS", 32, minimum=1)


def _response(status: bytes) -> bytes:
    return b"HTTP/1.1 " + status + b"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class GuardedHttpProtocol(HttpToolsProtocol):
    read_timeout: ClassVar[float] = READ_TIMEOUT
    pending_per_address: ClassVar[int] = PENDING_PER_ADDRESS
    #: requests being read, per client address, in this process
    pending: ClassVar[Counter[str]] = Counter()

    _reading: bool = False
    _timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_reading()

    def _address(self) -> str:
        return self.client[0] if self.client else "unknown"

    def _start_reading(self) -> None:
        if self._reading:
            return
        address = self._address()
        if self.pending[address] >= self.pending_per_address:
            self.transport.write(_response(b"503 Service Unavailable"))
            self.transport.close()
            return
        self.pending[address] += 1
        self._reading = True
        self._timer = self.loop.call_later(self.read_timeout, self._too_slow)

    def _done_reading(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._reading:
            self._reading = False
            address = self._address()
            self.pending[address] -= 1
            if self.pending[address] <= 0:
                del self.pending[address]

    def _too_slow(self) -> None:
        self._timer = None
        if not self.transport.is_closing():
            self.transport.write(_response(b"408 Request Timeout"))
            self.transport.close()
        self._done_reading()

    # The parser's callbacks: a request begins (a keep-alive connection's next one) and ends.
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._start_reading()

    def on_message_complete(self) -> None:
        self._done_reading()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._done_reading()  # the socket has its own limits (web/socket.py)
        until = UPGRADES_REFUSED.get(self._address())
        if until is not None:
            wait = until - time.monotonic()
            if wait > 0:
                self.transport.write(
                    b"HTTP/1.1 429 Too Many Requests\r\nretry-after: %d\r\n"
                    b"content-length: 0\r\nconnection: close\r\n\r\n" % math.ceil(wait)
                )
                self.transport.close()
                return
            del UPGRADES_REFUSED[self._address()]
        told = SPECTATORS_FULL.get(self._address())
        if told is not None and time.monotonic() - told < TOLD_FOR and not self._seat_cookie():
            # A spectator's socket from an address that holds all it may and was told so.
            self.transport.write(_response(b"403 Forbidden"))
            self.transport.close()
            return
        super().handle_websocket_upgrade()

    def _seat_cookie(self) -> bool:
        """Whether the request may carry a seat cookie for the table of its path (``/t/{id}/ws``;
        the app checks it), or is not a table's socket at all."""
        parts = self.url.partition(b"?")[0].split(b"/")  # (an upgrade's path is not parsed)
        if len(parts) != 4 or parts[1] != b"t":
            return True
        cookie = SEAT_COOKIE + parts[2] + b"="
        return any(name == b"cookie" and cookie in value for name, value in self.headers)

    def connection_lost(self, exc: Exception | None) -> None:
        self._done_reading()
        super().connection_lost(exc)


__all__ = ["WS_PROTOCOL", "GuardedHttpProtocol", "WebSocketProtocol"]
