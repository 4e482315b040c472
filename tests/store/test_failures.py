"""Which store failures are the database away (told to the player as such) and which are
bugs (logged with their traceback): against the run's real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import sqlalchemy as sa

from playtable.store import Store
from playtable.store.failures import database_away
from tests.conftest import POSTGRES_ADMIN_URL

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_database_refusing_connections_is_away_and_a_bug_is_not(
    postgres_url: str,
) -> None:
    name = sa.make_url(postgres_url).database
    admin_url = sa.make_url(POSTGRES_ADMIN_URL).set(drivername="postgresql")
    admin = await asyncpg.connect(admin_url.render_as_string(hide_password=False), timeout=5)
    store = Store(postgres_url)
    await store.open()
    try:
        await store.outages()
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
        for _ in range(2):  # the connection lost, then none to be had
            with pytest.raises(Exception) as failed:
                await store.table("nosuchtabl")
            assert database_away(failed.value), repr(failed.value)
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
        await store.close()
    assert not database_away(ValueError("a bug of ours"))
    assert not database_away(sa.exc.IntegrityError("INSERT", {}, Exception("duplicate key")))


def test_a_bug_wrapped_in_a_driver_error_is_not_the_database_away(tmp_path: Path) -> None:
    """A code review: any SQLite OperationalError counted as away, a missing table included:
    a deploy without its migration would have told every player 'try again in a moment'
    and logged no traceback."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with pytest.raises(sa.exc.OperationalError) as missing, engine.connect() as conn:
        conn.execute(sa.text("SELECT * FROM no_such_table"))
    assert not database_away(missing.value)
    engine.dispose()
    gone = sa.create_engine(f"sqlite:///{tmp_path / 'nowhere' / 'x.sqlite3'}")
    with pytest.raises(sa.exc.OperationalError) as unopened:
        gone.connect()
    assert database_away(unopened.value)  # the file cannot be opened: away
    assert not database_away(asyncpg.exceptions.LockNotAvailableError("lock timeout"))
    assert database_away(asyncpg.exceptions.ReadOnlySQLTransactionError("read-only"))
