"""Placeholder for the HTML pages, which the browser-side work provides (home, table, static)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route


async def home(request: Request) -> Response:
    return PlainTextResponse("Playtable: create a table with POST /api/tables.")


routes: list[BaseRoute] = [Route("/", home, methods=["GET"])]
