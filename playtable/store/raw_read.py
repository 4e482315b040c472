"""Reads from SQLite on the driver's connections, without SQLAlchemy's per-execution work.

A table's row and seats read through ``Connection.execute`` in a transaction cost 0.85 ms of
CPU, and every socket's handshake, every ``join`` and every page of a table makes one: under
a flood of joins that was the server's main work (issue 17). The same two SELECTs on the plain
``sqlite3`` module cost a tenth of it.

As for the writes (:mod:`playtable.store.raw_sqlite`), SQLAlchemy still writes the SQL and
converts the values: each statement is compiled once for the engine's dialect, its bind
processors are applied to the parameters and each column's result processor (JSON, times) to
what comes back, so a row reads exactly as ``Connection.execute`` would read it. The store
reads from one thread of its own (``store/worker.py``), on one driver connection taken once
from the engine's pool (so with its pragmas) and used outside any transaction: each statement
sees the last commit, which is all a reader of the store needs (``Store._read`` says why).
"""

from __future__ import annotations

import threading
from collections import namedtuple
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from playtable.store.prepared import Prepared


@dataclass(frozen=True, slots=True)
class Query:
    """A SELECT compiled for the driver (:class:`Prepared`: its SQL and bound values), with
    the row type and result processor of each column."""

    prepared: Prepared
    row: Callable[[Any], Any]  # a namedtuple's _make: rows read by column name
    results: tuple[Callable[[Any], Any] | None, ...]

    @classmethod
    def compile(cls, statement: sa.Select[Any], dialect: sa.Dialect) -> Query:
        columns = list(statement.selected_columns)
        results = tuple(column.type._cached_result_processor(dialect, None) for column in columns)
        row = namedtuple("Row", [column.key for column in columns])  # type: ignore[misc]
        return cls(Prepared.compile(statement, dialect), row._make, results)


class RawReader:
    """Runs compiled SELECTs on a driver connection of its own.

    ``guard`` is held around each statement: for an in-memory database the pool hands every
    connection out as the same one, which two threads must never use at once. :meth:`close`
    waits for the read in progress before closing the connection (a read still running in a
    worker thread when the store closes must not find its connection closed under it: the
    ``sqlite3`` module crashes the process), and a read after it uses a connection of its own.
    """

    def __init__(self, engine: Engine, guard: Any) -> None:
        self.engine = engine
        self.guard = guard
        self._queries: dict[sa.Select[Any], Query] = {}
        self._connection: Any = None
        self._lock = threading.Lock()  # held while reading, and to close
        self._closed = False

    def _query(self, statement: sa.Select[Any]) -> Query:
        query = self._queries.get(statement)
        if query is None:
            query = Query.compile(statement, self.engine.dialect)
            self._queries[statement] = query
        return query

    def rows(self, statement: sa.Select[Any], values: Mapping[str, Any]) -> list[Any]:
        """The rows of ``statement`` (built once, its values given as bind parameters), each
        with its columns by name, converted as SQLAlchemy converts them."""
        query = self._query(statement)
        sql, parameters = query.prepared.sql, query.prepared.parameters(values)
        with self.guard, self._lock:
            if self._closed:  # a read after close: on a connection of its own
                connection = self.engine.raw_connection()
                try:
                    db: Any = connection.driver_connection
                    raw = db.execute(sql, parameters).fetchall()
                finally:
                    connection.close()
            else:
                if self._connection is None:
                    self._connection = self.engine.raw_connection()
                raw = self._connection.driver_connection.execute(sql, parameters).fetchall()
        make, results = query.row, query.results
        return [
            make([v if p is None else p(v) for p, v in zip(results, r, strict=True)]) for r in raw
        ]

    def close(self) -> None:
        with self._lock:  # after the read in progress, if any
            self._closed = True
            if self._connection is not None:
                self._connection.close()
                self._connection = None


__all__ = ["Query", "RawReader"]
