"""Issue 17's attacks, one at a time, against a server this bench starts, while victims play.

It starts ``playtable serve`` itself (SQLite in a temporary folder on a free loopback port; with
``--cluster``, two processes on a throwaway PostgreSQL database and a Redis of its own on
another free port), then keeps victims busy for the whole run:

- a pair of players (red and blue, each on its own socket; with ``--cluster`` red on the first
  process and blue on the second) playing Dots and Boxes move after move: a move is timed from
  sending it until *both* players hold the new state;
- a player against the computer (easy, whose moves still go through the pool): a turn is
  timed from sending the move until the computer's reply has arrived;
- for the analysis attack, a player asking for the best move of a finished game.

For each attack it measures the victim for ``--base`` seconds without the attack and then for
``--duration`` seconds during it, and prints the p50/p99 of both and their ratio, whether the
site answered a plain ``GET /`` every 0.5 s throughout, whether the seated players could always
(re)connect, and how many acknowledged moves were lost (every move a mover saw acknowledged is
looked up in ``GET /api/tables/{id}`` at the end). The final table is Markdown.

The attacker connects from another loopback address (``--attacker``, default 127.0.0.2) so that
the server's per-address budgets tell it from the victims (who use 127.0.0.1); everything
stays on 127.0.0.0/8, every count is bounded and the whole run stops at ``--time-limit``.

    python bench/abuse.py                         # every attack, about 6 minutes
    python bench/abuse.py --quick                 # 4 s / 8 s windows, about 4 minutes
    python bench/abuse.py --only preview,slowloris
    python bench/abuse.py --quick --only pictures # pictures drawn in the server's workers
    python bench/abuse.py --quick --only pictures --picture-processes 0
                                                  # ... in threads of the server instead
    python bench/abuse.py --cluster --only redis  # two processes, PostgreSQL, own Redis
    python bench/abuse.py --cluster --only redis --redis-fault stop --trace
                                                  # Redis frozen instead of killed; each slow
                                                  # move printed, the servers' logs kept
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import ipaddress
import json
import os
import random
import re
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere
from playtable.tables.patch import Follower

HOST = "127.0.0.1"  # the server listens here and nowhere else
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
# 144 lines: a victim's game lasts long enough that the victims together create fewer new
# tables a minute than the server's per-address budget allows a person.
PAIR_BOARD = {"grid": "square", "rows": 8, "cols": 8, "start": "standard"}
BIG_BOARD = {"grid": "square", "rows": 12, "cols": 12, "start": "standard"}
ANALYSIS_BOARD = {"grid": "square", "rows": 4, "cols": 4, "start": "standard"}
# The addresses that warm the analysis' workers before the victim's windows (not budgets of
# the victim's or the attacker's); Linux routes all of 127/8 to lo.
WARMERS = ("127.0.0.3", "127.0.0.4")
# The address that plays the finished games the analysis victim asks about: the victims'
# own tables use up 127.0.0.1's 30 tables a minute in a whole run.
ANALYSED_PLAYER = "127.0.0.5"
PREVIEW_AGENTS = (
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "TelegramBot (like TwitterBot)",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "WhatsApp/2.23.20.0",
)
MOVE_TIMEOUT = 10.0  # a move not acknowledged by then counts as stuck (its latency: this)
TURN_TIMEOUT = 15.0
MAX_FLOOD = 5000  # the most sockets any attack opens, whatever the options say


# -- a tiny HTTP client (asyncio, from a chosen loopback source address) ----------------------
@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def cookies(self) -> dict[str, str]:
        found = {}
        for key, value in self.headers:
            if key.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                name, _, val = pair.partition("=")
                found[name.strip()] = val.strip()
        return found

    def json(self) -> Any:
        return json.loads(self.body)


def _dechunk(body: bytes) -> bytes:
    out, rest = b"", body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2 :]
    return out


async def fetch(
    port: int,
    method: str,
    path: str,
    *,
    source: str = HOST,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    timeout: float = 10.0,
) -> Reply:
    """One HTTP/1.1 request (``Connection: close``); redirects are not followed."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            await writer.drain()
            raw = await reader.read()
        finally:
            writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise OSError(f"no HTTP answer ({raw[:60]!r})")
    pairs = [(k.strip(), v.strip()) for k, _, v in (h.partition(":") for h in header_lines)]
    reply = Reply(int(parts[1]), pairs, payload)
    if (reply.header("transfer-encoding") or "").lower() == "chunked":
        reply.body = _dechunk(payload)
    return reply


async def api_json(port: int, method: str, path: str, data: Any, source: str = HOST) -> Reply:
    body = json.dumps(data).encode()
    return await fetch(
        port, method, path, source=source, headers={"Content-Type": "application/json"}, body=body
    )


@dataclass
class Created:
    table_id: str
    token: str  # the creator's seat token
    invite_path: str | None


async def create(
    port: int,
    options: dict[str, Any],
    *,
    bot: str | None = None,
    source: str = HOST,
    game: str = "dots",
) -> Created:
    data: dict[str, Any] = {"game": game, "options": options, "seat": "red"}
    if bot is not None:
        data["opponent"] = {"bot": bot}
    reply = await api_json(port, "POST", "/api/tables", data, source)
    # The victims (127.0.0.1) make a table or two every window, as a person does, and wait
    # when told to, as their page would: on a fast machine the windows follow each other
    # quickly enough for the bench's own tables to reach the 30-a-minute budget.
    for _ in range(3 if source == HOST else 0):
        if reply.status != 429:
            break
        wait = float(reply.header("retry-after") or 5)
        print(f"# a victim was told to wait {wait:g} s before a new table", file=sys.stderr)
        await asyncio.sleep(min(wait, 30.0) + 0.1)
        reply = await api_json(port, "POST", "/api/tables", data, source)
    if reply.status != 201:
        raise RuntimeError(f"POST /api/tables: {reply.status} {reply.body[:200]!r}")
    made = reply.json()
    invite = urlsplit(made["invite_url"]).path if made.get("invite_url") else None
    return Created(made["id"], made["seat_url"].rsplit("/", 1)[1], invite)


async def claim(port: int, table_id: str, invite_path: str, source: str = HOST) -> tuple[str, str]:
    """Take the free seat as a friend would: ``(seat token, how)``.

    The new design shows a page with a button (a POST carrying the page's CSRF token and its
    ``pt_csrf`` cookie); the old one seated on the GET itself. Both are understood.
    """
    seat_cookie = f"pt_{table_id}"
    page = await fetch(port, "GET", invite_path, source=source)
    if seat_cookie in page.cookies():
        return page.cookies()[seat_cookie], "seated on GET (old design)"
    found = re.search(rb'name="csrf" value="([^"]+)"', page.body)
    csrf = page.cookies().get("pt_csrf")
    if page.status != 200 or not found or not csrf:
        raise RuntimeError(f"the invitation gave {page.status} and no form to take the seat")
    posted = await fetch(
        port,
        "POST",
        invite_path,
        source=source,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"pt_csrf={csrf}",
        },
        body=urlencode({"csrf": found.group(1).decode()}).encode(),
    )
    token = posted.cookies().get(seat_cookie)
    if token is None:
        raise RuntimeError(f"the button gave {posted.status} and no seat")
    return token, "seated by the button (POST + CSRF)"


async def open_socket(
    port: int, table_id: str, token: str | None, *, source: str = HOST, watch: bool = False
) -> ClientConnection:
    headers = {"Cookie": f"pt_{table_id}={token}"} if token else {}
    return await connect(
        f"ws://{HOST}:{port}/t/{table_id}/ws" + ("?watch=1" if watch else ""),
        additional_headers=headers,
        compression=None,
        open_timeout=10,
        max_size=2**22,
        local_addr=(source, 0),
    )


def why(error: BaseException) -> str:
    """A refusal in a few words: the HTTP status of a refused handshake, else the error."""
    if isinstance(error, InvalidStatus):
        return f"HTTP {error.response.status_code}"
    if isinstance(error, ConnectionClosed):
        return "closed by the server"
    return type(error).__name__


Predicate = Callable[[dict[str, Any]], bool]


def past_ply(ply: int) -> Predicate:
    return lambda table: bool(table["ply"] > ply)


def past_version(version: int) -> Predicate:
    return lambda table: bool(table["version"] > version)


def my_turn(me: str) -> Predicate:
    return lambda table: table["to_move"] == me or table["outcome"] is not None


def waiting(*futures: asyncio.Future[Any]) -> set[asyncio.Future[Any]]:
    return set(futures)


JOIN = json.dumps({"type": "join", "protocol": 2, "since": None})


