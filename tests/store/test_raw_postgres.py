"""Moves on PostgreSQL's driver connections (raw_postgres.py), against a real PostgreSQL:
a connection the server cuts costs at most the one write it carried, the engine's pool does
not leak the connections the writer drops, and a duplicate move is refused, not an error."""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
import sqlalchemy as sa

from playtable.store import Change, MoveRow, NewTable, Store
from playtable.store.failures import database_away

pytestmark = pytest.mark.anyio


def _table() -> NewTable:
    return NewTable(
        id="t1", game="dots", options={"rows": 2}, invite_hash="c" * 64, seats={"red": "a" * 64}
    )


def _move(ply: int) -> Change:
    return Change(append=MoveRow(ply, f"m{ply}", "red" if ply % 2 == 0 else "blue"))


async def _cut_every_session(postgres_url: str) -> int:
    """What a database restart does to a process's sessions: every one of them is gone."""
    url = sa.make_url(postgres_url).set(drivername="postgresql")
    admin = await asyncpg.connect(url.render_as_string(hide_password=False))
    try:
        cut: int = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()
    return cut


async def test_a_cut_connection_fails_one_write_and_the_next_ones_are_stored(
    postgres_url: str,
) -> None:
    store = Store(postgres_url)
    await store.open()
    try:
        assert await store.create_table(_table())
        version = 0
        for ply in range(3):
            assert await store.update("t1", version, _move(ply))
            version += 1
        assert await _cut_every_session(postgres_url) >= 1
        # The first write after the cut may fail (its connection was dead): it is not stored,
        # and the player would be told to try again. The next one gets a fresh connection.
        outcomes = []
        for _ in range(5):
            try:
                stored = await store.update("t1", version, _move(version))
            except Exception:
                outcomes.append("failed")
                continue
            assert stored
            outcomes.append("stored")
            version += 1
        assert outcomes.count("failed") <= 1, outcomes
        assert outcomes[-1] == "stored"
        stored_moves = [m.move for m in await store.moves("t1")]
        assert stored_moves == [f"m{ply}" for ply in range(version)]
        row = await store.table("t1")
        assert row is not None and row.version == version
    finally:
        await store.close()


async def test_dropped_connections_go_back_to_the_pool(postgres_url: str) -> None:
    """Cut again and again: each dropped connection must leave the engine's pool, or after
    a few dozen cuts every request of the process would wait for a connection forever
    (unless the collector happens to find it: SQLAlchemy then warns)."""
    store = Store(postgres_url)
    await store.open()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await _play_through_cuts(store, postgres_url)
    leaked = [w for w in caught if "non-checked-in connection" in str(w.message)]
    assert not leaked, leaked[0].message


async def _play_through_cuts(store: Store, postgres_url: str) -> None:
    try:
        assert await store.create_table(_table())
        assert store.async_engine is not None
        pool = store.async_engine.sync_engine.pool
        version = 0
        for ply in range(50):  # more cuts than the pool's size and overflow together
            if ply % 2 == 1:
                await _cut_every_session(postgres_url)
            try:
                if await store.update("t1", version, _move(version)):
                    version += 1
            except Exception:
                pass
        assert version >= 25
        assert pool.checkedout() <= 4, pool.status()  # the writer's own, at most
        # And the rest of the store still gets connections from the pool.
        row = await store.table("t1")
        assert row is not None and row.version == version
    finally:
        await store.close()


async def test_a_move_the_data_refuse_is_not_stored_and_is_no_error(postgres_url: str) -> None:
    store = Store(postgres_url)
    await store.open()
    try:
        assert await store.create_table(_table())
        assert await store.update("t1", 0, _move(0))
        # The same ply again at the right version: the moves' key refuses it.
        assert not await store.update("t1", 1, _move(0))
        assert [m.move for m in await store.moves("t1")] == ["m0"]
        assert await store.update("t1", 1, _move(1))  # and the connection still works
    finally:
        await store.close()


