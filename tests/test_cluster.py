"""Several server processes in front of one PostgreSQL and one Redis serve the same tables."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.nodes import Node, Player, claim, create_table, request

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def site_env(postgres_url: str, redis_url: str, redis_prefix: str) -> dict[str, str]:
    return {
        "PLAYTABLE_DATABASE_URL": postgres_url,
        "PLAYTABLE_REDIS_URL": redis_url,
        "PLAYTABLE_REDIS_PREFIX": redis_prefix,
    }


@pytest.fixture
def two_nodes(tmp_path: Path, site_env: dict[str, str]) -> Iterator[tuple[Node, Node]]:
    a, b = Node(tmp_path, site_env, "a"), Node(tmp_path, site_env, "b")
    try:
        # Both at once, as after a deploy: they must not trip over each other's migration.
        a.launch()
        b.launch()
        yield a.wait_ready(), b.wait_ready()
    finally:
        a.stop()
        b.stop()


async def play(players: dict[str, Player], moves: int, rng: random.Random) -> list[str]:
    """Play up to ``moves`` random legal moves, each seen by both players; the moves seen."""
    acknowledged: list[str] = []
    for _ in range(moves):
        state = players["red"].state
        assert state is not None
        if state["outcome"] is not None:
            break
        mover = players[state["to_move"]]
        move = rng.choice(state["view"]["legal_moves"])
        ply = state["ply"]
        await mover.send({"type": "move", "ply": ply, "move": move})
        for player in players.values():
            await player.until(lambda t, ply=ply: t["ply"] > ply)
        red, blue = players["red"].state, players["blue"].state
        assert red is not None and blue is not None
        # Both see the same table, whichever process each is connected to.
        assert red["moves"] == blue["moves"] and red["version"] == blue["version"]
        acknowledged.append(red["moves"][-1])
    return acknowledged


async def test_a_game_across_two_nodes_survives_one_being_killed(
    two_nodes: tuple[Node, Node],
) -> None:
    a, b = two_nodes
    table_id, red_token, invite = create_table(a)
    blue_token = claim(b, table_id, invite)
    red, blue = Player(table_id, red_token), Player(table_id, blue_token)
    await red.connect(a)
    await blue.connect(b)
    # Presence crosses processes: each sees the other online.
    await red.until(lambda t: t["seats"]["blue"]["online"])
    await blue.until(lambda t: t["seats"]["red"]["online"])
    players = {"red": red, "blue": blue}
    rng = random.Random(7)
    seen = await play(players, 10, rng)

    a.kill()  # red's node dies mid-game, without a word
    await red.close()
    before = red.version
    state = await red.connect(b)  # the same page reconnects to the surviving node
    assert state["version"] >= before and state["moves"] == seen and state["you"] == "red"
    seen += await play(players, 100, rng)

    final = red.state
    assert final is not None and final["outcome"] is not None  # the whole game was played
    assert len(seen) == 24  # every line of a 3x3 board
    status, stored = request(b, "GET", f"/api/tables/{table_id}")
    assert status == 200 and stored["moves"] == seen and stored["outcome"] == final["outcome"]
    await red.close()
    await blue.close()


async def test_racing_moves_from_many_connections_and_processes(
    two_nodes: tuple[Node, Node],
) -> None:
    """Many sockets of the red seat, on both nodes, play different moves at the same ply."""
    a, b = two_nodes
    table_id, red_token, invite = create_table(a)
    blue_token = claim(a, table_id, invite)
    reds = [Player(table_id, red_token) for _ in range(6)]
    blues = [Player(table_id, blue_token) for _ in range(2)]
    everyone = reds + blues
    for k, player in enumerate(everyone):
        await player.connect((a, b)[k % 2])
    stored_moves: list[str] = []
    for _round in range(4):
        state = reds[0].state
        assert state is not None
        racers = reds if state["to_move"] == "red" else blues
        legal = state["view"]["legal_moves"]
        ply = state["ply"]
        attempts = [
            racer.send({"type": "move", "ply": ply, "move": legal[k]})
            for k, racer in enumerate(racers)
        ]
        for racer in racers:
            racer.errors.clear()
        await asyncio.gather(*attempts)
        await asyncio.gather(*(p.until(lambda t, ply=ply: t["ply"] > ply) for p in everyone))
        # Exactly one move was stored; every loser was told "stale" (with a fresh state).
        status, api = request(b, "GET", f"/api/tables/{table_id}")
        assert status == 200 and api["ply"] == ply + 1
        stored_moves = api["moves"]
        assert stored_moves[-1] in legal[: len(racers)]
        for racer in racers:
            # The losers' refusals may still be on their way: read until each one has its own.
            while not racer.errors and racer.state is not None:
                if racer is racers[legal.index(stored_moves[-1])]:
                    break
                await racer.receive()
        losers = [r for r in racers if r is not racers[legal.index(stored_moves[-1])]]
        assert all([e["code"] for e in r.errors] == ["stale"] for r in losers)
        # Everyone converges on the same table.
        assert all(p.state is not None and p.state["moves"] == stored_moves for p in everyone)
    for player in everyone:
        await player.close()