# -- one player's socket ----------------------------------------------------------------------
class Seat:
    """A seated player's socket: the newest state, waiters on versions, errors as they come."""

    def __init__(self, port: int, table_id: str, token: str, source: str = HOST) -> None:
        self.port, self.table_id, self.token, self.source = port, table_id, token, source
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.table: dict[str, Any] = {}
        self.version = -1
        self.follower = Follower()
        self.waiters: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[float]]] = []
        self.error_waiters: list[asyncio.Future[dict[str, Any]]] = []
        self.messages: list[dict[str, Any]] = []  # non-state messages kept (rematch, errors)

    async def connect(self) -> None:
        """Connect and join; raises with the server's error code if it refuses the seat."""
        await self.close()
        self.version, self.table = -1, {}
        self.ws = await open_socket(self.port, self.table_id, self.token, source=self.source)
        self.reader = asyncio.create_task(self._read(self.ws))
        joined = self.until(lambda t: True)
        refused = self.next_error()
        await self.ws.send(JOIN)
        done, _ = await asyncio.wait(
            waiting(joined, refused), timeout=10, return_when="FIRST_COMPLETED"
        )
        if joined in done:
            refused.cancel()
            if self.table.get("you") is None:
                raise RuntimeError("joined, but not seated")
            return
        joined.cancel()
        if refused in done:
            raise RuntimeError(refused.result().get("code", "error"))
        refused.cancel()
        raise RuntimeError("no state within 10 s")

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                now = time.perf_counter()
                message = json.loads(raw)
                if message.get("type") in ("state", "change"):
                    # The table as a page holds it: a change applied as table.js applies it.
                    before = self.follower.version
                    self.follower.receive(message)
                    if self.follower.missed:
                        await ws.send(JOIN)
                    if self.follower.table is None or self.follower.version < before:
                        continue
                    if message["type"] == "change":
                        events = message["events"]
                        self.messages.extend({"type": "event", "event": e} for e in events)
                    self.version, self.table = self.follower.version, self.follower.table
                    for entry in list(self.waiters):
                        if not entry[1].done() and entry[0](self.table):
                            entry[1].set_result(now)
                    self.waiters = [e for e in self.waiters if not e[1].done()]
                    continue
                self.messages.append(message)
                if message.get("type") == "error":
                    for future in self.error_waiters:
                        if not future.done():
                            future.set_result(message)
                    self.error_waiters.clear()
        except Exception:
            pass
        finally:
            for future in self.error_waiters:
                if not future.done():
                    future.set_result({"type": "error", "code": "closed"})
            self.error_waiters.clear()

    def until(self, predicate: Callable[[dict[str, Any]], bool]) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if self.table and predicate(self.table):
            future.set_result(time.perf_counter())
        else:
            self.waiters.append((predicate, future))
        return future

    def next_error(self) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.error_waiters.append(future)
        return future

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(message))

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 3)
        if self.reader is not None:
            self.reader.cancel()
        self.ws, self.reader = None, None


# -- what the run records ---------------------------------------------------------------------
@dataclass
class Window:
    """What happened while one label (an attack's baseline or attack window) was current."""

    samples: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    stuck: int = 0
    reconnects: int = 0
    reconnect_failures: list[str] = field(default_factory=list)
    probes: int = 0
    probes_ok: int = 0


class Record:
    def __init__(self) -> None:
        self.label: str | None = None
        self.windows: dict[tuple[str, str], Window] = {}
        self.acked: list[tuple[str, str, int, str]] = []  # (label, table, ply, move)
        self.tables: list[str] = []

    def window(self, victim: str, label: str | None = None) -> Window | None:
        label = self.label if label is None else label
        if label is None:
            return None
        return self.windows.setdefault((label, victim), Window())


TRACING = {"on": False}  # --trace


def trace(what: str) -> None:
    if TRACING["on"]:
        print(f"[{time.monotonic():.2f}] {what}", file=sys.stderr)


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


# -- the victims ------------------------------------------------------------------------------
class Pair:
    """Red and blue playing random moves, one after another, ``pace`` seconds apart."""

    name = "pair"

    def __init__(self, record: Record, red_port: int, blue_port: int, pace: float) -> None:
        self.record, self.red_port, self.blue_port, self.pace = record, red_port, blue_port, pace
        self.seats: dict[str, Seat] = {}
        self.table_id = ""
        self.lock = asyncio.Lock()
        self.rng = random.Random(17)

    async def new_table(self) -> None:
        for seat in self.seats.values():
            await seat.close()
        made = await create(self.red_port, PAIR_BOARD)
        assert made.invite_path is not None
        blue, _how = await claim(self.blue_port, made.table_id, made.invite_path)
        self.table_id = made.table_id
        self.record.tables.append(made.table_id)
        self.seats = {
            "red": Seat(self.red_port, made.table_id, made.token),
            "blue": Seat(self.blue_port, made.table_id, blue),
        }
        for seat in self.seats.values():
            await seat.connect()

    async def reconnect(self, between: Callable[[], Awaitable[object]] | None = None) -> str | None:
        """Both players close and reopen their sockets (``between`` runs while they are
        away, as a reload leaves a gap); None, or why one could not."""
        async with self.lock:
            return await self._reconnect(between)

    async def _reconnect(
        self, between: Callable[[], Awaitable[object]] | None = None
    ) -> str | None:
        window = self.record.window(self.name)
        for seat in self.seats.values():
            await seat.close()
        if between is not None:
            await between()
        for player, seat in self.seats.items():
            try:
                await seat.connect()
            except Exception as error:
                if window is not None:
                    window.reconnects += 1
                    window.reconnect_failures.append(f"{player}: {error}")
                return f"{player}: {error}"
        if window is not None:
            window.reconnects += 1
        return None

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                async with self.lock:
                    await self.one_move()
            except Exception as error:
                window = self.record.window(self.name)
                if window is not None:
                    window.errors[f"victim: {str(error)[:60] or type(error).__name__}"] += 1
                await asyncio.sleep(1)
                with contextlib.suppress(Exception):
                    async with self.lock:
                        if await self._reconnect() is not None:
                            await self.new_table()
            await asyncio.sleep(self.pace)

    async def one_move(self) -> None:
        if not self.seats or self.seats["red"].table.get("outcome") is not None:
            await self.new_table()
        if not all(seat.table for seat in self.seats.values()):  # a reconnect failed before
            reason = await self._reconnect()
            if reason is not None:
                raise RuntimeError(f"locked out ({reason})")
        red = self.seats["red"]
        table = red.table
        mover = self.seats[table["to_move"]]
        move = self.rng.choice(table["view"]["legal_moves"])
        ply = table["ply"]
        arrivals = [s.until(past_ply(ply)) for s in self.seats.values()]
        refused = mover.next_error()
        label = self.record.label
        sent = time.perf_counter()
        await mover.send({"type": "move", "ply": ply, "move": move})
        both = asyncio.ensure_future(asyncio.gather(*arrivals))
        done, _ = await asyncio.wait(
            waiting(both, refused), timeout=MOVE_TIMEOUT, return_when="FIRST_COMPLETED"
        )
        window = self.record.window(self.name, label)
        if both in done:
            refused.cancel()
            if window is not None:
                window.samples.append(max(both.result()) - sent)
                if max(both.result()) - sent > 0.1:
                    seen = [round(x - sent, 3) for x in both.result()]
                    trace(f"slow move: {self.name} {label}, {table['to_move']} moved, seen {seen}")
            self._ack(label, mover, ply, move)
            return
        if refused in done:
            code = refused.result().get("code", "?")
            if window is not None:
                window.errors[code] += 1
            try:  # the move may still have been stored: wait a little, then rejoin
                await asyncio.wait_for(asyncio.shield(both), 2)
                self._ack(label, mover, ply, move)
                return
            except TimeoutError:
                pass
        else:
            refused.cancel()
            if window is not None:
                window.stuck += 1
                window.samples.append(MOVE_TIMEOUT)
        both.cancel()
        both.add_done_callback(lambda f: None if f.cancelled() else f.exception())
        await self._reconnect()
        # Acknowledged by the rejoin if the store has it.
        moves = self.seats["red"].table.get("moves", [])
        if len(moves) > ply and moves[ply] == move and window is not None:
            window.errors["stored, but not announced in time"] += 1

    def _ack(self, label: str | None, mover: Seat, ply: int, move: str) -> None:
        moves = mover.table.get("moves", [])
        if len(moves) > ply and moves[ply] == move:
            self.record.acked.append((label or "-", mover.table_id, ply, move))


class BotVictim:
    """A person against the easy computer (its moves go through the pool like every level):
    each turn, send a move and wait for the reply."""

    name = "vs computer"

    def __init__(self, record: Record, port: int, pace: float) -> None:
        self.record, self.port, self.pace = record, port, pace
        self.seat: Seat | None = None
        self.last_turn = (0.0, 0.0)  # (when, seconds) of the newest computer reply
        self.rng = random.Random(71)
        self.lock = asyncio.Lock()

    async def new_table(self) -> None:
        if self.seat is not None:
            await self.seat.close()
        made = await create(self.port, PAIR_BOARD, bot="easy")
        self.record.tables.append(made.table_id)
        self.seat = Seat(self.port, made.table_id, made.token)
        await self.seat.connect()

    async def reconnect(self) -> str | None:
        async with self.lock:
            window = self.record.window(self.name)
            assert self.seat is not None
            try:
                await self.seat.connect()
            except Exception as error:
                if window is not None:
                    window.reconnects += 1
                    window.reconnect_failures.append(str(error))
                return str(error)
            if window is not None:
                window.reconnects += 1
            return None

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                async with self.lock:
                    await self.one_turn()
            except Exception as error:
                window = self.record.window(self.name)
                if window is not None:
                    window.errors[f"victim: {type(error).__name__}"] += 1
                await asyncio.sleep(1)
                with contextlib.suppress(Exception):
                    await self.new_table()
            await asyncio.sleep(self.pace)

    async def one_turn(self) -> None:
        if self.seat is None or self.seat.table.get("outcome") is not None:
            await self.new_table()
        seat = self.seat
        assert seat is not None
        me = seat.table["you"]
        if seat.table["to_move"] != me:  # the computer's turn (it moves first after a resume)
            await asyncio.wait_for(seat.until(my_turn(me)), 20)
            return
        ply = seat.table["ply"]
        move = self.rng.choice(seat.table["view"]["legal_moves"])
        label = self.record.label
        replied = seat.until(
            lambda t: t["ply"] > ply and (t["to_move"] == me or t["outcome"] is not None)
        )
        refused = seat.next_error()
        sent = time.perf_counter()
        await seat.send({"type": "move", "ply": ply, "move": move})
        done, _ = await asyncio.wait(
            waiting(replied, refused), timeout=TURN_TIMEOUT, return_when="FIRST_COMPLETED"
        )
        window = self.record.window(self.name, label)
        if replied in done:
            refused.cancel()
            moves, movers = seat.table["moves"], seat.table["movers"]
            if len(moves) > ply and moves[ply] == move:
                self.record.acked.append((label or "-", seat.table_id, ply, move))
            if any(m != me for m in movers[ply + 1 :]):
                self.last_turn = (time.monotonic(), replied.result() - sent)
                if window is not None:
                    window.samples.append(replied.result() - sent)
                if replied.result() - sent > 0.1:
                    trace(f"slow turn: {self.name} {label}, {replied.result() - sent:.3f} s")
            return
        replied.cancel()
        if refused in done:
            if window is not None:
                window.errors[refused.result().get("code", "?")] += 1
        else:
            refused.cancel()
            if window is not None:
                window.stuck += 1
                window.samples.append(TURN_TIMEOUT)
        await seat.connect()


