"""Which failures of the store mean "the database is away" rather than a bug of ours.

A request that fails because the database cannot be reached, does not answer in time, or
its file is gone (:mod:`playtable.store.sqlite_file`) is told so in words a player can act
on ("try again in a moment"), and logged in one line: the heartbeat and the sweep already
say when such an outage begins and ends. Anything else stays an internal error, logged with
its traceback.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable

import asyncpg
import sqlalchemy as sa

from playtable.store.sqlite_file import DatabaseFileGone

#: The driver errors of a database away: refused or lost connections, a statement timed
#: out or cancelled, the server shutting down, out of connections or read-only (a standby
#: after a failover). Not a programming error of ours wrapped in a driver's class: a missing
#: table, a wrong parameter, two operations at once on one connection stay internal errors.
_AWAY: tuple[type[BaseException], ...] = (
    DatabaseFileGone,
    OSError,  # ConnectionRefusedError, ConnectionResetError, a file not to be opened, ...
    TimeoutError,
    asyncpg.PostgresConnectionError,  # the connection failed, or does not exist any more
    asyncpg.exceptions.OperatorInterventionError,  # cancelled, shutting down, not yet up
    asyncpg.exceptions.InsufficientResourcesError,  # too many connections, disk full
    asyncpg.exceptions.ReadOnlySQLTransactionError,
    asyncpg.exceptions.InvalidCatalogNameError,  # the database is not there (dropped)
    sa.exc.TimeoutError,  # no pooled connection came free in time
)

#: SQLite's result codes of a database away: busy or locked past the busy timeout, the disk
#: failing or full, the file not to be opened or read-only.
_SQLITE_AWAY = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN")


def _away(error: BaseException) -> bool:
    if isinstance(error, _AWAY):
        return True
    if isinstance(error, sqlite3.OperationalError):
        name = getattr(error, "sqlite_errorname", "") or ""
        return name.startswith(_SQLITE_AWAY) or name.startswith("SQLITE_READONLY")
    if isinstance(error, asyncpg.InterfaceError):
        return "closed" in str(error)  # "connection is closed", not a misuse of ours
    # "database ... is not currently accepting connections" (ALLOW_CONNECTIONS false), and
    # not its subclasses (a lock not available is a request's, not the database's)
    return type(error) is asyncpg.exceptions.ObjectNotInPrerequisiteStateError


def database_away(error: BaseException) -> bool:
    """Whether ``error`` says the database is away (see the module's text)."""
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 8:  # the error, and what it wraps
        if _away(current):
            return True
        if isinstance(current, sa.exc.DBAPIError):
            if current.connection_invalidated:
                return True
            current = current.orig
        else:
            current = current.__cause__
        seen += 1
    return False


class RefusalLog:
    """Logs the requests refused while the database is away: the first at once, then at
    most one line every ``every`` seconds with how many were refused since, so that an
    outage with many pages retrying writes a few lines, not one a request."""

    def __init__(
        self,
        log: logging.Logger,
        every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log, self._every, self._clock = log, every, clock
        self._last: float | None = None
        self._held = 0

    def refused(self, what: str, error: BaseException) -> None:
        """One refusal of ``what`` (a short description) because of ``error``."""
        now = self._clock()
        if self._last is not None and now - self._last < self._every:
            self._held += 1
            return
        held, self._held, self._last = self._held, 0, now
        if held:
            self._log.warning(
                "%s refused, the database is away: %r (and %d more refused since the last"
                " such line)",
                what,
                error,
                held,
            )
        else:
            self._log.warning("%s refused, the database is away: %r", what, error)


__all__ = ["RefusalLog", "database_away"]
