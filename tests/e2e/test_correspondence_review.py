"""A correspondence player with several slow games at once, on a laptop and a phone: each
game's push notifications, turned on and off game by game; My games and a table left open
all day."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.helpers import (
    TIMEOUT,
    api_table,
    seat,
    take_both_seats,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.test_clocks import own_server, seated_pair

__all__ = ["own_server"]  # the fixture, a server of the test's own whose database it moves

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}
DAYS = {"kind": "correspondence", "days": 3}

# The browsers' push services cannot be reached from these machines (pushManager.subscribe
# fails here): a stand-in for the browser's one subscription of the site, kept in the
# origin's storage as a browser keeps it, counting the times it is ended.
FAKE_PUSH = """(() => {
  const KEY = "fake-push-endpoint";
  const made = (endpoint) => ({
    endpoint,
    toJSON: () => ({ endpoint, keys: { p256dh: "BA", auth: "AA" } }),
    unsubscribe: async () => {
      localStorage.removeItem(KEY);
      const ended = Number(localStorage.getItem("fake-push-ended") || 0);
      localStorage.setItem("fake-push-ended", String(ended + 1));
      return true;
    },
  });
  PushManager.prototype.getSubscription = async function () {
    const endpoint = localStorage.getItem(KEY);
    return endpoint ? made(endpoint) : null;
  };
  PushManager.prototype.subscribe = async function () {
    if (!localStorage.getItem(KEY)) localStorage.setItem(KEY, "https://push.example/this-phone");
    return made(localStorage.getItem(KEY));
  };
})();"""


def shows_push(page: Page, on: bool) -> None:
    """The table offers to turn push on (``on`` False) or off (``on`` True), not both."""
    expect(page.locator("#push-off")).to_be_visible(visible=on, timeout=TIMEOUT)
    expect(page.locator("#push-on")).to_be_visible(visible=not on)


def test_push_is_turned_on_and_off_for_each_game_of_its_own(
    browser: Browser, server_url: str
) -> None:
    """A phone told of its moves in one game showed every other correspondence game (a
    second friend's, the rematch) as told too: the page asked the browser, which has one
    subscription for the whole site, not whether the server kept it for this table, so the
    player waited for pushes that never came. And turning it off in one game ended the
    browser's subscription, and with it the pushes of every other game."""
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    phone.add_init_script(FAKE_PUSH)
    phone.grant_permissions(["notifications"], origin=server_url)
    friend = browser.new_context()
    games = []
    for _ in range(2):
        created = api_table(phone, server_url, "dots", DOTS, DAYS)
        mine = phone.new_page()
        take_both_seats(mine, friend.new_page(), created)
        games.append(mine)
    first, second = games
    first.bring_to_front()
    shows_push(first, on=False)
    first.locator("#push-on").click()
    expect(first.locator("#push-status")).to_have_text(
        "This device will tell you when it is your move, even with the tab closed."
    )
    shows_push(first, on=True)

    second.bring_to_front()
    second.reload()
    shows_push(second, on=False)  # the second game is not told of yet: offered
    second.locator("#push-on").click()
    shows_push(second, on=True)
    second.locator("#push-off").click()
    expect(second.locator("#push-status")).to_have_text(
        "This device will no longer tell you when it is your move."
    )
    shows_push(second, on=False)

    first.bring_to_front()
    first.reload()
    shows_push(first, on=True)  # the first game is still told of
    assert first.evaluate("localStorage.getItem('fake-push-ended')") is None
    first.locator("#push-off").click()  # its last game: the subscription ends
    shows_push(first, on=False)
    assert first.evaluate("localStorage.getItem('fake-push-ended')") == "1"


def play_one(page: Page, ply: int) -> None:
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, ply + 1)


