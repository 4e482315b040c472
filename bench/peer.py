"""Playtable against boardgame.io 0.50, the framework people would pick instead: moves on one
and ten games at once, the two servers alternating in one run.

    python bench/peer.py [--rounds 3] [--games 1,10] [--moves 60] [--time-limit 600]
                         [--memory] [--versus PATH]

Both servers run on this machine on free loopback ports, started and stopped here:

- boardgame.io: ``node bench/peer/server.js`` (``bench/peer/``: a Dots and Boxes of 5x5 boxes in
  about 60 lines, the in-memory store, socket.io with compression off, ``NODE_ENV=production``),
  installed into ``bench/peer/node_modules`` with ``npm ci`` from the committed lock file on
  first use (the npm registry; ``--no-install`` refuses instead);
- Playtable: ``playtable serve`` on a SQLite file in a temporary folder (WAL, ``synchronous=FULL``:
  an fsync per commit, what ships), permessage-deflate off as it ships, the per-socket message
  limits raised through ``PLAYTABLE_MESSAGE_BURST`` / ``PLAYTABLE_MESSAGES_PER_SECOND`` so the
  players are never refused (a player may send 30 moves in a row).

The client shape is the same on both sides: each game has two player sockets (seated through
each server's own API: boardgame.io's Lobby ``create`` and ``join`` and its credentials,
Playtable's ``POST /api/tables`` and the invitation link), and plays up to ``--moves`` random legal
moves; a move is timed from sending it until *both* players hold the new state (boardgame.io's
``update`` with the next ``_stateID``, Playtable's ``change`` to the next version, applied as
a page applies it). A batch is
``G`` games at once, for ``G`` in ``--games``; every round runs each batch on each server, the
order of the servers alternating from one batch to the next. Server CPU is read from
``/proc/<pid>/stat`` of the server process before and after each batch, so it is the server's
whole cost (socket.io or uvicorn, the rules, the store) divided by the moves it served. The
clock and the CPU count start once every game of the batch is seated and joined, and stop when
the last game ends: creating the games is not a move.

Prints per server and batch size: move latency median and p99, moves per second (moves over the
wall time of the batches), server CPU per move, and the ratios Playtable / boardgame.io (for
latency and CPU, below 1 means Playtable is cheaper; for moves/s, above 1 means faster).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import latency  # bench/latency.py: Playtable's seated tables and players

HERE = Path(__file__).resolve().parent
PEER = HERE / "peer"
HOST = latency.HOST  # loopback only
MAX_GAMES = 50
MAX_MOVES = 60  # every line of the 5x5 board
NAMESPACE = "/dots"  # boardgame.io's socket.io namespace is the game's name


# -- boardgame.io over socket.io (Engine.IO 4 on a WebSocket) ----------------------------------
def lobby(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    data: dict[str, Any] = json.loads(response.read())
    if response.status != 200:
        raise RuntimeError(f"boardgame.io lobby {path}: {response.status} {data}")
    return data


def bgio_match(port: int) -> tuple[str, dict[str, str]]:
    """A match with both seats taken: its id and each player's credentials."""
    match_id = lobby(port, "/games/dots/create", {"numPlayers": 2})["matchID"]
    credentials = {
        player: lobby(
            port, f"/games/dots/{match_id}/join", {"playerID": player, "playerName": name}
        )["playerCredentials"]
        for player, name in (("0", "red"), ("1", "blue"))
    }
    return match_id, credentials


