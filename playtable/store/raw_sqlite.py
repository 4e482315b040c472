"""Changes written to SQLite on the driver's connection, without SQLAlchemy's per-statement
work (issue 12: a move's write cost 0.77 ms of CPU through ``Connection.execute``, 0.32 ms
on the plain ``sqlite3`` module, the fsync included).

SQLAlchemy still writes the SQL and converts the values (``store/prepared.py``): a row is
stored exactly as ``Connection.execute`` would store it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from playtable.store.prepared import Compiled
from playtable.store.sqlite_file import SqliteFile

# One change: its compare-and-set (an UPDATE that must match one row) and what it then writes.
Step = tuple[sa.Executable, Mapping[str, Any]]


class RawWriter:
    """Writes batches of changes in one transaction on a connection of its own (taken from
    the engine's pool, so it has the engine's pragmas: WAL, foreign keys, full fsync).

    Used by one thread at a time (the store queues its writers); ``guard`` is held around
    each transaction, for an in-memory database whose one connection other threads share.
    """

    def __init__(self, engine: Engine, guard: Any, file: SqliteFile | None = None) -> None:
        self.engine = engine
        self.guard = guard
        self.file = file  # checked before each commit (sqlite_file.py)
        self._prepare = Compiled(engine.dialect)
        self._connection: Any = None
        self._lock = threading.Lock()

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
                if self.file is not None:
                    self.file.check()
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
