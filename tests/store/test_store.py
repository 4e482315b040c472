"""The store on SQLite and PostgreSQL: schema, compare-and-set, the unique ply, transactions."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from playtable.store import Change, MoveRow, NewTable, Store, upgrade
from playtable.store.schema import metadata

pytestmark = pytest.mark.anyio

HASH_RED = "a" * 64
HASH_BLUE = "b" * 64


def new_table(table_id: str = "t1", **seats: str) -> NewTable:
    return NewTable(
        id=table_id,
        game="dots",
        options={"rows": 2},
        invite_hash="c" * 64,
        seats=seats or {"red": HASH_RED},
    )


def _schema(conn: sa.Connection) -> tuple[list[str], dict[str, set[str]], list[str]]:
    inspector = sa.inspect(conn)
    version = [row[0] for row in conn.execute(sa.text("SELECT version_num FROM alembic_version"))]
    columns = {
        table.name: {c["name"] for c in inspector.get_columns(table.name)}
        for table in metadata.sorted_tables
    }
    keys = inspector.get_pk_constraint("moves")["constrained_columns"]
    return version, columns, keys


async def test_migrations_build_the_schema_the_queries_expect(db_url: str) -> None:
    await upgrade(db_url)
    await upgrade(db_url)  # a second run at head changes nothing
    store = Store(db_url)
    try:
        version, columns, keys = await store._run(_schema)
    finally:
        await store.close()
    assert version == ["0002"]
    for table in metadata.sorted_tables:
        assert columns[table.name] == {c.name for c in table.columns}, table.name
    assert keys == ["table_id", "ply"]


SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])


@SQLITE_ONLY
async def test_sqlite_runs_in_wal_mode_with_foreign_keys(store: Store) -> None:
    assert store.engine is not None
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
        assert conn.execute(sa.text("PRAGMA synchronous")).scalar() == 2  # FULL
        with pytest.raises(sa.exc.IntegrityError):
            conn.execute(
                sa.text(
                    "INSERT INTO moves (table_id, ply, move, player, created_at) "
                    "VALUES ('nowhere', 0, 'a1-b1', 'red', '2026-01-01')"
                )
            )


async def test_an_aiosqlite_url_means_the_same_file(tmp_path: Path) -> None:
    first = Store(f"sqlite:///{tmp_path / 'same.sqlite3'}")
    await first.open()
    await first.create_table(new_table())
    await first.close()
    second = Store(f"sqlite+aiosqlite:///{tmp_path / 'same.sqlite3'}")
    await second.open()
    assert await second.table("t1") is not None
    await second.close()


async def test_changes_arriving_together_share_one_commit(store: Store) -> None:
    for k in range(20):
        await store.create_table(new_table(f"t{k}"))
    results = await asyncio.gather(
        *(store.update(f"t{k}", 0, Change(append=MoveRow(0, "a1-b1", "red"))) for k in range(20)),
        # A stale change in the same group fails alone; the others still commit.
        store.update("t0", 0, Change(append=MoveRow(0, "b1-c1", "red"))),
    )
    assert results == [True] * 20 + [False]
    for k in range(20):
        assert [m.move for m in await store.moves(f"t{k}")] == ["a1-b1"]


async def test_a_contradiction_in_a_group_does_not_sink_the_others(store: Store) -> None:
    for k in range(3):
        await store.create_table(new_table(f"t{k}"))
    results = await asyncio.gather(
        store.update("t0", 0, Change(append=MoveRow(0, "a1-b1", "red"))),
        store.update("t1", 0, Change(drop_ply=3)),  # passes the version check, then fails
        store.update("t2", 0, Change(append=MoveRow(0, "a1-b1", "red"))),
    )
    assert results == [True, False, True]
    row = await store.table("t1")
    assert row is not None and row.version == 0


async def test_create_and_read_a_table(store: Store) -> None:
    assert await store.create_table(new_table(red=HASH_RED, blue=HASH_BLUE))
    row = await store.table("t1")
    assert row is not None
    assert (row.game, row.options, row.version, row.outcome) == ("dots", {"rows": 2}, 0, None)
    assert row.seats == {"red": HASH_RED, "blue": HASH_BLUE}
    assert await store.table("t2") is None
    assert await store.moves("t1") == []


async def test_a_table_id_is_never_reused(store: Store) -> None:
    assert await store.create_table(new_table())
    assert not await store.create_table(new_table())


async def test_update_is_a_compare_and_set_on_the_version(store: Store) -> None:
    await store.create_table(new_table())
    assert await store.update("t1", 0, Change(append=MoveRow(0, "a1-b1", "red")))
    # A second writer that read version 0 loses, whatever it wanted to do.
    assert not await store.update("t1", 0, Change(append=MoveRow(1, "b1-c1", "blue")))
    assert not await store.update("t1", 0, Change(offers={"draw": "blue"}))
    row = await store.table("t1")
    assert row is not None and row.version == 1 and row.offers == {}
    assert await store.moves("t1") == [MoveRow(0, "a1-b1", "red")]


async def test_two_moves_can_never_share_a_ply(store: Store) -> None:
    await store.create_table(new_table())
    assert await store.update("t1", 0, Change(append=MoveRow(0, "a1-b1", "red")))
    # Even with the right version the unique (table_id, ply) key refuses ply 0 again, and the
    # whole transaction (the version bump included) is rolled back.
    assert not await store.update("t1", 1, Change(append=MoveRow(0, "b1-c1", "red")))
    row = await store.table("t1")
    assert row is not None and row.version == 1


async def test_take_back_and_outcome(store: Store) -> None:
    await store.create_table(new_table())
    await store.update("t1", 0, Change(append=MoveRow(0, "a1-b1", "red")))
    await store.update("t1", 1, Change(append=MoveRow(1, "b1-c1", "blue")))
    assert not await store.update("t1", 2, Change(drop_ply=5))  # no such move: nothing happens
    assert await store.update("t1", 2, Change(drop_ply=1, offers={"undo": None}))
    assert [m.move for m in await store.moves("t1")] == ["a1-b1"]
    outcome = {"winner": "red", "reason": "resign"}
    assert await store.update("t1", 3, Change(outcome=outcome))
    row = await store.table("t1")
    assert row is not None and row.outcome == outcome and row.version == 4


async def test_a_new_table_is_created_only_with_its_change(store: Store) -> None:
    await store.create_table(new_table())
    rematch = new_table("t2", blue=HASH_RED, red=HASH_BLUE)
    assert not await store.update("t1", 7, Change(rematch_id="t2", new_table=rematch))
    assert await store.table("t2") is None
    assert await store.update("t1", 0, Change(rematch_id="t2", new_table=rematch))
    row, created = await store.table("t1"), await store.table("t2")
    assert row is not None and row.rematch_id == "t2"
    assert created is not None and created.seats == {"red": HASH_BLUE, "blue": HASH_RED}


async def test_a_taken_seat_cannot_be_taken_again(store: Store) -> None:
    await store.create_table(new_table())
    assert not await store.update("t1", 0, Change(seat=("red", HASH_BLUE)))
    assert await store.update("t1", 0, Change(seat=("blue", HASH_BLUE)))
    row = await store.table("t1")
    assert row is not None and row.seats == {"red": HASH_RED, "blue": HASH_BLUE}


async def test_committed_changes_survive_a_new_store(db_url: str) -> None:
    first = Store(db_url)
    await first.open()
    await first.create_table(new_table())
    await first.update("t1", 0, Change(append=MoveRow(0, "a1-b1", "red")))
    await first.close()
    second = Store(db_url)
    await second.open()
    assert [m.move for m in await second.moves("t1")] == ["a1-b1"]
    await second.close()


async def test_the_folder_of_a_sqlite_file_is_created(tmp_path: Path) -> None:
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'var' / 'deep' / 'db.sqlite3'}")
    await store.open()
    assert await store.create_table(new_table())
    await store.close()
    assert (tmp_path / "var" / "deep" / "db.sqlite3").exists()


async def test_the_url_may_relax_fsync(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'relaxed.sqlite3'}?synchronous=normal")
    await store.open()
    assert store.engine is not None
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("PRAGMA synchronous")).scalar() == 1  # NORMAL
    await store.close()
    with pytest.raises(ValueError, match="synchronous"):
        Store(f"sqlite:///{tmp_path / 'x.sqlite3'}?synchronous=off")


async def test_of_many_writers_racing_for_one_ply_exactly_one_wins(db_url: str) -> None:
    """Separate stores stand for separate server processes, each with its own connections."""
    stores = [Store(db_url) for _ in range(4)]
    for store in stores:
        await store.open()
    try:
        await stores[0].create_table(new_table())
        attempts = [
            stores[k % 4].update("t1", 0, Change(append=MoveRow(0, f"m{k}", "red")))
            for k in range(24)
        ]
        results = await asyncio.gather(*attempts)
        assert results.count(True) == 1
        winner = f"m{results.index(True)}"
        for store in stores:
            assert await store.moves("t1") == [MoveRow(0, winner, "red")]
            row = await store.table("t1")
            assert row is not None and row.version == 1
    finally:
        for store in stores:
            await store.close()


def _open_and_close(url: str, barrier: Any = None) -> None:
    async def run() -> None:
        store = Store(url)
        if barrier is not None:
            barrier.wait(30)  # everything imported: now all at once
        await store.open()
        await store.close()

    asyncio.run(run())


@SQLITE_ONLY  # PostgreSQL serialises upgrades with an advisory lock (and the cluster tests)
def test_processes_starting_together_migrate_one_at_a_time(db_url: str) -> None:
    """Found by bench/load.py: two servers starting at once both tried to create the schema."""
    import multiprocessing

    # Forked, not spawned: the children start at once instead of each importing everything.
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(3)
    workers = [context.Process(target=_open_and_close, args=(db_url, barrier)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0] * 3
    _open_and_close(db_url)
