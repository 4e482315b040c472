"""The store's engines (SQLite on the standard driver, PostgreSQL on asyncpg) and the
Alembic migrations that bring a database to the newest schema."""

from __future__ import annotations

import importlib.resources
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from playtable import settings
from playtable.store.sqlite_file import SqliteFile

DEFAULT_URL = "sqlite:///var/playtable.sqlite3"


def migrations_config(connection: Connection | None = None) -> Config:
    """The Alembic configuration, found inside the installed package."""
    ini = importlib.resources.files("playtable.store") / "alembic.ini"
    with importlib.resources.as_file(ini) as path:
        config = Config(str(path))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


# Any constant: the key of the advisory lock that lets one process at a time migrate.
_MIGRATION_LOCK = 0x706C6179  # "play"


class SchemaTooNew(RuntimeError):
    """The database was upgraded by a newer release than this one; the message says what to
    do (an old process restarting during a roll, or a rolled-back release)."""


class DowngradeRefused(RuntimeError):
    """``playtable db downgrade`` to a revision that is no older release's schema, or on a
    database that is not past it; the message says why (Alembic's 'base' dropped every
    table, and every game with them, without a word)."""


def _check_downgrade(scripts: ScriptDirectory, currents: tuple[str, ...], down_to: str) -> None:
    ordered = [script.revision for script in scripts.walk_revisions()][::-1]  # oldest first
    if down_to not in ordered:
        raise DowngradeRefused(
            f"REVISION must be one of this release's revisions, {ordered[0]} to {ordered[-1]} "
            f"(the newest of the release to go back to), not {down_to!r}"
        )
    if not currents:
        raise DowngradeRefused("the database has no schema: there is nothing to bring back")
    current = currents[0]
    if current in ordered and ordered.index(current) < ordered.index(down_to):
        raise DowngradeRefused(
            f"the database is at revision {current}, older than {down_to}: nothing to bring "
            f"back ('playtable db upgrade' brings it forward)"
        )


def migrate(connection: Connection, down_to: str | None = None) -> None:
    """Bring the schema to the newest revision, or back to revision ``down_to``."""
    if connection.dialect.name == "postgresql":
        # Several processes starting at once would each try to create the tables; the
        # lock (held to the end of this transaction) makes the others wait, then find the
        # schema at head and do nothing.
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    config = migrations_config(connection)
    scripts = ScriptDirectory.from_config(config)
    known = {script.revision for script in scripts.walk_revisions()}
    newest = scripts.get_current_head()
    currents = MigrationContext.configure(connection).get_current_heads()
    for current in currents:
        if current not in known:
            raise SchemaTooNew(
                f"the database's schema is at revision {current}, which this release does "
                f"not know (its newest is {newest}): a newer release upgraded it. Start that "
                f"release, or have it bring the schema back first: "
                f"'playtable db downgrade {newest}' with the newer release's code"
            )
    if down_to is None:
        command.upgrade(config, "head")
    else:
        _check_downgrade(scripts, currents, down_to)
        command.downgrade(config, down_to)


def normalized(url: str) -> str:
    """``url`` with the driver this site uses: ``postgres://`` and ``postgresql://`` (as
    hosting providers write them) mean asyncpg here."""
    parsed = sa.make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+asyncpg")
        return parsed.render_as_string(hide_password=False)
    return url


SYNCHRONOUS = ("FULL", "EXTRA", "NORMAL")


def sqlite_engine(url: sa.URL, file: SqliteFile | None = None) -> Engine:
    """A SQLite engine on the standard driver, with WAL, foreign keys and full fsync.

    ``?synchronous=NORMAL`` in the URL trades the fsync of every commit for durability
    against a crash of the server only (not of the machine); the default is ``FULL``.
    ``file``: told of every connection opened (its first fixes the file's identity).
    """
    synchronous = str(url.query.get("synchronous", "FULL")).upper()
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}")
    url = url.set(drivername="sqlite").difference_update_query(["synchronous"])
    kwargs: dict[str, Any] = {"connect_args": {"timeout": 30, "check_same_thread": False}}
    if url.database in (None, "", ":memory:"):
        # One shared connection, or every checkout would see its own empty database.
        kwargs["poolclass"] = StaticPool
    engine = sa.create_engine(url, **kwargs)

    @event.listens_for(engine, "do_connect")
    def _still_the_file(*_: Any) -> None:
        # Never open (and so create, or reset the write-ahead log of) a database at the path
        # once the store's own file is no longer there (sqlite_file.py).
        if file is not None:
            file.check()

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a move that was acknowledged survives even a power cut, not only a crash.
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()
        if file is not None:
            file.opened()

    return engine


# Connections a process keeps open to a server database: enough for every request in flight
# on a busy process, so that a burst does not open (and close) sessions by the hundred.
#: Seconds a PostgreSQL statement or connection may take (PLAYTABLE_DB_TIMEOUT; 0: no limit).
DB_TIMEOUT_S = 10.0
POOL_SIZE = 20
POOL_OVERFLOW = 20
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def server_engine(url: sa.URL, *, timeouts: bool = True) -> AsyncEngine:
    """A pooled engine for PostgreSQL (asyncpg). On loopback, with no SSL asked for in the
    URL, the driver does not try TLS first on every new session.

    No pre-ping: it costs a round trip on every operation. Instead a connection the server
    closed (a database restart, an administrator's ``pg_terminate_backend``) is known closed
    to the driver as soon as the event loop reads its end, and is never handed out: the pool
    opens a fresh one (``_closed_at_checkout``). Only an operation already on its way when the
    server goes fails. The recycle age keeps idle connections from outliving proxies' and
    servers' timeouts."""
    # A database that stalls (a frozen host, a hung proxy) must not hold a move for ever
    # with no answer and no log line: each statement and each connection gets so long.
    timeout = settings.number("PLAYTABLE_DB_TIMEOUT", DB_TIMEOUT_S, minimum=0) if timeouts else 0
    connect_args: dict[str, Any] = {"timeout": timeout or None, "command_timeout": timeout or None}
    wants_ssl = any(key in url.query for key in ("ssl", "sslmode"))
    if url.host in LOOPBACK and not wants_ssl:
        connect_args["ssl"] = False
    engine = create_async_engine(
        url,
        pool_pre_ping=False,
        pool_recycle=600,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        connect_args=connect_args,
    )
    event.listen(engine.sync_engine, "checkout", _closed_at_checkout)
    return engine


def _closed_at_checkout(_dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """A pooled connection the server has closed: the pool discards it and opens another
    (SQLAlchemy's answer to ``DisconnectionError`` at checkout). No round trip: asyncpg's
    ``is_closed()`` is what its protocol already knows."""
    driver = record.driver_connection
    if driver is not None and driver.is_closed():
        raise sa.exc.DisconnectionError("the database closed this connection")
