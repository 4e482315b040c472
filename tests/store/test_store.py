"""The store on SQLite and PostgreSQL: schema, compare-and-set, the unique ply, transactions."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from playtable.store import Change, MoveRow, NewTable, Store, position_digests, upgrade
from playtable.store.engines import migrations_config
from playtable.store.schema import metadata, site_heartbeat, site_outages

pytestmark = pytest.mark.anyio

HASH_RED = "a" * 64
HASH_BLUE = "b" * 64
HEAD = "0010"  # the migrations' head revision


def new_table(table_id: str = "t1", **seats: str) -> NewTable:
    return NewTable(
        id=table_id,
        game="dots",
        options={"rows": 2},
        invite_hash="c" * 64,
        seats=seats or {"red": HASH_RED},
    )


def _version(conn: sa.Connection) -> list[str]:
    return [row[0] for row in conn.execute(sa.text("SELECT version_num FROM alembic_version"))]


def _schema(conn: sa.Connection) -> dict[str, Any]:
    inspector = sa.inspect(conn)
    return {
        "version": _version(conn),
        "columns": {
            table.name: {c["name"] for c in inspector.get_columns(table.name)}
            for table in metadata.sorted_tables
        },
        "keys": {
            name: inspector.get_pk_constraint(name)["constrained_columns"]
            for name in ("moves", "analysis_values")
        },
        "analysis_references": [
            (fk["referred_table"], fk["options"].get("ondelete"))
            for fk in inspector.get_foreign_keys("analysis_values")
        ],
        # What autogenerate would write to bring the database to schema.py: nothing, if the
        # two agree on tables, columns, types, nullability, indexes and foreign keys.
        "differences": compare_metadata(
            MigrationContext.configure(conn, opts={"compare_type": True}), metadata
        ),
    }


async def test_migrations_build_the_schema_the_queries_expect(db_url: str) -> None:
    await upgrade(db_url)
    await upgrade(db_url)  # a second run at head changes nothing
    store = Store(db_url)
    try:
        schema = await store._run(_schema)
    finally:
        await store.close()
    assert schema["version"] == [HEAD]
    for table in metadata.sorted_tables:
        assert schema["columns"][table.name] == {c.name for c in table.columns}, table.name
    assert schema["keys"] == {"moves": ["table_id", "ply"], "analysis_values": ["table_id", "ply"]}
    assert [(t, (d or "").upper()) for t, d in schema["analysis_references"]] == [
        ("tables", "CASCADE")
    ]
    assert schema["differences"] == []


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


# -- the analysis' proved values ------------------------------------------------------------
LINE = ["a1-a2", "b1-b2", "c1-c2"]


def test_a_position_digest_is_of_the_moves_that_reached_it() -> None:
    digests = position_digests(LINE)
    assert len(digests) == 4 and len(set(digests)) == 4
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in digests)
    assert position_digests(LINE[:2]) == digests[:3]
    assert position_digests(["a1-a2", "b1-b3"])[2] != digests[2]
    # The boundaries between moves count: no two different lists share a digest.
    assert position_digests(["ab", "c"])[2] != position_digests(["a", "bc"])[2]


async def test_analysis_values_are_tied_to_the_moves_that_reached_them(store: Store) -> None:
    await store.create_table(new_table())
    assert await store.analysis_values("t1", LINE) == {}
    await store.save_analysis_values("t1", LINE, {0: 2, 1: -2, 3: 0})
    await store.save_analysis_values("t1", LINE, {0: 2, 1: -2})  # again: nothing changes
    assert await store.analysis_values("t1", LINE) == {0: 2, 1: -2, 3: 0}
    assert await store.analysis_values("t1", LINE[:2]) == {0: 2, 1: -2}
    assert await store.analysis_values("t2", LINE) == {}
    # A take-back, then another move at ply 1: the positions after 0 and 1 moves are the
    # same, but the old values from ply 2 on are not this line's; the new line's value at
    # ply 2 replaces the old row.
    other = ["a1-a2", "b1-c1", "c1-c2"]
    assert await store.analysis_values("t1", other) == {0: 2, 1: -2}
    await store.save_analysis_values("t1", other, {2: 5})
    assert await store.analysis_values("t1", other) == {0: 2, 1: -2, 2: 5}
    assert await store.analysis_values("t1", LINE) == {0: 2, 1: -2, 3: 0}
    # Unlike the old line's value at ply 3, which nobody replaced: it is no more the other
    # line's than before.
    assert 3 not in await store.analysis_values("t1", other)


async def test_analysis_values_survive_a_new_store(db_url: str) -> None:
    first = Store(db_url)
    await first.open()
    await first.create_table(new_table())
    await first.save_analysis_values("t1", LINE, {0: 2, 2: -1})
    await first.close()
    second = Store(db_url)
    await second.open()
    try:
        assert await second.analysis_values("t1", LINE) == {0: 2, 2: -1}
    finally:
        await second.close()


async def test_processes_saving_the_same_analysis_at_once_do_not_fail(db_url: str) -> None:
    """Separate stores stand for server processes that solved the same positions together."""
    stores = [Store(db_url) for _ in range(4)]
    for store in stores:
        await store.open()
    try:
        await stores[0].create_table(new_table())
        values = {ply: ply - 2 for ply in range(4)}
        other = ["a1-a2", "b1-c1", "c1-c2"]
        saves = [
            stores[k % 4].save_analysis_values("t1", LINE, dict(list(values.items())[k % 3 :]))
            for k in range(24)
        ]
        # And one process still analysing the line from before a take-back.
        saves.append(stores[1].save_analysis_values("t1", other, {3: 9}))
        await asyncio.gather(*saves)
        for store in stores:
            mine = await store.analysis_values("t1", LINE)
            # Ply 3's row went to whichever line saved last; it is never shown for the other.
            assert mine in ({0: -2, 1: -1, 2: 0, 3: 1}, {0: -2, 1: -1, 2: 0})
            theirs = await store.analysis_values("t1", other)
            assert theirs in ({0: -2, 1: -1, 3: 9}, {0: -2, 1: -1})
            assert (3 in mine) != (3 in theirs)
    finally:
        for store in stores:
            await store.close()


async def test_deleting_a_table_deletes_its_analysis(store: Store) -> None:
    await store.create_table(new_table())
    await store.save_analysis_values("t1", LINE, {0: 2})

    def delete_and_count(conn: sa.Connection) -> int:
        conn.execute(sa.text("DELETE FROM tables WHERE id = 't1'"))
        return int(conn.execute(sa.text("SELECT count(*) FROM analysis_values")).scalar_one())

    assert await store._run(delete_and_count) == 0


async def _migrate(url: str, revision: str, down: bool = False) -> list[str]:
    store = Store(url)
    try:

        def run(conn: sa.Connection) -> list[str]:
            config = migrations_config(conn)
            (command.downgrade if down else command.upgrade)(config, revision)
            return _version(conn)

        return await store._run(run)
    finally:
        await store.close()


async def test_upgrading_a_database_in_use_from_0002_keeps_its_data(empty_db_url: str) -> None:
    url = empty_db_url
    assert await _migrate(url, "0002") == ["0002"]
    # A site of the previous release: a finished table, a table against the computer.
    old = Store(url)
    try:
        assert await old.create_table(new_table("t1", red=HASH_RED, blue=HASH_BLUE))
        for ply, (move, player) in enumerate([("a1-b1", "red"), ("b1-c1", "blue")]):
            assert await old.update("t1", ply, Change(append=MoveRow(ply, move, player)))
        assert await old.update("t1", 2, Change(outcome={"winner": "red", "reason": "resign"}))
        bot_table = NewTable(
            id="t2",
            game="dots",
            options={"rows": 2},
            invite_hash="d" * 64,
            seats={"red": HASH_RED, "blue": HASH_BLUE},
            bots={"blue": "hard"},
        )
        assert await old.create_table(bot_table)
        assert "analysis_values" not in await old._run(lambda c: sa.inspect(c).get_table_names())
    finally:
        await old.close()

    await upgrade(url)  # what every server does at start
    store = Store(url)
    await store.open()
    try:
        assert await store._run(_version) == [HEAD]
        row = await store.table("t1")
        assert row is not None and row.version == 3
        assert row.outcome == {"winner": "red", "reason": "resign"}
        assert row.seats == {"red": HASH_RED, "blue": HASH_BLUE}
        assert (row.time_control, row.deadline) == ("-", None)  # old tables have no clock
        assert [m.move for m in await store.moves("t1")] == ["a1-b1", "b1-c1"]
        assert await store.tables_with_bots() == ["t2"]
        await store.save_analysis_values("t1", ["a1-b1", "b1-c1"], {0: 1, 2: 1})
        assert await store.analysis_values("t1", ["a1-b1", "b1-c1"]) == {0: 1, 2: 1}
    finally:
        await store.close()

    # And back: the downgrade drops the analysis only.
    assert await _migrate(url, "0002", down=True) == ["0002"]
    assert await _migrate(url, "head") == [HEAD]
    store = Store(url)
    try:
        assert [m.move for m in await store.moves("t1")] == ["a1-b1", "b1-c1"]
        assert await store.analysis_values("t1", ["a1-b1", "b1-c1"]) == {}
    finally:
        await store.close()


async def test_0009_keeps_the_heartbeat_and_outages_and_marks_no_stop_it_did_not_see(
    empty_db_url: str,
) -> None:
    """Migration 0009 (a stop of the last process begins an outage, however short): a site
    at 0008 keeps its heartbeat and outages, and its last beat is no stop's mark, so the first
    start after the upgrade records nothing for a fresh beat. A stop and a start after it
    record the outage between; the downgrade takes the mark and the processes away only."""
    url = empty_db_url
    at = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    assert await _migrate(url, "0008") == ["0008"]

    def site_of_0008(conn: sa.Connection) -> None:
        conn.execute(sa.insert(site_outages).values(down_at=at, up_at=at + timedelta(seconds=9)))
        conn.execute(sa.insert(site_heartbeat).values(id=1, at=at + timedelta(seconds=60)))

    old = Store(url)
    try:
        await old._run(site_of_0008)
    finally:
        await old.close()
    assert await _migrate(url, "head") == [HEAD]
    store = Store(url)
    try:
        moment = at + timedelta(seconds=62)  # a restart 2 s after a beat of the old release
        assert await store.beat(moment, 6.0, "new", starting=True) is None
        assert await store.beat(moment + timedelta(seconds=1), 6.0, "new", stopping=True) is None
        up = moment + timedelta(seconds=2)
        found = await store.beat(up, 6.0, "next", starting=True)
        assert found == (moment + timedelta(seconds=1), up)
        assert len(await store.outages()) == 2
    finally:
        await store.close()
    assert await _migrate(url, "0008", down=True) == ["0008"]

    def tables(conn: sa.Connection) -> dict[str, set[str]]:
        inspector = sa.inspect(conn)
        return {
            name: {column["name"] for column in inspector.get_columns(name)}
            for name in inspector.get_table_names()
        }

    old = Store(url)
    try:
        shape = await old._run(tables)
        count = await old._run(
            lambda conn: conn.execute(sa.text("SELECT count(*) FROM site_outages")).scalar_one()
        )
    finally:
        await old.close()
    assert "site_processes" not in shape and shape["site_heartbeat"] == {"id", "at"}
    assert count == 2


async def test_a_move_on_postgresql_is_one_statement_in_one_round_trip(
    postgres_url: str,
) -> None:
    """No BEGIN, no COMMIT, one statement: and a stale version still writes nothing."""
    store = Store(postgres_url)
    assert store.async_engine is not None
    statements: list[str] = []

    def connected(dbapi_connection: Any, _record: Any) -> None:
        # What the driver itself sends, whoever asks it (SQLAlchemy or the raw writer).
        logger = lambda query: statements.append(query.query)  # noqa: E731
        dbapi_connection.driver_connection.add_query_logger(logger)

    sa.event.listen(store.async_engine.sync_engine, "connect", connected)
    await store.open()
    try:
        assert await store.create_table(new_table(red=HASH_RED, blue=HASH_BLUE))
        statements.clear()
        move = Change(append=MoveRow(0, "a1-b1", "red"), offers={"draw": None})
        assert await store.update("t1", 0, move)
        await asyncio.sleep(0.01)  # the driver calls its query loggers soon, not at once
        assert len(statements) == 1, statements
        assert statements[0].lstrip().startswith("WITH cas AS")
        # Stale: the same version again matches no row, so no move is written.
        again = Change(append=MoveRow(1, "b1-c1", "blue"))
        assert not await store.update("t1", 0, again)
        assert [m.move for m in await store.moves("t1")] == ["a1-b1"]
        row = await store.table("t1")
        assert row is not None and row.version == 1 and row.offers == {"draw": None}
    finally:
        await store.close()


async def test_an_in_memory_database_serves_many_tables_at_once() -> None:
    """``sqlite:///:memory:`` is one connection shared by the worker threads: reads and
    writes of ten tables at once must not trip over each other (they once did:
    ``sqlite3.DatabaseError: another row available``)."""
    store = Store("sqlite:///:memory:")
    await store.open()
    try:
        ids = [f"m{k}" for k in range(10)]
        for table_id in ids:
            assert await store.create_table(new_table(table_id, red=HASH_RED, blue=HASH_BLUE))

        async def play(table_id: str) -> None:
            for ply in range(12):
                row = await store.table(table_id)
                assert row is not None and row.version == ply
                await store.moves(table_id)
                player = "red" if ply % 2 == 0 else "blue"
                change = Change(append=MoveRow(ply, f"x{ply}", player))
                assert await store.update(table_id, ply, change)

        await asyncio.gather(*(play(table_id) for table_id in ids))
        for table_id in ids:
            assert len(await store.moves(table_id)) == 12
    finally:
        await store.close()


async def test_closing_an_in_memory_store_waits_for_the_read_in_flight() -> None:
    """A server shutting down closes its store while the clock sweep's last read may still
    run in a thread (its task cancelled, its thread not). On ``sqlite:///:memory:``, one
    connection shared by the threads, closing it under the read crashed the whole process
    (a segmentation fault in a CI run); the close now waits for the read, which answers."""
    store = Store("sqlite:///:memory:")
    await store.open()
    started = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow_read(conn: sa.Connection) -> int:
        loop.call_soon_threadsafe(started.set)
        time.sleep(0.3)  # the closing comes now
        return int(
            conn.execute(
                sa.select(sa.func.count()).select_from(metadata.tables["tables"])
            ).scalar_one()
        )

    reading = asyncio.ensure_future(store._run(slow_read))
    await started.wait()
    await store.close()
    assert await reading == 0


async def test_a_move_on_sqlite_is_stored_as_sqlalchemy_stores_it(tmp_path: Path) -> None:
    """SQLite's moves skip SQLAlchemy's execution (store/raw_sqlite.py) but keep its types:
    the rows are the same, byte for byte, as a change written through ``Connection``."""
    from datetime import UTC, datetime

    from playtable.store.writes import apply_change

    path = tmp_path / "same.sqlite3"
    store = Store(f"sqlite:///{path}")
    await store.open()
    try:
        at = datetime(2026, 12, 1, 23, 5, 7, 123456, tzinfo=UTC)
        move = MoveRow(0, "a1-b1", "red", at=at, lag_ms=42)
        change = Change(
            append=move, outcome={"winner": "red"}, offers={"draw": "blue"}, deadline=at, at=at
        )
        for table_id in ("raw", "orm"):
            await store.create_table(dataclasses.replace(new_table(table_id), created_at=at))
        assert await store.update("raw", 0, change)
        assert await store._run(apply_change, "orm", 0, change)
        plain = Change(append=MoveRow(1, "b1-c1", "blue", at=at), outcome=None, at=at)
        assert await store.update("raw", 1, plain)
        assert await store._run(apply_change, "orm", 1, plain)
        row = await store.table("raw")
        assert row is not None and row.version == 2 and row.deadline == at
        assert [m.move for m in await store.moves("raw")] == ["a1-b1", "b1-c1"]
    finally:
        await store.close()
    with sqlite3.connect(path) as db:
        for query in (
            "SELECT * FROM tables WHERE id = ?",
            "SELECT * FROM moves WHERE table_id = ? ORDER BY ply",
        ):
            raw = [r[1:] for r in db.execute(query, ("raw",)).fetchall()]
            orm = [r[1:] for r in db.execute(query, ("orm",)).fetchall()]
            assert raw == orm and raw


@pytest.mark.parametrize("memory", [False, True], ids=["file", "memory"])
async def test_sqlite_reads_what_sqlalchemy_reads(tmp_path: Path, memory: bool) -> None:
    """A table's row, seats and moves on SQLite are read on the driver's connections
    (store/raw_read.py) with SQLAlchemy's own conversions: the same values, types and time
    zones as through ``Connection.execute``, for a table with every kind of field set."""
    from datetime import UTC, datetime

    from playtable.store.reads import read_moves, read_table

    store = Store("sqlite:///:memory:" if memory else f"sqlite:///{tmp_path / 'read.sqlite3'}")
    await store.open()
    try:
        at = datetime(2026, 12, 2, 3, 4, 5, 678901, tzinfo=UTC)
        table = dataclasses.replace(
            new_table("full", red=HASH_RED, blue=HASH_BLUE),
            created_at=at,
            options={"grid": "square", "rows": 2, "cols": 3, "misere": True},
        )
        assert await store.create_table(table)
        changes = [
            Change(append=MoveRow(0, "a1-b1", "red", at=at, lag_ms=17), deadline=at, at=at),
            Change(nickname=("blue", "Sinikka ✓"), offers={"draw": "red", "undo": None}),
            Change(
                append=MoveRow(1, "b1-c1", "blue", at=at),
                outcome={"winner": "blue", "reason": "resign", "score": [0, 1]},
                at=at,
            ),
        ]
        for version, change in enumerate(changes):
            assert await store.update("full", version, change)
        assert await store.create_table(new_table("bare"))
        for table_id in ("full", "bare", "missing"):
            raw_row, raw_moves = await store.table(table_id), await store.moves(table_id)
            orm_row = await store._run(read_table, table_id)
            orm_moves = await store._run(read_moves, table_id)
            assert raw_row == orm_row
            assert [(m, m.at, m.lag_ms) for m in raw_moves] == [
                (m, m.at, m.lag_ms) for m in orm_moves
            ]
        row = await store.table("full")
        assert row is not None and row.version == 3 and row.nicknames == {"blue": "Sinikka ✓"}
        assert row.deadline == at and row.deadline.tzinfo is not None
        assert row.outcome == {"winner": "blue", "reason": "resign", "score": [0, 1]}
        moves = await store.moves("full")
        assert [(m.move, m.at, m.lag_ms) for m in moves] == [("a1-b1", at, 17), ("b1-c1", at, 0)]
    finally:
        await store.close()


async def test_reads_in_flight_when_the_store_closes_still_answer(tmp_path: Path) -> None:
    """Reads run in worker threads on connections of their own: closing the store while some
    are running waits for each, and those that come after still read (a closed connection
    under a running read crashed the whole process, found by the service's tests)."""
    store = Store(f"sqlite:///{tmp_path / 'closing.sqlite3'}")
    await store.open()
    assert await store.create_table(new_table(red=HASH_RED, blue=HASH_BLUE))
    reads = [asyncio.create_task(store.table("t1")) for _ in range(300)]
    await asyncio.sleep(0.001)  # some of them under way
    await store.close()
    rows = await asyncio.gather(*reads)
    assert all(
        row is not None and row.seats == {"red": HASH_RED, "blue": HASH_BLUE} for row in rows
    )
