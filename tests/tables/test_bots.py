"""The computer at the table service, on a real SQLite store and a real process pool."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from playtable.ai import bot_move
from playtable.ai.solve import solve_record
from playtable.bus import InProcessBus
from playtable.games import SettingsError, load
from playtable.games.records import GameRecord
from playtable.store import Store
from playtable.tables import AnalysisRefused, TableService
from playtable.tables.clocks import RealTime
from playtable.tables.errors import Stale
from playtable.tables.pool import BotSettings
from playtable.tables.service import Bot
from tests.tables.conftest import SECRET
from tests.tables.links import LINKS

pytestmark = pytest.mark.anyio

DOTS = {"grid": "square", "rows": 2, "cols": 2, "start": "swedish"}
FAST = BotSettings(workers=1, move_budget_s=0.2, position_budget_s=1.0, analysis_total_s=10.0)


@pytest.fixture
async def bots(store: Store) -> AsyncIterator[TableService]:
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    yield service
    await service.close()


async def until(
    service: TableService, table_id: str, check: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The table once ``check`` holds and no bot work is left, within 20 seconds."""
    deadline = time.monotonic() + 20
    while True:
        table = await service.snapshot(table_id, None)
        if check(table) and not service.bot_pending(table_id):
            return table
        assert time.monotonic() < deadline, f"timed out; the table is {table}"
        await asyncio.sleep(0.02)


async def test_an_unknown_level_is_refused(bots: TableService) -> None:
    with pytest.raises(SettingsError, match="level"):
        await bots.create_table("dots", DOTS, "red", bot="grandmaster")


async def test_the_bot_seat_is_shown_and_nobody_can_take_it(bots: TableService) -> None:
    created = await bots.create_table("dots", DOTS, "red", bot="hard")
    table = await bots.snapshot(created.id, "red")
    assert table["seats"]["blue"] == {"taken": True, "online": True, "bot": "hard"}
    assert "bot" not in table["seats"]["red"]
    assert table["invite_url"] is None
    assert await bots.claim_invite(created.id, created.invite_token) is None


async def test_the_bot_answers_a_move_through_the_table_service(bots: TableService) -> None:
    created = await bots.create_table("dots", DOTS, "red", bot="easy")
    subscription = await bots.bus.subscribe(created.id)
    await bots.play_move(created.id, created.seat_token, 0, "a2-b2")
    table = await until(
        bots, created.id, lambda t: t["outcome"] is not None or t["to_move"] == "red"
    )
    assert table["movers"][0] == "red" and table["movers"][1] == "blue"
    # Stored like any move, and published on the bus to every socket.
    stored = await bots.store.moves(created.id)
    assert [m.player for m in stored] == table["movers"]
    messages = [await asyncio.wait_for(subscription.get(), 1) for _ in range(2)]
    await subscription.close()
    assert [e["player"] for e in messages[1]["events"] if e["kind"] == "move"] == ["blue"]


async def test_a_bot_as_red_moves_at_once(bots: TableService) -> None:
    created = await bots.create_table("dots", DOTS, "blue", bot="hard")
    table = await until(bots, created.id, lambda t: t["ply"] >= 1)
    assert table["movers"] == ["red"] and table["to_move"] == "blue"


async def test_a_resignation_cancels_the_bot(store: Store) -> None:
    slow = BotSettings(workers=1, move_budget_s=1.0)
    service = TableService(store, InProcessBus(), SECRET, slow, links=LINKS)
    try:
        big = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}
        created = await service.create_table("dots", big, "blue", bot="hard")
        assert service.bot_pending(created.id)
        await service.resign(created.id, created.seat_token)
        assert not service.bot_pending(created.id)
        await asyncio.sleep(1.5)  # longer than the bot may think
        assert await store.moves(created.id) == []
        assert (await service.snapshot(created.id, None))["outcome"]["reason"] == "resign"
    finally:
        await service.close()


async def test_a_rematch_with_the_bot_is_accepted_and_the_bot_plays(bots: TableService) -> None:
    created = await bots.create_table("dots", DOTS, "red", bot="medium")
    await bots.resign(created.id, created.seat_token)
    await bots.rematch(created.id, created.seat_token)
    table = await until(bots, created.id, lambda t: t["rematch_id"] is not None)
    new_id = table["rematch_id"]
    url = await bots.rematch_url(created.id, created.seat_token)
    assert url is not None
    token = url.rsplit("/", 1)[1]
    # Colours swap: the person is blue now, and the bot, red, opens the new game by itself.
    assert await bots.seat_of(new_id, token) == "blue"
    new = await until(bots, new_id, lambda t: t["ply"] >= 1)
    assert new["seats"]["red"]["bot"] == "medium" and new["movers"][0] == "red"


