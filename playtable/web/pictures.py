"""Pictures of a table: ``/t/{id}.svg`` and ``.png`` (``?ply=n``, the number of moves before
the position; default the latest) and ``/t/{id}.gif`` (the whole game).

They read the game only through ``service.record`` (public: the moves anyone watching sees)
and replay it with :mod:`playtable.pictures`, so nothing secret reaches an image or its
address. A finished game's positions never change: their answers are cached for good
(``immutable``); a running game's may (a take-back), so they carry an ETag of the moves and
are revalidated.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.games.records import GameRecord
from playtable.pictures import digest, position_at, positions, scene, to_gif, to_png, to_svg
from playtable.tables import TableNotFound, TableService
from playtable.web.static_files import FOREVER

REVALIDATE = "public, no-cache"
MAX_PLY_DIGITS = 4
#: Frames of a GIF at most: a longer game shows every k-th position (and always the last).
MAX_GIF_FRAMES = 300
CACHE_SIZE = 64  # pictures kept in memory (a GIF is 100 to 400 KiB, a PNG about 20)


class Drawn:
    """The last pictures of one kind drawn, by what they show (table, ply, moves): a shared
    link's preview is fetched by every site it is posted to. One is drawn at a time, in a
    thread, so a burst of them never takes more than a core from the games."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self.lock = asyncio.Lock()
        self.pictures: collections.OrderedDict[tuple[str, ...], bytes] = collections.OrderedDict()

    async def get(self, key: tuple[str, ...], draw: Callable[[], bytes]) -> bytes:
        async with self.lock:
            data = self.pictures.get(key)
            if data is None:
                data = await run_in_threadpool(draw)
                self.pictures[key] = data
                while len(self.pictures) > self.size:
                    self.pictures.popitem(last=False)
            self.pictures.move_to_end(key)
            return data


def _drawn(request: Request, kind: str) -> Drawn:
    """The pictures of one kind: a PNG never waits behind a long GIF."""
    caches = getattr(request.app.state, "pictures_drawn", None)
    if caches is None:
        caches = request.app.state.pictures_drawn = {}
    if kind not in caches:
        caches[kind] = Drawn()
    cache = caches[kind]
    assert isinstance(cache, Drawn)
    return cache


class BadPly(ValueError):
    pass


def _service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


def _ply(request: Request, record: GameRecord) -> int:
    text = request.query_params.get("ply")
    if text is None:
        return len(record.moves)
    digits = text.isascii() and text.isdigit()  # "²" is a digit to str.isdigit(), not int()
    if not digits or len(text) > MAX_PLY_DIGITS or int(text) > len(record.moves):
        raise BadPly(
            f'"ply" must be the number of moves before the position, 0 to {len(record.moves)}'
        )
    return int(text)


def _cache_headers(record: GameRecord, moves: tuple[str, ...], kind: str) -> dict[str, str]:
    if record.result is not None:
        return {"Cache-Control": FOREVER}
    return {"Cache-Control": REVALIDATE, "ETag": f'"{kind}-{len(moves)}-{digest(moves)}"'}


async def answer(request: Request, kind: str, build: Callable[[GameRecord, int], Any]) -> Response:
    """Read the table's record, check ``?ply``, and answer with ``build``'s response."""
    table_id = request.path_params["table_id"]
    try:
        record = await _service(request).record(table_id)
        ply = _ply(request, record)
    except TableNotFound as error:
        return PlainTextResponse(error.message, status_code=404)
    except BadPly as error:
        return PlainTextResponse(str(error), status_code=400)
    headers = _cache_headers(record, record.moves[:ply], kind)
    etag = headers.get("ETag")
    if etag and etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    response: Response = await build(record, ply)
    response.headers.update(headers)
    return response


async def picture_svg(request: Request) -> Response:
    async def build(record: GameRecord, ply: int) -> Response:
        text = to_svg(scene(position_at(record, ply)))
        return Response(text, media_type="image/svg+xml")

    return await answer(request, "svg", build)


async def picture_png(request: Request) -> Response:
    table_id = request.path_params["table_id"]

    async def build(record: GameRecord, ply: int) -> Response:
        key = ("png", table_id, str(ply), digest(record.moves[:ply]))
        data = await _drawn(request, "png").get(
            key, lambda: to_png(scene(position_at(record, ply)))
        )
        return Response(data, media_type="image/png")

    return await answer(request, "png", build)


def _gif(record: GameRecord) -> bytes:
    every = max(1, -(-(len(record.moves) + 1) // MAX_GIF_FRAMES))
    shown = [
        scene(p) for p in positions(record) if p.ply % every == 0 or p.ply == len(record.moves)
    ]
    return to_gif(shown)


async def picture_gif(request: Request) -> Response:
    table_id = request.path_params["table_id"]

    async def build(record: GameRecord, ply: int) -> Response:
        key = ("gif", table_id, digest(record.moves))
        data = await _drawn(request, "gif").get(key, lambda: _gif(record))
        return Response(
            data,
            media_type="image/gif",
            headers={"Content-Disposition": f'inline; filename="playtable-{table_id}.gif"'},
        )

    if "ply" in request.query_params:
        return PlainTextResponse('the GIF is the whole game: it takes no "ply"', status_code=400)
    return await answer(request, "gif", build)


routes: list[BaseRoute] = [
    Route("/t/{table_id}.svg", picture_svg, methods=["GET", "HEAD"], name="picture_svg"),
    Route("/t/{table_id}.png", picture_png, methods=["GET", "HEAD"], name="picture_png"),
    Route("/t/{table_id}.gif", picture_gif, methods=["GET", "HEAD"], name="picture_gif"),
]
