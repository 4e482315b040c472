"""The real backing services of the suite: PostgreSQL and Redis on their standard local ports.

DESIGN.md's rule lives here: a test that needs one of them and finds it absent *fails* under
``CI=true`` (CI starts both, so absence there is a broken machine) and is *skipped* elsewhere
with a loud reason, so a laptop without PostgreSQL can still run the rest.

Each run gets its own PostgreSQL database (``playtable_test_<pid>_<random>``), dropped at the
end, and its own Redis key prefix, so parallel runs on one machine never see each other.
Within a run, every test that uses PostgreSQL starts from empty tables (TRUNCATE is far cheaper
than a database per test).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import NoReturn

import pytest
import sqlalchemy as sa

from playtable.store import Store

# Where the services are; CI and this machine use the standard ports with trust auth.
POSTGRES_ADMIN_URL = os.environ.get(
    "PLAYTABLE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("PLAYTABLE_TEST_REDIS", "redis://127.0.0.1:6379/0")
BACKENDS = ("sqlite", "postgresql")


async def allow_connections(database_url: str, allowed: bool) -> None:
    """The test's PostgreSQL database takes connections, or refuses them and ends the ones
    it has (the database away for the server under test)."""
    import asyncpg

    name = sa.make_url(database_url).database
    admin = sa.make_url(POSTGRES_ADMIN_URL).set(drivername="postgresql")
    connection = await asyncpg.connect(admin.render_as_string(hide_password=False), timeout=5)
    try:
        await connection.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {allowed}')
        if not allowed:
            await connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = $1 AND pid <> pg_backend_pid()",
                name,
            )
    finally:
        await connection.close()


def service_missing(what: str, error: BaseException) -> NoReturn:
    """Fail under CI, skip loudly elsewhere."""
    reason = f"{what} is not reachable ({type(error).__name__}: {error})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI must provide it (.ci/run starts it)", pytrace=False)
    warnings.warn(f"SKIPPING tests that need {reason}", stacklevel=2)
    pytest.skip(f"NEEDS {reason.upper()}")


async def _admin(statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_ADMIN_URL, timeout=5)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A database of this test run, as a ``postgresql+asyncpg://`` URL; dropped afterwards."""
    name = f"playtable_test_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    except Exception as error:  # refused, no driver, or asyncpg's own: no such role, ...
        service_missing("PostgreSQL at " + POSTGRES_ADMIN_URL, error)
    url = sa.make_url(POSTGRES_ADMIN_URL).set(drivername="postgresql+asyncpg", database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        # FORCE: a server process a test killed may have left a connection behind.
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _truncate(url: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"), timeout=5)
    try:
        exists = await conn.fetchval("SELECT to_regclass('public.tables') IS NOT NULL")
        if exists:
            # CASCADE: every table that refers to ``tables`` (seats, moves, analysis values).
            await conn.execute("TRUNCATE tables CASCADE")
        if await conn.fetchval("SELECT to_regclass('public.site_heartbeat') IS NOT NULL"):
            # no test inherits another's heartbeat or outages
            await conn.execute("TRUNCATE site_heartbeat, site_outages")
        if await conn.fetchval("SELECT to_regclass('public.site_processes') IS NOT NULL"):
            await conn.execute("TRUNCATE site_processes")  # nor its running processes
        if await conn.fetchval("SELECT to_regclass('public.carries') IS NOT NULL"):
            await conn.execute("TRUNCATE carries")  # nor its games on their way elsewhere
    finally:
        await conn.close()


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    """The run's database with every table emptied: each test starts from nothing."""
    asyncio.run(_truncate(postgres_database))
    return postgres_database


@pytest.fixture(autouse=True)
def _no_outage_outlives_its_test() -> Iterator[None]:
    """The site's outages are a process's knowledge (tables/downtime.py): one a test's store
    recorded must not pause another test's clocks."""
    yield
    from playtable.tables import downtime

    downtime.set_outages(())


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.ping()
        client.close()
    except (OSError, redis.RedisError) as error:
        service_missing("Redis at " + REDIS_URL, error)
    return REDIS_URL


@pytest.fixture(scope="session")
def redis_prefix() -> str:
    """Keys and channels of this run only."""
    return f"playtable-test-{os.getpid()}-{secrets.token_hex(4)}:"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Run a test once on SQLite and once on PostgreSQL."""
    name: str = request.param
    return name


@pytest.fixture
def db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "postgresql":
        url: str = request.getfixturevalue("postgres_url")
        return url
    return f"sqlite:///{tmp_path / 'playtable.sqlite3'}"


@pytest.fixture
def empty_db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A database of its own with no schema at all yet, for tests of the migrations."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    request.getfixturevalue("postgres_database")  # reachable, or skipped / failed as above
    name = f"playtable_test_{os.getpid()}_{secrets.token_hex(4)}"
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    url = sa.make_url(POSTGRES_ADMIN_URL).set(drivername="postgresql+asyncpg", database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


# The store on the database of ``db_url``, for the async suites (each sets its anyio backend).
@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    store = Store(db_url)
    await store.open()
    yield store
    await store.close()
