"""A table page left open for hours and days: the device changes time zone, an offer comes
while the network is away, the server restarts, a release changes the protocol under an open
page, the device sleeps and wakes with its connection dead."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page, expect

from tests.e2e.conftest import _free_port
from tests.e2e.helpers import (
    TIMEOUT,
    record_announcements,
    take_both_seats,
    wait_announced,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}


def correspondence_pair(browser: Browser, url: str, zone: str) -> tuple[Page, Page]:
    """Red's and Blue's pages at a correspondence table (3 days a move), Red's device in
    `zone`."""
    red_context: BrowserContext = browser.new_context(locale="en-GB")
    red_context.add_init_script(DEADLINES)
    blue_context = browser.new_context()
    response = red_context.request.post(
        url + "/api/tables",
        data=json.dumps(
            {
                "game": "dots",
                "options": DOTS,
                "seat": "red",
                "time_control": {"kind": "correspondence", "days": 3},
            }
        ),
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 201, response.text()
    created: dict[str, Any] = response.json()
    red, blue = red_context.new_page(), blue_context.new_page()
    move_to(red, zone)
    take_both_seats(red, blue, created)
    return red, blue


_SESSIONS: dict[Page, CDPSession] = {}


def move_to(page: Page, zone: str) -> None:
    """The device `page` runs on is set to the time zone `zone` (as travelling does)."""
    if page not in _SESSIONS:  # one session a page: another may not override its zone
        _SESSIONS[page] = page.context.new_cdp_session(page)
    _SESSIONS[page].send("Emulation.setTimezoneOverride", {"timezoneId": zone})


def play(page: Page, ply: int) -> None:
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, ply + 1)


# Keeps the last clock deadline the server sent to the page (window.__deadline).
DEADLINES = """
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      const found = [...String(event.data).matchAll(/"deadline":"([^"]+)"/g)];
      if (found.length) window.__deadline = found[found.length - 1][1];
    });
  }
};
"""


def local_deadline(page: Page) -> str:
    """The last deadline the server sent, as the device's own zone writes it now."""
    return str(
        page.evaluate(
            """() => new Intl.DateTimeFormat(document.documentElement.lang,
                {dateStyle: "medium", timeStyle: "short"}).format(new Date(window.__deadline))"""
        )
    )


def test_a_correspondence_deadline_follows_the_device_to_another_time_zone(
    browser: Browser, server_url: str
) -> None:
    """A player flies from Helsinki to New York with the table open: the deadline on the
    clock is the device's new local time, not Helsinki's seven hours ahead."""
    red, blue = correspondence_pair(browser, server_url, "Europe/Helsinki")
    play(red, 0)
    wait_ply(blue, 1)
    when = red.locator("#clock-blue .clock-when")
    expect(when).to_have_text(local_deadline(red), timeout=TIMEOUT)
    move_to(red, "America/New_York")
    play(blue, 1)  # the next state comes: Red's own deadline, in New York's time
    wait_ply(red, 2)
    mine = red.locator("#clock-red .clock-when")
    expect(mine).to_have_text(local_deadline(red), timeout=TIMEOUT)
    new_york = mine.text_content()
    # the laptop closed there and opened in Tokyo: the page shown again says Tokyo's time
    move_to(red, "Asia/Tokyo")
    red.evaluate("() => window.dispatchEvent(new Event('focus'))")
    expect(mine).not_to_have_text(new_york or "", timeout=TIMEOUT)
    expect(mine).to_have_text(local_deadline(red))


def test_an_offer_made_while_the_connection_was_down_is_said_when_it_is_back(
    browser: Browser, server_url: str
) -> None:
    """Blue's phone lost its network; Red offered a draw meanwhile. Back online, Blue's page
    shows the offer, and a screen reader hears it too, as it would have live (it heard only
    'Connected again.', and the answer waiting for Blue went unsaid)."""
    red, blue = correspondence_pair(browser, server_url, "Europe/Helsinki")
    play(red, 0)
    play(blue, 1)
    record_announcements(blue)
    blue.context.set_offline(True)
    expect(blue.locator("#connection")).to_have_attribute("data-state", "reconnecting")
    red.locator("#action-draw").click()
    expect(red.locator("#offer-draw-text")).to_have_text(
        "You offered a draw. Waiting for an answer."
    )
    blue.context.set_offline(False)
    expect(blue.locator("#offer-alert-text")).to_have_text("Red offers a draw.", timeout=TIMEOUT)
    wait_announced(blue, "Red offers a draw.")
    blue.wait_for_timeout(300)
    said = " ".join(blue.evaluate("() => window.__said"))
    assert said.count("Connected again.") == 1 and said.count("Red offers a draw.") == 1, said


