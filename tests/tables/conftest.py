from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from playtable.bus import InProcessBus
from playtable.store import Store
from playtable.tables import TableService
from tests.tables.links import LINKS

SECRET = b"test secret of the table service, 256 bits or so"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def service(db_url: str) -> AsyncIterator[TableService]:
    store = Store(db_url)
    await store.open()
    yield TableService(store, InProcessBus(), SECRET, links=LINKS)
    await store.close()
