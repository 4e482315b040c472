"""A flood from one client does not slow the other tables down noticeably.

The flooder is a separate process (as it would be) that sends frames as fast as it can on
several sockets, and reconnects whenever the server closes one for ignoring ``rate_limited``.
Meanwhile a game on another table is timed, and compared with the same game's pace before.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.nodes import Node, Player, claim, create_table

pytestmark = pytest.mark.anyio

# Niced: on a small shared machine the flooder's own CPU would otherwise be what slows the
# game down, and that measures the machine, not the server.
FLOODER = r"""
import os, sys, time
os.nice(19)
from websockets.sync.client import connect
from websockets.exceptions import WebSocketException
url, seconds = sys.argv[1], float(sys.argv[2])
deadline = time.monotonic() + seconds
sent = closed = 0
while time.monotonic() < deadline:
    try:
        with connect(url, open_timeout=5, compression=None, max_queue=None) as ws:
            while time.monotonic() < deadline:
                ws.send('{"type": "move", "ply": 0, "move": "a1-a2"}' if sent % 2 else "{junk")
                sent += 1
    except (WebSocketException, OSError):
        closed += 1
print(sent, closed)
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def timed_moves(red: Player, blue: Player, count: int, rng: random.Random) -> list[float]:
    players = {"red": red, "blue": blue}
    times = []
    for _ in range(count):
        state = red.state
        assert state is not None and state["outcome"] is None
        ply = state["ply"]
        started = time.perf_counter()
        move = rng.choice(state["view"]["legal_moves"])
        await players[state["to_move"]].send({"type": "move", "ply": ply, "move": move})
        for player in (red, blue):
            await player.until(lambda t, ply=ply: t["ply"] > ply)
        times.append(time.perf_counter() - started)
    return times


async def test_a_flood_does_not_slow_other_tables(tmp_path: Path) -> None:
    env = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'flood.sqlite3'}?synchronous=NORMAL"}
    node = Node(tmp_path, env, "flooded").start()
    flooders: list[subprocess.Popen[bytes]] = []
    try:
        victim_table, _, _ = create_table(node)
        table_id, red_token, invite = create_table(node, {"grid": "square", "rows": 6, "cols": 6})
        red, blue = Player(table_id, red_token), Player(table_id, claim(node, table_id, invite))
        await red.connect(node)
        await blue.connect(node)
        rng = random.Random(3)
        before = await timed_moves(red, blue, 15, rng)
        url = f"{node.ws_base}/t/{victim_table}/ws"
        flooders = [
            subprocess.Popen(
                [sys.executable, "-c", FLOODER, url, "3"], stdout=subprocess.PIPE, text=False
            )
            for _ in range(2)
        ]
        await asyncio.sleep(0.8)  # the flood is in full swing
        during = await timed_moves(red, blue, 15, rng)
        outputs = [f.communicate(timeout=30)[0].split() for f in flooders]
        sent = sum(int(out[0]) for out in outputs)
        closed = sum(int(out[1]) for out in outputs)
        assert all(f.returncode == 0 for f in flooders)
        assert sent > 2000  # it really was a flood
        assert closed > 0  # and the server cut the flooding sockets off
        slow, fast = statistics.median(during), statistics.median(before)
        # Generous, for a shared two-core machine: the point is "not noticeably", where an
        # unprotected server falls behind by the length of its queue of junk.
        assert slow < 3 * fast + 0.05, (fast, slow)
        await red.close()
        await blue.close()
    finally:
        for flooder in flooders:
            if flooder.poll() is None:
                flooder.kill()
                flooder.wait()
        node.stop()
