from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from playtable.store import Store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    store = Store(db_url)
    await store.open()
    yield store
    await store.close()
