"""A SQLite file deleted or replaced under a running server (an operator's review: every
move was acknowledged into the unlinked file, and gone at the next start). The move is
refused instead, and the heartbeat fails, so the process says it is not ready."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from playtable.bus import InProcessBus
from playtable.store import Store
from playtable.store.sqlite_file import DatabaseFileGone
from playtable.tables import TableService
from tests.tables.conftest import SECRET
from tests.tables.links import LINKS

pytestmark = pytest.mark.anyio

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}


async def seated(service: TableService) -> tuple[str, str, str]:
    created = await service.create_table("dots", DOTS, "red")
    claimed = await service.claim_invite(created.id, created.invite_token)
    assert claimed is not None
    return created.id, created.seat_token, claimed[1]


@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_no_move_is_acknowledged_into_a_file_no_longer_at_its_path(
    tmp_path: Path, how: str
) -> None:
    folder = tmp_path / "var"
    path = folder / "site.sqlite3"
    store = Store(f"sqlite:///{path}")
    await store.open()
    service = TableService(store, InProcessBus(), SECRET, links=LINKS)
    table_id, red, blue = await seated(service)
    await service.play_move(table_id, red, 0, "a1-b1")  # stored in the file at the path
    if how == "deleted":
        shutil.rmtree(folder)
    else:  # a backup copied over it
        shutil.copy(path, tmp_path / "backup.sqlite3")
        (tmp_path / "backup.sqlite3").replace(path)
    with pytest.raises(DatabaseFileGone, match=f"was {how} while the server ran"):
        await service.play_move(table_id, blue, 1, "a1-a2")
    with pytest.raises((DatabaseFileGone, sa.exc.OperationalError)):  # no folder to open in
        await store.beat(datetime.now(UTC), 6.0)
    await service.close()
    await store.close()
    if how == "replaced":  # restarted on the file that is there: nothing it was told is lost
        store = Store(f"sqlite:///{path}")
        await store.open()
        service = TableService(store, InProcessBus(), SECRET, links=LINKS)
        assert (await service.snapshot(table_id, None))["ply"] == 1
        await service.play_move(table_id, blue, 1, "a1-a2")
        await service.close()
        await store.close()


async def test_no_new_database_is_opened_at_the_path_of_a_deleted_one(tmp_path: Path) -> None:
    """A review: after the file was deleted, the next connection the pool opened made a new
    empty database at the path (the next start migrated it and opened an empty site) and
    reset the write-ahead log the old file's readers still used, so the site showed a game
    as it was before its last acknowledged move. No connection opens there now."""
    path = tmp_path / "site.sqlite3"
    store = Store(f"sqlite:///{path}")
    await store.open()
    service = TableService(store, InProcessBus(), SECRET, links=LINKS)
    table_id, red, blue = await seated(service)
    await service.play_move(table_id, red, 0, "a1-b1")
    await service.play_move(table_id, blue, 1, "a1-a2")  # in the write-ahead log
    path.unlink()  # the database file only: its -wal and -shm stay
    assert store.engine is not None
    with pytest.raises(DatabaseFileGone):
        store.engine.connect().close()
    assert not path.exists()
    fresh = TableService(store, InProcessBus(), SECRET, links=LINKS)  # nothing cached
    assert (await fresh.snapshot(table_id, None))["ply"] == 2
    await fresh.close()
    await service.close()
    await store.close()
    assert not path.exists()
