"""What a bus message costs a server process in Redis's client library, by reply parser.

Every move on a site of several processes is published once and heard by every other process
(``playtable/bus/redis.py``). This bench publishes ``--messages`` messages of ``--size`` bytes
(a 12x12 move's patch is about 1 KB) to a channel its own subscriber listens to, in one process,
and prints the process's CPU a message (publish and receive) with redis-py's pure-Python reply
parser and with hiredis's C parser, alternating the two over ``--rounds`` rounds in one run.

    python bench/bus.py [--messages 20000] [--size 1000] [--rounds 3] [--redis-url URL]

Redis: by default a redis-server of the bench's own on a free loopback port.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import redis.asyncio as aioredis
from redis._parsers import _AsyncHiredisParser, _AsyncRESP2Parser
from redis.utils import HIREDIS_AVAILABLE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import start_redis, stop_process

PARSERS = {"python": _AsyncRESP2Parser, "hiredis": _AsyncHiredisParser}


async def one_round(url: str, parser: str, messages: int, size: int) -> float:
    """Microseconds of this process's CPU a message, published and heard through ``parser``."""
    listener = aioredis.Redis.from_url(url, parser_class=PARSERS[parser])
    publisher = aioredis.Redis.from_url(url, parser_class=PARSERS[parser])
    pubsub = listener.pubsub()
    await pubsub.subscribe("bench-bus")
    await pubsub.get_message(timeout=1)
    payload = b"x" * size

    async def produce() -> None:
        for _ in range(messages):
            await publisher.publish("bench-bus", payload)

    started = time.process_time()
    producer = asyncio.create_task(produce())
    heard = 0
    while heard < messages:
        message = await pubsub.get_message(timeout=None)
        if message is not None and message["type"] == "message":
            heard += 1
    await producer
    spent = time.process_time() - started
    await pubsub.aclose()  # type: ignore[no-untyped-call]
    await listener.aclose()
    await publisher.aclose()
    return spent / messages * 1e6


async def run(url: str, messages: int, size: int, rounds: int) -> int:
    figures: dict[str, list[float]] = {name: [] for name in PARSERS}
    for _ in range(rounds):
        for name in PARSERS:
            figures[name].append(await one_round(url, name, messages, size))
    for name, values in figures.items():
        shown = ", ".join(f"{value:.0f}" for value in values)
        print(f"{name:8} parser: {statistics.median(values):6.1f} us a message (rounds: {shown})")
    ratio = statistics.median(figures["hiredis"]) / statistics.median(figures["python"])
    print(f"hiredis / python: {ratio:.2f}x")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args(argv)
    if not HIREDIS_AVAILABLE:
        raise SystemExit("hiredis is not installed (pip install 'redis[hiredis]')")
    print(f"{args.messages} messages of {args.size} bytes a round, {args.rounds} rounds")
    if args.redis_url:
        return asyncio.run(run(args.redis_url, args.messages, args.size, args.rounds))
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_redis(folder)
        try:
            return asyncio.run(run(url, args.messages, args.size, args.rounds))
        finally:
            stop_process(process)


if __name__ == "__main__":
    raise SystemExit(main())
