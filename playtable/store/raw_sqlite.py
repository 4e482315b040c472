"""Changes written to SQLite on the driver's connection, without SQLAlchemy's per-statement
work (issue 12: a move's write cost 0.77 ms of CPU through ``Connection.execute``, 0.32 ms
on the plain ``sqlite3`` module, the fsync included).

SQLAlchemy still writes the SQL and converts the values: each statement is compiled once for
the engine's dialect, and its bind processors (datetimes, JSON) are applied to the values, so
a row is stored exactly as ``Connection.execute`` would store it. What is skipped is only the
work done again on every execution: the cache lookup, building the execution context, the
parameter dictionaries and the result object.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

# One change: its compare-and-set (an UPDATE that must match one row) and what it then writes.
Step = tuple[sa.Executable, Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement compiled for the driver: its SQL with ``?`` markers, the name bound at
    each marker and that value's bind processor (``None``: passed as is)."""

    sql: str
    names: tuple[str, ...]
    processors: tuple[Callable[[Any], Any] | None, ...]
    constants: Mapping[str, Any]  # the statement's own literals (the 1 of ``version - 1``)

    @classmethod
    def compile(cls, statement: sa.Executable, dialect: sa.Dialect) -> Prepared:
        compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
        names = tuple(compiled.positiontup or ())
        processors = compiled._bind_processors  # SQLAlchemy's own, as execute applies them
        constants = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}
        return cls(str(compiled), names, tuple(processors.get(n) for n in names), constants)

    def parameters(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """The driver's parameters; a KeyError names a value the statement needs."""
        constants = self.constants
        given = (
            values[n] if n in values or n not in constants else constants[n] for n in self.names
        )
        return tuple(
            value if process is None else process(value)
            for process, value in zip(self.processors, given, strict=True)
        )


class RawWriter:
    """Writes batches of changes in one transaction on a connection of its own (taken from
    the engine's pool, so it has the engine's pragmas: WAL, foreign keys, full fsync).

    Used by one thread at a time (the store queues its writers); ``guard`` is held around
    each transaction, for an in-memory database whose one connection other threads share.
    """

    def __init__(self, engine: Engine, guard: Any) -> None:
        self.engine = engine
        self.guard = guard
        self._prepared: dict[sa.Executable, Prepared] = {}
        self._connection: Any = None
        self._lock = threading.Lock()

    def _prepare(self, statement: sa.Executable) -> Prepared:
        prepared = self._prepared.get(statement)
        if prepared is None:
            prepared = Prepared.compile(statement, self.engine.dialect)
            self._prepared[statement] = prepared
        return prepared

    def write(self, changes: Sequence[Sequence[Step]]) -> list[bool]:
        """Each change's compare-and-set, then, if it matched its row, the change's other
        statements; all committed together. ``False`` for a change whose table had moved on
        (nothing of it written). Any error rolls the whole batch back and is raised."""
        with self._lock, self.guard:
            if self._connection is None:
                self._connection = self.engine.raw_connection()
            db = self._connection.driver_connection
            try:
                results = []
                for steps in changes:
                    (check, check_values), *rest = steps
                    prepared = self._prepare(check)
                    cursor = db.execute(prepared.sql, prepared.parameters(check_values))
                    matched = cursor.rowcount == 1
                    if matched:
                        for statement, values in rest:
                            prepared = self._prepare(statement)
                            db.execute(prepared.sql, prepared.parameters(values))
                    results.append(matched)
                db.commit()
            except BaseException:
                db.rollback()
                raise
            return results

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
