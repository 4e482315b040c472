"""Browser tests: the real server on a free loopback port, driven by Debian's Chromium.

Follows shared/notes/browser-tests.md: Playwright's Python package with its own driver, but
the system browser (never ``playwright install``, which downloads one).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = os.environ.get("PLAYTABLE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_TIMEOUT = 20.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Playwright's sync API keeps an event loop running in the main thread from the first
    # browser test to the end of the session, where async tests can no longer run theirs:
    # the browser tests go last.
    items.sort(key=lambda item: "e2e" in item.keywords)
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return
    reason = f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI") == "true":
        return  # let them fail loudly in CI: .ci/run installs Chromium
    skipped = [item for item in items if "e2e" in item.keywords]
    for item in skipped:
        item.add_marker(pytest.mark.skip(reason=reason))
    if skipped:
        _SKIPPED.append(f"{len(skipped)} browser tests SKIPPED: {reason}")


_SKIPPED: list[str] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # Loud, at the very end: a green run that skipped the browser did not test the pages.
    for line in _SKIPPED:
        terminalreporter.write_sep("!", line, red=True, bold=True)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(autouse=True)
def _close_the_tests_contexts(request: pytest.FixtureRequest) -> Iterator[None]:
    """Close every browser context a test opened, once it ends.

    Most tests open their contexts with ``browser.new_context()`` (two players, a spectator),
    which nothing closes: by the end of the suite the one Chromium held hundreds of live
    pages, each with its socket and its ticking clocks, and the last tests ran out of time.
    """
    yield
    if "browser" not in request.fixturenames:
        return
    browser = request.getfixturevalue("browser")
    for context in list(browser.contexts):
        with contextlib.suppress(PlaywrightError):  # a crashed context is closed already
            context.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``playtable serve`` on a free port with a fresh SQLite database; stopped afterwards."""
    workdir = tmp_path_factory.mktemp("server")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "PLAYTABLE_SECRET": "e2e-" + "0123456789abcdef" * 3,
        "PLAYTABLE_COMMIT": "e2e",
        # The computer thinks briefly, in one worker process, so the tests stay fast.
        "PLAYTABLE_BOT_WORKERS": "1",
        "PLAYTABLE_BOT_BUDGET": "0.3",
        "PLAYTABLE_ANALYSIS_BUDGET": "1.0",
        # The background analysis gives up on a proof sooner, so estimates come quickly.
        "PLAYTABLE_ANALYSIS_PROVE": "1.0",
        "PLAYTABLE_ANALYSIS_RETRY": "2.0",
        # Every page of the whole browser suite comes from one address (127.0.0.1): the
        # per-address budgets and caps, tested in tests/web, would be the suite's own limit.
        **{
            f"PLAYTABLE_{name}": "100000"
            for name in (
                "READS_PER_MINUTE",
                "TABLES_PER_MINUTE",
                "OFFERS_PER_MINUTE",
                "ANALYSES_PER_MINUTE",
                "SOLVER_SECONDS_PER_MINUTE",
                "SOCKETS_PER_ADDRESS",
                "SOCKETS_PER_ADDRESS_PER_TABLE",
                "PENDING_PER_ADDRESS",
            )
        },
    }
    log = (workdir / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from playtable.cli import main; sys.exit(main(sys.argv[1:]))",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--database-url",
            f"sqlite+aiosqlite:///{workdir / 'e2e.sqlite3'}",
            "--log-level",
            "warning",
        ],
        cwd=workdir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {process.returncode}:\n"
                    + (workdir / "server.log").read_text(errors="replace")
                )
            try:
                with urllib.request.urlopen(url + "/", timeout=1) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer within 20 s")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
