"""Pictures of a table: ``/t/{id}.svg`` and ``.png`` (``?ply=n``, the number of moves before
the position; default the latest) and ``/t/{id}.gif`` (the whole game).

They read the game only through ``service.record`` (public: the moves anyone watching sees)
and replay it with :mod:`playtable.pictures`, so nothing secret reaches an image or its
address. A finished game's positions never change: their answers are cached for good
(``immutable``); a running game's may (a take-back), so they carry an ETag of the moves and
are revalidated.

What they cost the server (``Pictures``): every request spends one of the address's reads
(``Budget.READS``: 429 past it); what was drawn is kept in memory by what it shows, so asking
again costs nothing and is answered at once, whatever is being drawn meanwhile; the drawing
(the replay too) runs in a niced worker process (``PLAYTABLE_PICTURE_PROCESSES=0``: a thread),
never on the event loop, one at a time for positions and one for GIFs, and a request that
would wait too long for its turn is refused at once (503), never queued for a minute. The
``position.json`` of the replay (``web/replay.py``) goes the same way.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import math
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from playtable import settings
from playtable.games.records import GameRecord
from playtable.pictures import digest, drawings
from playtable.tables import TableNotFound, TableService
from playtable.tables.pool import stop_now
from playtable.web.budgets import Budget, over_budget
from playtable.web.picture_refusals import bad_ply, gif_takes_no_ply, not_found, refusal
from playtable.web.static_files import FOREVER
from playtable.worker_process import worker_start

log = logging.getLogger(__name__)

REVALIDATE = "public, no-cache"
MAX_PLY_DIGITS = 4
MIB = 1024 * 1024
#: Bytes of each kind kept in memory (a 26x26 board's SVG is about 200 KiB, its PNG 220 KiB,
#: its position 15 KiB, a whole game's GIF 100 to 400 KiB; a small board's, a tenth of it).
KEPT_BYTES = {"svg": 8 * MIB, "png": 8 * MIB, "json": 4 * MIB, "gif": 24 * MIB}


@dataclass(frozen=True)
class Lane:
    """How one kind of work is drawn: ``at_once`` at a time, and a request that would wait
    longer than ``longest_wait`` seconds for its turn (or find ``queue`` waiting) refused."""

    at_once: int
    longest_wait: float
    queue: int
    expected_s: float  # a render's seconds before any was measured


#: A position (SVG, PNG, JSON: milliseconds on a small board, a tenth of a second on 26x26)
#: and a whole game's GIF (seconds; 15 s for 650 moves on 26x26), apart so that a long GIF
#: never holds up a position. One at a time each: a burst never takes the games' core.
LANES = {
    "still": Lane(at_once=1, longest_wait=3.0, queue=16, expected_s=0.1),
    "gif": Lane(at_once=1, longest_wait=30.0, queue=1, expected_s=10.0),
}
LANE_OF = {"svg": "still", "png": "still", "json": "still", "gif": "gif"}
#: The workers' niceness: below the server, with the computer's workers (15), above the
#: analysis' (19).
WORKER_NICE = 15


class Busy(Exception):
    """Too many pictures being drawn: try again in ``retry_after`` seconds (503)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"busy drawing; try again in {retry_after} s")
        self.retry_after = retry_after


