"""The analysis kept in the store: made in the background when a game ends, shared by every
process, kept across restarts, estimates told apart from proofs, and never shown for a
position other than the one it was analysed for."""

from __future__ import annotations

import asyncio
import time

import pytest

from playtable.ai.analysis import analyse_positions
from playtable.bus import InProcessBus
from playtable.store import AnalysisPoint, Change, MoveRow, NewTable, Store
from playtable.tables import AnalysisBusy, TableService
from playtable.tables.pool import BotSettings
from tests.tables.conftest import SECRET
from tests.tables.links import LINKS

pytestmark = pytest.mark.anyio

SMALL = {"grid": "square", "rows": 1, "cols": 2, "start": "standard", "misere": False}
FAST = BotSettings(workers=1, move_budget_s=0.2, position_budget_s=2.0, analysis_total_s=20.0)


async def finished_game(service: TableService) -> tuple[str, list[str]]:
    """A game between two people on the 1x2 board, played to its end: (table id, moves)."""
    created = await service.create_table("dots", SMALL, "red")
    claimed = await service.claim_invite(created.id, created.invite_token)
    assert claimed is not None
    tokens = {"red": created.seat_token, "blue": claimed[1]}
    played: list[str] = []
    while (table := await service.snapshot(created.id, None))["outcome"] is None:
        move = (await service.api_view(created.id))["legal_moves"][-1]
        await service.play_move(created.id, tokens[table["to_move"]], len(played), move)
        played.append(move)
    return created.id, played


async def bot_table(store: Store, options: dict[str, object], table_id: str = "anatable1") -> str:
    """A table against the computer (its analysis is open while it runs), written to the
    store directly: no service is there to make the computer move."""
    new = NewTable(
        id=table_id,
        game="dots",
        options=options,
        invite_hash="c" * 64,
        seats={"red": "a" * 64, "blue": "b" * 64},
        bots={"blue": "hard"},
    )
    assert await store.create_table(new)
    return new.id


