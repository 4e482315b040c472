"""What ``playtable serve`` checks before it starts the server: a setting or a database it
cannot serve with stops it with one line that says what is wrong (``SettingError``), where a
traceback of dozens of lines (or a site that ran oddly) came before.

- The database address parses and names SQLite or PostgreSQL; a Redis address is one.
- A SQLite file is served by one process only, unless Redis carries the news between them:
  two processes on one file without it each kept their players' moves to themselves (the
  other process's players saw nothing until they reloaded, and lost on time meanwhile).
- The database answers and its schema is one this release knows (migrated to the newest).
"""

from __future__ import annotations

import asyncio
import fcntl
from pathlib import Path
from typing import IO

import sqlalchemy as sa

from playtable.logs import shown_url
from playtable.settings import SettingError
from playtable.store import Store
from playtable.store.engines import SchemaTooNew, normalized

EXAMPLES = "sqlite:///var/playtable.sqlite3 or postgresql+asyncpg://user@host/playtable"


def database_url(url: str) -> sa.URL:
    """The database address, parsed; raises :class:`SettingError`."""
    try:
        parsed = sa.make_url(normalized(url))
    except sa.exc.ArgumentError:
        raise SettingError(f"the database address {url!r} is not one ({EXAMPLES})") from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise SettingError(
            f"the database must be SQLite or PostgreSQL, not {parsed.get_backend_name()!r} "
            f"({EXAMPLES})"
        )
    return parsed


def redis_address(url: str) -> None:
    """Raises :class:`SettingError` if ``url`` is no Redis address (a traceback from the
    Redis client before). Whether Redis answers is not checked: a process starts without it
    and connects once it does (docs/deploy.md)."""
    from redis.connection import parse_url  # only when there is a Redis to use

    try:
        parse_url(url)  # type: ignore[no-untyped-call]
    except ValueError as error:
        # No address in the line: one that does not parse may still hold a password.
        raise SettingError(
            f"PLAYTABLE_REDIS_URL is not a Redis address: {error} (redis://host:6379/0)"
        ) from None


def sqlite_file(parsed: sa.URL) -> Path | None:
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database).resolve()


def serve_alone(path: Path) -> IO[str]:
    """Hold the lock that says a process serves the SQLite file ``path`` (for as long as
    the returned file stays open: the process's life); raises :class:`SettingError` if
    another holds it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_name(path.name + ".serve-lock"), "a")  # noqa: SIM115 (held)
    except OSError as error:
        raise SettingError(
            f"the database's folder {path.parent} cannot be written: {error}"
        ) from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise SettingError(
            f"another 'playtable serve' is serving {path}: two processes on one SQLite file "
            "would each keep their players' moves from the other's. Run one, or set "
            "PLAYTABLE_REDIS_URL for both so that they share them"
        ) from None
    return lock


def database_ready(url: str) -> None:
    """Connect, and bring the schema to this release's newest; raises :class:`SettingError`
    if the database does not answer or was upgraded by a newer release."""
    try:
        asyncio.run(_open_and_close(url))
    except SchemaTooNew as error:
        raise SettingError(str(error)) from None
    except (OSError, sa.exc.SQLAlchemyError) as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise SettingError(f"the database at {shown_url(url)} cannot be used: {reason}") from None


async def _open_and_close(url: str) -> None:
    store = Store(url, timeouts=False)  # a migration may wait for another process's
    try:
        await store.open()
    finally:
        await store.close()


def check(url: str, redis_url: str | None) -> IO[str] | None:
    """Every check above; the SQLite file's lock if one is held (keep it)."""
    parsed = database_url(url)
    if redis_url:
        redis_address(redis_url)
    path = sqlite_file(parsed)
    lock = serve_alone(path) if path is not None and not redis_url else None
    database_ready(url)
    return lock


__all__ = ["check", "database_ready", "database_url", "redis_address", "serve_alone"]
