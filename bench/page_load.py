"""How long a page takes to open on a phone's network, on a first visit and on the next one.

A player opens the same table page many times a day (a correspondence game, My games, a
rematch). Chromium (Debian's, headless, as the browser tests run it) opens it with the
network of a mobile connection emulated (``--latency`` ms a round trip, ``--down`` and
``--up`` kbit/s; the defaults are Chrome's "Fast 3G" preset): once with an empty cache, then
again in the same browser, as a returning player would. It reports the time until the board
is drawn and the socket connected (the table page) or the page's load event (the home page),
how many requests went to the network, and how many bytes.

    python bench/page_load.py                        # this checkout
    python bench/page_load.py --versus /tmp/base     # and another one, alternating rounds

``--versus DIR`` serves the same pages from another checkout (a ``git worktree add /tmp/base
REV``) in the same run, rounds alternating, and prints the ratios this/other.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import latency  # bench/latency.py: free ports, waiting for a server

HOST = "127.0.0.1"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RESOURCES = """() => performance.getEntriesByType("resource").map(e => [e.name, e.transferSize])"""


def start(checkout: str | None, folder: str) -> tuple[subprocess.Popen[bytes], str]:
    port = latency.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
    env["PLAYTABLE_SECRET"] = "page-load-bench-" + "0123456789abcdef" * 2
    command = [sys.executable, "-c", "import sys; from playtable.cli import main; sys.exit(main())"]
    if checkout is not None:  # its own code first (the editable install's finder comes last)
        env["PYTHONPATH"] = os.path.abspath(checkout)
    command += ["serve", "--host", HOST, "--port", str(port), "--log-level", "warning"]
    command += ["--database-url", f"sqlite:///{folder}/pages.sqlite3"]
    process = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    latency.wait_until_up(port, process, 60)
    return process, f"http://{HOST}:{port}"


def new_table(base: str) -> str:
    body = json.dumps({"game": "dots", "options": {"rows": 5, "cols": 5}, "seat": "red"})
    request = urllib.request.Request(
        base + "/api/tables", body.encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.load(response)["seat_url"])


def visit(page: Any, url: str, table: bool) -> tuple[float, int, int]:
    """(seconds until ready, requests that went to the network, bytes they brought)."""
    started = time.perf_counter()
    page.goto(url, wait_until="load")
    if table:
        page.locator("#board svg").wait_for()
        page.locator('#connection[data-state="connected"]').wait_for(state="attached")
    elapsed = time.perf_counter() - started
    entries = page.evaluate(RESOURCES)
    fetched = [size for _, size in entries if size > 0]
    document = page.evaluate("performance.getEntriesByType('navigation')[0].transferSize")
    return elapsed, len(fetched) + 1, sum(fetched) + int(document)


def round_(
    browser: Any, base: str, options: argparse.Namespace
) -> dict[str, tuple[float, int, int]]:
    out = {}
    for name, table in (("table", True), ("home", False)):
        context = browser.new_context()
        page = context.new_page()
        client = context.new_cdp_session(page)
        client.send("Network.enable")
        client.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": options.latency,
                "downloadThroughput": options.down * 1000 / 8,
                "uploadThroughput": options.up * 1000 / 8,
            },
        )
        url = new_table(base) if table else base + "/"
        out[f"{name}, first visit"] = visit(page, url, table)
        page.goto("about:blank")
        out[f"{name}, next visit"] = visit(page, url, table)
        context.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versus", metavar="PATH", help="another checkout, in the same run")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency", type=float, default=562.5, help="ms a round trip")
    parser.add_argument("--down", type=float, default=1474.56, help="kbit/s")
    parser.add_argument("--up", type=float, default=675, help="kbit/s")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    checkouts: dict[str, str | None] = {"this": None}
    if options.versus:
        checkouts["other"] = options.versus
    results: dict[str, dict[str, list[tuple[float, int, int]]]] = {k: {} for k in checkouts}
    with tempfile.TemporaryDirectory(prefix="playtable-pages-") as folder:
        servers = {}
        try:
            for label, checkout in checkouts.items():
                Path(folder, label).mkdir()
                servers[label] = start(checkout, str(Path(folder, label)))
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                for number in range(options.rounds):
                    order = list(checkouts) if number % 2 == 0 else list(reversed(checkouts))
                    for label in order:
                        for key, value in round_(browser, servers[label][1], options).items():
                            results[label].setdefault(key, []).append(value)
                browser.close()
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(timeout=15)
    print(
        f"network: {options.latency:g} ms a round trip, {options.down:g} kbit/s down, "
        f"{options.up:g} kbit/s up; {options.rounds} rounds; medians"
    )
    for label, pages in results.items():
        for key, values in pages.items():
            seconds = statistics.median(v[0] for v in values)
            requests = statistics.median(v[1] for v in values)
            kib = statistics.median(v[2] for v in values) / 1024
            print(
                f"{label:<6} {key:<18} {seconds:6.2f} s, {requests:3.0f} requests, {kib:6.1f} KiB"
            )
    if "other" in results:
        for key in results["this"]:
            now = statistics.median(v[0] for v in results["this"][key])
            then = statistics.median(v[0] for v in results["other"][key])
            print(f"ratio this/other, {key}: {now / then:.2f}x")


if __name__ == "__main__":
    main()
