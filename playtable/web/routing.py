"""The site's route table, in one place: every route is named, and every address the site
makes comes from these names (:mod:`playtable.web.urls`)."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route, WebSocketRoute

from playtable.web import (
    api,
    atlas,
    carry,
    continue_page,
    guides,
    installable,
    links,
    my_games,
    organiser,
    pages,
    pictures,
    push,
    replay,
    script_strings,
    timing,
)
from playtable.web.health import healthz, readyz
from playtable.web.socket import table_socket


def routes() -> list[BaseRoute]:
    return [
        Route("/healthz", healthz, name="healthz"),
        Route("/readyz", readyz, name="readyz"),
        *api.routes,
        *links.routes,
        WebSocketRoute("/t/{table_id}/ws", table_socket, name="table_socket"),
        *guides.routes,
        *installable.routes,
        *atlas.routes,
        *pictures.routes,  # before pages: /t/{id}.png is not the table page
        *replay.routes,
        *script_strings.routes,
        *pages.routes,
        *timing.routes,
        *my_games.routes,
        *carry.routes,
        *continue_page.routes,
        *organiser.routes,
        *push.routes,
    ]


__all__ = ["routes"]
