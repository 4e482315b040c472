"""Clocks in the browser: a real-time game lost on time with a spectator watching, a
correspondence game ending with nobody connected, My games and the seat's QR link on a
second device, and the notification permission flow."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.conftest import _free_port
from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    take_both_seats,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.test_a11y import serious_violations

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}


def api_table(context: BrowserContext, url: str, control: dict[str, Any]) -> dict[str, Any]:
    response = context.request.post(
        url + "/api/tables",
        data=json.dumps({"game": "dots", "options": DOTS, "seat": "red", "time_control": control}),
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 201, response.text()
    created: dict[str, Any] = response.json()
    return created


def play_one(page: Page, ply: int) -> None:
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, ply + 1)


def clock_seconds(page: Page, player: str) -> float:
    return float(page.locator(f"#clock-{player}").get_attribute("data-seconds") or "nan")


# Lets a test say the tab is in the background (headless pages are never hidden).
BACKGROUND = (
    "Object.defineProperty(document, 'hidden', "
    "{configurable: true, get: () => window.__hidden === true});"
)


def seated_pair(
    browser: Browser, url: str, control: dict[str, Any], init_script: str | None = None
) -> tuple[Page, Page, str]:
    red_context, blue_context = browser.new_context(), browser.new_context()
    if init_script:
        red_context.add_init_script(init_script)
    created = api_table(red_context, url, control)
    red, blue = red_context.new_page(), blue_context.new_page()
    take_both_seats(red, blue, created)
    return red, blue, created["watch_url"]


def test_a_real_time_game_is_lost_on_time_while_a_spectator_watches(
    browser: Browser, server_url: str
) -> None:
    control = {"kind": "realtime", "minutes": 0.1, "increment": 0}  # 6 seconds a side
    red, blue, watch_url = seated_pair(browser, server_url, control)
    spectator = browser.new_context().new_page()
    spectator.goto(watch_url)
    wait_ready(spectator)
    expect(spectator.locator("#clock-red")).to_have_text("6.0")
    czech = browser.new_context().new_page()  # tenths as Czech writes them
    czech.goto(watch_url.replace("/t/", "/cs/t/", 1))
    wait_ready(czech)
    expect(czech.locator("#clock-red")).to_have_text("6,0")
    play_one(red, 0)  # the first moves are free: each clock starts on its player's first move
    play_one(blue, 1)
    wait_ply(spectator, 2)
    # Red's clock runs now, marked and low (under 10 s), counting down smoothly.
    running = spectator.locator("#clock-red")
    expect(running).to_have_class(re.compile(r"\bis-running\b.*\bis-low\b"))
    expect(spectator.locator("#clock-blue")).not_to_have_class(re.compile("is-running"))
    first = clock_seconds(spectator, "red")
    spectator.wait_for_timeout(400)
    second = clock_seconds(spectator, "red")
    assert 0 < second < first <= 6.0
    assert abs(clock_seconds(red, "red") - second) < 0.5  # the player sees the same time
    # Red does not move: the server calls the flag, and everybody sees the result.
    expect(spectator.locator("#result-text")).to_have_text(
        "Red ran out of time. Blue wins.", timeout=TIMEOUT
    )
    expect(red.locator("#result-text")).to_have_text("You ran out of time. Blue wins.")
    expect(spectator.locator("#clock-red")).to_have_text("0.0")
    expect(czech.locator("#clock-red")).to_have_text("0,0")
    record = spectator.request.get(watch_url.replace("/watch", "/record")).text()
    assert '[TimeControl "6+0"]' in record and '[Result "blue"]' in record


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server of this test alone, whose SQLite file the test may write to."""
    database = tmp_path / "clocks.sqlite3"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PLAYTABLE_SECRET": "e2e-clock-" + "0123456789abcdef" * 2}
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "playtable.cli", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--database-url", f"sqlite:///{database}", "--log-level", "warning"],
        cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=1):
                    break
            except OSError:
                assert process.poll() is None, (tmp_path / "server.log").read_text()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield url, database
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def test_a_correspondence_game_ends_on_time_while_nobody_is_connected(
    browser: Browser, own_server: tuple[str, Path]
) -> None:
    url, database = own_server
    red, blue, watch_url = seated_pair(browser, url, {"kind": "correspondence", "days": 1})
    expect(red.locator("#clock-red")).to_have_text(re.compile(r"^Next move by "))
    play_one(red, 0)
    play_one(blue, 1)
    expect(red.locator("#clock-red")).to_have_class(re.compile("is-running"))
    table_id = watch_url.rstrip("/").split("/")[-2]
    red_context, blue_context = red.context, blue.context
    red.close()
    blue.close()  # nobody is connected any more
    # Two days pass: every stored time moves two days into the past (and the version on, as
    # any writer's would, so no process trusts a cached copy of the table).
    shift = "created_at = strftime('%Y-%m-%d %H:%M:%f', created_at, '-2 days')"
    with sqlite3.connect(database) as db:
        db.execute(f"UPDATE moves SET {shift} WHERE table_id = ?", (table_id,))
        db.execute(f"UPDATE seats SET {shift} WHERE table_id = ?", (table_id,))
        db.execute(
            "UPDATE tables SET version = version + 1, "
            "deadline = strftime('%Y-%m-%d %H:%M:%f', deadline, '-2 days') WHERE id = ?",
            (table_id,),
        )
    deadline = time.monotonic() + 10
    while True:
        with urllib.request.urlopen(f"{url}/api/tables/{table_id}") as response:
            outcome = json.load(response)["outcome"]
        if outcome is not None:
            break
        assert time.monotonic() < deadline, "the sweep never ended the table"
        time.sleep(0.1)
    assert outcome == {"winner": "blue", "reason": "timeout", "score": {"red": 0, "blue": 0}}
    back = red_context.new_page()
    back.goto(f"{url}/t/{table_id}")
    expect(back.locator("#result-text")).to_have_text("You ran out of time. Blue wins.")
    blue_context.close()