async def test_moves_of_many_tables_at_once_are_all_stored(postgres_url: str) -> None:
    """More writes at once than the writer keeps connections: they take turns, none is lost,
    and the engine's pool lends no more than the writer's own."""
    store = Store(postgres_url)
    await store.open()
    try:
        ids = [f"t{k}" for k in range(24)]
        for table_id in ids:
            table = _table()
            assert await store.create_table(
                NewTable(table_id, table.game, table.options, table.invite_hash, table.seats)
            )
        for ply in range(5):
            stored = await asyncio.gather(
                *(store.update(table_id, ply, _move(ply)) for table_id in ids)
            )
            assert all(stored)
        assert store.async_engine is not None
        assert store.async_engine.sync_engine.pool.checkedout() <= 4
        for table_id in ids:
            assert [m.move for m in await store.moves(table_id)] == [f"m{p}" for p in range(5)]
    finally:
        await store.close()


async def test_a_write_cancelled_midway_leaves_the_writer_working(postgres_url: str) -> None:
    """A cancelled write may or may not have reached the database; its connection, in an
    unknown state, is never used again, and the next writes are stored. Cancelled after 0 to
    7 turns of the loop: before it is sent, while it is on the way, after it is answered."""
    store = Store(postgres_url)
    await store.open()
    try:
        got_through = set()
        for turns in range(8):
            table = _table()
            table_id = f"c{turns}"
            new = NewTable(table_id, table.game, table.options, table.invite_hash, table.seats)
            assert await store.create_table(new)
            assert await store.update(table_id, 0, _move(0))
            write = asyncio.ensure_future(store.update(table_id, 1, _move(1)))
            for _ in range(turns):
                await asyncio.sleep(0)
            write.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await write
            # The cancelled statement may still commit after this read: the server runs what
            # it was sent even though its connection is dropped. Then the next write, made
            # against the version read, is refused as stale, as a mover's would be, and made
            # again against the new one.
            for _ in range(50):
                row = await store.table(table_id)
                assert row is not None
                version = row.version  # 1 or 2: whether the cancelled write got through
                if await store.update(table_id, version, _move(version)):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("no write was stored after the cancelled one")
            got_through.add(version == 2)
            moves = [m.move for m in await store.moves(table_id)]
            assert moves == [f"m{p}" for p in range(version + 1)]
        assert store.async_engine is not None
        assert store.async_engine.sync_engine.pool.checkedout() <= 4
        assert False in got_through  # the early cancellations wrote nothing
    finally:
        await store.close()


async def test_after_a_database_restart_nothing_fails(postgres_url: str) -> None:
    """A restart of PostgreSQL (every session cut) while the site is idle: the next table
    created, read or played on must not fail. Before, the pool handed out its dead
    connections one after the other, and each failed one request (a 500, a move refused)."""
    store = Store(postgres_url)
    await store.open()
    try:
        for round_ in range(3):
            # Several connections in the pool, as a busy process has.
            await asyncio.gather(*(store.table("t1") for _ in range(6)))
            if round_ == 0:
                assert await store.create_table(_table())
            assert await _cut_every_session(postgres_url) >= 1
            await asyncio.sleep(0.2)  # the cut sessions' ends reach the process
            new = NewTable(
                id=f"n{round_}",
                game="dots",
                options={"rows": 2},
                invite_hash="d" * 64,
                seats={"red": "e" * 64},
            )
            assert await store.create_table(new)
            for _ in range(6):
                assert await store.table("t1") is not None
            assert await store.update("t1", round_, _move(round_))
            assert len(await store.moves("t1")) == round_ + 1
    finally:
        await store.close()