class BgioPlayer:
    """One player's socket.io connection: the newest state and when each state arrived."""

    def __init__(self, websocket: Any) -> None:
        self.websocket = websocket
        self.state: dict[str, Any] = {}
        self.state_id = -1
        self.waiters: list[tuple[int, asyncio.Future[float]]] = []

    async def emit(self, *args: Any) -> None:
        await self.websocket.send(f"42{NAMESPACE}," + json.dumps(args))

    async def read(self) -> None:
        prefix = f"42{NAMESPACE},"
        async for raw in self.websocket:
            now = time.perf_counter()
            if raw == "2":  # Engine.IO ping
                await self.websocket.send("3")
                continue
            if not raw.startswith(prefix):
                continue
            event, *args = json.loads(raw[len(prefix) :])
            if event == "sync":
                state = args[1]["state"]
            elif event == "update":
                state = args[1]
            else:
                continue
            if state["_stateID"] <= self.state_id:
                continue
            self.state, self.state_id = state, state["_stateID"]
            for state_id, future in list(self.waiters):
                if state_id <= self.state_id and not future.done():
                    future.set_result(now)
                    self.waiters.remove((state_id, future))

    def arrival(self, state_id: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiters.append((state_id, future))
        return future


async def bgio_socket(port: int) -> Any:
    """A WebSocket connected to the game's namespace."""
    from websockets.asyncio.client import connect

    websocket = await connect(
        f"ws://{HOST}:{port}/socket.io/?EIO=4&transport=websocket", compression=None
    )
    opened = await websocket.recv()
    if not str(opened).startswith("0"):
        raise RuntimeError(f"boardgame.io: unexpected Engine.IO open {opened!r}")
    await websocket.send(f"40{NAMESPACE},")
    while not str(answer := await websocket.recv()).startswith(f"40{NAMESPACE},"):
        if answer == "2":
            await websocket.send("3")
    return websocket


async def bgio_game(
    port: int,
    match: tuple[str, dict[str, str]],
    moves: int,
    seed: int,
    out: list[float],
    start: asyncio.Barrier,
) -> None:
    match_id, credentials = match
    rng = random.Random(seed)
    sockets = [await bgio_socket(port) for _ in credentials]
    players = {pid: BgioPlayer(ws) for pid, ws in zip(credentials, sockets, strict=True)}
    readers = [asyncio.create_task(p.read()) for p in players.values()]
    try:
        for pid, player in players.items():
            ready = player.arrival(0)
            await player.emit("sync", match_id, pid, credentials[pid], 2)
            await ready
        await start.wait()  # every game of the batch seated: the clock starts
        for _ in range(moves):
            state = players["0"].state
            if state["ctx"].get("gameover") is not None:
                break
            mover = state["ctx"]["currentPlayer"]
            free = [i for i, drawn in enumerate(state["G"]["lines"]) if not drawn]
            line = rng.choice(free)
            state_id = state["_stateID"]
            arrivals = [p.arrival(state_id + 1) for p in players.values()]
            action = {
                "type": "MAKE_MOVE",
                "payload": {
                    "type": "draw",
                    "args": [line],
                    "playerID": mover,
                    "credentials": credentials[mover],
                },
            }
            sent = time.perf_counter()
            await players[mover].emit("update", action, state_id, match_id, mover)
            received = await asyncio.gather(*arrivals)
            out.append(max(received) - sent)
    finally:
        for reader in readers:
            reader.cancel()
        for websocket in sockets:
            await websocket.close()


# -- Playtable over its WebSocket protocol (docs/protocol.md) -----------------------------------
async def playtable_game(
    port: int,
    table: tuple[str, dict[str, str]],
    moves: int,
    seed: int,
    out: list[float],
    start: asyncio.Barrier,
) -> None:
    """``latency.play_table``'s game, compression off as ``playtable serve`` ships, waiting
    for the whole batch to be seated before the first move."""
    from websockets.asyncio.client import connect

    table_id, tokens = table
    rng = random.Random(seed)
    sockets = [
        await connect(
            f"ws://{HOST}:{port}/t/{table_id}/ws",
            additional_headers={"Cookie": f"pt_{table_id}={tokens[player]}"},
            compression=None,
        )
        for player in ("red", "blue")
    ]
    players = {"red": latency.Player(sockets[0]), "blue": latency.Player(sockets[1])}
    readers = [asyncio.create_task(p.read()) for p in players.values()]
    try:
        for player in players.values():
            ready = player.arrival(0)
            await player.websocket.send(json.dumps({"type": "join", "protocol": 2, "since": None}))
            await ready
        await start.wait()
        for _ in range(moves):
            state = players["red"].table
            if state["outcome"] is not None:
                break
            mover = players[state["to_move"]]
            move = rng.choice(state["view"]["legal_moves"])
            expected = max(p.version for p in players.values()) + 1
            arrivals = [p.arrival(expected) for p in players.values()]
            sent = time.perf_counter()
            await mover.websocket.send(
                json.dumps({"type": "move", "ply": state["ply"], "move": move})
            )
            received = await asyncio.gather(*arrivals)
            out.append(max(received) - sent)
        errors = [e for p in players.values() for e in p.errors]
        if errors:
            raise RuntimeError(f"table {table_id}: the server refused a move: {errors[0]}")
    finally:
        for reader in readers:
            reader.cancel()
        for websocket in sockets:
            await websocket.close()


# -- the servers ---------------------------------------------------------------------------------
def install_peer(allow: bool) -> None:
    if (PEER / "node_modules" / "boardgame.io" / "package.json").exists():
        return
    if not allow:
        raise SystemExit("bench/peer/node_modules is missing (run without --no-install)")
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed for the boardgame.io peer (apt-get install npm)")
    print("installing boardgame.io into bench/peer/node_modules (npm ci)", flush=True)
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=PEER,
        check=True,
        timeout=600,
    )


