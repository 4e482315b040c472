"""The store's carries (web/carry.py's sealed seats), on SQLite and PostgreSQL: read until
they expire, taken once however many ask at once, and the expired ones pruned."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from playtable.store import Store
from playtable.store.schema import carries

pytestmark = pytest.mark.anyio


async def test_a_carry_is_taken_once_and_expires(store: Store) -> None:
    soon = datetime.now(UTC) + timedelta(minutes=10)
    await store.add_carry("a" * 64, "sealed one", soon)
    assert await store.carry("a" * 64) == "sealed one"
    assert await store.carry("a" * 64) == "sealed one"  # reading takes nothing
    # ten pages press its button at once: one gets it
    taken = await asyncio.gather(*(store.take_carry("a" * 64) for _ in range(10)))
    assert taken.count("sealed one") == 1 and taken.count(None) == 9
    assert await store.carry("a" * 64) is None
    # one already expired is neither read nor taken, and the next one made prunes it
    await store.add_carry("b" * 64, "sealed two", datetime.now(UTC) - timedelta(seconds=1))
    assert await store.carry("b" * 64) is None
    assert await store.take_carry("b" * 64) is None
    await store.add_carry("c" * 64, "sealed three", soon)

    def kept(conn: sa.Connection) -> list[str]:
        return [r.code_hash[0] for r in conn.execute(sa.select(carries.c.code_hash))]

    assert await store._run(kept) == ["c"]


async def test_a_carry_taken_is_kept_for_its_taker_alone(store: Store) -> None:
    """Taken with ``kept_as``, a carry is found under that name only (the browser that took
    it, pressing twice), still by one take of many at once, and not past its expiry."""
    await store.add_carry("d" * 64, "sealed", datetime.now(UTC) + timedelta(minutes=10))
    taken = await asyncio.gather(*(store.take_carry("d" * 64, "e" * 64) for _ in range(5)))
    assert taken.count("sealed") == 1 and taken.count(None) == 4
    assert await store.carry("d" * 64) is None
    assert await store.carry("e" * 64) == "sealed"
    assert await store.take_carry("d" * 64, "e" * 64) is None