def test_my_games_left_open_shows_the_move_that_came_meanwhile(
    browser: Browser, server_url: str
) -> None:
    """My games open on the phone all day, to see which game waits: it said "Opponent's
    move" (in Finnish, "Vastustajan siirto") hours after the friend had moved, until the
    player thought of reloading it. Back in view, it reads the list again."""
    phone = browser.new_context(
        locale="fi-FI",
        timezone_id="Europe/Helsinki",
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    friend = browser.new_context(locale="cs-CZ", timezone_id="America/New_York")
    created = api_table(phone, server_url, "dots", DOTS, DAYS)
    mine, theirs = phone.new_page(), friend.new_page()
    take_both_seats(mine, theirs, created)
    play_one(mine, 0)
    mine.close()
    games = phone.new_page()
    games.goto(server_url + "/fi/games")
    row = games.locator(f'li[data-table="{created["id"]}"]')
    expect(row).to_have_attribute("data-group", "running")
    expect(row.locator(".game-row__status")).to_contain_text("Vastustajan siirto")
    play_one(theirs, 1)  # the friend moves, hours later
    # the player comes back to the tab
    games.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(row).to_have_attribute("data-group", "yours", timeout=TIMEOUT)
    expect(row.locator(".game-row__status")).to_contain_text("Sinun siirtosi")
    # the moments are still in the phone's time zone and language, as first written
    when = row.locator(".game-row__when time")
    expect(when).not_to_contain_text("UTC")


def test_a_correspondence_deadline_left_open_is_highlighted_as_it_comes_near(
    browser: Browser, own_server: tuple[str, Path]
) -> None:
    """The page of a game at a day a move left open: the deadline is highlighted in its last
    twelve hours, but on a page opened earlier it never was (no correspondence clock counts
    down on the page), however near the deadline came, until the player reloaded."""
    url, database = own_server
    red, blue, watch_url = seated_pair(browser, url, {"kind": "correspondence", "days": 1})
    play_one(red, 0)
    play_one(blue, 1)  # Red to move, within a day
    table_id = watch_url.rstrip("/").split("/")[-2]
    # Half a day less 30 s passes: every stored time moves that far into the past (and the
    # version on, as any writer's would, so that no process trusts a cached copy).
    ago = "'-43170 seconds'"
    shift = f"created_at = strftime('%Y-%m-%d %H:%M:%f', created_at, {ago})"
    with contextlib.closing(sqlite3.connect(database)) as db, db:
        db.execute(f"UPDATE moves SET {shift} WHERE table_id = ?", (table_id,))
        db.execute(f"UPDATE seats SET {shift} WHERE table_id = ?", (table_id,))
        db.execute(
            "UPDATE tables SET version = version + 1, "
            f"deadline = strftime('%Y-%m-%d %H:%M:%f', deadline, {ago}) WHERE id = ?",
            (table_id,),
        )
    red.reload()
    wait_ready(red)
    deadline = red.locator("#clock-red")
    expect(deadline).to_have_class(re.compile(r"\bis-deadline\b"))
    expect(deadline).not_to_have_class(re.compile(r"\bis-low\b"))  # 12 hours and 30 s away
    # left open: once the deadline is under twelve hours away, it is highlighted
    expect(deadline).to_have_class(re.compile(r"\bis-low\b"), timeout=90_000)
    assert 0 < float(deadline.get_attribute("data-seconds") or "nan") < 12 * 3600


def resigned_with_push_on(
    browser: Browser, server_url: str
) -> tuple[BrowserContext, dict[str, Any], Page, Page]:
    """A correspondence game on a phone (its context, the table, its page and the opponent's)
    whose player turned push on, then resigned."""
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    phone.add_init_script(FAKE_PUSH)
    phone.grant_permissions(["notifications"], origin=server_url)
    created = api_table(phone, server_url, "dots", DOTS, DAYS)
    mine, theirs = phone.new_page(), browser.new_context().new_page()
    take_both_seats(mine, theirs, created)
    mine.locator("#push-on").click()
    shows_push(mine, on=True)
    mine.locator("#action-resign").click()
    mine.locator("#resign-confirm").click()
    return phone, created, mine, theirs


def test_push_turned_on_in_a_game_is_on_in_its_rematch(browser: Browser, server_url: str) -> None:
    """Push on for a correspondence game, then its rematch: the server carries the seat's
    subscriptions to the rematch, and the rematch's page, followed to at once, says so (it
    offered to turn on what was on, and a player who turned it off from there would never
    have found it on)."""
    _phone, created, mine, theirs = resigned_with_push_on(browser, server_url)
    expect(theirs.locator("#result")).to_be_visible(timeout=TIMEOUT)
    theirs.get_by_role("button", name="Rematch").click()
    mine.get_by_role("button", name="Accept rematch").click()
    mine.wait_for_url(re.compile(rf"/t/(?!{created['id']})\w+$"), timeout=TIMEOUT)
    wait_ready(mine)
    shows_push(mine, on=True)  # the rematch's page: push is on there
    # and it is: the server holds this browser's subscription for the rematch's seat
    removed = mine.evaluate(
        """async () => {
            const response = await fetch(location.pathname + "/push", {method: "DELETE",
                headers: {"Content-Type": "application/json"},
                body: JSON.stringify({endpoint: localStorage.getItem("fake-push-endpoint")})});
            return (await response.json()).removed;
        }"""
    )
    assert removed is True


def test_a_rematch_opened_from_a_push_says_push_is_on(browser: Browser, server_url: str) -> None:
    """Push on for a correspondence game; the player proposes a rematch and closes the tab,
    and the opponent accepts it later. The push of the rematch opens its page straight from
    the notification (not followed to from the game's page): it said push was off there,
    although the server had carried it and pushes came."""
    phone, created, mine, theirs = resigned_with_push_on(browser, server_url)
    mine.get_by_role("button", name="Rematch").click()
    expect(theirs.get_by_role("button", name="Accept rematch")).to_be_visible(timeout=TIMEOUT)
    mine.close()
    theirs.get_by_role("button", name="Accept rematch").click()
    theirs.wait_for_url(re.compile(rf"/t/(?!{created['id']})\w+$"), timeout=TIMEOUT)
    rematch_id = theirs.url.rstrip("/").rsplit("/", 1)[1]
    # what the notification's click opens: the rematch's table page
    opened = phone.new_page()
    opened.goto(f"{server_url}/t/{rematch_id}")
    wait_ready(opened)
    assert seat(opened) in ("red", "blue")  # seated there, as the push's player
    shows_push(opened, on=True)
    # another correspondence game of this browser, where push was never asked for: offered
    other = api_table(phone, server_url, "dots", DOTS, DAYS)
    elsewhere, opponent = phone.new_page(), browser.new_context().new_page()
    take_both_seats(elsewhere, opponent, other)
    shows_push(elsewhere, on=False)


def test_push_stays_on_for_the_player_who_replaced_their_seat_link(
    browser: Browser, server_url: str
) -> None:
    """A seat link replaced (someone else saw it) takes the seat's push subscriptions with
    it, so that the device which saw it is told nothing more: the player's own browser,
    which made the new link, is still told of the moves (its page sends its subscription
    again with the new key), and says so."""
    phone = browser.new_context(locale="cs-CZ", timezone_id="Europe/Prague")
    phone.add_init_script(FAKE_PUSH)
    phone.grant_permissions(["notifications"], origin=server_url)
    created = api_table(phone, server_url, "dots", DOTS, DAYS)
    mine = phone.new_page()
    take_both_seats(mine, browser.new_context().new_page(), created)
    mine.locator("#push-on").click()
    shows_push(mine, on=True)
    mine.locator("#continue-link").click()
    mine.locator("#renew-seat button").click()  # a new seat link
    expect(mine.locator("#renewed")).to_be_visible(timeout=TIMEOUT)
    mine.goto(f"{server_url}/cs/t/{created['id']}")
    wait_ready(mine)
    shows_push(mine, on=True)

    def held() -> bool:  # whether the server holds this browser's subscription for the seat
        result: bool = mine.evaluate(
            """async () => {
                const response = await fetch(location.pathname.replace(/^\\/cs/, "") + "/push",
                    {method: "DELETE", headers: {"Content-Type": "application/json"},
                     body: JSON.stringify({endpoint: localStorage.getItem("fake-push-endpoint")})});
                return (await response.json()).removed;
            }"""
        )
        return result

    deadline = time.monotonic() + TIMEOUT / 1000
    while not held():  # sent again as the page opened
        assert time.monotonic() < deadline, "the page did not send its subscription again"
        time.sleep(0.1)
