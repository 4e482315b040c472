"""The beat that requests await when this process's last beat is old (``Sweep.confirm_
outages``): one beat for all of them, and its failure is theirs at once."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from playtable.bus import InProcessBus
from playtable.store import Store
from playtable.store.sqlite_file import DatabaseFileGone
from playtable.tables import TableService
from playtable.tables.sweep import Sweep
from tests.tables.conftest import SECRET
from tests.tables.links import LINKS

pytestmark = pytest.mark.anyio


async def test_requests_that_find_the_beat_old_await_one_beat_and_share_its_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A code review: the requests took turns, each beating again after the one before
    failed, so on a database that hangs (each beat waiting out its timeout) the tenth
    request waited ten timeouts."""
    path = tmp_path / "site.sqlite3"
    store = Store(f"sqlite:///{path}")
    await store.open()
    service = TableService(store, InProcessBus(), SECRET, links=LINKS)
    sweep = Sweep(service)
    beats: list[datetime] = []
    real_beat = store.beat

    async def counted(
        now: datetime, outage_s: float, *args: Any, **kwargs: Any
    ) -> tuple[datetime, datetime] | None:
        beats.append(now)
        await asyncio.sleep(0.2)  # a database slow to answer
        return await real_beat(now, outage_s, *args, **kwargs)

    monkeypatch.setattr(store, "beat", counted)
    try:
        path.unlink()  # every beat fails
        results = await asyncio.gather(
            *(sweep.confirm_outages() for _ in range(10)), return_exceptions=True
        )
        assert all(isinstance(r, DatabaseFileGone) for r in results), results
        assert len(beats) == 1
    finally:
        await service.close()
        await store.close()
