"""What a page costs the server: the table page, its invitation and spectator views, the home
page and a variant page, in English and Korean.

A page is rendered on the event loop that also relays every move: while one renders, a move
that arrives waits. So a page's cost is both a budget (how many a second one process serves)
and the delay it can add to a player's move (``bench/abuse.py``'s link-preview attack).

Each round starts a fresh process on a SQLite file (WAL, an fsync per commit) with the real
app and its start-up, plays 60 random moves on a 12x12 table (the largest board's page
carries the biggest state), then requests each page ``--requests`` times through the ASGI
app itself (httpx's ``ASGITransport``: no sockets, so the figure is the server's work, the
middleware included). It prints the median wall time and the CPU of a request, per page.

    python bench/pages.py                         # this checkout, 3 rounds
    python bench/pages.py --baseline /tmp/base    # and another checkout, rounds alternating

``--baseline DIR`` runs the same requests on the ``playtable`` package of another checkout
(a ``git worktree add /tmp/base REV``), so a change is measured against what came before it
in one run, on one machine state.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
OPTIONS = {"grid": "square", "rows": 12, "cols": 12, "start": "standard"}
ORIGIN = "http://testserver"
MOVES = 60


async def measure(requests: int, seed: int) -> dict[str, tuple[float, float]]:
    """Each page's (median wall ms, CPU ms) a request, in one fresh app."""
    import httpx2 as httpx

    from playtable.web.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(f"sqlite:///{folder}/bench.sqlite3", secret="bench secret, long enough")
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
            async with httpx.AsyncClient(transport=transport, base_url=ORIGIN) as client:
                pages = await _pages(app, client, seed)
                out: dict[str, tuple[float, float]] = {}
                for name, (path, cookies) in pages.items():
                    client.cookies.clear()
                    client.cookies.update(cookies)
                    for _ in range(5):  # warm: templates compiled, catalogs read
                        await _get(client, path)
                    walls: list[float] = []
                    cpu_started = time.process_time()
                    for _ in range(requests):
                        started = time.perf_counter()
                        await _get(client, path)
                        walls.append(time.perf_counter() - started)
                    cpu = (time.process_time() - cpu_started) / requests
                    out[name] = (1000 * statistics.median(walls), 1000 * cpu)
                return out


async def _get(client: Any, path: str) -> None:
    response = await client.get(path, headers={"User-Agent": "bench", "Accept": "text/html"})
    if response.status_code != 200:
        raise RuntimeError(f"GET {path}: {response.status_code} {response.text[:200]}")


async def _pages(app: Any, client: Any, seed: int) -> dict[str, tuple[str, dict[str, str]]]:
    """The pages to request, with the cookies each is requested with."""

    async def create() -> dict[str, str]:
        reply = await client.post(
            "/api/tables",
            json={"game": "dots", "options": OPTIONS, "seat": "red"},
            headers={"Origin": ORIGIN},
        )
        made: dict[str, str] = reply.json()
        return made

    played, invited = await create(), await create()
    # Seated through the seat link, as the creator is: the cookie it sets is the seat.
    await client.get(played["seat_url"].removeprefix(ORIGIN), follow_redirects=False)
    seat_cookies = dict(client.cookies)
    client.cookies.clear()
    await _play(app.state.service, played, seed)
    table_id = played["id"]
    return {
        "table page, seated (en)": (f"/t/{table_id}", seat_cookies),
        "table page, seated (ko)": (f"/ko/t/{table_id}", seat_cookies),
        "invitation (en)": (invited["invite_url"].removeprefix(ORIGIN), {}),
        "spectator view (en)": (f"/t/{table_id}/watch", {}),
        "home (en)": ("/", {}),
        "home (ko)": ("/ko/", {}),
        "variant page (fi)": ("/fi/variants/swedish-board", {}),
    }


async def _play(service: Any, made: dict[str, str], seed: int) -> None:
    """``MOVES`` random lines by both players: the position a page shows, mid-game."""
    from playtable import games

    table_id = made["id"]
    claimed = await service.claim_invite(table_id, made["invite_url"].rsplit("/", 1)[1])
    seats = {"red": made["seat_url"].rsplit("/", 1)[1], claimed[0]: claimed[1]}
    rules = games.load("dots", OPTIONS)
    state = rules.initial()
    rng = random.Random(seed)
    for ply in range(MOVES):
        move = rng.choice(rules.legal_move_texts(state))
        await service.play_move(table_id, seats[rules.to_move(state)], ply, move)
        state = rules.play(state, move)


def child(requests: int, seed: int) -> None:
    print(json.dumps(asyncio.run(measure(requests, seed))))


def one_round(root: Path, requests: int, seed: int) -> dict[str, tuple[float, float]]:
    environment = {
        **os.environ,
        "PYTHONPATH": f"{root}{os.pathsep}{HERE}",
        "PLAYTABLE_ANALYSIS_WORKERS": "1",
        "PLAYTABLE_READS_PER_MINUTE": "100000000",
        "PLAYTABLE_TABLES_PER_MINUTE": "100000000",
    }
    command = [sys.executable, __file__, "--child", "--requests", str(requests)]
    output = subprocess.run(
        [*command, "--seed", str(seed)],
        env=environment,
        check=True,
        capture_output=True,
        text=True,
        timeout=900,
    ).stdout
    found: dict[str, list[float]] = json.loads(output.strip().splitlines()[-1])
    return {name: (values[0], values[1]) for name, values in found.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests a page a round")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per checkout")
    parser.add_argument("--baseline", type=Path, help="another checkout to compare with")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(max(1, args.requests), args.seed)
        return 0
    roots = {"this checkout": HERE}
    if args.baseline is not None:
        roots["baseline"] = args.baseline.resolve()
    rounds: dict[str, list[dict[str, tuple[float, float]]]] = {name: [] for name in roots}
    print(
        f"pages of a 12x12 table after {MOVES} lines; {args.requests} requests a page, "
        f"{args.rounds} rounds; median of the rounds' medians, wall ms (CPU ms) a request"
    )
    for round_ in range(max(1, args.rounds)):
        for name, root in roots.items():  # alternating, against drift
            rounds[name].append(one_round(root, args.requests, args.seed + round_))
    names = list(rounds["this checkout"][0])
    header = "| page | " + " | ".join(roots) + (" | ratio |" if len(roots) > 1 else "")
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for page in names:
        cells, walls = [], []
        for name in roots:
            wall = statistics.median(r[page][0] for r in rounds[name])
            cpu = statistics.median(r[page][1] for r in rounds[name])
            cells.append(f"{wall:.2f} ms ({cpu:.2f})")
            walls.append(wall)
        ratio = f" {walls[0] / walls[1]:.2f}x |" if len(walls) > 1 else ""
        print(f"| {page} | " + " | ".join(cells) + " |" + ratio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
