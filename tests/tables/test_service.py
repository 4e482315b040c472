"""The table service on a real SQLite store: seats, moves, offers, rematch, races."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

from playtable.bus import InProcessBus
from playtable.games import SettingsError
from playtable.store import Store
from playtable.tables import (
    GameOver,
    Illegal,
    NoOffer,
    NotSeated,
    NotYourTurn,
    Stale,
    TableNotFound,
    TableService,
)
from tests.tables.conftest import SECRET
from tests.tables.links import LINKS

pytestmark = pytest.mark.anyio

DOTS = {"grid": "square", "rows": 2, "cols": 2, "start": "swedish"}
# From the Swedish 2x2 start: red draws one inner line, then blue claims all four boxes.
BLUE_WINS = [("red", "a2-b2"), ("blue", "b1-b2"), ("blue", "b2-b3"), ("blue", "b2-c2")]


async def seated_table(service: TableService) -> tuple[str, str, str]:
    """A Dots table with red (the creator) and blue (by invitation): (id, red, blue tokens)."""
    created = await service.create_table("dots", DOTS, "red")
    claimed = await service.claim_invite(created.id, created.invite_token)
    assert claimed is not None and claimed[0] == "blue"
    return created.id, created.seat_token, claimed[1]


async def test_create_table_validates_the_settings(service: TableService) -> None:
    with pytest.raises(SettingsError, match="unknown game"):
        await service.create_table("chess", {}, "red")
    with pytest.raises(SettingsError):
        await service.create_table("dots", {"rows": 99}, "red")
    with pytest.raises(SettingsError, match="seat"):
        await service.create_table("dots", DOTS, "green")


async def test_a_new_table_has_canonical_options_and_the_creator_seated(
    service: TableService,
) -> None:
    created = await service.create_table("dots", {"rows": 2, "cols": 3}, "blue")
    assert created.seat == "blue"
    assert len(created.seat_token) >= 32 and len(created.invite_token) >= 32
    table = await service.snapshot(created.id, "blue")
    assert table["options"] == {
        "grid": "square",
        "rows": 2,
        "cols": 3,
        "start": "standard",
        "misere": False,
    }
    assert table["seats"] == {
        "red": {"taken": False, "online": False},
        "blue": {"taken": True, "online": False},
    }
    assert (table["version"], table["ply"], table["to_move"]) == (0, 0, "red")
    assert table["outcome"] is None


async def test_random_seat_is_red_or_blue(service: TableService) -> None:
    seats = {(await service.create_table("dots", DOTS, "random")).seat for _ in range(40)}
    assert seats == {"red", "blue"}


async def test_seat_of_checks_the_token(service: TableService) -> None:
    table_id, red, blue = await seated_table(service)
    assert await service.seat_of(table_id, red) == "red"
    assert await service.seat_of(table_id, blue) == "blue"
    assert await service.seat_of(table_id, red + "x") is None
    assert await service.seat_of(table_id, None) is None
    assert await service.seat_of("nosuchtable", red) is None


async def test_tokens_are_stored_only_as_hashes(service: TableService) -> None:
    created = await service.create_table("dots", DOTS, "red")
    row = await service.store.table(created.id)
    assert row is not None
    stored = json.dumps([row.seats, row.invite_hash])
    assert created.seat_token not in stored and created.invite_token not in stored


async def test_the_invitation_seats_only_the_first(service: TableService) -> None:
    created = await service.create_table("dots", DOTS, "red")
    assert await service.claim_invite(created.id, "forged") is None
    first = await service.claim_invite(created.id, created.invite_token)
    assert first is not None and first[0] == "blue"
    assert await service.claim_invite(created.id, created.invite_token) is None
    assert await service.claim_invite("nosuchtable", created.invite_token) is None


async def test_invite_url_only_for_a_player_facing_a_free_seat(service: TableService) -> None:
    created = await service.create_table("dots", DOTS, "red")
    red_view = await service.snapshot(created.id, "red")
    assert red_view["invite_url"] == f"/t/{created.id}/join/{created.invite_token}"
    assert (await service.snapshot(created.id, None))["invite_url"] is None
    await service.claim_invite(created.id, created.invite_token)
    assert (await service.snapshot(created.id, "red"))["invite_url"] is None


async def test_a_whole_game_to_its_end(service: TableService) -> None:
    table_id, red, blue = await seated_table(service)
    tokens = {"red": red, "blue": blue}
    for ply, (player, move) in enumerate(BLUE_WINS):
        await service.play_move(table_id, tokens[player], ply, move)
    table = await service.snapshot(table_id, None)
    assert table["moves"] == [m for _, m in BLUE_WINS]
    assert table["outcome"] == {"winner": "blue", "reason": "score", "score": {"red": 0, "blue": 4}}
    assert table["to_move"] is None
    row = await service.store.table(table_id)
    assert row is not None and row.outcome == table["outcome"]  # the result is stored
    record = await service.record(table_id)
    assert record.result == "blue" and list(record.moves) == [m for _, m in BLUE_WINS]
    with pytest.raises(GameOver):
        await service.play_move(table_id, red, 4, "a1-b1")


async def test_moves_are_refused_with_the_reason(service: TableService) -> None:
    table_id, red, blue = await seated_table(service)
    with pytest.raises(NotYourTurn, match="red's turn"):
        await service.play_move(table_id, blue, 0, "a2-b2")
    with pytest.raises(NotSeated):
        await service.play_move(table_id, None, 0, "a2-b2")
    with pytest.raises(NotSeated, match="not valid"):
        await service.play_move(table_id, "forged-token", 0, "a2-b2")
    with pytest.raises(Illegal):
        await service.play_move(table_id, red, 0, "a1-b1")  # pre-drawn on the Swedish board
    with pytest.raises(Illegal):
        await service.play_move(table_id, red, 0, "not a move")
    with pytest.raises(Stale):
        await service.play_move(table_id, red, 3, "a2-b2")
    with pytest.raises(TableNotFound):
        await service.play_move("nosuchtable", red, 0, "a2-b2")
    assert (await service.snapshot(table_id, None))["version"] == 1  # only the invitation


async def test_two_server_processes_race_for_one_ply(db_url: str) -> None:
    """Two services on one database stand for two server processes: one move wins."""
    store_a, store_b = Store(db_url), Store(db_url)
    await store_a.open()
    await store_b.open()
    node_a = TableService(store_a, InProcessBus(), SECRET, links=LINKS)
    node_b = TableService(store_b, InProcessBus(), SECRET, links=LINKS)
    try:
        table_id, red, _ = await seated_table(node_a)
        await node_b.snapshot(table_id, "red")  # node B caches the position at ply 0
        await node_a.play_move(table_id, red, 0, "a2-b2")
        with pytest.raises(Stale):
            await node_b.play_move(table_id, red, 0, "b1-b2")
        # Node B's cache does not hide node A's move.
        seen = await node_b.snapshot(table_id, "red")
        assert seen["moves"] == ["a2-b2"] and seen["to_move"] == "blue"
    finally:
        await store_a.close()
        await store_b.close()


async def test_resign(service: TableService) -> None:
    table_id, red, _ = await seated_table(service)
    await service.resign(table_id, red)
    table = await service.snapshot(table_id, "red")
    assert table["outcome"]["winner"] == "blue" and table["outcome"]["reason"] == "resign"
    assert table["view"]["legal_moves"] == []  # the board offers nothing after a resignation
    with pytest.raises(GameOver):
        await service.resign(table_id, red)


async def test_draw_offers(service: TableService) -> None:
    table_id, red, blue = await seated_table(service)
    with pytest.raises(NoOffer):
        await service.answer_draw(table_id, blue, True)
    await service.offer_draw(table_id, red)
    with pytest.raises(Illegal, match="already"):
        await service.offer_draw(table_id, red)
    with pytest.raises(NoOffer):
        await service.answer_draw(table_id, red, True)  # one cannot accept one's own offer
    await service.answer_draw(table_id, blue, False)
    assert (await service.snapshot(table_id, None))["offers"]["draw"] is None
    await service.offer_draw(table_id, blue)
    await service.answer_draw(table_id, red, True)
    outcome = (await service.snapshot(table_id, None))["outcome"]
    assert outcome["winner"] is None and outcome["reason"] == "draw_agreed"


async def test_take_backs(service: TableService) -> None:
    table_id, red, blue = await seated_table(service)
    with pytest.raises(Illegal, match="own last move"):
        await service.request_undo(table_id, red)
    await service.play_move(table_id, red, 0, "a2-b2")
    with pytest.raises(Illegal, match="own last move"):
        await service.request_undo(table_id, blue)
    await service.request_undo(table_id, red)
    await service.answer_undo(table_id, blue, False)
    with pytest.raises(Illegal, match="cannot ask again for this move"):
        await service.request_undo(table_id, red)  # declined: not again for this move
    await service.play_move(table_id, blue, 1, "b2-c2")
    await service.play_move(table_id, red, 2, "b1-b2")  # a box: red's turn still
    await service.request_undo(table_id, red)
    with pytest.raises(NoOffer):
        await service.answer_undo(table_id, red, True)
    await service.answer_undo(table_id, blue, True)
    table = await service.snapshot(table_id, None)
    assert (table["moves"], table["to_move"], table["offers"]["undo"]) == (
        ["a2-b2", "b2-c2"],
        "red",
        None,
    )
    assert [m.move for m in await service.store.moves(table_id)] == ["a2-b2", "b2-c2"]
    await service.play_move(table_id, red, 2, "b2-b3")  # ply 2 may be played afresh


async def test_rematch_swaps_colours_and_keeps_both_seated(service: TableService) -> None:
    table_id, red, blue = await seated_table(service)
    with pytest.raises(Illegal, match="over"):
        await service.rematch(table_id, red)
    await service.resign(table_id, blue)
    await service.rematch(table_id, red)
    with pytest.raises(Illegal, match="proposed"):
        await service.rematch(table_id, red)
    assert await service.rematch_url(table_id, red) is None
    await service.rematch(table_id, blue)
    table = await service.snapshot(table_id, None)
    new_id = table["rematch_id"]
    assert new_id and table["offers"]["rematch"] == ["red", "blue"]
    red_link, blue_link = (
        await service.rematch_url(table_id, red),
        await service.rematch_url(table_id, blue),
    )
    assert red_link and blue_link and red_link != blue_link
    assert await service.rematch_url(table_id, "forged") is None
    new_red_token = red_link.rsplit("/", 1)[1]
    new_blue_token = blue_link.rsplit("/", 1)[1]
    assert await service.seat_of(new_id, new_red_token) == "blue"
    assert await service.seat_of(new_id, new_blue_token) == "red"
    fresh = await service.snapshot(new_id, "red")
    assert fresh["options"] == table["options"] and fresh["moves"] == []
    assert fresh["invite_url"] is None  # both seats are taken


async def test_rematch_needs_an_opponent(service: TableService) -> None:
    created = await service.create_table("dots", DOTS, "red")
    await service.resign(created.id, created.seat_token)
    with pytest.raises(Illegal, match="opposite"):
        await service.rematch(created.id, created.seat_token)


async def test_every_change_is_published_with_its_version(service: TableService) -> None:
    table_id, red, _ = await seated_table(service)
    subscription = await service.bus.subscribe(table_id)
    await service.play_move(table_id, red, 0, "a2-b2")
    message = await subscription.get()
    assert message["version"] == 2 and message["base"] == 1
    assert {"op": "replace", "path": "/version", "value": 2} in message["patch"]
    assert message["events"] == [
        {"kind": "move", "player": "red", "move": "a2-b2", "ply": 0, "claimed": 0}
    ]
    assert red not in json.dumps(message)
    await subscription.close()


async def test_a_swaptimum_move_event_names_any_skipped_player(service: TableService) -> None:
    created = await service.create_table("swaptimum", {"size": 4}, "red")
    subscription = await service.bus.subscribe(created.id)
    table = await service.snapshot(created.id, "red")
    first = table["view"]["placements"]
    move = next(iter(first.values()))[0]
    await service.play_move(created.id, created.seat_token, 0, move)
    event = (await subscription.get())["events"][0]
    assert event["kind"] == "move" and event["move"] == move
    assert "skipped" in event and "claimed" not in event
    await subscription.close()


async def test_a_stale_cache_never_refuses_a_good_request(db_url: str) -> None:
    """Node B decides first on what it cached, but re-reads before it refuses anything."""
    store_a, store_b = Store(db_url), Store(db_url)
    await store_a.open()
    await store_b.open()
    node_a = TableService(store_a, InProcessBus(), SECRET, links=LINKS)
    node_b = TableService(store_b, InProcessBus(), SECRET, links=LINKS)
    try:
        created = await node_a.create_table("dots", DOTS, "red")
        await node_b.snapshot(created.id, None)  # cached: blue's seat free, ply 0
        claimed = await node_a.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        await node_a.play_move(created.id, created.seat_token, 0, "a2-b2")
        await node_b.play_move(created.id, claimed[1], 1, "b1-b2")
        table = await node_a.snapshot(created.id, None)
        assert table["moves"] == ["a2-b2", "b1-b2"] and table["version"] == 3
    finally:
        await store_a.close()
        await store_b.close()


async def test_after_a_resignation_no_board_offers_a_move(service: TableService) -> None:
    for game, options in (("dots", DOTS), ("swaptimum", {"size": 5})):
        created = await service.create_table(game, options, "red")
        await service.resign(created.id, created.seat_token)
        view = (await service.snapshot(created.id, "red"))["view"]
        assert view.get("legal_moves", []) == [] and view.get("placements", {}) == {}
        assert view["to_move"] is None


async def test_news_of_a_newer_version_drops_the_cached_position(db_url: str) -> None:
    """What the bus says another process did makes this one re-read before deciding."""
    store_a, store_b = Store(db_url), Store(db_url)
    await store_a.open()
    await store_b.open()
    node_a = TableService(store_a, InProcessBus(), SECRET, links=LINKS)
    node_b = TableService(store_b, InProcessBus(), SECRET, links=LINKS)
    try:
        table_id, red, blue = await seated_table(node_a)
        await node_b.snapshot(table_id, "red")  # node B caches version 1
        version = await node_a.play_move(table_id, red, 0, "a2-b2")
        node_b.observed({"table_id": table_id, "version": version - 1})  # old news: kept
        assert table_id in node_b._cache
        node_b.observed({"table_id": table_id, "version": version})
        assert table_id not in node_b._cache
        await node_b.play_move(table_id, blue, 1, "b1-b2")  # decided on a fresh read
        assert (await node_a.snapshot(table_id, None))["moves"] == ["a2-b2", "b1-b2"]
    finally:
        await store_a.close()
        await store_b.close()


async def test_a_change_committed_while_its_request_is_cancelled_is_still_announced(
    service: TableService,
) -> None:
    # A socket that closes mid-move, or the computer's job replaced by a page reload, cancels
    # the request while the commit is under way: what got stored must still be told.
    table_id, red, _ = await seated_table(service)
    subscription = await service.subscribe(table_id)
    for attempt in range(50):
        ply = (await service.snapshot(table_id, None))["ply"]
        if ply:
            break
        request = asyncio.create_task(service.play_move(table_id, red, 0, "a2-b2"))
        for _ in range(attempt % 5 + 1):
            await asyncio.sleep(0)  # into the commit, somewhere
        request.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await request
        await asyncio.sleep(0.05)
    assert (await service.snapshot(table_id, None))["ply"] == 1, "the move was never stored"
    async with asyncio.timeout(5):
        while True:
            message = await subscription.get()
            if any(e["kind"] == "move" for e in message.get("events", [])):
                break
    assert message["version"] == 2 and message["events"][0]["move"] == "a2-b2"
    await subscription.close()


async def test_news_of_the_next_move_is_played_on_the_cached_position(db_url: str) -> None:
    """A move another process made is played on this one's cached position, not re-read."""
    store_a, store_b = Store(db_url), Store(db_url)
    await store_a.open()
    await store_b.open()
    node_a = TableService(store_a, InProcessBus(), SECRET, links=LINKS)
    node_b = TableService(store_b, InProcessBus(), SECRET, links=LINKS)
    try:
        table_id, red, blue = await seated_table(node_a)
        await node_b.snapshot(table_id, "red")  # node B caches the table
        subscription = await node_a.subscribe(table_id)
        version = await node_a.play_move(table_id, red, 0, "a2-b2")
        message = await subscription.get()
        node_b.observed(message)
        cached = node_b._cache[table_id]
        assert cached.version == version and cached.move_texts() == ["a2-b2"]
        assert cached.game.to_move(cached.state) == "blue"
        # Decided on the advanced cache, and committed: it was the true position.
        await node_b.play_move(table_id, blue, 1, "b1-b2")
        assert (await node_a.snapshot(table_id, None))["moves"] == ["a2-b2", "b1-b2"]
        # A forged or garbled event drops the cache instead of corrupting it.
        forged = [{"kind": "move", "ply": 2, "move": "zz"}]
        node_b.observed({"table_id": table_id, "version": version + 2, "events": forged})
        assert table_id not in node_b._cache
        await subscription.close()
    finally:
        await store_a.close()
        await store_b.close()
