"""Who is asking: the client address of each request and socket, for the tables' fair turns.

A pure ASGI middleware (inside the proxy-headers one, so the address is the real client's)
that sets :data:`playtable.tables.fair.requester` for the whole of a request or a socket's
life: work the computer does for it (a reply to a move, an answer to an offer) waits its
turn at the pool among that address's own jobs, not ahead of everyone else's.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from playtable.tables.fair import requester


class RequesterMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client") if scope["type"] in ("http", "websocket") else None
        if not client:
            await self.app(scope, receive, send)
            return
        token = requester.set(str(client[0]))
        try:
            await self.app(scope, receive, send)
        finally:
            requester.reset(token)
