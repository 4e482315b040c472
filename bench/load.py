"""Throughput, latency and idle connections of one, two and four server processes, on loopback.

For each setup (SQLite alone; SQLite, then PostgreSQL, with Redis between two processes;
PostgreSQL and Redis with one and with four processes) it starts the server processes on
127.0.0.1, then:

1. echo: one client per table sends a move-sized message to a bare WebSocket echo route on the
   same server and waits for it to come back (the floor any move latency stands on);
2. moves: ``--tables`` tables play at once, red of table k connected to process k and blue
   to the next one (so with several processes every move crosses Redis, and every process
   serves as many players as the others); a move is timed from sending it
   until both players hold the new state. Moves per second is all moves over the wall time.

Then, on one process with compression off, it opens up to ``--idle`` spectator sockets (each
joined to a table, so subscribed and counted) and reports the server's memory per idle
connection and how many it held.

    python bench/load.py                                  # every setup, 40 tables, 10,000 idle
    python bench/load.py --setups sqlite-1 --tables 100 --idle 2000

    python bench/load.py --redis-url redis://127.0.0.1:6380/3 --postgres-url postgresql://...

Loopback only; tables <= 500, moves <= 60, idle <= 20,000; every phase has a deadline and the
whole run stops at ``--time-limit`` seconds. Redis: by default a redis-server of the bench's own
on a free port (nothing saved, stopped at the end), else ``--redis-url``; PostgreSQL: the
server of ``--postgres-url`` (default the local one), in a database the bench creates and drops.
Server ports are free ones unless ``--ports`` names them. The servers ship as ``playtable serve``
does (compression off); the players' messages are never refused (the per-socket limits raised
through ``PLAYTABLE_MESSAGE_BURST`` / ``PLAYTABLE_MESSAGES_PER_SECOND``).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import (
    BENCH_LIMITS,
    HOST,
    create_table,
    free_port,
    percentile,
    play_table,
    start_redis,
    stop_process,
)
from latency import echo_client as latency_echo_client

MAX_TABLES = 500
MAX_MOVES = 60
MAX_IDLE = 20_000
SETUPS = ("sqlite-1", "sqlite-2", "postgresql-1", "postgresql-2", "postgresql-4")
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
SECRET = secrets.token_hex(32)  # one per run, shared by the run's processes


# -- the server side --------------------------------------------------------------------------
def serve(port: int) -> None:
    """The site plus a bare echo route, configured by the environment (child process)."""
    import uvicorn
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    from playtable.web.app import create_app
    from playtable.web.collector import frozen_after_start_up
    from playtable.web.server import WS_PROTOCOL

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.send_text(await websocket.receive_text())
        except WebSocketDisconnect:
            pass

    # Never outlive the bench (a time limit, a ^C): exit once the parent is gone.
    parent = os.getppid()

    def watch_parent() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()
    app = create_app()
    app.router.routes.insert(0, WebSocketRoute("/bench/echo", echo))
    uvicorn.run(
        frozen_after_start_up(app),  # as `playtable serve` runs
        host=HOST,
        port=port,
        log_level="warning",
        ws_max_size=1024 * 1024,
        ws_per_message_deflate=False,
        proxy_headers=False,
        ws=WS_PROTOCOL,  # as `playtable serve` runs
        backlog=4096,
    )


def raise_file_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int


def start_servers(
    count: int, env: dict[str, str], deadline: float, ports: Sequence[int] = ()
) -> list[Server]:
    servers = []
    for k in range(count):
        port = ports[k] if k < len(ports) else free_port()
        process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port)], env={**os.environ, **env}
        )
        servers.append(Server(process, port))
    for server in servers:
        wait_until_up(server, deadline)
    return servers


def wait_until_up(server: Server, deadline: float) -> None:
    import http.client

    while True:
        try:
            connection = http.client.HTTPConnection(HOST, server.port, timeout=2)
            connection.request("GET", "/")
            connection.getresponse().read()
            return
        except OSError:
            if server.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("a server did not start") from None
            time.sleep(0.1)


def stop(servers: Sequence[Server]) -> None:
    for server in servers:
        server.process.terminate()
    for server in servers:
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


# -- the client side --------------------------------------------------------------------------
# latency.py's clients, with compression off (as for the idle connections), red's socket on
# one process and blue's on another.
echo_client = functools.partial(latency_echo_client, compression=None)


async def play_across(
    first: int,
    last: int,
    table_id: str,
    tokens: dict[str, str],
    moves: int,
    seed: int,
    out: list[float],
) -> None:
    await play_table(first, table_id, tokens, moves, seed, out, blue_port=last, compression=None)


@dataclass
class Figures:
    moves: list[float]
    echoes: list[float]
    seconds: float
    cpu: dict[str, float]  # CPU seconds while the games ran: servers, PostgreSQL, Redis, client


def cpu_by_kind(servers: Sequence[Server]) -> dict[str, float]:
    """CPU seconds used so far by the servers, every PostgreSQL process of the machine (its
    backends, WAL writer, checkpointer), every Redis and this client (Linux /proc; the
    difference over a run of thousands of moves makes the 10 ms ticks negligible)."""
    ours = {server.process.pid for server in servers}
    totals = {"servers": 0.0, "postgresql": 0.0, "redis": 0.0}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                head, _, rest = stat.read().rpartition(")")
        except OSError:
            continue  # gone meanwhile
        name = head.split("(", 1)[1]
        fields = rest.split()
        seconds = (int(fields[11]) + int(fields[12])) / tick
        if int(entry) in ours:
            totals["servers"] += seconds
        elif name == "postgres":
            totals["postgresql"] += seconds
        elif name.startswith("redis-server"):
            totals["redis"] += seconds
    totals["client"] = time.process_time()
    return totals


async def measure(servers: Sequence[Server], tables: int, moves: int) -> Figures:
    first = servers[0].port
    echoes: list[float] = []
    await asyncio.gather(*(echo_client(first, (moves + 1) // 2, echoes) for _ in range(tables)))
    seated = await asyncio.gather(*(asyncio.to_thread(create_table, first) for _ in range(tables)))
    latencies: list[float] = []
    cpu_before = cpu_by_kind(servers)
    started = time.perf_counter()
    ports = [server.port for server in servers]
    # Table k: red on process k, blue on the next one (with one process, both on it; with
    # two, always across): every move crosses Redis as soon as there is more than one.
    await asyncio.gather(
        *(
            play_across(
                ports[k % len(ports)],
                ports[(k + 1) % len(ports)],
                table_id,
                tokens,
                moves,
                k,
                latencies,
            )
            for k, (table_id, tokens) in enumerate(seated)
        )
    )
    seconds = time.perf_counter() - started
    cpu_after = cpu_by_kind(servers)
    cpu = {kind: cpu_after[kind] - cpu_before[kind] for kind in cpu_after}
    await asyncio.gather(*(echo_client(first, moves // 2 or 1, echoes) for _ in range(tables)))
    return Figures(latencies, echoes, seconds, cpu)


async def hold_idle(server: Server, target: int, deadline: float) -> tuple[int, int, int]:
    """Open up to ``target`` joined spectator sockets; (held, RSS before, RSS after) in KiB."""
    from websockets.asyncio.client import ClientConnection, connect

    tables = [
        (await asyncio.to_thread(create_table, server.port))[0]
        for _ in range(max(1, target // 1000))
    ]
    await asyncio.sleep(0.5)
    before = rss_kib(server.process.pid)
    sockets: list[ClientConnection] = []
    gate = asyncio.Semaphore(100)  # handshakes at once: a burst, not a SYN flood
    failures = 0

    async def one(k: int) -> None:
        nonlocal failures
        if time.monotonic() > deadline or failures > 50:
            return
        async with gate:
            try:
                ws = await connect(
                    f"ws://{HOST}:{server.port}/t/{tables[k % len(tables)]}/ws?watch=1",
                    compression=None,
                    open_timeout=20,
                    max_size=2**20,
                )
                await ws.send(json.dumps({"type": "join", "protocol": 2}))
                await asyncio.wait_for(ws.recv(), 20)  # the state: joined and subscribed
                sockets.append(ws)
            except (OSError, TimeoutError, Exception):
                failures += 1

    await asyncio.gather(*(one(k) for k in range(target)))
    await asyncio.sleep(1.0)  # let the server settle before reading its memory
    after = rss_kib(server.process.pid)
    held = len(sockets)
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return held, before, after


# -- the run ----------------------------------------------------------------------------------
async def admin(url: str, statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def environment(
    setup: str, folder: str, database: str | None, redis_url: str, postgres_url: str
) -> dict[str, str]:
    env = {
        **BENCH_LIMITS,
        "PLAYTABLE_SECRET": SECRET,
        # The bench, not the limits, decides how many tables and sockets there are.
        "PLAYTABLE_TABLES_PER_MINUTE": "1000000",
        "PLAYTABLE_SOCKETS_PER_TABLE": "1000000",
        # Every client of the bench is 127.0.0.1: one address's caps would stop it early.
        "PLAYTABLE_SOCKETS_PER_ADDRESS": "1000000",
        "PLAYTABLE_SOCKETS_PER_ADDRESS_PER_TABLE": "1000000",
        "PLAYTABLE_READS_PER_MINUTE": "1000000",
        "PLAYTABLE_IDLE_SECONDS": "3600",
    }
    if setup.startswith("sqlite"):
        env["PLAYTABLE_DATABASE_URL"] = f"sqlite:///{folder}/{setup}.sqlite3"
    else:
        assert database is not None
        server = postgres_url.split("://", 1)[1].rsplit("/", 1)[0]
        env["PLAYTABLE_DATABASE_URL"] = f"postgresql+asyncpg://{server}/{database}"
    if setup != "sqlite-1":
        env["PLAYTABLE_REDIS_URL"] = redis_url
        env["PLAYTABLE_REDIS_PREFIX"] = f"bench-{os.getpid()}-{setup}:"
    return env


def describe(setup: str) -> str:
    store, count = setup.split("-")
    bus = "in-process bus" if setup == "sqlite-1" else "Redis bus"
    processes = "1 process" if count == "1" else f"{count} processes (red on one, blue on other)"
    database = "SQLite (WAL, fsync each commit)" if store == "sqlite" else "PostgreSQL"
    return f"{processes}, {database}, {bus}"


def report(setup: str, figures: Figures) -> None:
    moves, echoes = figures.moves, figures.echoes
    m50, m99 = statistics.median(moves) * 1000, percentile(moves, 0.99) * 1000
    e50, e99 = statistics.median(echoes) * 1000, percentile(echoes, 0.99) * 1000
    print(f"[{setup}] {describe(setup)}")
    print(
        f"[{setup}]   {len(moves)} moves in {figures.seconds:.1f} s: "
        f"{len(moves) / figures.seconds:.0f} moves/s"
    )
    print(f"[{setup}]   move -> both players: median {m50:.1f} ms, p99 {m99:.1f} ms")
    print(f"[{setup}]   bare WebSocket echo:  median {e50:.1f} ms, p99 {e99:.1f} ms")
    print(f"[{setup}]   ratio move/echo: median {m50 / e50:.1f}x, p99 {m99 / e99:.1f}x")
    per_move = {kind: seconds / len(moves) * 1000 for kind, seconds in figures.cpu.items()}
    parts = ", ".join(f"{kind} {ms:.2f}" for kind, ms in per_move.items())
    busy = sum(figures.cpu.values()) / figures.seconds
    print(
        f"[{setup}]   CPU a move: {sum(per_move.values()):.2f} ms ({parts}); "
        f"{busy:.2f} of the {os.cpu_count()} cores busy"
    )
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40, help=f"tables at once (<= {MAX_TABLES})")
    parser.add_argument("--moves", type=int, default=30, help=f"moves per table (<= {MAX_MOVES})")
    parser.add_argument(
        "--idle", type=int, default=10_000, help=f"idle sockets to open (<= {MAX_IDLE}; 0: skip)"
    )
    parser.add_argument(
        "--setups", default=",".join(SETUPS), help="comma-separated: " + ", ".join(SETUPS)
    )
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds for the whole run")
    parser.add_argument(
        "--redis-url", help="the Redis of the bus (default: one the bench starts on a free port)"
    )
    parser.add_argument(
        "--postgres-url",
        default=POSTGRES_ADMIN,
        help=f"a PostgreSQL database to connect to for CREATE DATABASE (default {POSTGRES_ADMIN})",
    )
    parser.add_argument(
        "--ports", default="", help="comma-separated ports for the server processes (default: free)"
    )
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    raise_file_limit()
    if args.serve is not None:
        serve(args.serve)
        return 0
    tables = max(1, min(args.tables, MAX_TABLES))
    moves = max(1, min(args.moves, MAX_MOVES))
    idle = max(0, min(args.idle, MAX_IDLE))
    setups = [s for s in args.setups.split(",") if s]
    unknown = set(setups) - set(SETUPS)
    if unknown:
        parser.error(f"unknown setup {sorted(unknown)[0]!r}")
    deadline = time.monotonic() + args.time_limit
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} "
        "(clients and servers share it); loopback only"
    )
    print(f"tables: {tables} at once, up to {moves} moves each, Dots and Boxes 5x5")
    ports = [int(p) for p in args.ports.split(",") if p.strip()]
    database = None
    if any(s.startswith("postgresql") for s in setups):
        database = f"playtable_bench_{os.getpid()}"
        asyncio.run(admin(args.postgres_url, f'CREATE DATABASE "{database}"'))
    redis = None
    try:
        with tempfile.TemporaryDirectory() as folder:
            redis_url = args.redis_url
            if redis_url is None and any(s != "sqlite-1" for s in setups):
                redis, redis_url = start_redis(folder)
                print(f"redis: the bench's own, {redis_url}")

            def env(setup: str) -> dict[str, str]:
                return environment(setup, folder, database, redis_url or "", args.postgres_url)

            for setup in setups:
                count = int(setup.rsplit("-", 1)[1])
                servers = start_servers(count, env(setup), deadline, ports)
                try:
                    left = deadline - time.monotonic()
                    figures = asyncio.run(asyncio.wait_for(measure(servers, tables, moves), left))
                finally:
                    stop(servers)
                report(setup, figures)
            if idle:
                servers = start_servers(1, env("sqlite-1"), deadline, ports)
                try:
                    held, before, after = asyncio.run(hold_idle(servers[0], idle, deadline))
                finally:
                    stop(servers)
                per = (after - before) / held if held else float("nan")
                print(
                    f"[idle] one process, compression off: held {held} of {idle} joined "
                    f"sockets; RSS {before / 1024:.0f} -> {after / 1024:.0f} MiB, "
                    f"{per:.1f} KiB per idle connection"
                )
    except TimeoutError:
        print(f"stopped at the time limit ({args.time_limit:g} s)", file=sys.stderr)
        return 1
    finally:
        if redis is not None:
            stop_process(redis)
        if database is not None:
            asyncio.run(
                admin(args.postgres_url, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