async def test_a_restarted_server_resumes_the_bot(store: Store) -> None:
    first = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    created = await first.create_table("dots", DOTS, "blue", bot="easy")
    await first.close()  # the server stops before the bot could move
    assert await store.moves(created.id) == []
    second = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        assert await second.resume_bots() == 1
        table = await until(second, created.id, lambda t: t["ply"] >= 1)
        assert table["movers"] == ["red"]
    finally:
        await second.close()


async def test_two_servers_scheduling_the_same_bot_move_play_it_once(store: Store) -> None:
    one = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    two = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        created = await one.create_table("dots", DOTS, "blue", bot="hard")
        await two.resume_bots()
        one.computer.check(await one.load(created.id))  # scheduling again changes nothing
        await until(one, created.id, lambda t: t["ply"] >= 1)
        await until(two, created.id, lambda t: t["ply"] >= 1)
        moves = await store.moves(created.id)
        assert [(m.ply, m.player) for m in moves] == [(0, "red")]
    finally:
        await one.close()
        await two.close()


async def test_the_bot_allows_a_take_back_and_drops_its_stale_move(store: Store) -> None:
    # A 5x5 board is too big to prove, so the hard bot thinks for its whole budget: time
    # enough to ask for the take-back while it does.
    service = TableService(
        store, InProcessBus(), SECRET, BotSettings(move_budget_s=1.0), links=LINKS
    )
    try:
        big = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}
        created = await service.create_table("dots", big, "red", bot="hard")
        await service.play_move(created.id, created.seat_token, 0, "a1-b1")
        assert service.bot_pending(created.id)
        await service.request_undo(created.id, created.seat_token)
        table = await until(service, created.id, lambda t: t["offers"]["undo"] is None)
        assert table["ply"] == 0 and table["to_move"] == "red"
        await asyncio.sleep(1.5)  # the move the bot was thinking about is never played
        assert await store.moves(created.id) == []
    finally:
        await service.close()


async def test_the_bot_declines_a_draw_in_a_won_position(bots: TableService) -> None:
    # Red (the person) to move on the Swedish 2x2 board loses all four boxes to blue.
    created = await bots.create_table("dots", DOTS, "red", bot="hard")
    await bots.offer_draw(created.id, created.seat_token)
    table = await until(bots, created.id, lambda t: t["offers"]["draw"] is None)
    assert table["outcome"] is None and table["ply"] == 0


async def test_the_analysis_agrees_with_the_solver(bots: TableService) -> None:
    options = {"grid": "square", "rows": 2, "cols": 2, "start": "standard"}
    created = await bots.create_table("dots", options, "red")
    with pytest.raises(AnalysisRefused):
        await bots.analysis(created.id)  # a game between people, still running
    claimed = await bots.claim_invite(created.id, created.invite_token)
    assert claimed is not None
    tokens = {"red": created.seat_token, "blue": claimed[1]}
    played: list[str] = []
    while (table := await bots.snapshot(created.id, None))["outcome"] is None:
        move = (await bots.api_view(created.id))["legal_moves"][0]
        await bots.play_move(created.id, tokens[table["to_move"]], len(played), move)
        played.append(move)
    result = await bots.analyses.analyse(created.id, wait=True)
    assert result["finished"] and len(result["values"]) == len(played) + 1
    assert result["complete"] and result["proved"] == [True] * (len(played) + 1)
    score = table["outcome"]["score"]
    assert result["values"][-1] == score["red"] - score["blue"]
    # The first value is red's proved margin from the empty board, as `playtable solve` says.
    assert result["values"][0] == solve_record(GameRecord("dots", options, ()))["value"]
    for move in result["moves"]:
        before, after = result["values"][move["ply"]], result["values"][move["ply"] + 1]
        sign = 1 if move["player"] == "red" else -1
        assert move["loss"] == sign * (before - after)
    assert any(m["loss"] > 0 for m in result["moves"])  # the first legal line is no good play
    best = (await bots.best_moves(created.id, 0)).answer
    assert best["proved"] and best["value"] == result["values"][0]
    assert set(best["best_moves"]) == set(
        solve_record(GameRecord("dots", options, ()))["best_moves"]
    )
    assert json.loads(json.dumps(result)) == result