class StallingProxy:
    """A TCP proxy to PostgreSQL that can stall: while stalled it forwards nothing either
    way, as a frozen database host or a hung network does (connections stay open)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.stalled = asyncio.Event()
        # The process stops after it sent a statement holding this text, and the request
        # that runs it (asyncpg prepares first): see :meth:`freeze_after`.
        self.freeze_marker: bytes | None = None
        self.marker_seen = False
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)

        async def pipe(
            source: asyncio.StreamReader, sink: asyncio.StreamWriter, requests: bool = False
        ) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await source.read(65536):
                    while self.stalled.is_set():
                        await asyncio.sleep(0.05)
                    sink.write(data)
                    await sink.drain()
                    if requests and self.freeze_marker is not None:
                        if self.marker_seen:
                            self.stalled.set()  # the statement is running: stop here
                        self.marker_seen = self.freeze_marker in data
            sink.close()

        await asyncio.gather(
            pipe(reader, upstream_writer, requests=True), pipe(upstream_reader, writer)
        )

    def freeze_after(self, marker: bytes) -> None:
        """Stall both ways once a statement holding ``marker`` has been sent to run: as a
        process stopped (SIGSTOP) just after it, whatever it meant to send next."""
        self.freeze_marker, self.marker_seen = marker, False

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()


async def test_a_stalled_database_fails_a_move_in_seconds_not_never(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PostgreSQL that stopped answering (SIGSTOPped behind a proxy in an operator's
    review) left a move without any answer for over 75 s, and nothing in the log: the page
    said 'Sending…' for as long. Each statement now has PLAYTABLE_DB_TIMEOUT."""
    monkeypatch.setenv("PLAYTABLE_DB_TIMEOUT", "1")
    url = sa.make_url(postgres_url)
    proxy = StallingProxy((url.host or "127.0.0.1", url.port or 5432))
    await proxy.start()
    store = Store(url.set(port=proxy.port).render_as_string(hide_password=False))
    await store.open()
    try:
        assert await store.create_table(_table())
        assert await store.update("t1", 0, _move(0))
        proxy.stalled.set()
        started = asyncio.get_running_loop().time()
        with pytest.raises(Exception) as failed:
            await asyncio.wait_for(store.update("t1", 1, _move(1)), 30)
        # Seconds, not never: the statement's second, and the driver's cancel of it, which
        # goes through the stalled proxy too (before: the 30 s of this test's own bound).
        assert asyncio.get_running_loop().time() - started < 10, failed.value
        assert database_away(failed.value), failed.value  # told as such, not 'internal'
        proxy.stalled.clear()
        # The timed-out statement may still commit once the proxy lets it through, so the
        # next move is asked at whatever length the table has when it is read.
        for _ in range(50):
            stored = len(await store.moves("t1"))
            if await store.update("t1", stored, _move(stored)):
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the store never took a move again after the database came back")
    finally:
        proxy.stalled.clear()
        await store.close()
        await proxy.close()


async def test_a_process_stopped_in_its_heartbeat_holds_no_other_process_back(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: a server process stopped (SIGSTOP) in the middle of its heartbeat kept the
    heartbeat's row locked; every other process's beat waited behind it, and the first beat
    after it found the heartbeat 20 s old and recorded an outage while moves were being
    served. Here the stopped process is one whose database answers never come back: its
    beat reached the database, and the others beat on at once."""
    monkeypatch.setenv("PLAYTABLE_DB_TIMEOUT", "2")
    url = sa.make_url(postgres_url)
    proxy = StallingProxy((url.host or "127.0.0.1", url.port or 5432))
    await proxy.start()
    stopped = Store(url.set(port=proxy.port).render_as_string(hide_password=False))
    running = Store(postgres_url)
    await stopped.open()
    await running.open()
    now = datetime.now(UTC)
    beating: asyncio.Task[object] | None = None
    try:
        assert await running.beat(now, 6.0) is None
        assert await stopped.outages() == []  # its connection is open
        proxy.freeze_after(b"FOR UPDATE")
        beating = asyncio.create_task(stopped.beat(now + timedelta(seconds=1), 6.0))
        for _ in range(50):
            await asyncio.sleep(0.05)
            if proxy.stalled.is_set():
                break
        assert proxy.stalled.is_set()  # stopped in its beat
        for second in (2, 4, 6, 8, 10):
            beat = running.beat(now + timedelta(seconds=second), 6.0)
            assert await asyncio.wait_for(beat, 5) is None
        assert await running.outages() == []
    finally:
        proxy.stalled.clear()
        if beating is not None:
            with contextlib.suppress(Exception):
                await beating
        await stopped.close()
        await running.close()
        await proxy.close()