class Kept:
    """The last pictures of one kind drawn, by what they show, up to ``size`` bytes in all
    (a shared link's preview is fetched by every site it is posted to)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.bytes = 0
        self.items: collections.OrderedDict[tuple[str, ...], bytes] = collections.OrderedDict()

    def get(self, key: tuple[str, ...]) -> bytes | None:
        data = self.items.get(key)
        if data is not None:
            self.items.move_to_end(key)
        return data

    def put(self, key: tuple[str, ...], data: bytes) -> None:
        if len(data) > self.size:
            return
        old = self.items.pop(key, None)
        self.bytes += len(data) - (len(old) if old is not None else 0)
        self.items[key] = data
        while self.bytes > self.size:
            _, dropped = self.items.popitem(last=False)
            self.bytes -= len(dropped)


#: A drawing: a picture of ``record`` after ``ply`` moves (a module's function, so that a
#: worker process can be handed it by name).
Draw = Callable[[GameRecord, int], bytes]


class Workers:
    """The process one lane's pictures are drawn in, started on first use, niced below the
    server (and with the computer's workers), so that drawing takes no time from the games:
    in a thread of the server it would (the GIL; Pillow holds it for whole drawing calls)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._executor: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # Spawned, not forked (the server has threads); the worker exits with its server.
            self._executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=functools.partial(worker_start, os.getpid(), WORKER_NICE),
            )
        return self._executor

    async def run(self, draw: Draw, record: GameRecord, ply: int) -> bytes:
        executor = self._started()
        try:
            return await asyncio.wrap_future(executor.submit(draw, record, ply))
        except BrokenProcessPool:
            # The worker died (killed, out of memory): the next drawing starts a new one.
            log.warning("the %s pictures' worker died: starting a new one", self.name)
            if self._executor is executor:
                self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise

    def close(self) -> None:
        """Stop the worker (the server is closing), whatever it is drawing."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        stop_now(executor)


async def _in_thread(draw: Draw, record: GameRecord, ply: int) -> bytes:
    return await run_in_threadpool(draw, record, ply)


class Renders:
    """The drawings of one lane: at most ``at_once`` at a time (in its worker, or in a
    thread), the others waiting their turn, each key drawn once however many ask for it at
    once. A drawing goes on when the requests that asked for it go away (it is kept)."""

    def __init__(self, lane: Lane, workers: Workers | None) -> None:
        self.lane = lane
        self.workers = workers
        self.slots = asyncio.Semaphore(lane.at_once)
        self.pending: dict[tuple[str, ...], asyncio.Task[bytes]] = {}
        self.seconds = lane.expected_s  # a running mean of the last drawings' time

    def wait(self) -> float:
        """About how long a new drawing would wait for its turn and take."""
        return (len(self.pending) / self.lane.at_once + 1) * self.seconds

    async def draw(
        self, key: tuple[str, ...], draw: Draw, record: GameRecord, ply: int, kept: Kept
    ) -> bytes:
        task = self.pending.get(key)
        if task is None:
            waiting = len(self.pending) - self.lane.at_once
            if waiting >= 0 and (
                waiting >= self.lane.queue or self.wait() > self.lane.longest_wait
            ):
                raise Busy(max(1, math.ceil(self.wait())))
            task = asyncio.create_task(self._render(key, draw, record, ply, kept))
            task.add_done_callback(_retrieved)
            self.pending[key] = task
        return await asyncio.shield(task)

    async def _render(
        self, key: tuple[str, ...], draw: Draw, record: GameRecord, ply: int, kept: Kept
    ) -> bytes:
        try:
            async with self.slots:
                started = time.monotonic()
                run = _in_thread if self.workers is None else self.workers.run
                data = await run(draw, record, ply)
                self.seconds += (time.monotonic() - started - self.seconds) / 4
            kept.put(key, data)
            return data
        except BrokenProcessPool:
            raise Busy(1) from None
        finally:
            del self.pending[key]


def _retrieved(task: asyncio.Task[bytes]) -> None:
    """A drawing whose every request went away: its failure is not "never retrieved"."""
    if not task.cancelled():
        task.exception()


class Pictures:
    """The pictures of one server process: kept by kind, drawn in lanes, each lane in a
    worker process of its own (``processes``; else in threads of the server)."""

    def __init__(self, processes: bool = True) -> None:
        self.kept = {kind: Kept(size) for kind, size in KEPT_BYTES.items()}
        self.lanes = {
            name: Renders(lane, Workers(name) if processes else None)
            for name, lane in LANES.items()
        }

    @classmethod
    def from_env(cls) -> Pictures:
        """``PLAYTABLE_PICTURE_PROCESSES``: 1 (the default) draws in worker processes, 0 in
        threads of the server (no process more, but a flood of pictures slows the games)."""
        processes = settings.whole_number("PLAYTABLE_PICTURE_PROCESSES", 1, minimum=0)
        if processes > 1:
            raise settings.SettingError(
                f"PLAYTABLE_PICTURE_PROCESSES must be 0 or 1, not {processes}"
            )
        return cls(processes=processes == 1)

    async def get(
        self, kind: str, key: tuple[str, ...], draw: Draw, record: GameRecord, ply: int
    ) -> bytes:
        """The picture ``key`` of ``kind``: kept, else ``draw(record, ply)`` in its lane
        (raises :class:`Busy` if that would wait too long)."""
        kept = self.kept[kind]
        data = kept.get(key)
        if data is not None:
            return data
        lean = GameRecord(record.game, dict(record.options), record.moves, record.result)
        return await self.lanes[LANE_OF[kind]].draw(key, draw, lean, ply, kept)

    def close(self) -> None:
        for lane in self.lanes.values():
            if lane.workers is not None:
                lane.workers.close()


def pictures_of(request: Request) -> Pictures:
    pictures = getattr(request.app.state, "pictures", None)
    if pictures is None:  # an app made without them (create_app makes them)
        pictures = request.app.state.pictures = Pictures.from_env()
    assert isinstance(pictures, Pictures)
    return pictures


def _key(kind: str, table_id: str, record: GameRecord, ply: int) -> tuple[str, ...]:
    """What a picture of the position after ``ply`` moves shows: the moves before it, and
    for the last one of the game the result (a resignation changes it, not the moves)."""
    last = ply == len(record.moves)
    result = (record.result or "") if last else ""
    return (kind, table_id, str(ply), digest(record.moves[:ply]), result)


class BadPly(ValueError):
    """``?ply`` is not a whole number from 0 to the number of moves (``last``)."""

    def __init__(self, last: int) -> None:
        super().__init__(f'"ply" must be the number of moves before the position, 0 to {last}')
        self.last = last


def _service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


def _ply(request: Request, record: GameRecord) -> int:
    text = request.query_params.get("ply")
    if text is None:
        return len(record.moves)
    digits = text.isascii() and text.isdigit()  # "²" is a digit to str.isdigit(), not int()
    if not digits or len(text) > MAX_PLY_DIGITS or int(text) > len(record.moves):
        raise BadPly(len(record.moves))
    return int(text)


def _cache_headers(record: GameRecord, moves: tuple[str, ...], kind: str) -> dict[str, str]:
    if record.result is not None:
        return {"Cache-Control": FOREVER}
    return {"Cache-Control": REVALIDATE, "ETag": f'"{kind}-{len(moves)}-{digest(moves)}"'}


def _matches(if_none_match: str, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak or strong: RFC 9110 compares them
    weakly) or is ``*``, which any picture there is matches."""
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return etag in tags or "*" in tags


