"""The whole site down for longer than the running clock had: a real server stopped (or
killed) and started again on the same database. Before, the new process's sweep ended the
game on time at once, though the player to move could not even connect meanwhile."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.nodes import Node, Player, claim, request

pytestmark = pytest.mark.anyio

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("how", ["stop", "kill"])
async def test_a_game_survives_the_site_being_down_longer_than_its_clock(
    tmp_path: Path, how: str
) -> None:
    env = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'site.sqlite3'}"}
    node = Node(tmp_path, env, "before").start()
    try:
        control = {"kind": "realtime", "minutes": 0.1, "increment": 0}  # 6 s a side
        status, data = request(
            node,
            "POST",
            "/api/tables",
            {"game": "dots", "options": DOTS, "seat": "red", "time_control": control},
        )
        assert status == 201, data
        table_id = data["id"]
        red_token = data["seat_url"].rsplit("/", 1)[1]
        blue_token = claim(node, table_id, data["invite_url"].rsplit("/", 1)[1])
        red, blue = Player(table_id, red_token), Player(table_id, blue_token)
        await red.connect(node)
        await blue.connect(node)
        for ply, player in enumerate((red, blue)):  # the first moves are free
            assert red.state is not None
            move = red.state["view"]["legal_moves"][0]
            await player.send({"type": "move", "ply": ply, "move": move})
            await red.until(lambda t, ply=ply: t["ply"] > ply)
        await red.close()
        await blue.close()
        time.sleep(0.5)  # red thinks half a second of its 6
        node.stop() if how == "stop" else node.kill()
        time.sleep(8)  # the site is down longer than red's clock had
    finally:
        node.stop()
    again = Node(tmp_path, env, "after").start()
    try:
        status, table = request(again, "GET", f"/api/tables/{table_id}")
        assert status == 200 and table["outcome"] is None, table
        red = Player(table_id, red_token)
        state = await red.connect(again)
        left = state["clock"]["remaining"]["red"]
        # Given back from the last heartbeat (every 2 s; at the stop itself when stopped).
        assert 2.5 <= left <= 6.0, state["clock"]
        if how == "stop":
            assert left >= 5.0, state["clock"]
        await red.send({"type": "move", "ply": 2, "move": state["view"]["legal_moves"][0]})
        moved = await red.until(lambda t: t["ply"] == 3)
        assert moved["outcome"] is None
        await red.close()
        assert "the whole site was down for" in again.log()
    finally:
        again.stop()
