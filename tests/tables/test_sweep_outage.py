"""A database outage under the sweep that ends tables on time: logged once when it begins
and once when it ends, not a traceback every half second (an operator saw 1,300 lines in
6.5 s), and the sweep goes on by itself; and the time it lasted is nobody's thinking time.
On the run's real PostgreSQL database, whose connections are refused for a while."""

from __future__ import annotations

import asyncio
import logging
import re

import asyncpg
import pytest
import sqlalchemy as sa

from playtable.bus import InProcessBus
from playtable.store import Store
from playtable.tables import TableService
from playtable.tables.clocks import RealTime
from playtable.tables.sweep import Sweep
from tests.conftest import POSTGRES_ADMIN_URL
from tests.tables.conftest import SECRET
from tests.tables.links import LINKS

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_database_outage_is_logged_once_and_its_end_once(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="playtable.tables.sweep")
    name = sa.make_url(postgres_url).database
    admin_url = sa.make_url(POSTGRES_ADMIN_URL).set(drivername="postgresql")
    admin = await asyncpg.connect(admin_url.render_as_string(hide_password=False), timeout=5)
    store = Store(postgres_url)
    await store.open()
    sweep = Sweep(TableService(store, InProcessBus(), SECRET, links=LINKS), max_sleep_s=0.05)
    try:
        sweep.start()
        await asyncio.sleep(0.3)
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
        await asyncio.sleep(1.5)  # about 30 rounds fail
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await asyncio.sleep(1.5)
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
        await sweep.close()
        await store.close()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 2, said
    assert said[0] == "the sweep failed; trying again"
    match = re.fullmatch(r"the sweep works again after (\d+) failed rounds", said[1])
    assert match and int(match[1]) >= 5, said


async def test_a_database_outage_while_the_site_runs_is_nobodys_thinking_time(
    postgres_url: str,
) -> None:
    """A review: the database away for longer than a player's clock, with the server
    running, and the sweep ended the game on time as soon as the database was back, though no
    move could have been stored meanwhile. The first beat after it records the outage; blue
    keeps the time it had when the database went away, and plays."""
    name = sa.make_url(postgres_url).database
    admin_url = sa.make_url(POSTGRES_ADMIN_URL).set(drivername="postgresql")
    admin = await asyncpg.connect(admin_url.render_as_string(hide_password=False), timeout=5)
    store = Store(postgres_url)
    await store.open()
    service = TableService(store, InProcessBus(), SECRET, links=LINKS)
    sweep = Sweep(service, max_sleep_s=0.05)
    try:
        sweep.start()
        created = await service.create_table("dots", DOTS, "red", time_control=RealTime(6, 0))
        claimed = await service.claim_invite(created.id, created.invite_token)
        assert claimed is not None
        red, blue = created.seat_token, claimed[1]
        for ply, (token, move) in enumerate(((red, "a1-b1"), (blue, "a1-a2"), (red, "b1-c1"))):
            await service.play_move(created.id, token, ply, move)
        await asyncio.sleep(2.5)  # beats go on as blue thinks
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
        await asyncio.sleep(8)  # longer than blue's 6 s
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        for _ in range(100):
            await asyncio.sleep(0.1)
            if sweep.beat_failures == 0 and sweep.counts["rounds"] > 0:
                break
        await asyncio.sleep(0.5)  # sweep rounds with the database back
        shown = await service.snapshot(created.id, None)
        assert shown["outcome"] is None
        assert 0.5 < shown["clock"]["remaining"]["blue"] < 4.5, shown["clock"]
        await service.play_move(created.id, blue, 3, "c1-d1")
        shown = await service.snapshot(created.id, None)
        assert shown["outcome"] is None and shown["ply"] == 4
        assert len(await store.outages()) == 1
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
        await sweep.close()
        await store.close()