async def test_the_bot_accepts_a_draw_the_solver_shows_is_fair(bots: TableService) -> None:
    # On a 1x2 board the first player gets one box of two with best play on both sides.
    created = await bots.create_table("dots", {"rows": 1, "cols": 2}, "red", bot="hard")
    # Once the computer's worker is up (on a loaded machine its spawn, niced, can outlast the
    # answer's cap, and an offer the pool did not answer in time is declined).
    await bots.computer.pool.run(len, [])
    await bots.offer_draw(created.id, created.seat_token)
    table = await until(bots, created.id, lambda t: t["outcome"] is not None)
    assert table["outcome"]["reason"] == "draw_agreed" and table["ply"] == 0


async def test_the_bot_plays_swaptimum_too(bots: TableService) -> None:
    created = await bots.create_table("swaptimum", {"size": 4}, "blue", bot="easy")
    table = await until(bots, created.id, lambda t: t["ply"] >= 1)
    assert table["movers"] == ["red"] and table["to_move"] == "blue"
    # A draw offer in Swaptimum is declined: the solver knows only Dots and Boxes.
    await bots.offer_draw(created.id, created.seat_token)
    table = await until(bots, created.id, lambda t: t["offers"]["draw"] is None)
    assert table["outcome"] is None
    # Its analysis is a win rate from the search; best moves are the solver's, for Dots only.
    result = await bots.analyses.analyse(created.id, wait=True)
    assert result["measure"] == "win_rate" and result["complete"]
    assert all(0 <= value <= 1 for value in result["values"])
    with pytest.raises(AnalysisRefused, match="Dots and Boxes"):
        await bots.best_moves(created.id, 0)


# -- the 2-second promise: a deadline from the start of the turn, and a hard cap -------------
BIG = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}


async def test_a_bot_table_starts_the_pool_before_the_first_move(store: Store) -> None:
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        await service.create_table("dots", DOTS, "red")  # no computer: no pool
        assert not service.pool.started
        await service.create_table("dots", DOTS, "red", bot="hard")  # the person moves first
        assert service.pool.started
    finally:
        await service.close()
    restarted = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        assert await restarted.resume_bots() == 1
        assert restarted.pool.started
    finally:
        await restarted.close()


async def exchange(service: TableService, table_id: str, token: str, person: str) -> int:
    """The person plays the first legal move (again while it is still their turn), then
    waits for the computer to hand the turn back; returns how many moves the computer made."""
    table = await service.snapshot(table_id, None)
    while table["to_move"] == person:
        legal = (await service.api_view(table_id))["legal_moves"]
        await service.play_move(table_id, token, table["ply"], legal[0])
        table = await service.snapshot(table_id, None)
    ply = table["ply"]
    table = await until(
        service, table_id, lambda t: t["to_move"] == person or t["outcome"] is not None
    )
    return int(table["ply"]) - ply


@pytest.mark.parametrize(
    ("name", "options"), [("dots", BIG), ("swaptimum", {"size": 9})], ids=["dots", "swaptimum"]
)
async def test_a_pool_too_slow_for_the_cap_gives_way_to_the_quick_move(
    store: Store, name: str, options: dict[str, Any]
) -> None:
    # The hard bot may think for 3 s on a board it cannot prove, but the cap is 0.3 s: the
    # pool cannot answer in time, so the service plays the quick move itself.
    cap = 0.3
    slow = BotSettings(workers=1, move_budget_s=3.0, move_cap_s=cap)
    service = TableService(store, InProcessBus(), SECRET, slow, links=LINKS)
    try:
        await service.pool.ready(30)  # a worker is up (a cold pool is waited for, see below)
        created = await service.create_table(name, options, "red", bot="hard")
        for _ in range(3):
            start = time.monotonic()
            replies = await exchange(service, created.id, created.seat_token, "red")
            # Generous, but far below the 3 s the pool would have taken.
            assert replies > 0 and time.monotonic() - start < replies * (cap + 1.0)
        assert service.computer.replies["thought"] == 0
        assert service.computer.replies["fallback"] == sum(service.computer.replies.values()) >= 3
        # The moves are in the store, legal (the record replays) and the game goes on.
        record = await service.record(created.id)
        game = load(name, options)
        assert game.to_move(game.replay(record.moves)) == "red"
        # The pool's late answers never reach the table: had one been played, the stale-ply
        # check would refuse it, as it refuses this copy of the bot's last move.
        last = len(record.moves) - 1
        with pytest.raises(Stale):
            await service.play_move(created.id, Bot("blue"), last, record.moves[last])
        await asyncio.sleep(slow.move_budget_s)
        assert len(await store.moves(created.id)) == len(record.moves)
    finally:
        await service.close()