async def test_the_analysis_survives_a_restart_and_needs_no_solver(db_url: str) -> None:
    first_store = Store(db_url)
    await first_store.open()
    first = TableService(first_store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        table_id, played = await finished_game(first)
        before = await first.analyses.analyse(table_id, wait=True)
    finally:
        await first.close()
        await first_store.close()
    assert None not in before["values"] and len(before["values"]) == len(played) + 1
    assert before["proved"] == [True] * (len(played) + 1) and before["complete"]
    assert before["values"] == [
        v for _, v in sorted(analyse_positions(SMALL, played, range(len(played) + 1), 5).items())
    ]

    # A new process on the same database: a new store, a new service, a new pool.
    second_store = Store(db_url)
    await second_store.open()
    second = TableService(second_store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        assert await second.analysis(table_id) == before
        # The background's pool starts on first use: the analysis above never needed it.
        assert second.analyses.background._executor is None
        assert second.analyses.jobs.slices == 0 and not second.analyses.jobs.pending(table_id)
    finally:
        await second.close()
        await second_store.close()


async def test_a_take_back_never_shows_the_value_of_the_move_taken_back(store: Store) -> None:
    """Red draws a1-a2 (the position after it is worth -2 to red), takes it back, and draws
    b1-b2 instead (worth 0): the stored -2 must never come back for ply 1."""
    table_id = await bot_table(store, SMALL)
    one = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    two = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)  # another server process
    try:
        assert await store.update(table_id, 0, Change(append=MoveRow(0, "a1-a2", "red")))
        assert (await one.analyses.analyse(table_id, wait=True))["values"] == [0, -2]
        assert await store.analysis_values(table_id, ["a1-a2"]) == {0: 0, 1: -2}
        # The take-back and the other move, committed as answer_undo and play_move do.
        assert await store.update(table_id, 1, Change(drop_ply=0))
        assert await store.update(table_id, 2, Change(append=MoveRow(0, "b1-b2", "red")))
        for service in (one, two):
            result = await service.analyses.analyse(table_id, wait=True)
            assert result["values"] == [0, 0], service
            assert result["moves"][0] == {"ply": 0, "move": "b1-b2", "player": "red", "loss": 0}
        # The new line's value replaced the old row; the old line would not find it again.
        assert await store.analysis_values(table_id, ["b1-b2"]) == {0: 0, 1: 0}
        assert await store.analysis_values(table_id, ["a1-a2"]) == {0: 0}
    finally:
        await one.close()
        await two.close()


async def test_two_processes_analysing_one_table_at_once_agree(store: Store) -> None:
    table_id = await bot_table(store, SMALL)
    for ply, move in enumerate(["a1-a2", "b1-b2", "c1-c2"]):
        player = "red" if ply % 2 == 0 else "blue"
        assert await store.update(table_id, ply, Change(append=MoveRow(ply, move, player)))
    services = [TableService(store, InProcessBus(), SECRET, FAST, links=LINKS) for _ in range(2)]
    try:
        results = await asyncio.gather(
            *(service.analyses.analyse(table_id, wait=True) for service in services)
        )
    finally:
        for service in services:
            await service.close()
    assert results[0] == results[1] and None not in results[0]["values"]
    assert await store.analysis_values(table_id, ["a1-a2", "b1-b2", "c1-c2"]) == dict(
        enumerate(results[0]["values"])
    )


async def test_a_finished_game_is_analysed_in_the_background_and_read_back(
    store: Store,
) -> None:
    """Nobody opens the analysis: the game's end alone has every position analysed and
    stored; the page's first request then reads the store and starts no work."""
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        table_id, played = await finished_game(service)
        await service.analyses.jobs.wait(table_id)
        slices = service.analyses.jobs.slices
        assert slices >= 1
        stored = await store.analysis_points(table_id, played)
        assert sorted(stored) == list(range(len(played) + 1))
        assert all(point.proved for point in stored.values())
        first = await service.analysis(table_id)
        again = await service.analysis(table_id)
        assert first == again and first["complete"] and not first["pending"]
        assert service.analyses.jobs.slices == slices  # no recomputation on either visit
    finally:
        await service.close()


async def test_positions_without_a_proof_get_a_stored_estimate(store: Store) -> None:
    # The empty 5x5 board takes far longer than a second to prove.
    big = {"grid": "square", "rows": 5, "cols": 5, "start": "standard", "misere": False}
    table_id = await bot_table(store, big)
    budget = BotSettings(workers=1, position_budget_s=1.0, background_prove_s=1.0)
    service = TableService(store, InProcessBus(), SECRET, budget, links=LINKS)
    try:
        result = await service.analyses.analyse(table_id, wait=True)
        # An estimate: a margin in boxes, never called proved.
        assert result["proved"] == [False] and result["complete"]
        assert isinstance(result["values"][0], int) and abs(result["values"][0]) <= 25
        assert await store.analysis_points(table_id, []) == {
            0: AnalysisPoint(False, red_margin=result["values"][0])
        }
        assert await store.analysis_values(table_id, []) == {}  # no proof was stored
        # The estimate is stored: asking again costs no solver time.
        slices = service.analyses.jobs.slices
        start = time.monotonic()
        assert await service.analysis(table_id) == result
        assert service.analyses.jobs.slices == slices
        assert time.monotonic() - start < 1.0
    finally:
        await service.close()


async def test_a_proof_replaces_an_estimate_but_never_the_other_way(store: Store) -> None:
    table_id = await bot_table(store, SMALL)
    await store.save_analysis_points(table_id, [], {0: AnalysisPoint(False, red_margin=2)})
    await store.save_analysis_points(table_id, [], {0: AnalysisPoint(True, red_margin=0)})
    assert await store.analysis_points(table_id, []) == {0: AnalysisPoint(True, red_margin=0)}
    await store.save_analysis_points(table_id, [], {0: AnalysisPoint(False, red_margin=2)})
    assert await store.analysis_values(table_id, []) == {0: 0}


async def test_a_swaptimum_game_gets_win_rates_decided_positions_proved(store: Store) -> None:
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        created = await service.create_table("swaptimum", {"size": 3}, "red")
        claimed = await service.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        tokens = {"red": created.seat_token, "blue": claimed[1]}
        # Red builds a column a1-a2-a3 and connects top to bottom; blue plays on the right.
        for ply, move in enumerate(["a1", "c1", "a2", "c2", "a3"]):
            player = "red" if ply % 2 == 0 else "blue"
            await service.play_move(created.id, tokens[player], ply, move)
        result = await service.analyses.analyse(created.id, wait=True)
    finally:
        await service.close()
    assert result["measure"] == "win_rate" and result["complete"]
    values, proved = result["values"], result["proved"]
    assert len(values) == 6 and all(0 <= v <= 1 for v in values)
    # Red has won (ply 5) and had a winning placement at hand after a1, c1, a2, c2 (ply 4).
    assert (values[5], proved[5]) == (1.0, True) and (values[4], proved[4]) == (1.0, True)
    assert proved[0] is False  # the start: only the simulated games say anything
    assert all(move["loss"] is None for move in result["moves"])


async def test_an_analysis_does_not_hold_up_the_bots(store: Store) -> None:
    """The analysis has its own workers: while one spends seconds on a position it cannot
    prove, the computer at another table still thinks and moves in time."""
    big = {"grid": "square", "rows": 5, "cols": 5, "start": "standard", "misere": False}
    analysed = await bot_table(store, big)
    settings = BotSettings(
        workers=1,
        analysis_workers=1,
        move_budget_s=0.3,
        move_cap_s=1.5,
        position_budget_s=4.0,
        analysis_total_s=4.0,
        background_prove_s=4.0,
    )
    service = TableService(store, InProcessBus(), SECRET, settings, links=LINKS)
    try:
        # Both pools up first, so that no spawn is timed.
        await service.pool.run(len, [])
        await service.analyses.pool.run(len, [])
        analysis = asyncio.create_task(service.analyses.analyse(analysed, wait=True))
        await asyncio.sleep(0.3)  # the analysis' worker is busy now
        created = await service.create_table("dots", SMALL, "blue", bot="hard")
        start = time.monotonic()
        while (await service.snapshot(created.id, None))["ply"] == 0:
            assert time.monotonic() - start < 10, "the computer never moved"
            await asyncio.sleep(0.05)
        assert not analysis.done()  # the computer moved while the analysis was still at work
        assert service.computer.replies == {"thought": 1}
        assert (await analysis)["proved"] == [False]  # an estimate, after the failed proof
    finally:
        await service.close()


async def test_the_analysis_queue_is_bounded_and_fair_between_requesters(store: Store) -> None:
    # A big board nobody proves from its start: each best-move request takes its whole budget.
    table_id = await bot_table(store, {"grid": "square", "rows": 8, "cols": 8})
    settings = BotSettings(workers=1, position_budget_s=0.5, analysis_total_s=2.0)
    service = TableService(store, InProcessBus(), SECRET, settings, links=LINKS)
    try:
        await service.analyses.pool.run(len, [])  # the worker is up: only the solving counts
        flood = [
            asyncio.create_task(service.best_moves(table_id, 0, "203.0.113.9")) for _ in range(20)
        ]
        await asyncio.sleep(0.05)
        victim = await service.best_moves(table_id, 0, "198.51.100.7")
        results = await asyncio.gather(*flood, return_exceptions=True)
        refused = [r for r in results if isinstance(r, AnalysisBusy)]
        assert len(refused) == 19 and all(r.retry_after >= 1 for r in refused)
        assert "try again in" in refused[0].message
        # The other address got its answer, queued behind one job of the flood, not twenty.
        assert victim.answer["ply"] == 0
    finally:
        await service.close()


async def test_mistakes_are_counted_between_proofs_only(store: Store) -> None:
    """An estimate next to a proof says nothing certain about the move between them: its
    loss stays unknown, and the positions say which values are estimates."""
    table_id = await bot_table(store, SMALL)
    played = ["a1-a2", "b1-b2", "c1-c2"]
    for ply, move in enumerate(played):
        player = "red" if ply % 2 == 0 else "blue"
        assert await store.update(table_id, ply, Change(append=MoveRow(ply, move, player)))
    points = {
        0: AnalysisPoint(True, red_margin=0),
        1: AnalysisPoint(True, red_margin=-2),
        2: AnalysisPoint(False, red_margin=2),  # an estimate
        3: AnalysisPoint(True, red_margin=-2),
    }
    await store.save_analysis_points(table_id, played, points)
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        result = await service.analysis(table_id)
        assert service.analyses.jobs.slices == 0  # everything was stored: no work queued
    finally:
        await service.close()
    assert result["values"] == [0, -2, 2, -2]
    assert result["proved"] == [True, True, False, True]
    assert [m["loss"] for m in result["moves"]] == [2, None, None]
    assert result["complete"] and not result["pending"]


async def test_a_resigned_game_is_analysed_too(store: Store) -> None:
    """Any end queues the analysis, not only the last line drawn."""
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        created = await service.create_table("dots", SMALL, "red")
        claimed = await service.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        await service.play_move(created.id, created.seat_token, 0, "a1-a2")
        assert not service.analyses.jobs.pending(created.id)  # still running: nothing yet
        await service.resign(created.id, claimed[1])
        assert service.analyses.jobs.pending(created.id)
        await service.analyses.jobs.wait(created.id)
        stored = await store.analysis_points(created.id, ["a1-a2"])
        assert sorted(stored) == [0, 1] and all(p.proved for p in stored.values())
    finally:
        await service.close()


async def test_a_best_move_request_never_waits_for_the_background_analysis(store: Store) -> None:
    """The background analysis of a finished game (seconds a position) has a worker of its
    own: someone asking for the best move gets it while that analysis is still at work."""
    settings = BotSettings(
        workers=1,
        analysis_workers=1,
        position_budget_s=2.0,
        background_prove_s=4.0,
        background_total_s=60.0,
    )
    service = TableService(store, InProcessBus(), SECRET, settings, links=LINKS)
    try:
        big = await bot_table(store, {"grid": "square", "rows": 8, "cols": 8})
        small = await bot_table(store, SMALL, "anatable2")
        await service.analyses.pool.run(len, [])  # the request's worker is up
        background = asyncio.create_task(service.analyses.analyse(big, wait=True))
        await asyncio.sleep(0.5)  # the background worker is at work on the 8x8 game
        found = (await service.best_moves(small, 0, "198.51.100.7")).answer
        assert found["proved"] and found["best_moves"]
        # Answered during the background's first slice (a 4 s proof that fails), not after.
        assert service.analyses.jobs.slices == 0 and service.analyses.jobs.pending(big)
        background.cancel()
    finally:
        await service.close()


async def test_one_address_long_best_move_request_does_not_hold_up_another_address(
    store: Store,
) -> None:
    """With two analysis workers (the default on two cores), one address's request of
    seconds holds one of them: another address's request is answered meanwhile."""
    settings = BotSettings(workers=1, analysis_workers=2, position_budget_s=2.0)
    service = TableService(store, InProcessBus(), SECRET, settings, links=LINKS)
    try:
        big = await bot_table(store, {"grid": "square", "rows": 8, "cols": 8})
        small = await bot_table(store, SMALL, "anatable2")
        await asyncio.gather(*(service.analyses.pool.run(len, []) for _ in range(2)))
        long = asyncio.create_task(service.best_moves(big, 0, "203.0.113.9"))
        await asyncio.sleep(0.3)  # the 8x8 request is at work in one worker
        found = (await service.best_moves(small, 0, "198.51.100.7")).answer
        assert found["proved"] and found["best_moves"]
        assert not long.done()  # answered while the other request still thinks
        await long
    finally:
        await service.close()


async def test_the_first_best_move_request_starts_every_analysis_worker(store: Store) -> None:
    """A best-move request that came without the analysis page (a shared link to a position,
    a script) starts the whole pool, not one worker: a second address asking next does not
    wait most of a second for a process to be spawned."""
    settings = BotSettings(workers=1, analysis_workers=2, position_budget_s=2.0)
    service = TableService(store, InProcessBus(), SECRET, settings, links=LINKS)
    try:
        table_id = await bot_table(store, SMALL)
        assert not service.analyses.pool.started
        assert (await service.best_moves(table_id, 0, "198.51.100.7")).answer["proved"]
        executor = service.analyses.pool._executor
        assert executor is not None
        assert len(executor._processes) == 2
    finally:
        await service.close()


async def test_a_position_best_moves_are_found_once(store: Store) -> None:
    """The best moves of a position are kept, whatever table asks: the same position at
    another table is answered without the solver, even for an address with no solver time
    left, while a new position for that address is refused with the wait."""
    first = await bot_table(store, SMALL)
    second = await bot_table(store, SMALL, "anatable2")
    other = await bot_table(store, {**SMALL, "cols": 3}, "anatable3")
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        found = await service.best_moves(first, 0, "198.51.100.7")
        assert found.answer["proved"] and found.solver_s > 0
        kept = await service.best_moves(second, 0, "203.0.113.9", wait_s=30)
        assert kept.answer == found.answer and kept.solver_s == 0
        with pytest.raises(AnalysisBusy) as refused:
            await service.best_moves(other, 0, "203.0.113.9", wait_s=30)
        assert refused.value.retry_after == 30
    finally:
        await service.close()


async def test_the_last_position_of_a_finished_game_needs_no_solver_time(store: Store) -> None:
    """The replay's last step, the final score, is answered to an address with no solver
    time left (no move to find; the page asked it again and again before)."""
    service = TableService(store, InProcessBus(), SECRET, FAST, links=LINKS)
    try:
        table_id, played = await finished_game(service)
        last = await service.best_moves(table_id, len(played), "203.0.113.9", wait_s=30)
        assert last.solver_s == 0
        assert last.answer["proved"] and last.answer["best_moves"] == []
        score = (await service.snapshot(table_id, None))["outcome"]["score"]
        assert last.answer["value"] == score["red"] - score["blue"]
        with pytest.raises(AnalysisBusy):  # an earlier position still needs the solver
            await service.best_moves(table_id, len(played) - 1, "203.0.113.9", wait_s=30)
    finally:
        await service.close()
