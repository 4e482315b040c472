"""A release changing under the players: two processes of two releases behind one address,
as during a rolling upgrade (docs/deploy.md), each page's files asked for wherever the
proxy sends them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect

import playtable
from tests.e2e.conftest import _free_port
from tests.e2e.helpers import TIMEOUT, api_table, wait_ready

pytestmark = pytest.mark.e2e

PACKAGE = Path(playtable.__file__).parent


def _change(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture(scope="module")
def next_release(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``playtable serve`` of the next release: this checkout with a module that gained an
    export its importer uses, a changed style sheet and a changed translation."""
    folder = tmp_path_factory.mktemp("next-release")
    package = folder / "playtable"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    js = package / "web" / "static" / "js"
    with (js / "feedback.js").open("a", encoding="utf-8") as module:
        module.write('\nexport const RELEASE = "next";\n')
    _change(
        js / "table.js",
        'import { showFeedback } from "./feedback.js";',
        'import { RELEASE, showFeedback } from "./feedback.js";\n'
        "document.documentElement.dataset.release = RELEASE;",
    )
    with (package / "web" / "static" / "table.css").open("a", encoding="utf-8") as sheet:
        sheet.write('\nbody { --release: "next"; }\n')
    _change(
        package / "i18n" / "locales" / "fi" / "LC_MESSAGES" / "messages.po",
        'msgstr "Sinun vuorosi"',
        'msgstr "Sinun vuorosi nyt"',
    )
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "PYTHONPATH": str(folder),
        "PLAYTABLE_SECRET": "e2e-next-" + "0123456789abcdef" * 2,
    }
    log = (folder / "server.log").open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "playtable.cli", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--database-url", f"sqlite:///{folder / 'next.sqlite3'}",
         "--log-level", "warning"],
        cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    log.close()
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=1):
                    break
            except OSError:
                assert process.poll() is None, (folder / "server.log").read_text()
                assert time.monotonic() < deadline, "the next release did not start"
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def behind_one_address(page: Page, this: str, other: str) -> None:
    """The page's style sheets, modules and strings asked of a process as nginx with the
    upstream of docs/deploy.md asks them: its round robin sent the page's script
    (``table.js``) to ``this`` process and every other file to ``other``, and a 404 there is
    asked again of the next process (``proxy_next_upstream ... http_404`` for /static/ and
    /strings/)."""

    def proxy(route: Route) -> None:
        path = route.request.url.split("/", 3)[3]
        first, then = (this, other) if path.startswith("static/js/table.js") else (other, this)
        response = route.fetch(url=f"{first}/{path}")
        if response.status == 404:
            response = route.fetch(url=f"{then}/{path}")
        route.fulfill(response=response)

    page.route("**/static/**", proxy)
    page.route("**/strings/**", proxy)


def test_a_page_gets_its_own_release_s_files_during_a_rolling_upgrade(
    browser: Browser, server_url: str, next_release: str
) -> None:
    """A page the new release rendered, whose files but its script the proxy asked of the old
    release's process: it answered with its own bytes under the new release's addresses, and
    the page ran the new table.js with the old feedback.js ("does not provide an export named
    'RELEASE'"): 'Loading the board…' for ever, nothing to play. The old process now answers
    404 for an address it has no content for, the proxy asks the other one, and the page is
    the new release's whole: its module, its style sheet, its words."""
    context = browser.new_context(locale="fi-FI")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    created = api_table(context, next_release, "dots", {"rows": 3, "cols": 3})
    page.goto(created["seat_url"])
    behind_one_address(page, this=next_release, other=server_url)
    page.goto(f"{next_release}/fi/t/{created['id']}")
    page.locator("#board svg").wait_for(timeout=TIMEOUT)
    wait_ready(page)
    expect(page.locator("#turn")).to_have_text("Sinun vuorosi nyt")
    assert page.evaluate("document.documentElement.dataset.release") == "next"
    assert page.evaluate("getComputedStyle(document.body).getPropertyValue('--release')") == (
        '"next"'
    )
    page.locator("#board [data-move]").first.click()
    page.locator('#board[data-ply="1"]').wait_for(timeout=TIMEOUT)
    assert errors == []

    # and the other way round: the old release's page, its files asked of the new process
    old = context.new_page()
    old.on("pageerror", lambda error: errors.append(str(error)))
    mine = api_table(context, server_url, "dots", {"rows": 3, "cols": 3})
    old.goto(mine["seat_url"])
    behind_one_address(old, this=server_url, other=next_release)
    old.goto(f"{server_url}/fi/t/{mine['id']}")
    wait_ready(old)
    expect(old.locator("#turn")).to_have_text("Sinun vuorosi")
    assert old.evaluate("document.documentElement.dataset.release") is None
    assert old.evaluate("getComputedStyle(document.body).getPropertyValue('--release')") == ""
    assert errors == []


def test_a_page_whose_scripts_did_not_load_loads_again(
    browser: Browser, server_url: str, next_release: str
) -> None:
    """Behind a balancer that does not ask again on a 404 (or a server between two releases),
    the page's modules got the other release's 404: the page stayed at 'Loading the board…'
    with nothing to play until the player reloaded it. It now loads again by itself, and
    the second load (its files from its own release's process, the roll done) plays."""
    context = browser.new_context(locale="fi-FI")
    page = context.new_page()
    created = api_table(context, next_release, "dots", {"rows": 3, "cols": 3})
    page.goto(created["seat_url"])
    loads: list[str] = []
    page.on("request", lambda r: loads.append(r.url) if r.is_navigation_request() else None)

    def round_robin(route: Route) -> None:
        path = route.request.url.split("/", 3)[3]
        during_the_roll = len(loads) == 1 and not path.startswith("static/js/table.js")
        route.fulfill(
            response=route.fetch(url=f"{server_url if during_the_roll else next_release}/{path}")
        )

    page.route("**/static/**", round_robin)
    page.route("**/strings/**", round_robin)
    page.goto(f"{next_release}/fi/t/{created['id']}")
    wait_ready(page)
    expect(page.locator("#turn")).to_have_text("Sinun vuorosi nyt")
    assert len(loads) == 2, loads  # loaded once more, not in a loop
    page.locator("#board [data-move]").first.click()
    page.locator('#board[data-ply="1"]').wait_for(timeout=TIMEOUT)