class Server:
    """``playtable serve`` of one test on a port of its own, which it can restart."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Started; returns the monotonic time it first answered."""
        env = {**os.environ, "PLAYTABLE_SECRET": "e2e-long-" + "0123456789abcdef" * 2}
        log = (self.folder / "server.log").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "playtable.cli", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--database-url", f"sqlite:///{self.folder / 'long.sqlite3'}",
             "--log-level", "warning"],
            cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1):
                    return time.monotonic()
            except OSError:
                assert self.process.poll() is None, (self.folder / "server.log").read_text()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)
            self.process = None


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_page_is_back_at_once_when_the_server_is_back_from_a_restart(
    browser: Browser, own_server: Server
) -> None:
    """A release restarts the server (its sockets are closed with 1012, Service Restart) and
    it takes a while to come back. The page kept backing off, up to 15 s between two tries:
    with the server back, a player read 'Reconnecting…' for 5 to 15 s more while their
    real-time clock ran on the server. A restart's page now tries again every second or so."""
    red, _ = correspondence_pair(browser, own_server.url, "Europe/Helsinki")
    connection = red.locator("#connection")
    own_server.stop()
    expect(connection).to_have_attribute("data-state", "reconnecting", timeout=TIMEOUT)
    time.sleep(16)  # a slow start: the page's tries so far all failed
    back = own_server.start()
    expect(connection).to_have_attribute("data-state", "connected", timeout=30_000)
    waited = time.monotonic() - back
    assert waited < 4, f"connected {waited:.1f} s after the server was back"


# The page as a release before the server's would be: its join speaks another protocol (only
# as first loaded; loaded again, it is the server's own page).
OLD_PAGE = """
if (!sessionStorage.getItem("old-page-loaded")) {
  sessionStorage.setItem("old-page-loaded", "1");
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    send(data) {
      return super.send(String(data).replace('"protocol":2', '"protocol":1'));
    }
  };
}
"""


def test_a_page_from_before_a_release_that_changed_the_protocol_loads_again(
    browser: Browser, server_url: str
) -> None:
    """A page left open across a release whose server speaks a newer protocol: its join was
    refused, and it showed 'Your turn' with nothing to play and 'Connected' while it asked
    again every second for ever. It now loads again, once, and the player plays on."""
    red, blue = correspondence_pair(browser, server_url, "Europe/Helsinki")
    url = red.url
    red.close()
    context = browser.new_context()
    context.add_init_script(OLD_PAGE)
    context.add_cookies(red.context.cookies())
    old = context.new_page()
    old.goto(url)
    move = wait_moves_offered(old)[0]  # the reloaded page offers the moves
    assert old.evaluate("() => sessionStorage.getItem('old-page-loaded')") == "1"
    old.locator(f'#board [data-move="{move}"]').click()
    wait_ply(blue, 1)


class Relay:
    """A TCP relay in front of the server whose connections can be cut off without a word
    (packets lost, nothing closed: a network that went away under a sleeping laptop)."""

    def __init__(self, target: str) -> None:
        host, port = target.removeprefix("http://").split(":")
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.dead: set[socket.socket] = set()
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if source not in self.dead:
                    sink.sendall(data)
        # a dead path says nothing, not even that it closed
        if source not in self.dead:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

    def cut(self) -> None:
        """Every connection open now carries nothing more; new ones get through."""
        self.dead.update(self.open)

    def close(self) -> None:
        self.listener.close()
        for conn in self.open:
            with contextlib.suppress(OSError):
                conn.close()


def test_a_page_woken_from_sleep_shows_the_table_as_it_is_at_once(
    browser: Browser, server_url: str
) -> None:
    """Red closed the laptop; its network went away, Blue moved. Opened again, the page
    showed the evening's board and clocks as if live until its next ping went unanswered
    (up to 35 s); it now sees that the device slept (the wall clock ran ahead of the
    monotonic one, which stands still in sleep) and connects again at once."""
    relay = Relay(server_url)
    try:
        red, blue = correspondence_pair(browser, server_url, "Europe/Helsinki")
        red.goto(red.url.replace(server_url, relay.url))  # Red's network: the relay
        wait_ready(red)
        play(red, 0)
        wait_ply(blue, 1)
        relay.cut()
        play(blue, 1)
        red.wait_for_timeout(1000)
        assert red.locator("#board").get_attribute("data-ply") == "1"  # not heard
        # the night: the wall clock is eight hours on, the monotonic clock is where it was
        red.evaluate(
            """() => { const wall = Date.now; const slept = 8 * 3600 * 1000;
                Date.now = () => wall() + slept; }"""
        )
        wait_ply(red, 2)  # within TIMEOUT (10 s): the ping and its silence took up to 35 s
        expect(red.locator("#connection")).to_have_attribute("data-state", "connected")
    finally:
        relay.close()
