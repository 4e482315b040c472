"""Move messages as patches: the difference is exact, small, and applies on any process."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playtable.bus import InProcessBus
from playtable.store import Store
from playtable.tables import TableService, decisions, patch, views
from playtable.tables.table import LoadedTable
from tests.tables.conftest import SECRET
from tests.tables.links import LINKS
from tests.tables.test_decisions import BLUE, RED
from tests.tables.test_decisions import table as table_of

pytestmark = pytest.mark.anyio

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "~/", ""]),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.sampled_from(["x", "y", "a/b", "~0", "-"]), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values, json_values)
def test_a_patch_turns_the_old_value_into_the_new_one_and_leaves_the_old_as_it_was(
    old: Any, new: Any
) -> None:
    before = copy.deepcopy(old)
    operations = patch.diff(old, new)
    assert patch.apply(old, operations) == new
    assert old == before
    # Equal as JSON (Python's == also holds between false and 0, which JSON tells apart).
    if json.dumps(old, sort_keys=True) == json.dumps(new, sort_keys=True):
        assert operations == []


@given(st.lists(st.integers(0, 3), max_size=12), st.data())
def test_items_taken_out_of_a_list_are_removed_one_by_one(items: list[int], data: Any) -> None:
    keep = data.draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
    fewer = [item for item, kept in zip(items, keep, strict=True) if kept]
    operations = patch.diff({"legal": items}, {"legal": fewer})
    assert patch.apply({"legal": items}, operations) == {"legal": fewer}
    if 0 < len(items) - len(fewer) <= patch.MAX_LIST_CHANGES:
        assert all(op["op"] == "remove" for op in operations)


def test_a_patch_that_does_not_fit_is_refused() -> None:
    with pytest.raises(patch.PatchError):
        patch.apply({"a": [1]}, [{"op": "replace", "path": "/a/5", "value": 2}])
    with pytest.raises(patch.PatchError):
        patch.apply({"a": 1}, [{"op": "replace", "path": "/a/b", "value": 2}])
    follower = patch.Follower()
    follower.receive({"type": "state", "version": 3, "table": {"version": 3}})
    skipped = {"type": "change", "version": 5, "base": 4, "events": [], "patch": []}
    assert follower.receive(skipped) == [] and follower.missed


async def _two_nodes(db_url: str) -> tuple[TableService, TableService, Store, Store]:
    store_a, store_b = Store(db_url), Store(db_url)
    await store_a.open()
    await store_b.open()
    return (
        TableService(store_a, InProcessBus(), SECRET, links=LINKS),
        TableService(store_b, InProcessBus(), SECRET, links=LINKS),
        store_a,
        store_b,
    )


async def test_a_12x12_move_is_a_patch_under_a_kilobyte_that_any_process_can_apply(
    db_url: str,
) -> None:
    """Node A plays a whole 12x12 game; node B hears each of its messages, as from Redis,
    and a page on B that holds B's state follows every move by patches alone."""
    a, b, store_a, store_b = await _two_nodes(db_url)
    try:
        options = {"grid": "square", "rows": 12, "cols": 12}
        created = await a.create_table("dots", options, "red")
        claimed = await a.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        tokens = {"red": created.seat_token, "blue": claimed[1]}
        subscription = await a.subscribe(created.id)
        page = await b.snapshot(created.id, None)  # a spectator's page on node B
        whole = len(json.dumps(page))
        sizes: list[int] = []
        rng = random.Random(7)
        for ply in range(60):
            legal = page["view"]["legal_moves"]
            await a.play_move(created.id, tokens[page["to_move"]], ply, rng.choice(legal))
            message = await subscription.get()
            b.observed(message)
            assert message["base"] == page["version"]
            sizes.append(len(json.dumps({k: v for k, v in message.items() if k != "table_id"})))
            page = patch.apply(page, message["patch"])
            # Exactly the table a fresh read on either node shows (the live fields aside).
            fresh = await b.snapshot(created.id, None)
            assert {k: v for k, v in page.items() if k != "clock"} == {
                k: v for k, v in fresh.items() if k != "clock"
            }
        assert max(sizes) <= 1024, max(sizes)
        assert whole > 30 * max(sizes)  # a 12x12 table is tens of kilobytes
        # B kept each version it heard of: its next join builds nothing new.
        assert b.announcer.kept_version(created.id) == page["version"]
        await subscription.close()
    finally:
        await store_a.close()
        await store_b.close()