class AnalysisVictim:
    """A player asking for the best move in positions of finished 4x4 games, one at a time."""

    name = "best move"
    GAMES = 5  # finished games whose positions are asked about
    WARM = 8  # positions asked before any window
    PAUSE_S = 1.2  # between two requests: within an address's 30 best moves a minute
    FREE = range(7, 14)  # free lines of the positions asked about: a few ms each to prove

    def __init__(self, record: Record, port: int) -> None:
        self.record, self.port = record, port
        self.positions: list[tuple[str, int]] = []  # (table id, ply), each asked once

    async def prepare(self) -> None:
        """Play 4x4 games against the easy computer to their ends (random moves), and keep
        their positions with 7 to 13 free lines in a random order: the windows with and
        without an attack draw from the same positions (in one game's order the later
        windows would get the harder ones), and each is asked once (a proved value is kept,
        so a repeat would not reach the solver)."""
        rng = random.Random(5)
        positions: list[tuple[str, int]] = []
        for _ in range(self.GAMES):
            table_id, last = await self._play(rng)
            positions += [(table_id, last - free) for free in self.FREE]
        rng.shuffle(positions)
        # As a player opens the analysis page before asking: that starts the analysis'
        # workers (a spawn and an import, most of a second), which no request then pays.
        # Wait for the background analysis of these games to end, so that it does not
        # slow the window without an attack (it runs once a game is over).  Then a few
        # requests outside any window: a worker's first solves on a board build the
        # solver's tables for it (40 to 80 ms), once.
        # (At most 60 s: a 4x4 game's first positions take the background analysis its
        # whole minute or two of proving time; past that its worker, niced, is left to it.)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(60):
                for table_id in dict.fromkeys(table for table, _ in positions):
                    while True:
                        path = f"/api/tables/{table_id}/analysis"
                        reply = await fetch(self.port, "GET", path)
                        if reply.status == 200 and not json.loads(reply.body)["pending"]:
                            break
                        await asyncio.sleep(0.5)
        warm, self.positions = positions[-self.WARM :], positions[: -self.WARM]
        await asyncio.gather(
            *(self._warm(warm[i :: len(WARMERS)], source) for i, source in enumerate(WARMERS))
        )

    async def _warm(self, positions: list[tuple[str, int]], source: str) -> None:
        """Requests outside the windows, from an address of their own (its own budget and,
        at the fair pool, its own worker: two of them at once warm both workers)."""
        for table_id, ply in positions:
            path = f"/api/tables/{table_id}/analysis/best?ply={ply}"
            await fetch(self.port, "GET", path, source=source)

    async def _play(self, rng: random.Random) -> tuple[str, int]:
        made = await create(self.port, ANALYSIS_BOARD, bot="easy", source=ANALYSED_PLAYER)
        seat = Seat(self.port, made.table_id, made.token, source=ANALYSED_PLAYER)
        await seat.connect()
        try:
            async with asyncio.timeout(60):
                while seat.table["outcome"] is None:
                    me = seat.table["you"]
                    if seat.table["to_move"] != me:
                        await seat.until(my_turn(me))
                        continue
                    ply = seat.table["ply"]
                    move = rng.choice(seat.table["view"]["legal_moves"])
                    waiting = seat.until(past_ply(ply))
                    await seat.send({"type": "move", "ply": ply, "move": move})
                    await waiting
        finally:
            await seat.close()
        return made.table_id, int(seat.table["ply"])

    async def ask(self, stop: asyncio.Event, limit: float, count: int = 1000) -> None:
        label = self.record.label
        for _ in range(count):
            if stop.is_set() or not self.positions:
                break
            table_id, ply = self.positions.pop()
            window = self.record.window(self.name, label)
            started = time.perf_counter()
            try:
                reply = await fetch(
                    self.port,
                    "GET",
                    f"/api/tables/{table_id}/analysis/best?ply={ply}",
                    timeout=limit,
                )
                if window is not None:
                    window.samples.append(time.perf_counter() - started)
                    if reply.status != 200:
                        window.errors[f"HTTP {reply.status}"] += 1
            except (TimeoutError, OSError) as error:
                if window is not None:
                    window.samples.append(time.perf_counter() - started)
                    window.errors[f"victim: {type(error).__name__}"] += 1
            await asyncio.sleep(self.PAUSE_S)


# -- the servers ------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Node:
    name: str
    port: int
    env: dict[str, str]
    workdir: Path
    nofile: int
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.workdir / f"{self.name}.log", "ab")  # noqa: SIM115 (the child owns it)
        nofile = self.nofile

        def limit() -> None:  # the server gets the common file limit, not the bench's
            _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(nofile, hard), hard))

        command = [sys.executable, "-m", "playtable.cli", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, "--host", HOST, "--log-level", "warning"],
            cwd=self.workdir,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=limit,
        )
        log.close()

    async def wait_up(self, limit: float = 30) -> None:
        deadline = time.monotonic() + limit
        while True:
            with contextlib.suppress(OSError, TimeoutError):
                if (await fetch(self.port, "GET", "/", timeout=2)).status == 200:
                    return
            if self.process is None or self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not answer within {limit:g} s")
            await asyncio.sleep(0.1)

    def log_tail(self) -> str:
        path = self.workdir / f"{self.name}.log"
        return path.read_text(errors="replace")[-1500:] if path.exists() else ""

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


class Redis:
    """A Redis of the bench's own on a free port (never the machine's shared one)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        command = [binary, "--port", str(self.port), "--bind", HOST, "--save", "", "--appendonly"]
        self.process = subprocess.Popen(
            [*command, "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((HOST, self.port), 1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError("the bench's Redis did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def pause(self, paused: bool) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGSTOP if paused else signal.SIGCONT)


# -- the bench --------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What an attack function reports besides the victims' figures."""

    notes: list[str] = field(default_factory=list)
    victims: tuple[str, ...] = ("pair",)


