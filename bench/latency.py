"""Move latency of the live game, against a bare WebSocket echo on the same server.

Starts ``playtable``'s app under uvicorn in a child process on 127.0.0.1 (with one extra route,
``/bench/echo``, that sends back every message it gets), then in this process:

1. echo: one client per table sends a move-sized message and waits for it to come back;
2. moves: on every table two players play a game of Dots and Boxes over their own sockets,
   and each move is timed from sending it until *both* players have received the new state
   (which includes checking the move, committing it to SQLite and fanning it out).

All tables run at once. Prints the median and the 99th percentile of both and their ratio.

    python bench/latency.py                  # 40 tables x 30 moves
    python bench/latency.py --tables 100 --moves 40

    python bench/latency.py --database-url sqlite:///tmp/x.sqlite3 --redis-url start --port 8123

It measures what ships: permessage-deflate off on the server (as ``playtable serve``) and in the
clients, the store of ``--database-url`` (default: a SQLite file in a temporary folder, an fsync
per commit), the in-process bus unless ``--redis-url`` names a Redis (``start``: one this bench
starts on a free port and stops at the end; never the shared one unless named). The players
move as fast as the server answers, so the per-socket message limits are raised for the run
through their settings (``PLAYTABLE_MESSAGE_BURST``, ``PLAYTABLE_MESSAGES_PER_SECOND``).

Only loopback is used, the counts are bounded (``--tables`` <= 500, ``--moves`` <= 60) and the
whole run stops after ``--time-limit`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.client
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

HOST = "127.0.0.1"  # never anything else: this benchmark only talks to itself
MAX_TABLES = 500
MAX_MOVES = 60  # a 5x5 Dots and Boxes board has 60 lines
OPTIONS = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}


# -- the server side --------------------------------------------------------------------------
# The players' messages are never refused: the bench measures moves, not the flood limits,
# and every client is one address (127.0.0.1), whose per-address caps would be the bench's.
BENCH_LIMITS = {
    "PLAYTABLE_MESSAGE_BURST": "100000",
    "PLAYTABLE_MESSAGES_PER_SECOND": "100000",
    "PLAYTABLE_TABLES_PER_MINUTE": "1000000",
    "PLAYTABLE_READS_PER_MINUTE": "1000000",
    "PLAYTABLE_SOCKETS_PER_ADDRESS": "100000",
    "PLAYTABLE_SOCKETS_PER_ADDRESS_PER_TABLE": "100000",
    "PLAYTABLE_PENDING_PER_ADDRESS": "100000",
}


def start_redis(folder: str, port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server of the bench's own on a free loopback port, nothing saved to disk."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is needed (apt-get install redis-server) or --redis-url")
    port = port or free_port()
    command = [server, "--bind", HOST, "--port", str(port), "--save", "", "--appendonly", "no"]
    command += ["--dir", folder, "--protected-mode", "yes"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection((HOST, port), timeout=1) as probe:
                probe.sendall(b"PING\r\n")
                if probe.recv(16).startswith(b"+PONG"):
                    return process, f"redis://{HOST}:{port}/0"
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("redis-server did not start")
        time.sleep(0.05)


def stop_process(process: subprocess.Popen[bytes], signal_number: int = signal.SIGTERM) -> None:
    process.send_signal(signal_number)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _report_collections(app: Any) -> Any:
    """``app``, printing the garbage collector's pauses to the bench's stderr when it shuts
    down (uvicorn ends the process by the signal it caught, so ``atexit`` never runs)."""
    pauses: list[float] = []
    started = [0.0]
    serving: list[bool] = []

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append(time.perf_counter() - started[0])

    def report() -> None:
        longest = max(pauses, default=0.0)
        print(
            f"server GC: {len(pauses)} collections, {1000 * sum(pauses):.1f} ms in all, "
            f"longest {1000 * longest:.1f} ms",
            file=sys.stderr,
        )

    gc.callbacks.append(timed)

    async def reporting(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            if not serving:
                # Only the pauses while serving: not the start-up's (nor the freeze's own).
                serving.append(True)
                pauses.clear()
            return await app(scope, receive, send)

        async def reported(message: Any) -> None:
            if message["type"] == "lifespan.shutdown.complete":
                report()
            await send(message)

        return await app(scope, receive, reported)

    return reporting


def serve(
    port: int,
    database_url: str,
    redis_url: str | None = None,
    ws: str = "shipped",
    gc_mode: str = "frozen",
) -> None:
    """Run the site plus the echo route (child process), as `playtable serve` runs it
    (``ws``: uvicorn's WebSocket implementation, for comparing them)."""
    import uvicorn
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    from playtable.web.app import create_app
    from playtable.web.collector import frozen_after_start_up
    from playtable.web.server import WS_PROTOCOL, GuardedHttpProtocol

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.send_text(await websocket.receive_text())
        except WebSocketDisconnect:
            pass

    async def cpu(request: Request) -> PlainTextResponse:
        # The process's CPU seconds to the nanosecond (all its threads): /proc counts in
        # 10 ms ticks, as much as 0.17 ms a move over a one-table run of 60 moves.
        return PlainTextResponse(repr(time.process_time()))

    app = create_app(database_url, redis_url=redis_url, secret=os.urandom(32))
    app.router.routes.insert(0, WebSocketRoute("/bench/echo", echo))
    app.router.routes.insert(0, Route("/bench/cpu", cpu))
    served: Any = app
    if gc_mode == "frozen":
        # What `playtable serve` does (playtable/web/collector.py): the start-up's objects,
        # frozen once the lifespan has started, are left out of every collection.
        served = frozen_after_start_up(app)
    uvicorn.run(
        _report_collections(served),
        host=HOST,
        port=port,
        log_level="warning",
        ws_max_size=1024 * 1024,
        ws_per_message_deflate=False,  # as `playtable serve` ships
        proxy_headers=False,
        http=GuardedHttpProtocol,
        ws=WS_PROTOCOL if ws == "shipped" else ws,  # type: ignore[arg-type]
    )


# -- the client side --------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def request(port: int, method: str, path: str, body: Any = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    return connection.getresponse()


def create_table(port: int) -> tuple[str, dict[str, str]]:
    """A table with both seats taken: its id and each player's seat token."""
    response = request(
        port, "POST", "/api/tables", {"game": "dots", "options": OPTIONS, "seat": "red"}
    )
    created = json.loads(response.read())
    if response.status != 201:
        raise RuntimeError(f"could not create a table: {created}")
    table_id = created["id"]
    return table_id, {
        "red": created["seat_url"].rsplit("/", 1)[1],
        "blue": take_seat(port, table_id, urlsplit(created["invite_url"]).path),
    }


def take_seat(port: int, table_id: str, invite: str) -> str:
    """Open the invitation and press its button, as the friend does: the seat token."""
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    connection.request("GET", invite)
    page = connection.getresponse()
    text = page.read().decode()
    csrf = re.search(r'name="csrf" value="([^"]+)"', text)
    cookies = [v.split(";", 1)[0] for k, v in page.getheaders() if k.lower() == "set-cookie"]
    if page.status != 200 or csrf is None:
        raise RuntimeError(f"the invitation page did not offer the seat ({page.status})")
    body = urllib.parse.urlencode({"csrf": csrf.group(1)})
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": "; ".join(cookies)}
    connection.request("POST", invite, body, headers)
    joined = connection.getresponse()
    joined.read()
    connection.close()
    prefix = f"pt_{table_id}="
    for key, value in joined.getheaders():
        if key.lower() == "set-cookie" and value.startswith(prefix):
            return value[len(prefix) :].split(";", 1)[0]
    raise RuntimeError("the invitation did not seat the second player")


class Player:
    """One player's socket: remembers when each version of the table arrived."""

    def __init__(self, websocket: Any) -> None:
        from playtable.tables.patch import Follower

        self.websocket = websocket
        self.table: dict[str, Any] = {}
        self.version = -1
        self.waiters: list[tuple[int, asyncio.Future[float]]] = []
        self.errors: list[dict[str, Any]] = []
        # The table as a page holds it, each change applied as table.js applies it.
        self.follower = Follower()
        self.change_bytes: list[int] = []  # the size of each change message received

    async def read(self) -> None:
        async for raw in self.websocket:
            now = time.perf_counter()
            message = json.loads(raw)
            if message["type"] == "error":
                self.errors.append(message)
            if message["type"] == "change":
                self.change_bytes.append(len(raw.encode() if isinstance(raw, str) else raw))
            before = self.follower.version
            self.follower.receive(message)
            if self.follower.missed:
                await self.websocket.send(json.dumps({"type": "join", "protocol": 2}))
            if self.follower.table is None or self.follower.version <= before:
                continue
            self.version, self.table = self.follower.version, self.follower.table
            for version, future in list(self.waiters):
                if version <= self.version and not future.done():
                    future.set_result(now)
                    self.waiters.remove((version, future))

    def arrival(self, version: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiters.append((version, future))
        return future


async def play_table(
    port: int,
    table_id: str,
    tokens: dict[str, str],
    moves: int,
    seed: int,
    out: list[float],
    *,
    blue_port: int | None = None,
    compression: str | None = None,
    joined: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Play ``moves`` random moves at one table; red's socket on ``port``, blue's on
    ``blue_port`` (the same process unless given), and record each move's latency
    (``joined``: awaited once both players have joined, before the first move)."""
    from websockets.asyncio.client import connect

    rng = random.Random(seed)

    def socket_of(player: str, on: int) -> Any:
        return connect(
            f"ws://{HOST}:{on}/t/{table_id}/ws",
            additional_headers={"Cookie": f"pt_{table_id}={tokens[player]}"},
            compression=compression,
        )

    async with (
        socket_of("red", port) as red_ws,
        socket_of("blue", port if blue_port is None else blue_port) as blue_ws,
    ):
        players = {"red": Player(red_ws), "blue": Player(blue_ws)}
        readers = [asyncio.create_task(p.read()) for p in players.values()]
        try:
            for player in players.values():
                ready = player.arrival(0)
                await player.websocket.send(
                    json.dumps({"type": "join", "protocol": 2, "since": None})
                )
                await ready
            if joined is not None:
                await joined()
            for _ in range(moves):
                table = players["red"].table
                if table["outcome"] is not None:
                    break
                mover = players[table["to_move"]]
                move = rng.choice(table["view"]["legal_moves"])
                expected = max(p.version for p in players.values()) + 1
                arrivals = [p.arrival(expected) for p in players.values()]
                sent = time.perf_counter()
                await mover.websocket.send(
                    json.dumps({"type": "move", "ply": table["ply"], "move": move})
                )
                received = await asyncio.gather(*arrivals)
                out.append(max(received) - sent)
            errors = [e for p in players.values() for e in p.errors]
            if errors:
                raise RuntimeError(f"table {table_id}: the server refused a move: {errors[0]}")
        finally:
            for reader in readers:
                reader.cancel()
            CHANGE_BYTES.extend(b for p in players.values() for b in p.change_bytes)


# The server's CPU seconds for the players' handshakes and joins, before the first move.
JOIN_CPU: list[float] = []
# The size of every change message the players received (for the bytes a move costs).
CHANGE_BYTES: list[int] = []


async def echo_client(
    port: int, rounds: int, out: list[float], *, compression: str | None = None
) -> None:
    from websockets.asyncio.client import connect

    async with connect(f"ws://{HOST}:{port}/bench/echo", compression=compression) as websocket:
        for ply in range(rounds):
            message = json.dumps({"type": "move", "ply": ply, "move": "a1-b1"})
            sent = time.perf_counter()
            await websocket.send(message)
            await websocket.recv()
            out.append(time.perf_counter() - sent)


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def wait_until_up(port: int, process: subprocess.Popen[bytes], limit: float) -> None:
    deadline = time.monotonic() + limit
    while True:
        try:
            response = request(port, "GET", "/api/tables/none")
            response.read()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.1)


def server_cpu_seconds(port: int) -> float:
    """The bench server's CPU seconds so far, as it measures them itself (``/bench/cpu``)."""
    response = request(port, "GET", "/bench/cpu")
    return float(response.read())


def process_cpu(pid: int) -> float | None:
    """CPU seconds used so far by process ``pid`` (Linux), or None where /proc is missing."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(
    port: int, tables: int, moves: int
) -> tuple[list[float], list[float], float, float]:
    """Echo round trips (half before, half after the games, against drift) and move latencies,
    the time the games took and the server's CPU seconds for them."""
    echoes: list[float] = []
    await asyncio.gather(*(echo_client(port, (moves + 1) // 2, echoes) for _ in range(tables)))
    seated = await asyncio.gather(*(asyncio.to_thread(create_table, port) for _ in range(tables)))
    latencies: list[float] = []
    # The server's CPU is read once every player has joined (the handshakes and joins are
    # reported apart) and when the last move has arrived.
    all_joined, go = asyncio.Barrier(tables + 1), asyncio.Event()

    async def joined() -> None:
        await all_joined.wait()
        await go.wait()

    cpu_start = await asyncio.to_thread(server_cpu_seconds, port)
    games = asyncio.gather(
        *(
            play_table(port, table_id, tokens, moves, seed, latencies, joined=joined)
            for seed, (table_id, tokens) in enumerate(seated)
        )
    )
    await all_joined.wait()
    cpu_before = await asyncio.to_thread(server_cpu_seconds, port)
    JOIN_CPU.append(cpu_before - cpu_start)
    started = time.perf_counter()
    go.set()
    await games
    playing = time.perf_counter() - started
    cpu = await asyncio.to_thread(server_cpu_seconds, port) - cpu_before
    await asyncio.gather(*(echo_client(port, moves // 2 or 1, echoes) for _ in range(tables)))
    return echoes, latencies, playing, cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tables", type=int, default=40, help=f"concurrent tables (<= {MAX_TABLES})"
    )
    parser.add_argument("--moves", type=int, default=30, help=f"moves per table (<= {MAX_MOVES})")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds for the whole run")
    parser.add_argument("--database-url", help="default: a SQLite file in a temporary folder")
    parser.add_argument(
        "--redis-url",
        help="the bus: a Redis URL, or 'start' for one of the bench's own on a free port "
        "(default: the in-process bus of a single `playtable serve`)",
    )
    parser.add_argument("--port", type=int, help="the server's port (default: a free one)")
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="run the server under py-spy (pip install py-spy) and write its folded stacks here",
    )
    parser.add_argument(
        "--ws",
        choices=("shipped", "websockets-sansio", "websockets", "wsproto"),
        default="shipped",
        help="uvicorn's WebSocket implementation (default: the one `playtable serve` runs)",
    )
    parser.add_argument(
        "--gc",
        choices=("frozen", "plain"),
        default="frozen",
        help="frozen (what ships: the start-up's objects out of every collection) or plain",
    )
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve, args.database_url, args.redis_url, args.ws, args.gc)
        return 0
    tables = max(1, min(args.tables, MAX_TABLES))
    moves = max(1, min(args.moves, MAX_MOVES))
    with tempfile.TemporaryDirectory() as folder:
        database_url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        redis, redis_url = None, args.redis_url
        if redis_url == "start":
            redis, redis_url = start_redis(folder)
        port = args.port or free_port()
        command = [sys.executable, __file__, "--serve", str(port), "--database-url", database_url]
        command += ["--ws", args.ws, "--gc", args.gc]
        if redis_url:
            command += ["--redis-url", redis_url]
        server = subprocess.Popen(command, env={**os.environ, **BENCH_LIMITS})
        spy: subprocess.Popen[bytes] | None = None
        try:
            wait_until_up(port, server, 30)
            if args.profile:
                # Attached once the server is up: a server started under py-spy never came up.
                beside = os.path.join(os.path.dirname(sys.executable), "py-spy")
                py_spy = shutil.which("py-spy") or beside
                record = ["record", "--format", "raw", "--rate", "500", "--threads"]
                where = ["--output", args.profile, "--pid", str(server.pid)]
                spy = subprocess.Popen([py_spy, *record, *where])
                time.sleep(1.0)  # py-spy is sampling
            try:
                echoes, latencies, playing, game_cpu = asyncio.run(
                    asyncio.wait_for(measure(port, tables, moves), args.time_limit)
                )
            except TimeoutError:
                print(f"stopped at the time limit ({args.time_limit:g} s)", file=sys.stderr)
                return 1
        finally:
            if spy is not None:
                stop_process(spy, signal.SIGINT)  # py-spy writes its profile, as on Ctrl-C
            stop_process(server, signal.SIGTERM)
            if redis is not None:
                stop_process(redis)
    # CPU seconds are the figure the machine's other load distorts least.
    server_cpu = _cpu(resource.RUSAGE_CHILDREN)
    client_cpu = _cpu(resource.RUSAGE_SELF)
    database = "SQLite (WAL, fsync on every commit)" if args.database_url is None else database_url
    move_median, move_p99 = statistics.median(latencies), percentile(latencies, 0.99)
    echo_median, echo_p99 = statistics.median(echoes), percentile(echoes, 0.99)
    load = os.getloadavg()[0]
    bus = "in-process bus" if not redis_url else f"Redis bus ({redis_url})"
    print(f"server: one uvicorn process on {HOST}, {database}, {bus}, compression off")
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} (client and server share it)")
    print(
        f"tables: {tables} at once ({2 * tables} player sockets), up to {moves} moves each: "
        f"{len(latencies)} moves in {playing:.1f} s ({len(latencies) / playing:.0f} moves/s)"
    )
    print(
        f"move -> both players have the new state: median {move_median * 1000:.2f} ms, "
        f"p99 {move_p99 * 1000:.2f} ms"
    )
    print(
        f"bare WebSocket echo ({tables} sockets at once): median {echo_median * 1000:.2f} ms, "
        f"p99 {echo_p99 * 1000:.2f} ms"
    )
    if CHANGE_BYTES:
        print(
            f"change messages: median {statistics.median(CHANGE_BYTES):.0f} bytes, "
            f"max {max(CHANGE_BYTES)} bytes ({OPTIONS['rows']}x{OPTIONS['cols']} board)"
        )
    per_move = f"; {game_cpu / len(latencies) * 1000:.2f} ms a move"
    if JOIN_CPU:
        per_socket = JOIN_CPU[0] / (2 * tables) * 1000
        per_move += f" (before them, {per_socket:.2f} ms a player's handshake and join)"
    print(
        f"CPU: server {server_cpu:.1f} s in all{per_move} while the games ran; "
        f"clients {client_cpu:.1f} s"
    )
    print(
        f"ratio move / echo: median {move_median / echo_median:.1f}x, "
        f"p99 {move_p99 / echo_p99:.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
