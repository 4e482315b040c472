"""Which failures of the store mean "the database is away" rather than a bug of ours.

A request that fails because the database cannot be reached, does not answer in time, or
its file is gone (:mod:`playtable.store.sqlite_file`) is told so in words a player can act
on ("try again in a moment"), and logged in one line: the heartbeat and the sweep already
say when such an outage begins and ends. Anything else stays an internal error, logged with
its traceback.
"""

from __future__ import annotations

import sqlite3

import asyncpg
import sqlalchemy as sa

from playtable.store.sqlite_file import DatabaseFileGone

#: The driver errors of a database away: refused or lost connections, a statement timed
#: out or cancelled, the server shutting down or out of connections; SQLite's file not
#: there, locked past the busy timeout, or the disk full.
_AWAY: tuple[type[BaseException], ...] = (
    DatabaseFileGone,
    OSError,  # ConnectionRefusedError, ConnectionResetError, ...
    TimeoutError,
    sqlite3.OperationalError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,  # the connection is closed or was lost mid-statement
    asyncpg.exceptions.OperatorInterventionError,  # cancelled, shutting down, not yet up
    asyncpg.exceptions.InsufficientResourcesError,  # too many connections, disk full
    # "database ... is not currently accepting connections" (ALLOW_CONNECTIONS false)
    asyncpg.exceptions.ObjectNotInPrerequisiteStateError,
    asyncpg.exceptions.InvalidCatalogNameError,  # the database is not there (dropped)
    sa.exc.TimeoutError,  # no pooled connection came free in time
)


def database_away(error: BaseException) -> bool:
    """Whether ``error`` says the database is away (see the module's text)."""
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 8:  # the error, and what it wraps
        if isinstance(current, _AWAY):
            return True
        if isinstance(current, sa.exc.DBAPIError):
            if current.connection_invalidated or isinstance(current, sa.exc.OperationalError):
                return True
            current = current.orig
        else:
            current = current.__cause__
        seen += 1
    return False


__all__ = ["database_away"]