async def test_on_a_short_clock_a_busy_pool_never_makes_the_computer_lose_on_time(
    store: Store,
) -> None:
    """The computer's only worker is busy (another table's 3 s search) while it plays a
    5 s game: it waits for the pool no longer than its clock allows and plays the quick move
    itself, so it keeps time (a review: it lost 5 s games on time under load, waiting the
    full 1.8 s cap every move)."""
    busy = BotSettings(workers=1, move_budget_s=3.0, move_cap_s=1.8)
    service = TableService(store, InProcessBus(), SECRET, busy, links=LINKS)
    busy_task: asyncio.Task[None] | None = None
    try:
        other = await service.create_table("dots", BIG, "blue", bot="hard")

        async def keep_busy() -> None:  # the other table's person answers every move
            while True:
                await exchange(service, other.id, other.seat_token, "blue")

        busy_task = asyncio.create_task(keep_busy())
        await asyncio.sleep(0.2)  # the other table's first move has the worker
        created = await service.create_table(
            "dots", BIG, "red", bot="hard", time_control=RealTime(5, 0)
        )
        for _ in range(6):
            assert await exchange(service, created.id, created.seat_token, "red") > 0
        table = await service.snapshot(created.id, None)
        assert table["outcome"] is None
        assert table["clock"]["remaining"]["blue"] > 0.5  # each wait at most a tenth of it
        assert service.computer.replies["fallback"] > 0  # the pool was busy indeed
    finally:
        if busy_task is not None:
            busy_task.cancel()
        await service.close()


async def test_the_first_move_after_a_start_waits_for_the_pool_and_thinks(store: Store) -> None:
    """A server just started has no worker yet: the computer's first move waits for one to
    come up and then thinks its whole budget, instead of losing the budget to the spawn and
    playing the quick move (a review: an edge square on 9x9 after 1.96 s)."""
    settings = BotSettings(workers=1, move_budget_s=0.3, move_cap_s=0.5)
    service = TableService(store, InProcessBus(), SECRET, settings, links=LINKS)
    try:
        created = await service.create_table("swaptimum", {"size": 9}, "blue", bot="hard")
        await until(service, created.id, lambda t: t["ply"] >= 1)
        assert dict(service.computer.replies) == {"thought": 1}
    finally:
        await service.close()


async def test_a_job_that_starts_after_its_deadline_answers_at_once(bots: TableService) -> None:
    # Through the real pool: a job queued past its deadline does not think at all, so a
    # worker cannot fall further and further behind.
    game = load("dots", BIG)
    reply = await bots.pool.run(bot_move, "dots", BIG, [], "hard", None, 5.0, time.time() - 1.0)
    assert reply.quick and reply.move in game.legal_move_texts(game.initial())


async def test_many_bot_tables_at_once_on_one_worker_all_get_their_moves(store: Store) -> None:
    settings = BotSettings(workers=1, move_budget_s=0.5)
    service = TableService(store, InProcessBus(), SECRET, settings, links=LINKS)
    try:
        tables = [
            await service.create_table(name, options, "blue", bot="hard")
            for name, options in [("dots", BIG)] * 3 + [("swaptimum", {"size": 9})] * 3
        ]
        for created in tables:
            await until(service, created.id, lambda t: t["ply"] >= 1)
        for _ in range(3):
            # Every person answers at once, so the bots' jobs queue up together.
            played = await asyncio.gather(
                *(exchange(service, t.id, t.seat_token, "blue") for t in tables)
            )
            assert all(played)
        for created in tables:
            table = await service.snapshot(created.id, None)
            assert table["outcome"] is None and table["to_move"] == "blue"
        replies = service.computer.replies
        # One worker cannot think 0.5 s for six tables inside 1.8 s: the first job of each
        # round thinks, the later ones start past their deadline and answer at once (in the
        # worker, or here when their turn at the pool had not come by the cap) instead of
        # waiting in line.
        assert replies["thought"] >= 3 and replies["quick"] + replies["fallback"] > 0
    finally:
        await service.close()
