from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from playtable.store import Store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.sqlite3'}"


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    store = Store(db_url)
    await store.open()
    yield store
    await store.close()
