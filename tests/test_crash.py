"""SIGKILL the server while many games are being played: nothing acknowledged is ever lost.

A move is acknowledged to a player when a ``state`` containing it arrives; the server sends
that only after the commit. So after a crash and a restart, every table's stored moves must
begin with the longest list of moves any of its players saw, and every table must play on.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest
from websockets.exceptions import WebSocketException

from tests.nodes import Node, Player, claim, create_table, request

pytestmark = pytest.mark.anyio

TABLES = 10
# 312 moves a game: no table can finish in PLAY_SECONDS (that would take over 2000 moves a
# second from one process), so every table is still running when the server is killed.
BOARD = {"grid": "square", "rows": 12, "cols": 12, "start": "standard"}
PLAY_SECONDS = 1.5


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def site_env(db_url: str, backend: str, request: pytest.FixtureRequest) -> dict[str, str]:
    env = {"PLAYTABLE_DATABASE_URL": db_url}
    if backend == "postgresql":
        env["PLAYTABLE_REDIS_URL"] = request.getfixturevalue("redis_url")
        env["PLAYTABLE_REDIS_PREFIX"] = request.getfixturevalue("redis_prefix")
    return env


async def keep_playing(red: Player, blue: Player, rng: random.Random, deadline: float) -> None:
    """Random legal moves as fast as the server acknowledges them, until the server dies."""
    players = {"red": red, "blue": blue}
    try:
        while time.monotonic() < deadline + 30:  # a bound, should the kill never come
            state = red.state
            assert state is not None
            if state["outcome"] is not None:
                return
            ply = state["ply"]
            await players[state["to_move"]].send(
                {"type": "move", "ply": ply, "move": rng.choice(state["view"]["legal_moves"])}
            )
            for player in (red, blue):
                await player.until(lambda t, ply=ply: t["ply"] > ply, timeout=10)
    except (WebSocketException, OSError, TimeoutError):
        return  # the server is gone


def seen(*players: Player) -> list[str]:
    lists = [p.state["moves"] for p in players if p.state is not None]
    return max(lists, key=len)


async def test_a_killed_server_loses_no_acknowledged_move(
    tmp_path: Path, site_env: dict[str, str]
) -> None:
    node = Node(tmp_path, site_env, "victim").start()
    try:
        tables: list[tuple[str, Player, Player]] = []
        for _ in range(TABLES):
            table_id, red_token, invite = create_table(node, BOARD)
            red = Player(table_id, red_token)
            blue = Player(table_id, claim(node, table_id, invite))
            await red.connect(node)
            await blue.connect(node)
            tables.append((table_id, red, blue))
        deadline = time.monotonic() + PLAY_SECONDS
        games = [
            asyncio.create_task(keep_playing(red, blue, random.Random(k), deadline))
            for k, (_, red, blue) in enumerate(tables)
        ]
        await asyncio.sleep(PLAY_SECONDS)
        node.kill()  # mid-commit for some tables, surely
        await asyncio.wait_for(asyncio.gather(*games), 30)
        acknowledged = {table_id: seen(red, blue) for table_id, red, blue in tables}
        assert sum(map(len, acknowledged.values())) > TABLES  # the games really were going
    finally:
        node.stop()

    restarted = Node(tmp_path, site_env, "restarted").start()
    try:
        await asyncio.gather(
            *(resume(restarted, t, red, blue, acknowledged[t]) for t, red, blue in tables)
        )
    finally:
        restarted.stop()


async def resume(node: Node, table_id: str, red: Player, blue: Player, moves: list[str]) -> None:
    """The table holds every acknowledged move, and plays on with the same seats."""
    status, stored = await asyncio.to_thread(request, node, "GET", f"/api/tables/{table_id}")
    assert status == 200
    # At most the one move in flight may have been committed without being announced.
    assert stored["moves"][: len(moves)] == moves
    assert len(stored["moves"]) <= len(moves) + 1
    for player in (red, blue):
        await player.close()
        state = await player.connect(node)
        assert state["moves"] == stored["moves"]
    assert red.state is not None
    assert red.state["outcome"] is None, "the game ended before the kill: nothing to resume"
    ply = red.state["ply"]
    mover = red if red.state["to_move"] == "red" else blue
    assert mover.state is not None
    move = mover.state["view"]["legal_moves"][0]
    await mover.send({"type": "move", "ply": ply, "move": move})
    await red.until(lambda t: t["ply"] > ply)
    await blue.until(lambda t: t["ply"] > ply)
    await red.close()
    await blue.close()


def _descendants(pid: int) -> set[int]:
    """The processes started by ``pid`` and by those, as Linux lists them now."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_a_killed_server_leaves_no_computer_worker_behind(tmp_path: Path) -> None:
    """The computer's worker processes go with their server, even one killed with SIGKILL:
    otherwise each crash would leave idle processes holding their memory for good."""
    if not Path("/proc/self/task").exists():
        pytest.skip("needs Linux's /proc")
    env = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'site.sqlite3'}"}
    node = Node(tmp_path, env, "with-bots").start()
    try:
        status, data = request(
            node,
            "POST",
            "/api/tables",
            {"game": "dots", "options": BOARD, "seat": "blue", "opponent": {"bot": "easy"}},
        )
        assert status == 201, data
        assert node.process is not None
        deadline = time.monotonic() + 30
        while not (workers := _descendants(node.process.pid)):
            assert time.monotonic() < deadline, "the computer's pool never started"
            await asyncio.sleep(0.2)
        node.kill()
        deadline = time.monotonic() + 15
        while left := [pid for pid in workers if _alive(pid)]:
            assert time.monotonic() < deadline, f"still running after the kill: {left}"
            await asyncio.sleep(0.2)
    finally:
        node.stop()
