"""The garbage collector of a serving process: the start-up's objects out of its sight.

A server process starts by loading what it keeps until it ends: modules, the translation
catalogs, the routes and templates, the store's compiled statements, the opening book. That
is most of its objects, and a full collection walks every one while it holds the event loop:
one pause of 130 to 250 ms during a bench of 600 to 2,400 moves, felt by every table at once
(`bench/latency.py --gc plain`). Frozen once the start-up is done (:func:`gc.freeze`), they
are left out of every collection, which then walks only what came since: the longest pause
a few milliseconds. They are never freed, which costs nothing: they live as long as the
process anyway.

:func:`frozen_after_start_up` wraps the ASGI app that ``playtable serve`` runs, so the freeze
comes after the app's own start-up (the lifespan: the store opened and migrated, the bus, the
pools), not only after the imports. It is not part of ``create_app``: a test process makes
hundreds of apps, and freezing each one's leftovers would keep them for the whole run.
"""

from __future__ import annotations

import gc
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def freeze() -> int:
    """Collect what is garbage now, then freeze every object that is left; returns how many
    objects the collector no longer walks."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def frozen_after_start_up(app: ASGIApp) -> ASGIApp:
    """``app``, freezing the process's objects once its lifespan start-up has succeeded."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return

        async def send_then_freeze(message: Message) -> None:
            await send(message)
            if message["type"] == "lifespan.startup.complete":
                freeze()

        await app(scope, receive, send_then_freeze)

    return wrapped


__all__ = ["freeze", "frozen_after_start_up"]