def wait_for(port: int, path: str, process: subprocess.Popen[bytes], limit: float) -> None:
    deadline = time.monotonic() + limit
    while True:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", path)
            connection.getresponse().read()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server on port {port} did not start") from None
            time.sleep(0.1)


@dataclass
class Server:
    label: str
    process: subprocess.Popen[bytes]
    port: int
    # Runs one batch of games; appends each move's latency.
    play: Callable[[int, int, int, list[float], asyncio.Barrier], Coroutine[Any, Any, None]]
    latencies: dict[int, list[float]] = field(default_factory=dict)
    seconds: dict[int, float] = field(default_factory=dict)
    cpu: dict[int, float] = field(default_factory=dict)

    async def batch(self, games: int, moves: int, seed: int) -> None:
        """``games`` games at once; time and CPU count from the moment all are seated."""
        out = self.latencies.setdefault(games, [])
        start = asyncio.Barrier(games + 1)
        playing = asyncio.ensure_future(self.play(games, moves, seed, out, start))
        await start.wait()
        before = latency.process_cpu(self.process.pid)
        started = time.perf_counter()
        await playing
        self.seconds[games] = self.seconds.get(games, 0.0) + time.perf_counter() - started
        after = latency.process_cpu(self.process.pid)
        if before is not None and after is not None:
            self.cpu[games] = self.cpu.get(games, 0.0) + after - before


def start_bgio(folder: Path) -> Server:
    port = latency.free_port()
    env = {**os.environ, "NODE_ENV": "production"}
    log = (folder / "bgio.log").open("wb")
    process = subprocess.Popen(
        ["node", str(PEER / "server.js"), str(port)], stdout=log, stderr=log, env=env, cwd=PEER
    )
    wait_for(port, "/games", process, 30)

    async def play(
        games: int, moves: int, seed: int, out: list[float], start: asyncio.Barrier
    ) -> None:
        matches = await asyncio.gather(*(asyncio.to_thread(bgio_match, port) for _ in range(games)))
        await asyncio.gather(
            *(bgio_game(port, m, moves, seed + i, out, start) for i, m in enumerate(matches))
        )

    return Server("boardgame.io", process, port, play)


def start_playtable(folder: Path, durable: bool = True, versus: str | None = None) -> Server:
    """``playtable serve`` on a SQLite file (an fsync each commit), or, not durable, on an
    in-memory SQLite database: what boardgame.io's in-memory store gives up, for telling the
    cost of the fsync from the rest of a move. ``versus``: the server of another checkout."""
    port = latency.free_port()
    env = {
        **os.environ,
        "PLAYTABLE_MESSAGE_BURST": "1000",
        "PLAYTABLE_MESSAGES_PER_SECOND": "1000",
        "PLAYTABLE_TABLES_PER_MINUTE": "100000",
    }
    env.pop("PLAYTABLE_REDIS_URL", None)
    env.pop("PLAYTABLE_WS_COMPRESSION", None)
    label = "Playtable" if durable else "Playtable-mem"
    command = [str(Path(sys.executable).with_name("playtable"))]
    if (
        versus is not None
    ):  # its own code first on the path (the editable install's finder comes last)
        env["PYTHONPATH"] = os.path.abspath(versus)
        command = [
            sys.executable,
            "-c",
            "import sys; from playtable.cli import main; sys.exit(main())",
        ]
        label = "Playtable-base"
    url = f"sqlite:///{folder}/{label}.sqlite3" if durable else "sqlite:///:memory:"
    log = (folder / f"{label}.log").open("wb")
    command += ["serve", "--host", HOST, "--port", str(port)]
    command += ["--database-url", url, "--log-level", "warning"]
    process = subprocess.Popen(
        command,
        stdout=log,
        stderr=log,
        env=env,
        cwd=folder,  # var/secret.key goes there
    )
    wait_for(port, "/api/tables/none", process, 60)

    async def play(
        games: int, moves: int, seed: int, out: list[float], start: asyncio.Barrier
    ) -> None:
        seated = await asyncio.gather(
            *(asyncio.to_thread(latency.create_table, port) for _ in range(games))
        )
        await asyncio.gather(
            *(playtable_game(port, t, moves, seed + i, out, start) for i, t in enumerate(seated))
        )

    return Server(label, process, port, play)