async def test_a_process_that_only_heard_the_other_moves_still_publishes_patches(
    db_url: str,
) -> None:
    """Players on two processes: B learns A's moves from the bus alone (nobody on B reads
    the table meanwhile), and B's own moves still go out as patches. They went out as the
    whole table (~10 KB on 5x5) when B failed to apply A's patches to what it kept."""
    a, b, store_a, store_b = await _two_nodes(db_url)
    try:
        created = await a.create_table("dots", {"rows": 3, "cols": 3}, "red")
        claimed = await a.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        red, blue = created.seat_token, claimed[1]
        # Each node has a bus of its own here: what one publishes, the test hands to the
        # other, as Redis would.
        heard = {a: await a.subscribe(created.id), b: await b.subscribe(created.id)}
        await b.snapshot(created.id, None)  # blue's page on B joined once, before any move
        # Red on A, blue on B, in turn, each process hearing the other's moves.
        turns = [(a, b, red, "a1-b1"), (b, a, blue, "a2-b2"), (a, b, red, "a3-b3")]
        turns += [(b, a, blue, "a4-b4"), (a, b, red, "b1-c1"), (b, a, blue, "b2-c2")]
        for ply, (mover, other, token, move) in enumerate(turns):
            await mover.play_move(created.id, token, ply, move)
            message = await heard[mover].get()
            other.observed(message)
            assert "patch" in message, f"move {ply} published whole"
            assert other.announcer.kept_version(created.id) == message["version"]
        for subscription in heard.values():
            await subscription.close()
    finally:
        await store_a.close()
        await store_b.close()


async def test_news_of_a_version_this_process_never_saw_is_ignored_safely(db_url: str) -> None:
    a, b, store_a, store_b = await _two_nodes(db_url)
    try:
        created = await a.create_table("dots", {"rows": 3, "cols": 3}, "red")
        claimed = await a.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        subscription = await a.subscribe(created.id)
        await a.play_move(created.id, created.seat_token, 0, "a1-b1")
        message = await subscription.get()
        assert "patch" in message
        b.observed(message)  # B kept nothing of this table: it keeps nothing now either
        assert b.announcer.kept_version(created.id) is None
        table = await b.snapshot(created.id, None)
        assert table["moves"] == ["a1-b1"]
        await subscription.close()
    finally:
        await store_a.close()
        await store_b.close()


# -- a move's table made from the move (views.versioned_after_move) ----------------------------
SHORTCUT_BOARDS: list[dict[str, Any]] = [
    {"grid": "square", "rows": 1, "cols": 1, "start": "standard"},
    {"grid": "square", "rows": 3, "cols": 4, "start": "standard"},
    {"grid": "square", "rows": 2, "cols": 4, "start": "swedish"},
    {"grid": "square", "rows": 3, "cols": 3, "start": "icelandic", "misere": True},
    {"grid": "triangle", "size": 3, "start": "standard"},
    {"grid": "hexagon", "size": 2, "start": "standard", "misere": True},
]
TOKENS = {"red": RED, "blue": BLUE}


def fresh_table(game: str, options: dict[str, Any]) -> LoadedTable:
    return table_of(game=game, options=options)


@given(st.sampled_from(SHORTCUT_BOARDS), st.integers(0, 2**32), st.booleans())
def test_a_moves_table_made_from_the_move_is_the_one_built_again(
    options: dict[str, Any], seed: int, heard: bool
) -> None:
    """Every move of a random game: the public table made from the move and the one before
    is the one built from scratch, and its patch turns the one before into it. ``heard``:
    the one before came over the bus (a copy, sharing nothing with the board's parts)."""
    rng = random.Random(seed)
    table = fresh_table("dots", options)
    before = views.versioned(table, LINKS)
    while table.running():
        if heard and rng.random() < 0.5:
            before = json.loads(json.dumps(before))
        player = table.to_move()
        assert player is not None
        move = rng.choice(table.game.legal_move_texts(table.state))
        table = decisions.play(table, TOKENS[player], table.ply, move).after
        shortcut = views.versioned_after_move(before, table)
        assert shortcut is not None, "a move is always made from the move"
        body, operations = shortcut
        fresh = views.versioned(table, LINKS)
        assert body == fresh
        assert patch.apply(before, operations) == fresh
        before = body
    assert before["outcome"] is not None and before["view"]["legal_moves"] == []


def test_any_other_change_is_built_and_compared() -> None:
    table = fresh_table("dots", SHORTCUT_BOARDS[1])
    before = views.versioned(table, LINKS)
    resigned = decisions.resign(table, TOKENS["red"]).after
    assert views.versioned_after_move(before, resigned) is None  # no move: compared
    moved = decisions.play(table, TOKENS["red"], 0, "a1-b1").after
    body = views.versioned(moved, LINKS)
    assert views.versioned_after_move(body, moved) is None  # not the version before
    two_later = decisions.play(moved, TOKENS["blue"], 1, "a2-b2").after
    assert views.versioned_after_move(before, two_later) is None  # two versions apart
    swaptimum = fresh_table("swaptimum", {"size": 5})
    sw_before = views.versioned(swaptimum, LINKS)
    sw_move = swaptimum.game.legal_move_texts(swaptimum.state)[0]
    sw_after = decisions.play(swaptimum, TOKENS["red"], 0, sw_move).after
    assert views.versioned_after_move(sw_before, sw_after) is None  # no shortcut: compared
