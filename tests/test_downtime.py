"""The whole site down for longer than the running clock had: a real server stopped (or
killed) and started again on the same database. Before, the new process's sweep ended the
game on time at once, though the player to move could not even connect meanwhile."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime
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
            # Red's clock runs again from the site's return (the new process's first beat):
            # what it lost since is the new process's start, as slow as the machine is busy.
            # Before it, only the half second red thought and the stop's own moment.
            with sqlite3.connect(tmp_path / "site.sqlite3") as conn:
                (up_at,) = conn.execute("SELECT max(up_at) FROM site_outages").fetchone()
            up = datetime.fromisoformat(up_at).replace(tzinfo=UTC)
            since_up = (datetime.fromisoformat(state["clock"]["now"]) - up).total_seconds()
            assert left + since_up >= 5.0, (state["clock"], up_at)
        await red.send({"type": "move", "ply": 2, "move": state["view"]["legal_moves"][0]})
        moved = await red.until(lambda t: t["ply"] == 3)
        assert moved["outcome"] is None
        await red.close()
        assert "the whole site was down for" in again.log()
    finally:
        again.stop()


async def test_a_restart_of_a_few_seconds_is_nobodys_time(tmp_path: Path) -> None:
    """An operator restarted the only process (SIGTERM, back 3 s later, as a systemd restart
    or ``make run`` again): the heartbeat was younger than an outage (6 s), so the restart was
    charged to the clock running, 3 s and the start's own time off a 1-minute game. A stop
    of the last process now begins an outage, whatever its length: red's clock shows, once
    the site is back, the time it had when the site stopped."""
    env = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'site.sqlite3'}"}
    node = Node(tmp_path, env, "before").start()
    try:
        control = {"kind": "realtime", "minutes": 1, "increment": 0}
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
        await blue.close()
        time.sleep(1)  # red thinks
        await red.send({"type": "join", "protocol": 2, "since": None})
        shown = await red.until(lambda t: True)
        seen_at = time.monotonic()
        assert shown["clock"]["running"] == "red", shown["clock"]
        left_then = shown["clock"]["remaining"]["red"]
        await red.close()
        stopped_at = time.monotonic()
        node.stop()  # SIGTERM: the process stops as it should
        time.sleep(3)
    finally:
        node.stop()
    launched_at = time.monotonic()
    again = Node(tmp_path, env, "after").start()
    try:
        red = Player(table_id, red_token)
        state = await red.connect(again)
        read_at = time.monotonic()
        left = state["clock"]["remaining"]["red"]
        at_the_stop = left_then - (stopped_at - seen_at)
        # The site is back at a moment between the launch and this read: red's clock has
        # run since for no longer than that (the stop itself and the rounding: 1 s more).
        charged = at_the_stop - left
        assert -0.1 <= charged <= (read_at - launched_at) + 1.0, (charged, read_at - launched_at)
        assert "the whole site was down for" in again.log()
        await red.close()
    finally:
        again.stop()


def outages_in(database: Path) -> int:
    with sqlite3.connect(database) as conn:
        (count,) = conn.execute("SELECT count(*) FROM site_outages").fetchone()
    return int(count)


async def red_left(node: Node, player: Player) -> tuple[float, float]:
    """Red's time as ``node`` shows it on a (re)join, and the moment it was read."""
    state = await player.connect(node)
    read_at = time.monotonic()
    await player.close()
    assert state["clock"]["running"] == "red", state["clock"]
    return state["clock"]["remaining"]["red"], read_at


async def test_a_process_stopped_while_another_runs_is_no_outage(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    """Two processes on one SQLite file (Redis carries the news between them). One is stopped
    (SIGTERM) and started again at once, the other running all along: the site was up, no
    outage is recorded and red's clock ran all the time (the stop's mark on the heartbeat
    counts only when no other process runs). Then both are stopped, one after the other, and
    one started 2 s later: the site was down from the last stop, and red has what it had."""
    database = tmp_path / "site.sqlite3"
    env = {
        "PLAYTABLE_DATABASE_URL": f"sqlite:///{database}",
        "PLAYTABLE_REDIS_URL": redis_url,
        "PLAYTABLE_REDIS_PREFIX": f"{redis_prefix}downtime-{tmp_path.name}:",
    }
    a, b = Node(tmp_path, env, "a"), Node(tmp_path, env, "b")
    a_again = Node(tmp_path, env, "a-again")
    try:
        a.launch()
        b.launch()
        a.wait_ready()
        b.wait_ready()
        control = {"kind": "realtime", "minutes": 1, "increment": 0}
        status, data = request(
            a,
            "POST",
            "/api/tables",
            {"game": "dots", "options": DOTS, "seat": "red", "time_control": control},
        )
        assert status == 201, data
        table_id = data["id"]
        red = Player(table_id, data["seat_url"].rsplit("/", 1)[1])
        blue = Player(table_id, claim(a, table_id, data["invite_url"].rsplit("/", 1)[1]))
        await red.connect(b)
        await blue.connect(b)
        for ply, player in enumerate((red, blue)):  # the first moves are free
            assert red.state is not None
            move = red.state["view"]["legal_moves"][0]
            await player.send({"type": "move", "ply": ply, "move": move})
            await red.until(lambda t, ply=ply: t["ply"] > ply)
        await red.close()
        await blue.close()
        left_before, read_before = await red_left(b, red)
        a.stop()  # its mark on the heartbeat, while b runs on
        a_again.start()
        time.sleep(1)
        left_after, read_after = await red_left(a_again, red)
        assert abs((left_before - left_after) - (read_after - read_before)) < 0.5, (
            left_before - left_after,
            read_after - read_before,
        )
        assert outages_in(database) == 0
        assert "the whole site was down" not in a_again.log()
        b.stop()
        stopped_at = time.monotonic()
        a_again.stop()  # the last one
        time.sleep(2)
    finally:
        for node in (a, b, a_again):
            node.stop()
    at_the_stop = left_after - (stopped_at - read_after)
    launched_at = time.monotonic()
    back = Node(tmp_path, env, "back").start()
    try:
        left, read_at = await red_left(back, red)
        charged = at_the_stop - left  # the last stop came after b's, so less than this
        assert -0.1 <= charged <= (read_at - launched_at) + 1.0, (charged, read_at - launched_at)
        assert "the whole site was down for" in back.log()
    finally:
        back.stop()
    assert outages_in(database) == 1
