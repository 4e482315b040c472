"""The store's writes: a new table, and a change of one guarded by the compare-and-set on
``tables.version`` (``apply_change``, in one transaction), with the same statements for the raw
writers (``raw_sqlite.py``: ``move_steps``; ``raw_postgres.py``: ``move_statement``)."""

from __future__ import annotations

import functools
import sqlite3
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.store.raw_sqlite import Step
from playtable.store.rows import KEEP, Change, NewTable
from playtable.store.schema import moves, seats, tables


def utc_now() -> datetime:
    return datetime.now(UTC)


class _Conflict(Exception):
    """The data contradict a change that passed its version check: roll it all back."""


# A change the data refuse (a duplicate move's key, a take-back with nothing to drop).
CONTRADICTIONS = (_Conflict, sa.exc.IntegrityError, sqlite3.IntegrityError)


def insert_table(conn: Connection, new: NewTable) -> None:
    now = new.created_at or utc_now()
    conn.execute(
        sa.insert(tables).values(
            id=new.id,
            game=new.game,
            options=dict(new.options),
            created_at=now,
            updated_at=now,
            version=0,
            outcome=None,
            invite_hash=new.invite_hash,
            offers=dict(new.offers),
            rematch_id=None,
            # Only for a clock: a table without one is written as before migration 0004.
            **(
                {"time_control": new.time_control, "deadline": new.deadline}
                if new.time_control != "-"
                else {}
            ),
        )
    )
    for player, token_hash in new.seats.items():
        conn.execute(
            sa.insert(seats).values(
                table_id=new.id,
                player=player,
                token_hash=token_hash,
                created_at=now,
                bot_level=new.bots.get(player),
            )
        )


# Statements built once: building one per move (and its cache key) cost more than running it.
_INSERT_MOVE = moves.insert()


@functools.cache
def _compare_and_set(columns: frozenset[str]) -> sa.Update:
    """``UPDATE tables SET <columns> WHERE id = :id_ AND version = :version_`` (the version
    checked is one less than the new one, ``new_version``)."""
    return (
        sa.update(tables)
        .where(tables.c.id == sa.bindparam("id_"))
        .where(tables.c.version == sa.bindparam("new_version") - 1)
        .values({column: sa.bindparam(f"new_{column}") for column in sorted(columns)})
    )


def one_statement(change: Change) -> bool:
    """Whether ``change`` is a move and nothing else a statement of its own must write."""
    return change.append is not None and (
        change.drop_ply is None
        and change.new_table is None
        and change.rematch_id is KEEP
        and change.seat is None
        and change.nickname is None
        and change.rekey is None
    )


def _table_values(version: int, change: Change, now: datetime) -> dict[str, Any]:
    """The ``tables`` columns ``change`` sets, the new version and its time included."""
    values: dict[str, Any] = {"version": version + 1, "updated_at": now}
    if change.deadline is not KEEP:
        values["deadline"] = change.deadline
    if change.outcome is not KEEP:
        values["outcome"] = change.outcome
        values["finished_at"] = now if change.outcome is not None else None
    if change.offers is not KEEP:
        values["offers"] = change.offers
    return values


def move_statement(table_id: str, version: int, change: Change) -> tuple[sa.Insert, dict[str, Any]]:
    """``WITH cas AS (UPDATE tables ... RETURNING id) INSERT INTO moves SELECT ... FROM cas``
    with its parameters: it inserts the move only if the compare-and-set matched a row."""
    assert change.append is not None
    now = change.at or utc_now()
    values = _table_values(version, change, now)
    params = {f"new_{column}": value for column, value in values.items()}
    move = change.append
    params.update(
        id_=table_id,
        m_ply=move.ply,
        m_move=move.move,
        m_player=move.player,
        m_at=move.at or now,
    )
    if move.lag_ms:
        params["m_lag"] = move.lag_ms
    return _cas_insert_move(frozenset(values), bool(move.lag_ms)), params