async def answer(
    request: Request,
    kind: str,
    draw: Callable[[GameRecord, int], bytes],
    media_type: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """Spend a read of the address's budget, read the table's record, check ``?ply``, and
    answer with the picture ``draw`` makes of that position (kept, or drawn in its lane)."""
    wait = await over_budget(request, Budget.READS)
    if wait is not None:
        return refusal(request, kind, 429, wait)
    table_id = request.path_params["table_id"]
    try:
        record = await _service(request).record(table_id)
        ply = _ply(request, record)
    except TableNotFound:
        return not_found(request, kind)
    except BadPly as error:
        return bad_ply(request, kind, error.last)
    cache = _cache_headers(record, record.moves[:ply], kind)
    etag = cache.get("ETag")
    if etag and _matches(request.headers.get("if-none-match", ""), etag):
        return Response(status_code=304, headers=cache)
    key = _key(kind, table_id, record, ply)
    try:
        data = await pictures_of(request).get(kind, key, draw, record, ply)
    except Busy as busy:
        return refusal(request, kind, 503, busy.retry_after)
    return Response(data, media_type=media_type, headers={**cache, **(headers or {})})


async def picture_svg(request: Request) -> Response:
    return await answer(request, "svg", drawings.svg, "image/svg+xml")


async def picture_png(request: Request) -> Response:
    return await answer(request, "png", drawings.png, "image/png")


async def picture_gif(request: Request) -> Response:
    if "ply" in request.query_params:
        return gif_takes_no_ply(request)
    table_id = request.path_params["table_id"]
    disposition = {"Content-Disposition": f'inline; filename="playtable-{table_id}.gif"'}
    return await answer(request, "gif", drawings.gif, "image/gif", disposition)


routes: list[BaseRoute] = [
    Route("/t/{table_id}.svg", picture_svg, methods=["GET", "HEAD"], name="picture_svg"),
    Route("/t/{table_id}.png", picture_png, methods=["GET", "HEAD"], name="picture_png"),
    Route("/t/{table_id}.gif", picture_gif, methods=["GET", "HEAD"], name="picture_gif"),
]
