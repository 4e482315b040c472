"""Statements SQLAlchemy compiled, run on a driver's own connection (issue 12): the SQL, the
order of its parameters and SQLAlchemy's bind processors, so that a value is stored exactly as
``Connection.execute`` would store it, without its per-execution work (the cache lookup, the
execution context, the parameter dictionaries, the result object).

Used by the raw writers of SQLite (``raw_sqlite.py``) and PostgreSQL (``raw_postgres.py``) and
the raw reads (``raw_read.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa


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


class Compiled:
    """Each statement compiled once for ``dialect``: ``compiled(statement)``."""

    def __init__(self, dialect: sa.Dialect) -> None:
        self.dialect = dialect
        self._done: dict[sa.Executable, Prepared] = {}

    def __call__(self, statement: sa.Executable) -> Prepared:
        prepared = self._done.get(statement)
        if prepared is None:
            prepared = Prepared.compile(statement, self.dialect)
            self._done[statement] = prepared
        return prepared


__all__ = ["Compiled", "Prepared"]