def move_steps(table_id: str, version: int, change: Change) -> list[Step]:
    """A move's compare-and-set and its row as two statements, for the driver's connection
    (``raw_sqlite.RawWriter``): the same rows as ``apply_change`` writes."""
    assert change.append is not None
    now = change.at or utc_now()
    values = _table_values(version, change, now)
    check = {f"new_{column}": value for column, value in values.items()}
    check["id_"] = table_id
    move = change.append
    row = {
        "m_table": table_id,
        "m_ply": move.ply,
        "m_move": move.move,
        "m_player": move.player,
        "m_at": move.at or now,
    }
    if move.lag_ms:
        row["m_lag"] = move.lag_ms
    return [(_compare_and_set(frozenset(values)), check), (_insert_move(bool(move.lag_ms)), row)]


@functools.cache
def _insert_move(lag: bool) -> sa.Insert:
    """The move's row with named parameters (the lag's column only when there is a lag)."""
    names = [("m_table", "table_id"), ("m_ply", "ply"), ("m_move", "move")]
    names += [("m_player", "player"), ("m_at", "created_at"), *([("m_lag", "lag_ms")] * lag)]
    return sa.insert(moves).values(
        {column: sa.bindparam(name, type_=moves.c[column].type) for name, column in names}
    )


@functools.cache
def _cas_insert_move(columns: frozenset[str], lag: bool) -> sa.Insert:
    # Without a lag the column is left out, as the plain insert does (a database still at
    # an older schema, being upgraded while in use, has no such column yet).
    cas = _compare_and_set(columns).returning(tables.c.id).cte("cas")
    fields = [cas.c.id] + [
        sa.bindparam(name, type_=moves.c[column].type)
        for name, column in [
            ("m_ply", "ply"),
            ("m_move", "move"),
            ("m_player", "player"),
            ("m_at", "created_at"),
            *([("m_lag", "lag_ms")] if lag else []),
        ]
    ]
    columns_of_row = ["table_id", "ply", "move", "player", "created_at"]
    return sa.insert(moves).from_select(columns_of_row + ["lag_ms"] * lag, sa.select(*fields))


def apply_changes(conn: Connection, batch: list[tuple[str, int, Change]]) -> list[bool]:
    return [apply_change(conn, table_id, version, change) for table_id, version, change in batch]


def apply_change(conn: Connection, table_id: str, version: int, change: Change) -> bool:
    """One change inside an open transaction; ``False``, having written nothing, if stale.

    The compare-and-set comes first, so a stale change stops before writing anything (and
    SQLite takes its write lock at once rather than failing to upgrade a read lock). Any
    failure after it means the data contradict themselves and must abort the transaction.
    """
    now = change.at or utc_now()
    values = _table_values(version, change, now)
    params = {f"new_{column}": value for column, value in values.items()}
    result = conn.execute(_compare_and_set(frozenset(values)), {"id_": table_id, **params})
    if result.rowcount != 1:
        return False
    if change.new_table is not None:
        insert_table(conn, change.new_table)
    if change.rematch_id is not KEEP:
        # After the insert: the foreign key wants the new table to exist already.
        conn.execute(
            sa.update(tables).where(tables.c.id == table_id).values(rematch_id=change.rematch_id)
        )
    if change.drop_ply is not None:
        dropped = conn.execute(
            sa.delete(moves).where(moves.c.table_id == table_id, moves.c.ply >= change.drop_ply)
        )
        if dropped.rowcount < 1:
            raise _Conflict
    if change.append is not None:
        lag = {"lag_ms": change.append.lag_ms} if change.append.lag_ms else {}
        row = {
            "table_id": table_id,
            "ply": change.append.ply,
            "move": change.append.move,
            "player": change.append.player,
            "created_at": change.append.at or now,
            **lag,
        }
        conn.execute(_INSERT_MOVE, row)
    if change.seat is not None:
        player, token_hash = change.seat
        conn.execute(
            sa.insert(seats).values(
                table_id=table_id, player=player, token_hash=token_hash, created_at=now
            )
        )
    if change.rekey is not None:
        player, token_hash = change.rekey
        rekeyed = conn.execute(
            sa.update(seats)
            .where(seats.c.table_id == table_id, seats.c.player == player)
            .values(token_hash=token_hash)
        )
        if rekeyed.rowcount != 1:
            raise _Conflict
    if change.nickname is not None:
        player, nickname = change.nickname
        named = conn.execute(
            sa.update(seats)
            .where(seats.c.table_id == table_id, seats.c.player == player)
            .values(nickname=nickname)
        )
        if named.rowcount != 1:
            raise _Conflict
    return True
