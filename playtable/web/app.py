"""The Starlette application: one explicit route table, one table service."""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Router
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

import playtable
from playtable.bus import DEFAULT_PREFIX, Bus, make_bus
from playtable.logs import shown_url
from playtable.settings import SettingError
from playtable.store import DEFAULT_URL, Store
from playtable.tables import TableService
from playtable.tables.pool import BotSettings
from playtable.tables.sweep import Sweep
from playtable.web import cookies, routing
from playtable.web.budgets import Budgets
from playtable.web.connections import Connections
from playtable.web.errors import (
    DATABASE_ERRORS,
    database_error_handler,
    method_not_allowed_handler,
    not_found_handler,
    server_error_handler,
)
from playtable.web.hosts import AllowedHostsMiddleware, allowed_hosts
from playtable.web.keyfiles import made_once
from playtable.web.language import LanguageMiddleware
from playtable.web.limits import Limits, trusted_proxies
from playtable.web.pictures import Pictures
from playtable.web.push import Pusher
from playtable.web.requester import RequesterMiddleware
from playtable.web.security import SecurityHeaders
from playtable.web.templating import commit
from playtable.web.urls import SiteLinks

log = logging.getLogger(__name__)

DEFAULT_SECRET_FILE = "var/secret.key"
MIN_SECRET_BYTES = 16  # what TableService requires
MAKE_ONE = "python3 -c 'import secrets; print(secrets.token_hex(32))' makes one"


def load_secret(secret: str | bytes | None = None) -> bytes:
    """The server secret that invitation links are derived from.

    In order: the argument, ``PLAYTABLE_SECRET``, or the file ``PLAYTABLE_SECRET_FILE``
    (default ``var/secret.key``), created with 256 random bits on first use. Every server
    process of one site needs the same secret, or invitation links stop working. A secret
    from the environment or the file that is too short, or a file that cannot be read or
    made, raises :class:`SettingError` naming the variable (a traceback before).
    """
    if secret is not None:
        return secret.encode() if isinstance(secret, str) else secret
    from_env = os.environ.get("PLAYTABLE_SECRET") or None
    if from_env is not None:
        if len(from_env.encode()) < MIN_SECRET_BYTES:
            raise SettingError(
                f"PLAYTABLE_SECRET must be at least {MIN_SECRET_BYTES} characters (128 bits), "
                f"not {len(from_env)}: {MAKE_ONE}"
            )
        return from_env.encode()
    path = Path(os.environ.get("PLAYTABLE_SECRET_FILE") or DEFAULT_SECRET_FILE)
    try:
        made = _secret_file(path)
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "it is not text"
        where = getattr(error, "filename", None)
        if where is not None and str(where) != str(path):  # the folder (or a file in its way)
            reason = f"{reason} ({where})"
        raise SettingError(
            f"PLAYTABLE_SECRET_FILE {path} cannot be read or made: {reason}"
        ) from None
    if len(made.encode()) < MIN_SECRET_BYTES:
        raise SettingError(
            f"PLAYTABLE_SECRET_FILE {path} holds {len(made)} characters, not a secret of at "
            f"least {MIN_SECRET_BYTES} (128 bits): remove it to have one made, or {MAKE_ONE}"
        )
    return made.encode()


def secret_source() -> str:
    """Where :func:`load_secret` takes the secret from, for the start-up log line."""
    if os.environ.get("PLAYTABLE_SECRET"):
        return "from PLAYTABLE_SECRET"
    path = Path(os.environ.get("PLAYTABLE_SECRET_FILE") or DEFAULT_SECRET_FILE).resolve()
    return f"in {path}"


def _secret_file(path: Path) -> str:
    """The secret in ``path``, made on first use (web/keyfiles.py: of processes starting
    at once, one makes it and all read the same, never half-written)."""
    made = made_once(path, lambda: (secrets.token_hex(32) + "\n").encode())
    return made.decode().strip()


