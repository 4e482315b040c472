"""What the clocks cost: the sweep's query with many stored tables, and how late flags fall.

1. **Sweep cost.** A store (SQLite in a temporary file, and PostgreSQL when reachable) holds
   ``--tables`` correspondence tables (default 100,000) whose deadlines lie 1 to 14 days
   ahead, and ``--due`` (default 50) whose deadline has just passed. One sweep round is the
   two queries every process runs each time it wakes: the due tables (``Store.due_tables``,
   a range scan of the deadline index) and the next deadline (``Store.next_deadline``).
   Printed: the median and 99th percentile wall time of a round over ``--rounds`` rounds, the
   CPU time of this process per round, and the same round with the index dropped (the
   baseline a per-table scan would cost), with the ratio.
2. **Flag lateness.** A table service with its sweep running (real clock, SQLite) holds
   ``--clocked`` real-time tables (default 1,000), both players seated and both first moves
   played, whose clocks (40 to 50 s) run out over ten seconds. For each, the time from its
   deadline to the ``time_out`` event arriving on the bus: p50, p99 and the maximum.

    python bench/clocks.py                       # both parts, SQLite and PostgreSQL
    python bench/clocks.py --tables 20000 --clocked 200 --no-postgres
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from starlette.routing import Router

from playtable.bus import InProcessBus
from playtable.store import Store
from playtable.store.schema import tables
from playtable.tables import TableService
from playtable.tables.clocks import RealTime
from playtable.tables.sweep import BATCH, Sweep
from playtable.web.routing import routes
from playtable.web.urls import SiteLinks

POSTGRES_ADMIN = os.environ.get(
    "PLAYTABLE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres"
)
SECRET = b"benchmark secret, 256 bits or so, not for a real site"
DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# -- 1. the sweep's cost ------------------------------------------------------------------------
def table_rows(count: int, due: int, now: datetime) -> list[dict[str, Any]]:
    rng = random.Random(13)
    rows = []
    for n in range(count + due):
        ahead = -rng.uniform(1, 60) if n < due else rng.uniform(86400, 14 * 86400)
        rows.append(
            {
                "id": f"b{n:09d}",
                "game": "dots",
                "options": DOTS,
                "created_at": now,
                "updated_at": now,
                "version": 3,
                "outcome": None,
                "invite_hash": "0" * 64,
                "offers": {},
                "time_control": "1/259200",
                "deadline": now + timedelta(seconds=ahead),
            }
        )
    return rows


def fill(connection: sa.Connection, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), 5000):
        connection.execute(sa.insert(tables), rows[start : start + 5000])


async def sweep_rounds(store: Store, rounds: int) -> tuple[list[float], float]:
    now = datetime.now(UTC)
    walls = []
    cpu = time.process_time()
    for _ in range(rounds):
        began = time.perf_counter()
        due = await store.due_tables(now, BATCH)
        await store.next_deadline()
        walls.append(time.perf_counter() - began)
    assert due, "the due tables were not found"
    return walls, (time.process_time() - cpu) / rounds


async def sweep_cost(url: str, name: str, count: int, due: int, rounds: int) -> None:
    store = Store(url)
    await store.open()
    try:
        began = time.perf_counter()
        await store._run(fill, table_rows(count, due, datetime.now(UTC)))
        print(f"{name}: stored {count + due} tables in {time.perf_counter() - began:.1f} s")
        if not store.sqlite:
            await store._run(lambda c: c.execute(sa.text("ANALYZE tables")))
        walls, cpu = await sweep_rounds(store, rounds)
        await store._run(lambda c: c.execute(sa.text("DROP INDEX ix_tables_deadline")))
        scan_walls, scan_cpu = await sweep_rounds(store, max(3, rounds // 10))
        await store._run(
            lambda c: c.execute(sa.text("CREATE INDEX ix_tables_deadline ON tables (deadline)"))
        )
        median, scan = statistics.median(walls), statistics.median(scan_walls)
        print(
            f"{name}: sweep round (due + next deadline) with {count} tables: "
            f"median {median * 1000:.2f} ms, p99 {percentile(walls, 0.99) * 1000:.2f} ms, "
            f"CPU here {cpu * 1000:.2f} ms/round"
        )
        print(
            f"{name}: without the deadline index: median {scan * 1000:.1f} ms, "
            f"CPU here {scan_cpu * 1000:.2f} ms/round; index {scan / median:.0f}x faster"
        )
    finally:
        await store.close()


async def postgres_url() -> tuple[str, str] | None:
    try:
        import asyncpg

        admin = await asyncpg.connect(POSTGRES_ADMIN, timeout=5)
    except Exception as error:
        print(f"postgresql: not reachable ({type(error).__name__}); skipped")
        return None
    name = f"playtable_bench_{os.getpid()}_{secrets.token_hex(3)}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    url = sa.make_url(POSTGRES_ADMIN).set(drivername="postgresql+asyncpg", database=name)
    return url.render_as_string(hide_password=False), name


async def drop_postgres(name: str) -> None:
    import asyncpg

    admin = await asyncpg.connect(POSTGRES_ADMIN, timeout=5)
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await admin.close()


# -- 2. how late flags fall ----------------------------------------------------------------------
async def flag_lateness(count: int, directory: str) -> None:
    store = Store(f"sqlite:///{directory}/flags.sqlite3?synchronous=NORMAL")
    await store.open()
    bus = InProcessBus()
    service = TableService(store, bus, SECRET, links=SiteLinks(Router(routes=routes())))
    sweep = Sweep(service)
    sweep.start()
    rng = random.Random(5)
    late: list[float] = []
    try:
        began = time.perf_counter()
        ids = []
        for _ in range(count):
            # 40 to 50 s a side: after the set-up, all flags fall within ten seconds.
            control = RealTime(rng.randint(40, 50))
            created = await service.create_table("dots", DOTS, "red", time_control=control)
            claimed = await service.claim_invite(created.id, created.invite_token)
            assert claimed is not None
            await service.play_move(created.id, created.seat_token, 0, "a1-b1")
            await service.play_move(created.id, claimed[1], 1, "a1-a2")
            ids.append(created.id)
        setup = time.perf_counter() - began
        print(f"flags: {count} clocked tables set up in {setup:.1f} s")

        async def watch(table_id: str) -> None:
            subscription = await bus.subscribe(table_id)
            table = await service.load(table_id)
            deadline = table.row.deadline
            try:
                if table.running():
                    while True:
                        message = await subscription.get()
                        if any(e["kind"] == "time_out" for e in message["events"]):
                            break
                    assert deadline is not None
                    late.append((datetime.now(UTC) - deadline).total_seconds())
            finally:
                await subscription.close()

        await asyncio.wait_for(asyncio.gather(*(watch(t) for t in ids)), 60)
    finally:
        await sweep.close()
        await service.close()
        await store.close()
    if not late:
        print("flags: every flag fell during the set-up; use fewer tables")
        return
    print(
        f"flags: {len(late)} flags watched of {count} clocked tables: lateness after the "
        f"deadline p50 {statistics.median(late) * 1000:.0f} ms, "
        f"p99 {percentile(late, 0.99) * 1000:.0f} ms, max {max(late) * 1000:.0f} ms "
        f"(sweep rounds {sweep.counts['rounds']}, tables tried {sweep.counts['tried']})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--clocked", type=int, default=1000)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as directory:
        await sweep_cost(
            f"sqlite:///{directory}/sweep.sqlite3", "sqlite", args.tables, args.due, args.rounds
        )
        if not args.no_postgres:
            found = await postgres_url()
            if found is not None:
                try:
                    await sweep_cost(found[0], "postgresql", args.tables, args.due, args.rounds)
                finally:
                    await drop_postgres(found[1])
        await flag_lateness(args.clocked, directory)


if __name__ == "__main__":
    asyncio.run(main())