class Bench:
    def __init__(self, args: argparse.Namespace, nodes: list[Node], redis: Redis | None) -> None:
        self.args = args
        self.nodes = nodes
        self.redis = redis
        self.port = nodes[0].port  # the attacks' target
        self.attacker: str = args.attacker
        self.record = Record()
        self.pair = Pair(self.record, nodes[0].port, nodes[-1].port, args.pace)
        self.bot = BotVictim(self.record, nodes[0].port, args.pace)
        self.analysis = AnalysisVictim(self.record, nodes[0].port)
        self.stop = asyncio.Event()

    def window(self, quick: float, full: float) -> float:
        return quick if self.args.quick else full

    async def probe(self) -> None:
        """GET / on every process every 0.5 s."""
        while not self.stop.is_set():
            window = self.record.window("site")
            oks = await asyncio.gather(*(self._probe_one(n.port) for n in self.nodes))
            if window is not None:
                window.probes += 1
                window.probes_ok += all(oks)
            await asyncio.sleep(0.5)

    async def _probe_one(self, port: int) -> bool:
        try:
            return (await fetch(port, "GET", "/", timeout=3)).status == 200
        except (OSError, TimeoutError):
            return False

    def cpu(self) -> list[float]:
        """CPU seconds used so far by each server process (its own, not its pool's)."""
        used = []
        for node in self.nodes:
            try:
                assert node.process is not None
                with open(f"/proc/{node.process.pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                used.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
            except (OSError, AssertionError):
                used.append(0.0)
        return used

    async def check_reconnects(self) -> None:
        await self.pair.reconnect()
        if self.bot.seat is not None:
            await self.bot.reconnect()

    async def settle(self) -> list[str]:
        """After an attack: wait until every process answers again (restart a dead one)."""
        notes = []
        for node in self.nodes:
            if not node.alive():
                notes.append(f"{node.name} died; restarted")
                node.start()
            try:
                await node.wait_up(30)
            except RuntimeError as error:
                notes.append(f"{node.name} did not recover: {error}")
        # Work an attack queued (the computer's pool above all) must not spill into the next
        # attack's baseline: wait for a computer reply within a second (at most 30 s).
        began = time.monotonic()
        while time.monotonic() - began < 30:
            when, seconds = self.bot.last_turn
            if when > began and seconds < 1.0:
                break
            await asyncio.sleep(0.2)
        else:
            notes.append("the computer did not reply within 1 s again in 30 s")
        await asyncio.sleep(1)
        return notes


AttackFunction = Callable[[Bench, asyncio.Event, Outcome], Coroutine[Any, Any, None]]


# -- the attacks ------------------------------------------------------------------------------
async def create_when_allowed(
    bench: Bench, options: dict[str, Any], bot: str, answers: Counter[str]
) -> Created:
    """An attacker's table against the computer, waiting out the address's table budget
    (spent by the attacks before) as an attacker would."""
    for _ in range(120):
        try:
            return await create(bench.port, options, bot=bot, source=bench.attacker)
        except RuntimeError:
            answers["tables refused"] += 1
            await asyncio.sleep(1)
    raise RuntimeError("no table for two minutes: the table budget never let one through")


async def attack_preview(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(1) A chat app's link preview: GET and HEAD of a fresh invitation with bot agents."""
    made = await create(bench.port, PAIR_BOARD)
    assert made.invite_path is not None
    red = Seat(bench.port, made.table_id, made.token)
    await red.connect()
    took, og, statuses = 0, False, Counter[str]()
    try:
        while not stop.is_set():
            for agent in PREVIEW_AGENTS:
                for method in ("GET", "HEAD"):
                    reply = await fetch(
                        bench.port,
                        method,
                        made.invite_path,
                        source=bench.attacker,
                        headers={"User-Agent": agent, "Accept": "text/html"},
                    )
                    statuses[f"{method} {reply.status}"] += 1
                    took += f"pt_{made.table_id}" in reply.cookies()
                    og = og or b"og:title" in reply.body
            await asyncio.sleep(0.2)
        await red.connect()  # a fresh state: is the blue seat still free?
        taken = red.table["seats"]["blue"]["taken"]
        out.notes.append(
            f"previews: {', '.join(f'{k} x{v}' for k, v in sorted(statuses.items()))}; "
            f"seat cookies handed to the bot: {took}; Open Graph tags: {'yes' if og else 'no'}"
        )
        if taken:
            out.notes.append("**the preview took the friend's seat**")
        try:
            blue_token, how = await claim(bench.port, made.table_id, made.invite_path)
            blue = Seat(bench.port, made.table_id, blue_token)
            await blue.connect()
            out.notes.append(f"the friend then took the seat: {how}, plays as {blue.table['you']}")
            await blue.close()
        except Exception as error:
            out.notes.append(f"the friend could **not** take the seat ({error})")
    finally:
        await red.close()


class Crowd:
    """An attacker's spectator sockets on one table at a time, refilled when refused."""

    def __init__(self, port: int, attacker: str, count: int) -> None:
        self.port, self.attacker, self.count = port, attacker, count
        self.sockets: list[ClientConnection] = []
        self.refused = Counter[str]()
        self.table_id = ""

    async def _one(self) -> None:
        try:
            ws = await open_socket(self.port, self.table_id, None, source=self.attacker, watch=True)
            await ws.send(JOIN)
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if first.get("type") == "state":
                self.sockets.append(ws)
            else:
                self.refused[first.get("code", first.get("type", "?"))] += 1
                await ws.close()
        except ConnectionClosed:
            self.refused["closed by the server"] += 1
        except Exception as error:
            self.refused[why(error)] += 1

    async def follow(self, table_id: str) -> int:
        """The whole crowd on ``table_id`` (the old table's sockets closed); how many held."""
        await self.close()
        self.table_id = table_id
        await asyncio.gather(*(self._one() for _ in range(self.count)))
        return len(self.sockets)

    async def top_up(self) -> int:
        """Refill the crowd, as an attacker retrying its refused sockets would."""
        self.sockets[:] = [ws for ws in self.sockets if ws.close_code is None]
        await asyncio.gather(*(self._one() for _ in range(self.count - len(self.sockets))))
        return len(self.sockets)

    async def close(self) -> None:
        await asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True)
        self.sockets.clear()


class RemoteCrowd:
    """A :class:`Crowd` in a child copy of this bench (``--attack-child spectators``), at
    the attacker's niceness: its sockets' traffic (each of the victims' moves reaches every
    spectator) is then not handled by the event loop that times the victims. Driven by
    lines on the child's stdin (``follow ID``, ``top_up``), each answered with the count
    held; stdin closed, it prints what was refused as JSON."""

    def __init__(self, child: asyncio.subprocess.Process) -> None:
        self.child = child
        self.refused = Counter[str]()

    @classmethod
    async def start(cls, bench: Bench) -> RemoteCrowd:
        return cls(await attacking_process(bench, "spectators"))

    async def _ask(self, line: str) -> int:
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(f"{line}\n".encode())
        await self.child.stdin.drain()
        answer = await asyncio.wait_for(self.child.stdout.readline(), 60)
        if not answer:
            raise RuntimeError(f"the attacking process failed (exit {self.child.returncode})")
        return int(answer)

    async def follow(self, table_id: str) -> int:
        return await self._ask(f"follow {table_id}")

    async def top_up(self) -> int:
        return await self._ask("top_up")

    async def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        stdout, _ = await asyncio.wait_for(self.child.communicate(), 60)
        lines = stdout.decode().strip().splitlines()
        if lines:
            self.refused.update(json.loads(lines[-1]))


async def crowd_child(args: argparse.Namespace) -> int:
    """The attacking process of :class:`RemoteCrowd`."""
    crowd = Crowd(args.child_port, args.attacker, min(args.spectators, MAX_FLOOD))
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode().strip():
        command, _, table_id = line.partition(" ")
        held = await (crowd.follow(table_id) if command == "follow" else crowd.top_up())
        print(held, flush=True)
    await crowd.close()
    print(json.dumps(dict(crowd.refused)), flush=True)
    return 0


async def attack_spectators(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(2) Spectator sockets on the victim's own table, following it from game to game."""
    count = min(bench.args.spectators, MAX_FLOOD)
    crowd: Crowd | RemoteCrowd
    if bench.args.one_process:
        crowd = Crowd(bench.port, bench.attacker, count)
    else:
        crowd = await RemoteCrowd.start(bench)
    on = ""
    held = []
    try:
        while not stop.is_set():
            if bench.pair.table_id != on:
                on = bench.pair.table_id
                held.append(await crowd.follow(on))
                # The two players reload their pages; the crowd takes any free place first.
                locked = await bench.pair.reconnect(crowd.top_up)
                out.notes.append(
                    "players reconnected" if locked is None else f"**players locked out: {locked}**"
                )
            await asyncio.sleep(0.25)
    finally:
        await crowd.close()
    out.notes[:] = [
        f"{count} spectators a table, held {min(held, default=0)}-{max(held, default=0)} "
        f"on {len(held)} tables; refused: {dict(crowd.refused) or 'none'}",
        *sorted(set(out.notes)),
    ]


async def attack_sockets(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(3) Up to --max-sockets sockets from one address, half of them for unknown tables."""
    total = min(bench.args.max_sockets, MAX_FLOOD)
    tables = [(await create(bench.port, PAIR_BOARD, source=bench.attacker)).table_id]
    for _ in range(7):  # 8 tables: 64 sockets each fit under the old per-table cap
        tables.append((await create(bench.port, PAIR_BOARD, source=bench.attacker)).table_id)
    sockets: list[ClientConnection] = []
    outcome = Counter[str]()
    gate = asyncio.Semaphore(50)

    async def one(k: int) -> None:
        table = tables[(k // 2) % len(tables)] if k % 2 == 0 else f"nosuch{k:05d}"
        async with gate:
            if stop.is_set():
                return
            try:
                ws = await open_socket(bench.port, table, None, source=bench.attacker, watch=True)
                await ws.send(JOIN)
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                kind = "known" if k % 2 == 0 else "unknown"
                if first.get("type") == "state":
                    outcome[f"{kind} table: joined"] += 1
                else:
                    outcome[f"{kind} table: {first.get('code')}"] += 1
                sockets.append(ws)  # kept open whatever it said, as a hoarder would
            except Exception as error:
                outcome[f"refused: {why(error)}"] += 1

    try:
        await asyncio.gather(*(one(k) for k in range(total)))
        await asyncio.sleep(1)
        still = sum(1 for ws in sockets if ws.close_code is None)
        tried = sum(outcome.values())
        out.notes.append(f"{tried} of {total} sockets tried: {dict(sorted(outcome.items()))}")
        out.notes.append(f"{still} still open after 1 s")
        await stop.wait()
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


async def attack_slowloris(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(4) Half-sent HTTP requests held open, a header byte now and then."""
    total = min(bench.args.slowloris, MAX_FLOOD)
    writers: list[asyncio.StreamWriter] = []
    closed = 0
    failed = Counter[str]()

    async def hold(reader: asyncio.StreamReader) -> None:
        nonlocal closed
        with contextlib.suppress(Exception):
            await reader.read()
        closed += 1

    readers: list[asyncio.Task[None]] = []
    gate = asyncio.Semaphore(100)

    async def one() -> None:
        async with gate:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(HOST, bench.port, local_addr=(bench.attacker, 0)), 5
                )
                writer.write(f"GET / HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ".encode())
                writers.append(writer)
                readers.append(asyncio.create_task(hold(reader)))
            except Exception as error:
                failed[type(error).__name__] += 1

    try:
        await asyncio.gather(*(one() for _ in range(total)))
        started = time.monotonic()
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 5)
            for writer in writers:
                with contextlib.suppress(Exception):
                    writer.write(b"a")
        held_for = time.monotonic() - started
        out.notes.append(
            f"{len(writers)} of {total} half-sent requests opened"
            + (f" (not opened: {dict(failed)})" if failed else "")
            + f"; {closed} closed by the server within {held_for:.0f} s"
        )
    finally:
        for writer in writers:
            with contextlib.suppress(Exception):
                writer.close()
        for task in readers:
            task.cancel()


async def _join_flood(bench: Bench, stop: asyncio.Event, out: Outcome, count: int) -> None:
    made = await create(bench.port, BIG_BOARD, source=bench.attacker)
    answers = Counter[str]()
    received = 0

    async def one() -> None:
        while not stop.is_set():  # an attacker opens a closed socket again
            await flood_once()
            await asyncio.sleep(0.5)

    async def flood_once() -> None:
        nonlocal received
        try:
            ws = await open_socket(bench.port, made.table_id, None, source=bench.attacker)
        except Exception as error:
            answers[f"refused: {why(error)}"] += 1
            return

        async def drain() -> None:
            nonlocal received
            async for raw in ws:
                received += len(raw)
                head = str(raw[:40])  # '{"type":"state",...': no parse of 40 KB states
                if head.startswith('{"type":"error"'):
                    answers[json.loads(raw).get("code", "?")] += 1
                else:
                    answers[head.split('"')[3] if head.count('"') >= 4 else "?"] += 1

        reading = asyncio.create_task(drain())
        try:
            while not stop.is_set() and ws.close_code is None:
                await ws.send(JOIN)
                await asyncio.sleep(1 / 9)  # 9 a second: under the 10 a second per socket
        except Exception:
            pass
        finally:
            reading.cancel()
            with contextlib.suppress(Exception):
                await ws.close()

    started = time.monotonic()
    await asyncio.gather(*(one() for _ in range(count)))
    seconds = time.monotonic() - started
    out.notes.append(
        f"{count} sockets x 9 joins/s on a 12x12 table: answers {dict(answers)}, "
        f"{received / seconds / 1e6:.1f} MB/s of states"
    )


async def attack_joins20(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(5a) 20 sockets sending ``join`` within the per-socket rate on a 12x12 table."""
    await _join_flood(bench, stop, out, 20)


async def attack_joins50(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(5b) The same with 50 sockets."""
    await _join_flood(bench, stop, out, 50)


async def play_randomly(
    seat: Seat, stop: asyncio.Event, rng: random.Random, answers: Counter[str]
) -> None:
    """The attacker's game: a random legal move whenever it is its turn, until ``stop`` or the
    end of the game; a closed socket is opened again (counted in ``answers``)."""
    while not stop.is_set():
        try:
            if seat.ws is None or seat.ws.close_code is not None:
                await seat.connect()
            turn = seat.until(my_turn(seat.table["you"]))
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({turn, stopped}, return_when="FIRST_COMPLETED")
            stopped.cancel()
            if stop.is_set() or seat.table["outcome"] is not None:
                turn.cancel()
                return
            move = rng.choice(seat.table["view"]["legal_moves"])
            await seat.send({"type": "move", "ply": seat.table["ply"], "move": move})
            answers["moves"] += 1
            await seat.until(lambda t, ply=seat.table["ply"]: t["ply"] > ply)
        except Exception as error:
            answers[f"socket: {why(error)}"] += 1
            await asyncio.sleep(0.5)


async def attack_analysis(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(6) 20 best-move requests at once on a 12x12 analysis, while the victim asks for one."""
    await _ask_new_positions(bench, stop, out, askers=20, paced=False)


async def attack_analysis_paced(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(6b) The same, one request at a time, each as soon as the last is answered and after
    the wait a refusal names: the count of requests alone then allows a worker's whole time."""
    await _ask_new_positions(bench, stop, out, askers=1, paced=True)


async def _ask_new_positions(
    bench: Bench, stop: asyncio.Event, out: Outcome, askers: int, paced: bool
) -> None:
    """Best-move requests on a 12x12 analysis from ``askers`` tasks at once. Answers are kept
    per position, so asking one position twenty times costs the server one solve: the
    attacker plays its 12x12 game against the easy computer to make new positions, and each
    request asks about a position of it nobody has asked about yet."""
    out.victims = ("best move", "pair")
    answers = Counter[str]()
    made = await create_when_allowed(bench, BIG_BOARD, "easy", answers)
    seat = Seat(bench.port, made.table_id, made.token, source=bench.attacker)
    rng = random.Random(6)
    asked: set[int] = set()
    slowest = 0.0

    def unasked() -> int | None:
        reached = seat.table.get("ply", 0)
        return next((ply for ply in range(reached + 1) if ply not in asked), None)

    async def one() -> None:
        nonlocal slowest
        while not stop.is_set():
            ply = unasked()
            if ply is None:
                await asyncio.sleep(0.05)
                continue
            asked.add(ply)
            started = time.perf_counter()
            try:
                reply = await fetch(
                    bench.port,
                    "GET",
                    f"/api/tables/{made.table_id}/analysis/best?ply={ply}",
                    source=bench.attacker,
                    timeout=120,
                )
                answers[f"HTTP {reply.status}"] += 1
                if reply.status != 200:
                    asked.discard(ply)  # refused: that position is still new
                    wait = float(reply.header("Retry-After") or 0.2) if paced else 0.2
                    await asyncio.sleep(wait)  # try again soon, as an attacker would
            except Exception as error:
                answers[type(error).__name__] += 1
                asked.discard(ply)
                await asyncio.sleep(0.2)
            slowest = max(slowest, time.perf_counter() - started)

    await seat.connect()
    player = asyncio.create_task(play_randomly(seat, stop, rng, answers))
    flood = [asyncio.create_task(one()) for _ in range(askers)]
    try:
        await stop.wait()  # the victim's requests are the bench's own (run_attack)
    finally:
        for task in (player, *flood):
            task.cancel()
        await asyncio.gather(player, *flood, return_exceptions=True)
        await seat.close()
    out.notes.append(
        f"attacker's answers: {dict(answers)}; {len(asked)} positions asked about; "
        f"slowest attacker request {slowest:.1f} s"
    )


async def attack_draws(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(7) Draw offers to the computer at 1.5 a second from each of 3 tables."""
    out.victims = ("vs computer", "pair")
    answers = Counter[str]()
    seats = []
    for _ in range(3):
        made = await create(bench.port, BIG_BOARD, bot="hard", source=bench.attacker)
        seats.append((made.table_id, made.token))

    async def offer(table_id: str, token: str) -> None:
        while not stop.is_set():  # an attacker opens a closed socket again
            try:
                await offer_once(table_id, token)
            except Exception as error:
                answers[f"socket: {why(error)}"] += 1
                await asyncio.sleep(0.5)

    async def offer_once(table_id: str, token: str) -> None:
        ws = await open_socket(bench.port, table_id, token, source=bench.attacker)

        async def drain() -> None:
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "error":
                    answers[message.get("code", "?")] += 1
                elif message.get("type") == "change":
                    for event in message["events"]:
                        answers[event.get("kind", "?")] += 1

        reading = asyncio.create_task(drain())
        try:
            await ws.send(JOIN)
            while not stop.is_set():
                await ws.send(json.dumps({"type": "offer_draw"}))
                answers["offers sent"] += 1
                await asyncio.sleep(1 / 1.5)
        finally:
            reading.cancel()
            await ws.close()

    await asyncio.gather(*(offer(t, k) for t, k in seats))
    out.notes.append(f"3 tables, 12x12 vs hard: {dict(sorted(answers.items()))}")


async def attack_rematch(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(8) Resign and rematch in a loop against the computer: new tables a minute."""
    out.victims = ("vs computer", "pair")
    made = await create(bench.port, PAIR_BOARD, bot="easy", source=bench.attacker)
    new_tables, refusals = 0, Counter[str]()
    started = time.monotonic()

    async def loop(table_id: str, token: str) -> None:
        nonlocal new_tables
        while not stop.is_set():
            try:
                ws = await open_socket(bench.port, table_id, token, source=bench.attacker)
            except Exception as error:
                refusals[f"socket: {why(error)}"] += 1
                await asyncio.sleep(0.5)
                continue
            try:
                await ws.send(JOIN)
                await ws.send(json.dumps({"type": "resign"}))
                await ws.send(json.dumps({"type": "rematch"}))
                url = None
                async with asyncio.timeout(10):
                    while url is None:
                        message = json.loads(await ws.recv())
                        if message.get("type") == "rematch":
                            url = message["url"]
                        elif message.get("type") == "error":
                            refusals[message.get("code", "?")] += 1
                            if message.get("code") not in ("game_over", "illegal"):
                                await asyncio.sleep(1)
                                break
            except TimeoutError:
                refusals["no rematch within 10 s"] += 1
            finally:
                await ws.close()
            if url is None:
                continue
            path = urlsplit(url).path  # /t/{new}/seat/{token}
            parts = path.strip("/").split("/")
            table_id, token = parts[1], parts[3]
            new_tables += 1

    try:
        await loop(made.table_id, made.token)
    finally:
        minutes = (time.monotonic() - started) / 60
        out.notes.append(
            f"{new_tables} new tables in {minutes * 60:.0f} s = {new_tables / minutes:.0f} a "
            f"minute (the budget: 30 a minute, after a burst); refusals: "
            f"{dict(refusals) or 'none'}"
        )


COMPUTER_TABLES = 12


async def attack_computer(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(10) Twelve 12x12 tables against the hard computer from one address, each answering
    the computer's move at once: every worker of the computer's pool kept busy."""
    out.victims = ("vs computer", "pair")
    rng = random.Random(10)
    answers = Counter[str]()
    seats = []
    while len(seats) < COMPUTER_TABLES and not stop.is_set():
        made = await create_when_allowed(bench, BIG_BOARD, "hard", answers)
        seats.append(Seat(bench.port, made.table_id, made.token, source=bench.attacker))

    try:
        await asyncio.gather(*(play_randomly(seat, stop, rng, answers) for seat in seats))
    finally:
        for seat in seats:
            await seat.close()
    out.notes.append(f"{len(seats)} tables, 12x12 vs hard: {dict(sorted(answers.items()))}")


# The pictures' attack (11): the attacker's own tables, both seats its own.
SWAPTIMUM_BIG = {"size": 26}  # the most expensive pictures: 676 squares
PICTURE_CLIENTS = 8  # requests at once
PICTURE_SOCKETS = 3  # sockets a seat plays through (10 messages a second each)
PICTURE_PLIES = 160  # played as fast as allowed; then a move a second, for new GIFs
PICTURE_REQUESTS = 20_000  # the most requests of the whole attack
GIF_EVERY = 12  # every 12th request of a client is a GIF
REFUSED_PAUSE = 0.02  # after a 429/503: Retry-After ignored, but the attacker does not spin
PICTURE_KINDS = (".png", ".svg", "/position.json")


class OwnGame:
    """A table the attacker made and took both seats of (the invitation opened from its own
    address), played with random legal moves (drawn by the game's own engine: the socket's
    view of a Swaptimum table lists none) through ``PICTURE_SOCKETS`` sockets a seat."""

    def __init__(self, bench: Any, game: str, options: dict[str, Any], label: str) -> None:
        from playtable.games import load  # only in the attacker's process

        self.bench, self.game_name, self.options, self.label = bench, game, options, label
        self.game = load(game, options)
        self.state = self.game.initial()
        self.applied = 0  # moves of the table applied to self.state
        self.table_id = ""
        self.seats: dict[str, list[Seat]] = {}
        self.ply = 0  # moves known to be stored
        self.over = False
        self.turn = 0
        self.rng = random.Random(11)

    async def open(self, answers: Counter[str], stop: asyncio.Event) -> None:
        port, source = self.bench.port, self.bench.attacker
        made = None
        while made is None:  # the address's table budget (other attacks may have spent it)
            try:
                made = await create(port, self.options, source=source, game=self.game_name)
            except RuntimeError:
                answers["tables refused"] += 1
                if stop.is_set():
                    raise
                await asyncio.sleep(1)
        assert made.invite_path is not None
        blue, _how = await claim(port, made.table_id, made.invite_path, source=source)
        self.table_id = made.table_id
        self.seats = {
            player: [Seat(port, made.table_id, token, source) for _ in range(PICTURE_SOCKETS)]
            for player, token in (("red", made.token), ("blue", blue))
        }
        await self.reopen(answers)

    async def reopen(self, answers: Counter[str]) -> None:
        """(Re)connect every closed socket (a join spends a read: it may be refused)."""
        for seats in self.seats.values():
            for seat in seats:
                if seat.ws is None or seat.ws.close_code is not None:
                    try:
                        await seat.connect()
                    except Exception as error:
                        answers[f"socket: {str(error)[:40] or why(error)}"] += 1

    async def move(self, answers: Counter[str]) -> None:
        """One random legal move of whoever is to move, through the next socket of that seat;
        ``self.over`` once the game has ended. A refusal is counted; a move refused for the
        socket's rate is tried again after a pause."""
        self.turn += 1
        first = self.seats["red"][self.turn % PICTURE_SOCKETS]
        await asyncio.wait_for(first.until(lambda t: t["ply"] >= self.ply), 10)
        table = first.table
        if table["outcome"] is not None:
            self.over = True
            return
        mover = self.seats[table["to_move"]][self.turn % PICTURE_SOCKETS]
        ply = table["ply"]
        await asyncio.wait_for(mover.until(lambda t: t["ply"] >= ply), 10)
        for text in table["moves"][self.applied :]:
            self.state = self.game.play(self.state, text)
        self.applied = len(table["moves"])
        move = self.game.format_move(self.game.random_move(self.state, self.rng))
        arrived, refused = mover.until(past_ply(ply)), mover.next_error()
        await mover.send({"type": "move", "ply": ply, "move": move})
        done, _ = await asyncio.wait(
            waiting(arrived, refused), timeout=10, return_when="FIRST_COMPLETED"
        )
        if arrived in done:
            refused.cancel()
            self.ply = ply + 1
            answers["moves"] += 1
            return
        arrived.cancel()
        code = refused.result().get("code", "?") if refused in done else "none in 10 s"
        refused.cancel()
        answers[f"moves refused: {code}"] += 1
        await asyncio.sleep(0.2)

    async def play(self, stop: asyncio.Event, answers: Counter[str]) -> None:
        """As fast as allowed to ``PICTURE_PLIES``, then a move a second (each makes the
        whole game's GIF new again), until the end of the game or ``stop``."""
        while not stop.is_set() and not self.over:
            try:
                await self.move(answers)
            except Exception as error:
                answers[f"play: {why(error)}"] += 1
                await asyncio.sleep(0.5)
                await self.reopen(answers)
            if self.ply >= PICTURE_PLIES:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1.0)

    async def close(self) -> None:
        for seats in self.seats.values():
            for seat in seats:
                await seat.close()


async def attack_pictures(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(11) Pictures of positions nobody asked for yet, from one address: what was drawn is
    kept by what it shows, so the attacker plays its own tables (a 12x12 Dots and Boxes and a
    26x26 Swaptimum, both seats its own) and ``PICTURE_CLIENTS`` clients ask, one request
    after another, for the PNG, SVG and position.json of each new position, and now and then
    the whole game's GIF (new after each move), ignoring Retry-After (a 20 ms pause)."""
    out.victims = ("pair", "vs computer")
    answers, moves = Counter[str](), Counter[str]()
    drawn, errors = Counter[str](), Counter[str]()
    games = [
        OwnGame(bench, "dots", BIG_BOARD, "dots 12x12"),
        OwnGame(bench, "swaptimum", SWAPTIMUM_BIG, "swaptimum 26x26"),
    ]
    for game in games:
        await game.open(moves, stop)
    slots = [(g, kind) for g in range(len(games)) for kind in PICTURE_KINDS]
    next_ply = dict.fromkeys(slots, 0)
    again: list[tuple[int, str, int]] = []  # refused: still new positions
    gif_plies = [-1] * len(games)  # the moves of each table's last GIF asked for
    turn, sent, received = 0, 0, 0
    fast_until: list[float] = []  # when both tables had PICTURE_PLIES moves
    started = time.monotonic()

    def new_position() -> tuple[int, str, int] | None:
        nonlocal turn
        if again:
            return again.pop()
        for _ in slots:  # round robin over the tables and kinds
            slot = slots[turn % len(slots)]
            turn += 1
            if next_ply[slot] <= games[slot[0]].ply:
                next_ply[slot] += 1
                return slot[0], slot[1], next_ply[slot] - 1
        return None

    def new_gif() -> int | None:
        """A table whose moves changed since its GIF was last asked for (a new GIF)."""
        for index in sorted(range(len(games)), key=lambda i: gif_plies[i]):
            if games[index].ply > gif_plies[index]:
                gif_plies[index] = games[index].ply
                return index
        return None

    async def client(number: int) -> None:
        nonlocal sent, received
        for k in range(number, number + PICTURE_REQUESTS):  # the GIFs staggered
            if stop.is_set() or sent >= PICTURE_REQUESTS:
                return
            if not fast_until and all(g.ply >= PICTURE_PLIES or g.over for g in games):
                fast_until.append(time.monotonic() - started)
            asked, gif = None, None
            if k % GIF_EVERY == 0:
                gif = new_gif()
            if gif is not None:
                path, kind = f"/t/{games[gif].table_id}.gif", "gif"
            else:
                asked = new_position()
                if asked is None:  # every position asked: wait for new moves
                    await asyncio.sleep(0.05)
                    continue
                index, suffix, ply = asked
                path = f"/t/{games[index].table_id}{suffix}?ply={ply}"
                kind = suffix.rsplit(".", 1)[1]
            sent += 1
            try:
                reply = await fetch(bench.port, "GET", path, source=bench.attacker, timeout=40)
            except Exception as error:
                answers["other"] += 1
                errors[type(error).__name__] += 1
                if asked is not None:
                    again.append(asked)
                await asyncio.sleep(REFUSED_PAUSE)
                continue
            received += len(reply.body)
            status = reply.status
            answers[str(status) if status in (200, 429, 503) else "other"] += 1
            if status == 200:
                drawn[kind] += 1
                continue
            if status not in (429, 503):
                errors[f"HTTP {status}"] += 1
            if asked is not None and status in (429, 503):
                again.append(asked)
            await asyncio.sleep(REFUSED_PAUSE)

    players = [asyncio.create_task(game.play(stop, moves)) for game in games]
    try:
        await asyncio.gather(*(client(n) for n in range(PICTURE_CLIENTS)))
    finally:
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        for game in games:
            await game.close()
    seconds = time.monotonic() - started
    plies = ", ".join(f"{g.label} to ply {g.ply}" for g in games)
    fast = f"{fast_until[0]:.0f} s" if fast_until else "never"
    out.notes.append(
        f"{PICTURE_CLIENTS} clients on {plies} ({PICTURE_PLIES} reached: {fast}): answers "
        + ", ".join(f"{k} x{answers[k]}" for k in ("200", "429", "503", "other"))
        + f" in {seconds:.0f} s ({sent / seconds:.0f} requests/s); 200s by kind "
        f"{dict(sorted(drawn.items()))}; {received / 1e6:.1f} MB received"
        + (f"; errors {dict(errors)}" if errors else "")
        + f"; the attacker's moves {dict(sorted(moves.items()))}"
    )


async def attack_redis(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
    """(9) --cluster: the Redis between the two processes lost for 5 s, then back."""
    if bench.redis is None:
        raise RuntimeError("needs --cluster (two processes and a Redis)")
    out.victims = ("pair", "vs computer")
    await asyncio.sleep(1)
    how = bench.args.redis_fault
    if how == "stop":
        bench.redis.pause(True)
    else:
        bench.redis.kill()
    trace("Redis down")
    try:
        await asyncio.sleep(2.5)
        trace("the pair reconnects")
        failed = await bench.pair.reconnect()  # a page rejoining while Redis is down
        trace("the pair reconnected")
        out.notes.append(
            "rejoin while Redis was down: "
            + ("worked" if failed is None else f"**failed ({failed})**")
        )
        await asyncio.sleep(2.5)
    finally:
        if how == "stop":
            bench.redis.pause(False)
        else:
            bench.redis.start()
    back = time.monotonic()
    trace("Redis back")
    out.notes.append(f"Redis {'stopped (SIGSTOP)' if how == 'stop' else 'killed'} for 5 s")
    # Recovery: a fresh spectator on the *other* process must see the pair's next moves.
    seen_at = None
    while not stop.is_set() and seen_at is None:
        try:
            watcher = Seat(bench.nodes[-1].port, bench.pair.table_id, "")
            watcher.ws = await open_socket(bench.nodes[-1].port, bench.pair.table_id, None)
            watcher.reader = asyncio.create_task(watcher._read(watcher.ws))
            await watcher.ws.send(JOIN)
            await asyncio.wait_for(watcher.until(lambda t: True), 5)
            version = watcher.version
            try:
                await asyncio.wait_for(watcher.until(past_version(version)), 3)
                seen_at = time.monotonic() - back
            except TimeoutError:
                pass
            finally:
                await watcher.close()
        except Exception:
            await asyncio.sleep(0.5)
    out.notes.append(
        "recovered without restart: a new spectator on the other process sees moves "
        + (f"{seen_at:.1f} s after Redis came back" if seen_at is not None else "**never**")
    )
    await stop.wait()


@dataclass(frozen=True)
class Attack:
    key: str
    title: str
    run: AttackFunction
    cluster_only: bool = False
    # Run from a process of its own (unless --one-process): a real attacker's client work
    # (handshakes, sends, reading answers) is not done in the victims' event loop.
    remote: bool = False


async def attacking_process(bench: Bench, key: str) -> asyncio.subprocess.Process:
    """A child copy of this bench (``--attack-child key``) at the attacker's niceness, its
    stdin and stdout piped to us."""
    args = bench.args
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--attack-child",
        key,
        "--child-port",
        str(bench.port),
        "--attacker",
        bench.attacker,
        "--max-sockets",
        str(args.max_sockets),
        "--slowloris",
        str(args.slowloris),
        "--spectators",
        str(args.spectators),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        preexec_fn=functools.partial(_nice_to, args.attacker_nice),
    )


def in_own_process(attack: Attack) -> AttackFunction:
    """``attack`` run by a child copy of this bench (``--attack-child``) that attacks until
    its stdin closes and then prints its outcome as JSON."""

    async def run(bench: Bench, stop: asyncio.Event, out: Outcome) -> None:
        child = await attacking_process(bench, attack.key)
        assert child.stdin is not None
        await stop.wait()
        child.stdin.close()
        stdout, _ = await asyncio.wait_for(child.communicate(), 90)
        lines = stdout.decode().strip().splitlines()
        if child.returncode != 0 or not lines:
            raise RuntimeError(f"the attacking process failed (exit {child.returncode})")
        outcome = json.loads(lines[-1])
        out.notes += outcome["notes"]
        out.victims = tuple(outcome["victims"])
        if outcome.get("failed"):
            raise RuntimeError(outcome["failed"])

    return run


def _nice_to(niceness: int) -> None:
    """In the attacker's child, before it runs: at least ``niceness`` (a real attacker's client
    runs on another machine; here it shares two cores with the server and its workers)."""
    os.nice(max(0, niceness - os.nice(0)))


async def attack_child(args: argparse.Namespace) -> int:
    """The attacking process of :func:`in_own_process`."""
    attack = next(a for a in ATTACKS if a.key == args.attack_child)
    bench: Any = types.SimpleNamespace(port=args.child_port, attacker=args.attacker, args=args)
    stop, out = asyncio.Event(), Outcome()
    task = asyncio.create_task(attack.run(bench, stop, out))
    await asyncio.to_thread(sys.stdin.read)  # until the parent closes it: the window is over
    stop.set()
    failed = None
    try:
        await asyncio.wait_for(task, 60)
    except Exception as error:
        failed = f"{type(error).__name__}: {error}"[:300]
    print(json.dumps({"notes": out.notes, "victims": list(out.victims), "failed": failed}))
    return 0


ATTACKS = (
    Attack("preview", "(1) link preview GET/HEAD of the invitation", attack_preview, remote=True),
    Attack("spectators", "(2) spectator sockets on the victim's table", attack_spectators),
    Attack(
        "sockets", "(3) sockets from one address, unknown tables too", attack_sockets, remote=True
    ),
    Attack("slowloris", "(4) slowloris: half-sent requests", attack_slowloris, remote=True),
    Attack("joins20", "(5a) 20 sockets sending join, 12x12", attack_joins20, remote=True),
    Attack("joins50", "(5b) 50 sockets sending join, 12x12", attack_joins50, remote=True),
    Attack("analysis", "(6) 20 concurrent best-move requests, 12x12", attack_analysis, remote=True),
    Attack(
        "analysis-paced",
        "(6b) best-move requests one at a time, each refusal's wait kept, 12x12",
        attack_analysis_paced,
        remote=True,
    ),
    Attack("draws", "(7) draw offers to the computer, 1.5/s x 3 tables", attack_draws, remote=True),
    Attack(
        "computer",
        f"(10) {COMPUTER_TABLES} tables against the hard computer, answered at once",
        attack_computer,
        remote=True,
    ),
    # before the rematch loop, which spends the address's tables budget by design: after it,
    # with --quick's 8 s windows, the pictures attack's own two tables were refused until
    # its window was over, and it never ran
    Attack(
        "pictures",
        "(11) pictures of new positions: PNG/SVG/position.json/GIF flood, 12x12 + Swaptimum 26x26",
        attack_pictures,
        remote=True,
    ),
    Attack("rematch", "(8) resign + rematch loop vs the computer", attack_rematch, remote=True),
    Attack("redis", "(9) Redis lost for 5 s, two processes", attack_redis, cluster_only=True),
)


# -- running one attack and the report --------------------------------------------------------
@dataclass
class Row:
    attack: Attack
    victims: tuple[str, ...] = ("pair",)
    notes: list[str] = field(default_factory=list)
    failed: str | None = None


async def run_attack(bench: Bench, attack: Attack) -> Row:
    row = Row(attack)
    base, duration = bench.args.base, bench.args.duration
    out = Outcome()
    try:
        if attack.key.startswith("analysis"):  # new positions for each attack
            await bench.analysis.prepare()
        bench.record.label = f"{attack.key}:base"
        if attack.key.startswith("analysis"):
            quiet = asyncio.Event()
            asking = asyncio.create_task(bench.analysis.ask(quiet, limit=30, count=6))
            await asyncio.sleep(base)
            quiet.set()
            await asking
        else:
            await asyncio.sleep(base)
        bench.record.label = f"{attack.key}:attack"
        cpu_before, started = bench.cpu(), time.monotonic()
        stop = asyncio.Event()
        run = attack.run
        if attack.remote and not bench.args.one_process:
            run = in_own_process(attack)
        task = asyncio.create_task(run(bench, stop, out))
        asking = None
        if attack.key.startswith("analysis"):  # the victim's best moves, during the attack
            asking = asyncio.create_task(_ask_after(bench, stop, 0.5))
        # The window lasts its whole duration even if the attack gave up early.
        await asyncio.wait({task}, timeout=duration * 0.8)
        try:
            await asyncio.wait_for(bench.check_reconnects(), 30)
        except TimeoutError:
            out.notes.append("**the players' reconnect check did not finish in 30 s**")
        left = started + duration - time.monotonic()
        if left > 0:
            await asyncio.wait({task}, timeout=left)
        stop.set()
        cpu_after, seconds = bench.cpu(), time.monotonic() - started
        await asyncio.wait_for(task, 90)
        if asking is not None:
            await asyncio.wait_for(asking, 90)
        load = ", ".join(
            f"{(b - a) / seconds:.0%}" for a, b in zip(cpu_before, cpu_after, strict=True)
        )
        out.notes.append(f"server CPU during the attack: {load}")
    except Exception as error:
        row.failed = f"{type(error).__name__}: {error}"[:300]
    finally:
        bench.record.label = None
    row.victims, row.notes = out.victims, out.notes
    row.notes += await bench.settle()
    return row


async def _ask_after(bench: Bench, stop: asyncio.Event, delay: float) -> None:
    """The victim asking for best moves from ``delay`` seconds into an analysis attack."""
    await asyncio.sleep(delay)
    await bench.analysis.ask(stop, limit=60)


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 10 else f"{value:.1f} s"


def _stats(window: Window | None) -> tuple[float | None, float | None]:
    if window is None or not window.samples:
        return None, None
    return statistics.median(window.samples), percentile(window.samples, 0.99)


def _ratio(during: float | None, before: float | None) -> str:
    if during is None or before is None or before <= 0:
        return "-"
    ratio = during / before
    return f"**{ratio:.1f}x**" if ratio > 2 else f"{ratio:.1f}x"


def lost_moves(record: Record, stored: dict[str, list[str]]) -> Counter[str]:
    lost = Counter[str]()
    for label, table_id, ply, move in record.acked:
        moves = stored.get(table_id)
        if moves is None or len(moves) <= ply or moves[ply] != move:
            lost[label] += 1
    return lost


def report(bench: Bench, rows: list[Row], lost: Counter[str], checked: int) -> str:
    header = (
        "| attack | victim | p50 without | p50 during | ratio | p99 without | p99 during | "
        "ratio | site answered | seated players (re)connect | acked moves lost | notes |"
    )
    lines = [header, "|" + "---|" * 12]
    for row in rows:
        label = row.attack.key
        site = bench.record.windows.get((f"{label}:attack", "site"))
        answered = "-"
        if site is not None and site.probes:
            whole = site.probes_ok == site.probes
            answered = f"{'yes' if whole else '**no**'} ({site.probes_ok}/{site.probes})"
        for victim in row.victims:
            before = bench.record.windows.get((f"{label}:base", victim))
            during = bench.record.windows.get((f"{label}:attack", victim))
            b50, b99 = _stats(before)
            d50, d99 = _stats(during)
            connect = "-"
            if during is not None and during.reconnects:
                fails = during.reconnect_failures
                connect = (
                    f"yes ({during.reconnects}/{during.reconnects})"
                    if not fails
                    else f"**no** ({len(fails)} of {during.reconnects}: {fails[0]})"
                )
            notes = list(row.notes) if victim == row.victims[0] else []
            if row.failed:
                notes.insert(0, f"**the attack failed to run: {row.failed}**")
            if during is not None:
                if during.errors:
                    notes.append(f"{victim} errors: {dict(during.errors)}")
                if during.stuck:
                    notes.append(f"{during.stuck} stuck > {MOVE_TIMEOUT:g} s")
                notes.append(f"{len(during.samples)} samples")
            lost_here = str(lost.get(f"{label}:attack", 0)) if victim == row.victims[0] else ""
            lines.append(
                f"| {row.attack.title} | {victim} | {_ms(b50)} | {_ms(d50)} | {_ratio(d50, b50)} "
                f"| {_ms(b99)} | {_ms(d99)} | {_ratio(d99, b99)} | {answered} | {connect} | "
                f"{lost_here} | {'; '.join(notes).replace('|', '/')} |"
            )
    total = sum(lost.values())
    lines.append("")
    lines.append(
        f"Acknowledged victim moves checked against `GET /api/tables/{{id}}` at the end: "
        f"{checked}, lost: {total}" + (f" ({dict(lost)})" if total else "") + "."
    )
    return "\n".join(lines)


async def stored_moves(port: int, tables: Sequence[str]) -> dict[str, list[str]]:
    found = {}
    for table_id in dict.fromkeys(tables):
        with contextlib.suppress(Exception):
            reply = await fetch(port, "GET", f"/api/tables/{table_id}")
            if reply.status == 200:
                found[table_id] = list(reply.json()["moves"])
    return found


async def run(args: argparse.Namespace, nodes: list[Node], redis: Redis | None) -> int:
    for node in nodes:
        node.start()
    await asyncio.gather(*(node.wait_up() for node in nodes))
    bench = Bench(args, nodes, redis)
    chosen = [a for a in ATTACKS if not args.only or a.key in args.only]
    chosen = [a for a in chosen if args.cluster or not a.cluster_only]
    setup = "two processes, PostgreSQL, Redis (its own)" if args.cluster else "one process, SQLite"
    print(
        f"# bench/abuse.py: {setup}; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
        f"server file limit {args.server_nofile}; victims from {HOST}, attacker from "
        f"{args.attacker}; windows {args.base:g} s without, {args.duration:g} s during; "
        f"pictures drawn in {'threads' if args.picture_processes == '0' else 'processes'}",
        flush=True,
    )
    where = subprocess.run(
        [sys.executable, "-c", "import playtable; print(playtable.__file__)"],
        env=nodes[0].env,
        cwd=nodes[0].workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    print(f"# the server's code: {os.path.dirname(where.stdout.strip()) or where.stderr[-200:]}")
    await bench.pair.new_table()
    await bench.bot.new_table()
    background = [
        asyncio.create_task(bench.pair.run(bench.stop)),
        asyncio.create_task(bench.bot.run(bench.stop)),
        asyncio.create_task(bench.probe()),
    ]
    rows: list[Row] = []
    deadline = time.monotonic() + args.time_limit
    try:
        for attack in chosen:
            needed = args.base + args.duration + 10
            if time.monotonic() + needed > deadline:
                print(f"[{attack.key}] skipped: the time limit is near", flush=True)
                continue
            row = await run_attack(bench, attack)
            rows.append(row)
            status = "failed: " + row.failed if row.failed else "; ".join(row.notes)[:400]
            print(f"[{attack.key}] done: {status}", flush=True)
    finally:
        bench.stop.set()
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
    await bench.settle()
    stored = await stored_moves(nodes[0].port, bench.record.tables)
    lost = lost_moves(bench.record, stored)
    print()
    print(report(bench, rows, lost, len(bench.record.acked)))
    return 0


# -- the command ------------------------------------------------------------------------------
async def admin(statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_ADMIN, timeout=5)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def loopback(value: str) -> str:
    if not ipaddress.ip_address(value).is_loopback:
        raise argparse.ArgumentTypeError("the attacker must be a loopback address")
    return value


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    keys = ", ".join(a.key for a in ATTACKS)
    parser.add_argument("--only", help=f"comma-separated attacks: {keys}")
    parser.add_argument("--quick", action="store_true", help="4 s / 8 s windows (default 10 / 20)")
    parser.add_argument("--cluster", action="store_true", help="two processes, PostgreSQL, Redis")
    parser.add_argument("--time-limit", type=float, default=900.0, help="seconds for the run")
    parser.add_argument("--base", type=float, help="seconds measured without each attack")
    parser.add_argument("--duration", type=float, help="seconds of each attack")
    parser.add_argument("--max-sockets", type=int, default=1000, help="attack (3)'s sockets")
    parser.add_argument("--slowloris", type=int, default=1100, help="attack (4)'s requests")
    parser.add_argument("--spectators", type=int, default=80, help="attack (2)'s sockets")
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between victim moves")
    parser.add_argument("--attacker", type=loopback, default="127.0.0.2", help="source address")
    parser.add_argument("--redis-fault", choices=("kill", "stop"), default="kill")
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="run every attacker in the victims' process (before: its client work slowed them)",
    )
    parser.add_argument(
        "--attacker-nice",
        type=int,
        default=19,
        help="niceness of an attacker's own process (a real attacker's client is on another "
        "machine; 0: as the bench)",
    )
    parser.add_argument("--attack-child", help=argparse.SUPPRESS)
    parser.add_argument("--child-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--trace",
        action="store_true",
        help="print each victim move slower than 100 ms and the fault's moments, keep the logs",
    )
    parser.add_argument(
        "--server-nofile", type=int, default=1024, help="the server's open-file limit"
    )
    parser.add_argument(
        "--picture-processes",
        choices=("0", "1"),
        help="the server's PLAYTABLE_PICTURE_PROCESSES: 1 draws pictures in niced worker "
        "processes, 0 in threads of the server (default: the server's own, 1)",
    )
    args = parser.parse_args(argv)
    TRACING["on"] = args.trace
    args.only = {k for k in (args.only or "").split(",") if k}
    unknown = args.only - {a.key for a in ATTACKS}
    if unknown:
        parser.error(f"unknown attack {sorted(unknown)[0]!r}")
    if args.base is None:
        args.base = 4.0 if args.quick else 10.0
    if args.duration is None:
        args.duration = 8.0 if args.quick else 20.0
    return args


def attacker_address(wanted: str) -> str:
    """``wanted`` if this machine lets us bind it (Linux routes all of 127/8 to lo), else
    127.0.0.1 (then the attacker and the victims share the per-address budgets)."""
    try:
        with socket.socket() as probe:
            probe.bind((wanted, 0))
        return wanted
    except OSError:
        print(f"cannot bind {wanted}; the attacker uses {HOST} too", file=sys.stderr)
        return HOST


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    args.attacker = attacker_address(args.attacker)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the clients' side of the floods
    if args.attack_child == "spectators":
        return asyncio.run(crowd_child(args))
    if args.attack_child:
        return asyncio.run(attack_child(args))
    with tempfile.TemporaryDirectory(prefix="playtable-abuse-") as folder:
        workdir = Path(folder)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
        env["PLAYTABLE_SECRET"] = secrets.token_hex(32)
        if args.picture_processes is not None:
            env["PLAYTABLE_PICTURE_PROCESSES"] = args.picture_processes
        database = None
        redis = None
        try:
            if args.cluster:
                database = f"playtable_abuse_{os.getpid()}"
                asyncio.run(admin(f'CREATE DATABASE "{database}"'))
                env["PLAYTABLE_DATABASE_URL"] = (
                    f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database}"
                )
                redis = Redis(workdir)
                redis.start()
                env["PLAYTABLE_REDIS_URL"] = redis.url
                names: tuple[str, ...] = ("node-a", "node-b")
            else:
                env["PLAYTABLE_DATABASE_URL"] = f"sqlite:///{folder}/abuse.sqlite3"
                names = ("node",)
            nodes = [Node(n, free_port(), env, workdir, args.server_nofile) for n in names]
            try:
                coroutine = run(args, nodes, redis)
                return asyncio.run(asyncio.wait_for(coroutine, args.time_limit + 120))
            except TimeoutError:
                print(f"stopped at the time limit ({args.time_limit:g} s)", file=sys.stderr)
                return 1
            finally:
                for node in nodes:
                    node.stop()
                if args.trace:
                    for node in nodes:
                        kept = Path(tempfile.gettempdir()) / f"abuse-{node.name}.log"
                        shutil.copy(workdir / f"{node.name}.log", kept)
                        print(f"the server's log: {kept}", file=sys.stderr)
        finally:
            if redis is not None:
                redis.kill()
            if database is not None:
                asyncio.run(admin(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))


if __name__ == "__main__":
    sys.exit(main())