def create_app(
    database_url: str | None = None,
    *,
    secret: str | bytes | None = None,
    bus: Bus | None = None,
    redis_url: str | None = None,
    limits: Limits | None = None,
    proxies: list[str] | None = None,
    hosts: list[str] | None = None,
    bots: BotSettings | None = None,
) -> Starlette:
    """The site. ``database_url`` defaults to ``PLAYTABLE_DATABASE_URL``, then SQLite in ./var/.

    The bus is ``bus``, else Redis at ``redis_url`` or ``PLAYTABLE_REDIS_URL`` (keys and
    channels under ``PLAYTABLE_REDIS_PREFIX``, default ``playtable:``), else in-process.

    ``hosts`` defaults to ``PLAYTABLE_ALLOWED_HOSTS`` (empty: every ``Host`` is served).

    The schema is upgraded when the app starts (its lifespan), so run it inside a server or
    ``with TestClient(app)``.
    """
    cookies.install()  # cookie headers parsed in linear time (web/cookies.py)
    url = database_url or os.environ.get("PLAYTABLE_DATABASE_URL") or DEFAULT_URL
    store = Store(url)
    redis_url = redis_url or os.environ.get("PLAYTABLE_REDIS_URL") or None
    prefix = os.environ.get("PLAYTABLE_REDIS_PREFIX")
    if bus is None:
        bus = make_bus(redis_url, prefix=prefix, database_url=url)
    the_bus = bus
    hosts = allowed_hosts() if hosts is None else hosts
    log.info(
        "Playtable %s (%s): database %s; bus %s; secret %s; allowed hosts %s",
        playtable.__version__,
        commit(),
        shown_url(url),
        shown_url(redis_url) if redis_url else "in this process",
        "given" if secret is not None else secret_source(),
        ", ".join(hosts) or "any",
    )
    bot_settings = bots if bots is not None else BotSettings.from_env()
    routes = routing.routes()
    links = SiteLinks(Router(routes=routes))
    service = TableService(store, the_bus, load_secret(secret), bot_settings, links=links)
    sweep = Sweep(service)  # ends the tables whose clock ran out (tables/sweep.py)
    pusher = Pusher(store, links)  # Web Push of correspondence moves (web/push.py)
    pictures = Pictures.from_env()  # drawn in worker processes of their own (web/pictures.py)
    service.on_change = pusher.on_change

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await store.open()
        await the_bus.start()
        # Before the first request, the computer's first move and the first sweep: the
        # outages of the whole site, which no clock counts (tables/downtime.py).
        await sweep.recover()
        await service.resume_bots()
        sweep.start()
        try:
            yield
        finally:
            await sweep.close()
            await pusher.close()
            await service.close()
            pictures.close()
            await the_bus.close()
            await app.state.budgets.close()
            await store.close()

    proxies = trusted_proxies() if proxies is None else proxies
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(LanguageMiddleware),
        Middleware(RequesterMiddleware),
    ]
    if hosts:  # the site's own names only (web/hosts.py), refused in the visitor's language
        middleware.insert(2, Middleware(AllowedHostsMiddleware, hosts=hosts))
    if proxies:
        # Outermost, so the headers, the limits and the cookies all see the real client
        # address and scheme (HTTPS at the proxy means HSTS and Secure cookies here).
        middleware.insert(0, Middleware(ProxyHeadersMiddleware, trusted_hosts=proxies))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={
            404: not_found_handler,
            405: method_not_allowed_handler,
            500: server_error_handler,
            **{error: database_error_handler for error in DATABASE_ERRORS},
        },
    )
    app.state.service = service
    app.state.sweep = sweep
    app.state.pusher = pusher
    app.state.pictures = pictures
    app.state.store = store
    app.state.links = links
    app.state.limits = limits = limits if limits is not None else Limits.from_env()
    # Shared through Redis when the site has one (even with a bus given, as in tests).
    app.state.budgets = Budgets(limits, redis_url, prefix or DEFAULT_PREFIX)
    # Without a proxy in front, the HTTP protocol itself refuses the upgrades of an address
    # over its join budget (web/connections.py, web/server.py).
    app.state.connections = Connections(limits, direct=not proxies)
    return app