def test_my_games_and_the_seat_qr_link_carry_a_seat_to_a_second_device(
    browser: Browser, server_url: str
) -> None:
    laptop_context = browser.new_context()
    laptop_context.grant_permissions(["clipboard-read", "clipboard-write"])
    laptop = laptop_context.new_page()
    table_url = create_table(laptop, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
    laptop.goto(server_url + "/games")
    row = laptop.locator("#games-list li").first
    expect(row).to_have_attribute("data-group", "yours")
    expect(row.locator("svg")).to_have_count(1)  # the board thumbnail
    expect(laptop.locator("#games-waiting")).to_have_count(0)  # only on the home page
    laptop.goto(server_url + "/")
    expect(laptop.locator("#games-waiting")).to_have_text("1 game is waiting for your move")
    laptop.goto(table_url)
    laptop.locator("#continue-link").click()
    expect(laptop.locator("#seat-warning")).to_contain_text("Whoever has it can play for you")
    expect(laptop.locator("#seat-qr svg")).to_have_count(1)
    link = laptop.locator("#seat-url").input_value()
    assert re.fullmatch(rf"{re.escape(table_url)}/seat/[\w-]+", link)
    copy = laptop.locator('button[data-copy="seat-url"]')  # a phone cannot select the field
    copy.click()
    expect(copy).to_have_text("Copied")
    assert laptop.evaluate("navigator.clipboard.readText()") == link
    laptop.emulate_media(color_scheme="dark")  # the warning stays readable in the dark
    assert not serious_violations(laptop)
    laptop.emulate_media(color_scheme="light")

    phone = browser.new_context().new_page()  # another device: no cookie of the laptop's
    phone.goto(server_url + "/games")
    expect(phone.locator("#no-games")).to_be_visible()
    phone.goto(link)
    phone.wait_for_url(table_url)
    wait_ready(phone)
    expect(phone.locator("#turn")).to_have_text("Your turn")
    play_one(phone, 0)
    wait_ply(_reload(laptop, table_url), 1)  # the laptop's seat plays on the phone
    phone.goto(server_url + "/games")
    expect(phone.locator("#games-list li").first).to_have_attribute("data-group", "running")


def test_a_real_time_first_move_is_counted_down(browser: Browser, server_url: str) -> None:
    """The minute for a first move was given as a time of day ("Red must make a first move
    by 3:26:09 AM."), to be worked out against the player's own clock, and said nothing of
    what happens then. It counts down and says the table is aborted."""
    red, blue, _ = seated_pair(browser, server_url, {"kind": "realtime", "minutes": 1})
    sentence = re.compile(
        r"Red must make a first move within (\d+) seconds, or the table is aborted\."
    )
    note = blue.locator("#clock-note")
    expect(note).to_have_text(sentence)
    first = int(sentence.fullmatch(note.text_content() or "").group(1))  # type: ignore[union-attr]
    assert 50 <= first <= 60
    expect(note).not_to_contain_text(f"within {first} seconds", timeout=3000)
    later = int(sentence.fullmatch(note.text_content() or "").group(1))  # type: ignore[union-attr]
    assert first - 3 <= later < first
    # Red's own page says it to Red
    expect(red.locator("#clock-note")).to_have_text(
        re.compile(r"You must make your first move within \d+ seconds, or the table is aborted\.")
    )
    play_one(red, 0)  # then Blue's first move has its own minute
    expect(note).to_have_text(
        re.compile(
            r"You must make your first move within (5\d|60) seconds, or the table is aborted\."
        )
    )
    expect(red.locator("#clock-note")).to_have_text(
        re.compile(r"Blue must make a first move within \d+ seconds, or the table is aborted\.")
    )
    play_one(blue, 1)
    expect(note).to_be_hidden()


def test_my_games_gives_the_first_move_deadline_in_the_visitors_own_time_zone(
    browser: Browser, server_url: str
) -> None:
    """My games said when a table waiting for its first move is aborted in UTC ("Dec 9,
    2026, 3:13 AM UTC"): a player in Seoul had to add nine hours. The table page's clock
    writes it in the visitor's own zone; My games now does too, in the page's language."""
    red_context = browser.new_context(timezone_id="Asia/Seoul", locale="ko-KR")
    created = api_table(red_context, server_url, {"kind": "correspondence", "days": 3})
    accept_invitation(browser.new_context().new_page(), created["invite_url"])
    page = red_context.new_page()
    page.goto(created["seat_url"])  # the seat's cookie
    wait_ready(page)
    page.goto(server_url + "/ko/games")
    when = page.locator(f'li[data-table="{created["id"]}"] .game-row__first-move time')
    moment = when.get_attribute("datetime") or ""
    seoul = page.evaluate(
        """iso => new Intl.DateTimeFormat("ko", {dateStyle: "medium", timeStyle: "short",
            timeZone: "Asia/Seoul"}).format(new Date(iso))""",
        moment,
    )
    utc = page.evaluate(
        """iso => new Intl.DateTimeFormat("ko", {dateStyle: "medium", timeStyle: "short",
            timeZone: "UTC"}).format(new Date(iso))""",
        moment,
    )
    assert seoul != utc  # nine hours apart
    expect(when).to_have_text(seoul)
    expect(page.locator(".game-row__first-move")).not_to_contain_text("UTC")


def _reload(page: Page, url: str) -> Page:
    page.goto(url)
    wait_ready(page)
    return page


def test_nothing_is_offered_to_tell_of_moves_once_the_game_is_over(
    browser: Browser, server_url: str
) -> None:
    control = {"kind": "correspondence", "days": 3}
    red, blue, _ = seated_pair(browser, server_url, control)
    button = blue.locator("#notify-button")
    expect(button).to_be_visible()
    red.locator("#action-resign").click()
    red.locator("#resign-confirm").click()
    expect(blue.locator("#result")).to_be_visible(timeout=TIMEOUT)
    expect(button).to_be_hidden()
    expect(blue.locator("#push-on")).to_be_hidden()
    blue.reload()  # and a finished game opened later offers none either
    wait_ready(blue)
    expect(blue.locator("#result")).to_be_visible()
    expect(button).to_be_hidden()
    expect(blue.locator("#push-on")).to_be_hidden()


def test_the_player_opts_in_to_be_told_of_their_move_in_a_background_tab(
    browser: Browser, server_url: str
) -> None:
    control = {"kind": "realtime", "minutes": 5, "increment": 3}
    red, blue, _ = seated_pair(browser, server_url, control, init_script=BACKGROUND)
    button = red.locator("#notify-button")
    expect(button).to_be_visible()  # the browser has not been asked yet
    red.context.grant_permissions(["notifications"], origin=server_url)
    button.click()
    expect(red.locator("#notify-status")).to_have_text("You will be told when it is your move.")
    expect(button).to_be_hidden()
    play_one(red, 0)
    red.evaluate("window.__hidden = true")  # the player switched to another tab
    play_one(blue, 1)
    expect(red.locator("body")).to_have_attribute("data-notified", "1", timeout=TIMEOUT)
    red.evaluate("window.__hidden = false")
    play_one(red, 2)
    play_one(blue, 3)  # in the foreground: no notification
    red.wait_for_timeout(300)
    expect(red.locator("body")).to_have_attribute("data-notified", "1")


def test_the_push_subscription_flow_at_a_correspondence_table(
    browser: Browser, server_url: str
) -> None:
    """The browser side as far as it runs here: the push services of the browsers cannot be
    reached from these machines, so Chromium's ``pushManager.subscribe`` fails, and the page
    must say so; the server side is tested against a local receiver (tests/web/test_push.py)."""
    red, blue, _ = seated_pair(browser, server_url, {"kind": "correspondence", "days": 3})
    expect(blue.locator("#push-on")).to_be_visible()
    scope = blue.evaluate(
        "async () => (await navigator.serviceWorker.getRegistration('/'))?.scope ?? null"
    )
    assert scope == server_url + "/"  # the worker at the root serves every table's pushes
    blue.context.grant_permissions(["notifications"], origin=server_url)
    blue.locator("#push-on").click()
    expect(blue.locator("#push-status")).to_have_text(
        "This browser could not turn on push notifications.", timeout=TIMEOUT
    )
    # What the page sends once a subscription exists: its seat cookie goes along.
    table_path = blue.url.replace(server_url, "")
    statuses = blue.evaluate(
        """async (path) => {
            const send = (method, body) => fetch(path + "/push", {method,
                headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
            const sub = {endpoint: "https://push.example/one", keys: {p256dh: "BA", auth: "AA"}};
            const made = await send("POST", {subscription: sub, lang: "ko"});
            const gone = await (await send("DELETE", {endpoint: sub.endpoint})).json();
            return [made.status, gone.removed];
        }""",
        table_path,
    )
    assert statuses == [201, True]
    expect(red.locator("#push-on")).to_be_visible()  # each seat asks for itself


def test_a_state_held_up_on_the_way_counts_from_when_the_server_sent_it(
    browser: Browser, server_url: str
) -> None:
    """A phone's network stalls while the opponent moves: the move arrives seconds late, and
    the player's own clock must show what the server's shows, not seconds more."""
    control = {"kind": "realtime", "minutes": 1, "increment": 0}
    red_context, blue_context = browser.new_context(), browser.new_context()
    created = api_table(red_context, server_url, control)
    held: list[str | bytes] = []
    pages: list[Any] = []  # the page's side of red's socket
    stalled = [False]

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        pages.append(ws)

        def to_page(message: str | bytes) -> None:
            if stalled[0]:
                held.append(message)
            else:
                ws.send(message)

        server.on_message(to_page)

    red, blue = red_context.new_page(), blue_context.new_page()
    red.route_web_socket(re.compile(r"/ws$"), route)
    take_both_seats(red, blue, created)
    play_one(red, 0)  # the first moves are free
    wait_ply(blue, 1)
    stalled[0] = True
    play_one(blue, 1)  # red's clock starts now, at the server
    red.wait_for_timeout(3000)
    assert held, "nothing was held up"
    stalled[0] = False
    for message in held:  # the network gives everything at once
        pages[-1].send(message)
    wait_ply(red, 2)
    red.wait_for_timeout(200)
    shown, opponent_shows = clock_seconds(red, "red"), clock_seconds(blue, "red")
    assert opponent_shows < 57.5  # blue's page, never held up, counts the stall against red
    assert abs(shown - opponent_shows) < 0.8, (shown, opponent_shows)


def test_a_running_clock_reads_out_only_the_thresholds_it_crosses(
    browser: Browser, server_url: str
) -> None:
    """A 12-second clock starting: a screen reader hears "10 seconds left" when it gets
    there, not "one minute left" and "30 seconds left" the moment it starts."""
    control = {"kind": "realtime", "minutes": 0.2, "increment": 0}
    red, blue, _ = seated_pair(browser, server_url, control)
    red.evaluate(
        """() => {
            window.heard = [];
            const region = document.getElementById("clock-announcer");
            new MutationObserver(() => window.heard.push(region.textContent)).observe(
                region, {childList: true, characterData: true, subtree: true});
        }"""
    )
    play_one(red, 0)  # the first moves are free
    play_one(blue, 1)
    wait_ply(red, 2)
    red.wait_for_function("() => window.heard.length > 0", timeout=TIMEOUT)
    red.wait_for_timeout(300)
    assert red.evaluate("() => window.heard") == ["Red has 10 seconds left."]


def test_a_correspondence_first_move_is_due_on_a_date_shown_once(
    browser: Browser, server_url: str
) -> None:
    """The first move may be days away: its day is written, not a bare time of day. Both the
    mover's clock ("Next move by ...") and the first-move note wrote it, so the page showed
    (and a screen reader read) the same deadline twice: the note now says what happens then."""
    control = {"kind": "correspondence", "days": 3}
    red, _, _ = seated_pair(browser, server_url, control)
    note, clock = red.locator("#clock-note"), red.locator("#clock-red")
    expect(note).to_have_text(  # said to Red, whose first move it is
        "If you make no first move by the deadline on the clock, the table is aborted"
        " without a result."
    )
    due = time.gmtime(time.time() + 3 * 86400)  # three days from the friend sitting down
    expect(clock).to_contain_text(str(due.tm_year))  # its year: a date is written
    when = clock.locator(".clock-when").text_content() or ""
    assert red.evaluate("when => document.body.innerText.split(when).length - 1", when) == 1
    assert (clock.get_attribute("aria-label") or "").endswith(when)  # read out with the clock


def test_news_at_the_table_while_a_player_thinks_does_not_cut_their_thinking_time(
    browser: Browser, server_url: str
) -> None:
    """A move carries the thinking time the page measured (``think_s``): the server credits
    the rest of the move's time as transit, up to half a second. The page measured from the
    last news of any kind, so a spectator coming and going while red thought made red's
    move look quick, and red got the whole half second free (a review: 58 ms -> 500 ms)."""
    control = {"kind": "realtime", "minutes": 5, "increment": 0}
    record_sent = """
        window.__sent = [];
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
          window.__sent.push(String(data));
          return send.call(this, data);
        };
    """
    red, blue, watch_url = seated_pair(browser, server_url, control, record_sent)
    play_one(red, 0)
    play_one(blue, 1)
    wait_ply(red, 2)
    started = time.monotonic()
    red.wait_for_timeout(800)
    spectator = browser.new_context().new_page()
    spectator.goto(watch_url)
    wait_ready(spectator)
    expect(red.locator("#spectators")).to_be_visible()  # "1 watching": news at red's table
    spectator.context.close()
    expect(red.locator("#spectators")).to_be_hidden()
    thought = time.monotonic() - started
    play_one(red, 2)
    sent = [json.loads(frame) for frame in red.evaluate("window.__sent")]
    moves = [m for m in sent if m.get("type") == "move" and m["ply"] == 2]
    assert moves and moves[0]["think_s"] >= thought - 0.2, (moves, thought)
