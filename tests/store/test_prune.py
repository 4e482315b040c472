"""`playtable db prune`: the tables nobody played go after a while; every game with a move,
every result and every rematch a finished game links to stays (store/prune.py), on SQLite
and PostgreSQL."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from playtable.store import Change, MoveRow, NewTable, Store
from playtable.store.prune import BATCH
from playtable.store.schema import analysis_values, seats, tables

NOW = datetime.now(UTC)
OLD = NOW - timedelta(days=40)


def new_table(table_id: str) -> NewTable:
    return NewTable(
        id=table_id, game="dots", options={"rows": 2}, invite_hash="c" * 64, seats={"red": "a" * 64}
    )


async def created(store: Store, table_id: str, at: datetime, *changes: Change) -> None:
    assert await store.create_table(new_table(table_id))
    for version, change in enumerate(changes):
        assert await store.update(table_id, version, change)

    def age(conn: sa.Connection) -> None:
        conn.execute(sa.update(tables).where(tables.c.id == table_id).values(created_at=at))

    await store._run(age)


def seat_rows(conn: sa.Connection) -> set[str]:
    return {row[0] for row in conn.execute(sa.select(seats.c.table_id))}


@pytest.mark.anyio
async def test_only_old_tables_nobody_played_are_removed(store: Store) -> None:
    move = MoveRow(0, "a1-b1", "red")
    await created(store, "unplayed", OLD)
    await created(store, "new", NOW - timedelta(days=2))
    await created(store, "played", OLD, Change(append=move))
    await created(store, "aborted", OLD, Change(outcome={"winner": None, "reason": "aborted"}))
    await created(store, "resigned", OLD, Change(outcome={"winner": "blue", "reason": "resigned"}))
    # a finished game's rematch, never played: the game's page links to it
    await created(
        store,
        "finished",
        OLD,
        Change(append=move, outcome={"winner": "red", "reason": "resigned"}),
        Change(rematch_id="rematch", new_table=new_table("rematch")),
    )
    await store._run(
        lambda conn: conn.execute(
            sa.update(tables).where(tables.c.id == "rematch").values(created_at=OLD)
        )
    )
    await store.save_analysis_values("unplayed", [], {0: 1})  # goes with its table

    before = NOW - timedelta(days=30)
    assert sorted(await store.remove_unplayed(before, dry_run=True)) == ["aborted", "unplayed"]
    assert await store.table("unplayed") is not None  # a dry run removes nothing

    assert sorted(await store.remove_unplayed(before)) == ["aborted", "unplayed"]
    for gone in ("unplayed", "aborted"):
        assert await store.table(gone) is None
    for kept in ("new", "played", "resigned", "finished", "rematch"):
        assert await store.table(kept) is not None, kept
    assert [m.move for m in await store.moves("played")] == ["a1-b1"]
    seat_rows_of = await store._run(seat_rows)
    assert "unplayed" not in seat_rows_of and "played" in seat_rows_of
    analysis = await store._run(
        lambda conn: conn.execute(sa.select(sa.func.count()).select_from(analysis_values)).scalar()
    )
    assert analysis == 0
    assert await store.remove_unplayed(before) == []  # nothing left to remove


@pytest.mark.anyio
async def test_many_unplayed_tables_are_removed_batch_after_batch(store: Store) -> None:
    for k in range(BATCH + 3):
        assert await store.create_table(new_table(f"t{k}"))
    await store._run(lambda conn: conn.execute(sa.update(tables).values(created_at=OLD)))
    removed = await store.remove_unplayed(NOW - timedelta(days=30))
    assert len(removed) == BATCH + 3


def test_the_command_says_what_it_removed(tmp_path: Path) -> None:
    database = tmp_path / "site.sqlite3"
    url = f"sqlite:///{database}"

    def playtable(*words: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "playtable.cli", *words, "--database-url", url]
        return subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
        )

    assert playtable("db", "upgrade").returncode == 0
    with sqlite3.connect(database) as conn:
        old = (NOW - timedelta(days=45)).strftime("%Y-%m-%d %H:%M:%S.%f")
        for table_id in ("gone1", "gone2"):
            conn.execute(
                "INSERT INTO tables (id, game, options, created_at, updated_at, version,"
                " invite_hash, offers) VALUES (?, 'dots', '{}', ?, ?, 0, 'c', '{}')",
                (table_id, old, old),
            )
    dry = playtable("db", "prune", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith("would remove 2 table(s) nobody played"), dry.stdout
    kept = playtable("db", "prune", "--days", "60")
    assert kept.stdout.startswith("removed 0 table(s)"), kept.stdout
    result = playtable("db", "prune")
    assert result.stdout.startswith("removed 2 table(s) nobody played"), result.stdout
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT count(*) FROM tables").fetchone() == (0,)
    refused = playtable("db", "prune", "--days", "0")
    assert refused.returncode == 2 and "must be 1 to 36500" in refused.stderr


def test_the_command_says_in_one_line_that_the_database_cannot_be_used(tmp_path: Path) -> None:
    from tests.nodes import free_port

    url = f"postgresql://app:hunter2@127.0.0.1:{free_port()}/playtable"
    command = [sys.executable, "-m", "playtable.cli", "db", "prune", "--database-url", url]
    result = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2
    assert result.stderr.startswith("playtable: the database at"), result.stderr
    assert "cannot be used" in result.stderr and "hunter2" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
