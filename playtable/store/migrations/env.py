"""Alembic environment for the Playtable store.

Two ways in: the app passes an open connection (or the synchronous facade of an async one) through
``config.attributes["connection"]`` so the upgrade runs inside its own event loop; the
``alembic`` command line (``alembic -c playtable/store/alembic.ini ...``) gets none and opens
an async engine from ``sqlalchemy.url`` or ``PLAYTABLE_DATABASE_URL``.
"""

from __future__ import annotations

import asyncio
import os

import sqlalchemy as sa
from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from playtable.store.schema import metadata

config = context.config


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        # SQLite cannot ALTER most things in place; batch mode copies the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async(url: str) -> None:
    engine = create_async_engine(url)
    async with engine.connect() as connection:
        await connection.run_sync(run_with)
        await connection.commit()
    await engine.dispose()


def run_offline(url: str) -> None:
    context.configure(url=url, target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


given = config.attributes.get("connection")
if given is not None:
    run_with(given)
else:
    url = os.environ.get("PLAYTABLE_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("set PLAYTABLE_DATABASE_URL or sqlalchemy.url")
    if context.is_offline_mode():
        run_offline(url)
    elif sa.make_url(url).get_backend_name() == "sqlite":
        # The app runs SQLite on the standard driver whatever the URL names.
        engine = sa.create_engine(sa.make_url(url).set(drivername="sqlite"))
        with engine.begin() as connection:
            run_with(connection)
        engine.dispose()
    else:
        asyncio.run(run_async(url))
