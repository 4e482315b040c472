"""Reads from SQLite on the driver's connections, without SQLAlchemy's per-execution work.

A table's row and seats read through ``Connection.execute`` in a transaction cost 0.85 ms of
CPU, and every socket's handshake, every ``join`` and every page of a table makes one: under
a flood of joins that was the server's main work (issue 17). The same two SELECTs on the plain
``sqlite3`` module cost a tenth of it.

As for the writes (:mod:`playtable.store.raw_sqlite`), SQLAlchemy still writes the SQL and
converts the values: each statement is compiled once for the engine's dialect, its bind
processors are applied to the parameters and each column's result processor (JSON, times) to
what comes back, so a row reads exactly as ``Connection.execute`` would read it. Each thread
that reads has a driver connection of its own, taken once from the engine's pool (so with its
pragmas), used outside any transaction: each statement sees the last commit, which is all a
reader of the store needs (``Store._read`` says why).
"""

from __future__ import annotations

import threading
from collections import namedtuple
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine


@dataclass(frozen=True, slots=True)
class Query:
    """A SELECT compiled for the driver: its SQL, the name and bind processor of each ``?``,
    and the row type and result processor of each column."""

    sql: str
    names: tuple[str, ...]
    binds: tuple[Callable[[Any], Any] | None, ...]
    row: Callable[[Any], Any]  # a namedtuple's _make: rows read by column name
    results: tuple[Callable[[Any], Any] | None, ...]

    @classmethod
    def compile(cls, statement: sa.Select[Any], dialect: sa.Dialect) -> Query:
        compiled = statement.compile(dialect=dialect)
        names = tuple(compiled.positiontup or ())
        binds: Mapping[str, Any] = compiled._bind_processors  # SQLAlchemy's, as execute's
        columns = list(statement.selected_columns)
        results = tuple(column.type._cached_result_processor(dialect, None) for column in columns)
        row = namedtuple("Row", [column.key for column in columns])  # type: ignore[misc]
        return cls(str(compiled), names, tuple(binds.get(n) for n in names), row._make, results)

    def parameters(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(
            values[name] if process is None else process(values[name])
            for name, process in zip(self.names, self.binds, strict=True)
        )


class _Own:
    """A reading thread's driver connection, and the lock held while it reads."""

    def __init__(self, connection: Any) -> None:
        self.lock = threading.Lock()
        self.connection = connection
        self.closed = False


class RawReader:
    """Runs compiled SELECTs on one driver connection per reading thread.

    ``guard`` is held around each statement: for an in-memory database the pool hands every
    thread the same connection, which two threads must never use at once. :meth:`close`
    waits for each connection's read in progress before closing it (a read still running in
    a worker thread when the store closes must not find its connection closed under it: the
    ``sqlite3`` module crashes the process), and a read after it uses a connection of its own.
    """

    def __init__(self, engine: Engine, guard: Any) -> None:
        self.engine = engine
        self.guard = guard
        self._queries: dict[sa.Select[Any], Query] = {}
        self._local = threading.local()
        self._opened: list[_Own] = []  # every thread's, to close them all
        self._lock = threading.Lock()
        self._closed = False

    def _query(self, statement: sa.Select[Any]) -> Query:
        query = self._queries.get(statement)
        if query is None:
            query = Query.compile(statement, self.engine.dialect)
            self._queries[statement] = query
        return query

    def _own(self) -> _Own | None:
        """This thread's connection; ``None`` once the reader is closed."""
        own: _Own | None = getattr(self._local, "own", None)
        if own is None:
            with self._lock:
                if self._closed:
                    return None
                own = _Own(self.engine.raw_connection())
                self._opened.append(own)
            self._local.own = own
        return own

    def rows(self, statement: sa.Select[Any], values: Mapping[str, Any]) -> list[Any]:
        """The rows of ``statement`` (built once, its values given as bind parameters), each
        with its columns by name, converted as SQLAlchemy converts them."""
        query = self._query(statement)
        parameters = query.parameters(values)
        raw: list[Any] | None = None
        with self.guard:
            own = self._own()
            if own is not None:
                with own.lock:
                    if not own.closed:
                        db: Any = own.connection.driver_connection
                        raw = db.execute(query.sql, parameters).fetchall()
            if raw is None:  # a read after close: on a connection of its own
                connection = self.engine.raw_connection()
                try:
                    db = connection.driver_connection
                    raw = db.execute(query.sql, parameters).fetchall()
                finally:
                    connection.close()
        make, results = query.row, query.results
        return [
            make([v if p is None else p(v) for p, v in zip(results, r, strict=True)]) for r in raw
        ]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            opened, self._opened = self._opened, []
        for own in opened:
            with own.lock:  # after the read in progress on it, if any
                own.closed = True
                own.connection.close()


__all__ = ["Query", "RawReader"]
