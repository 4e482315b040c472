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

Only loopback is used, the counts are bounded (``--tables`` <= 500, ``--moves`` <= 60) and the
whole run stops after ``--time-limit`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

HOST = "127.0.0.1"  # never anything else: this benchmark only talks to itself
MAX_TABLES = 500
MAX_MOVES = 60  # a 5x5 Dots and Boxes board has 60 lines
OPTIONS = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}


# -- the server side --------------------------------------------------------------------------
def serve(port: int, database_url: str) -> None:
    """Run the site plus the echo route (child process)."""
    import uvicorn
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    from playtable.web.app import create_app

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.send_text(await websocket.receive_text())
        except WebSocketDisconnect:
            pass

    app = create_app(database_url, secret=os.urandom(32))
    app.router.routes.insert(0, WebSocketRoute("/bench/echo", echo))
    uvicorn.run(app, host=HOST, port=port, log_level="warning", ws_max_size=1024 * 1024)


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
    invite = urlsplit(created["invite_url"]).path
    joined = request(port, "GET", invite)
    joined.read()
    cookie = joined.getheader("set-cookie") or ""
    prefix = f"pt_{table_id}="
    if not cookie.startswith(prefix):
        raise RuntimeError("the invitation did not seat the second player")
    blue = cookie[len(prefix) :].split(";", 1)[0]
    return table_id, {"red": created["seat_url"].rsplit("/", 1)[1], "blue": blue}


class Player:
    """One player's socket: remembers when each version of the table arrived."""

    def __init__(self, websocket: Any) -> None:
        self.websocket = websocket
        self.table: dict[str, Any] = {}
        self.version = -1
        self.waiters: list[tuple[int, asyncio.Future[float]]] = []
        self.errors: list[dict[str, Any]] = []

    async def read(self) -> None:
        async for raw in self.websocket:
            now = time.perf_counter()
            message = json.loads(raw)
            if message["type"] == "error":
                self.errors.append(message)
            if message["type"] != "state" or message["version"] < self.version:
                continue
            self.version, self.table = message["version"], message["table"]
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
    compression: str | None = "deflate",
) -> None:
    """Play ``moves`` random moves at one table; red's socket on ``port``, blue's on
    ``blue_port`` (the same process unless given), and record each move's latency."""
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
                    json.dumps({"type": "join", "protocol": 1, "since": None})
                )
                await ready
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


async def echo_client(
    port: int, rounds: int, out: list[float], *, compression: str | None = "deflate"
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


def process_cpu(pid: int) -> float | None:
    """CPU seconds used so far by process ``pid`` (Linux), or None where /proc is missing."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(
    port: int, tables: int, moves: int, server_pid: int
) -> tuple[list[float], list[float], float, float | None]:
    """Echo round trips (half before, half after the games, against drift) and move latencies,
    the time the games took and the server's CPU seconds for them."""
    echoes: list[float] = []
    await asyncio.gather(*(echo_client(port, (moves + 1) // 2, echoes) for _ in range(tables)))
    seated = await asyncio.gather(*(asyncio.to_thread(create_table, port) for _ in range(tables)))
    latencies: list[float] = []
    cpu_before = process_cpu(server_pid)
    started = time.perf_counter()
    await asyncio.gather(
        *(
            play_table(port, table_id, tokens, moves, seed, latencies)
            for seed, (table_id, tokens) in enumerate(seated)
        )
    )
    playing = time.perf_counter() - started
    cpu_after = process_cpu(server_pid)
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
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
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve, args.database_url)
        return 0
    tables = max(1, min(args.tables, MAX_TABLES))
    moves = max(1, min(args.moves, MAX_MOVES))
    with tempfile.TemporaryDirectory() as folder:
        database_url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port), "--database-url", database_url]
        )
        try:
            wait_until_up(port, server, 30)
            try:
                echoes, latencies, playing, game_cpu = asyncio.run(
                    asyncio.wait_for(measure(port, tables, moves, server.pid), args.time_limit)
                )
            except TimeoutError:
                print(f"stopped at the time limit ({args.time_limit:g} s)", file=sys.stderr)
                return 1
        finally:
            server.terminate()
            server.wait(timeout=10)
    # CPU seconds are the figure the machine's other load distorts least.
    server_cpu = _cpu(resource.RUSAGE_CHILDREN)
    client_cpu = _cpu(resource.RUSAGE_SELF)
    database = "SQLite (WAL, fsync on every commit)" if args.database_url is None else database_url
    move_median, move_p99 = statistics.median(latencies), percentile(latencies, 0.99)
    echo_median, echo_p99 = statistics.median(echoes), percentile(echoes, 0.99)
    load = os.getloadavg()[0]
    print(f"server: one uvicorn process on {HOST}, {database}, in-process bus")
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
    per_move = "" if game_cpu is None else f"; {game_cpu / len(latencies) * 1000:.2f} ms a move"
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