def stop(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=10)


# -- the run ---------------------------------------------------------------------------------
async def run(servers: list[Server], batches: list[int], moves: int, rounds: int) -> None:
    flip = False
    for round_number in range(rounds):
        for games in batches:
            order = servers[::-1] if flip else servers
            flip = not flip
            for server in order:
                await server.batch(games, moves, 1000 * round_number + 100 * games)


def percentile(values: list[float], fraction: float) -> float:
    return latency.percentile(values, fraction)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", default="1,10", help="games at once per batch, e.g. 1,10")
    parser.add_argument("--moves", type=int, default=60, help=f"moves per game (<= {MAX_MOVES})")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds for the run")
    parser.add_argument("--no-install", action="store_true", help="never run npm ci")
    parser.add_argument(
        "--memory",
        action="store_true",
        help="also Playtable on an in-memory SQLite database (no fsync: not what ships)",
    )
    parser.add_argument(
        "--versus",
        metavar="PATH",
        help="also the server of another checkout of the project (e.g. a git worktree of an "
        "older commit, its compiled module copied in), named Playtable-base, on its own file",
    )
    args = parser.parse_args(argv)
    batches = [max(1, min(int(g), MAX_GAMES)) for g in args.games.split(",") if g.strip()]
    moves = max(1, min(args.moves, MAX_MOVES))
    rounds = max(1, min(args.rounds, 20))
    install_peer(not args.no_install)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    bgio_version = json.loads(
        (PEER / "node_modules" / "boardgame.io" / "package.json").read_text()
    )["version"]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"boardgame.io {bgio_version} on node {node.stdout.strip()}: in-memory store")
    print("Playtable: playtable serve, SQLite file (WAL, synchronous=FULL), in-process bus")
    print(f"games at once: {batches}; up to {moves} moves a game; {rounds} rounds, alternating")
    with tempfile.TemporaryDirectory(prefix="playtable-peer-") as tmp:
        folder = Path(tmp)
        servers: list[Server] = []
        try:
            servers.append(start_bgio(folder))
            servers.append(start_playtable(folder))
            if args.memory:
                servers.append(start_playtable(folder, durable=False))
            if args.versus:
                servers.append(start_playtable(folder, versus=args.versus))
            try:
                asyncio.run(asyncio.wait_for(run(servers, batches, moves, rounds), args.time_limit))
            except TimeoutError:
                print(f"stopped at the time limit ({args.time_limit:g} s)", file=sys.stderr)
                return 1
        finally:
            for server in servers:
                stop(server)
    print()
    figures: dict[tuple[str, int], tuple[float, float, float, float | None]] = {}
    for server in servers:
        for games in batches:
            values = server.latencies[games]
            median, p99 = statistics.median(values), percentile(values, 0.99)
            rate = len(values) / server.seconds[games]
            cpu = server.cpu.get(games)
            per_move = None if cpu is None else cpu / len(values)
            figures[(server.label, games)] = (median, p99, rate, per_move)
            cpu_text = "n/a" if per_move is None else f"{per_move * 1000:.2f} ms"
            print(
                f"{server.label:<14} {games:>2} game(s): {len(values)} moves; move median "
                f"{median * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms; {rate:.0f} moves/s; "
                f"server CPU {cpu_text} a move"
            )
    print()
    for label in [server.label for server in servers[1:]]:
        for games in batches:
            ours, peer = figures[(label, games)], figures[("boardgame.io", games)]
            cpu_ratio = "n/a" if ours[3] is None or peer[3] is None else f"{ours[3] / peer[3]:.2f}x"
            print(
                f"ratio {label}/boardgame.io, {games} game(s): median {ours[0] / peer[0]:.2f}x, "
                f"p99 {ours[1] / peer[1]:.2f}x, moves/s {ours[2] / peer[2]:.2f}x, "
                f"server CPU a move {cpu_ratio}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
