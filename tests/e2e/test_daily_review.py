"""A player who plays every day: My games with many tables (who each opponent is, which game
ended last), the seat carried to another device, in the four languages."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.helpers import TIMEOUT, accept_invitation, api_table, wait_ready

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 2, "cols": 2, "start": "standard"}


def seated_table(me: BrowserContext, friend: Page, server_url: str) -> tuple[dict[str, Any], Page]:
    """A table I (Red, ``me``) made, the friend seated as Blue: the API's answer and my page."""
    created = api_table(me, server_url, "dots", DOTS)
    mine = me.new_page()
    mine.goto(created["seat_url"])
    wait_ready(mine)
    accept_invitation(friend, created["invite_url"])
    wait_ready(friend)
    return created, mine


def save_name(page: Page, name: str) -> None:
    """The friend (Blue) chooses their name at the table."""
    page.locator("#nickname").fill(name)
    page.locator("#nickname-form").get_by_role("button").click()
    expect(page.locator("#player-blue")).to_contain_text(name, timeout=TIMEOUT)


def resign(page: Page) -> None:
    page.locator("#action-resign").click()
    page.locator("#resign-confirm").click()
    expect(page.locator("#result")).to_be_visible(timeout=TIMEOUT)


def test_my_games_names_each_opponent_by_the_name_they_chose(
    browser: Browser, server_url: str
) -> None:
    """Playing daily against several friends, every row of My games said "You play Red
    against Blue · online": which game was Anna's could only be found by opening each one.
    A friend who chose a name at the table is named by it (with their colour), on My games
    and on the page that carries the seat to another device, in the page's language; a
    right-to-left name keeps its own direction inside the sentence."""
    me = browser.new_context()
    friends = {"Anna": browser.new_context().new_page(), "שלום!": browser.new_context().new_page()}
    tables = {}
    for name, friend in friends.items():
        created, _ = seated_table(me, friend, server_url)
        save_name(friend, name)
        tables[name] = created["id"]
    page = me.new_page()
    page.goto(server_url + "/fi/games")
    anna = page.locator(f'li[data-table="{tables["Anna"]}"]')
    expect(anna).to_contain_text("Sinä: Punainen · vastustaja: Anna (Sininen) · paikalla")
    hebrew = page.locator(f'li[data-table="{tables["שלום!"]}"] bdi')
    expect(hebrew).to_have_text("שלום!")
    # isolated: the exclamation mark stays left of the name, in the name's own direction
    assert hebrew.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"
    page.goto(f"{server_url}/ko/t/{tables['Anna']}/continue")
    expect(page.locator("#continue-game")).to_contain_text("상대: Anna (파랑)")


def test_my_games_lists_the_game_that_ended_last_first(browser: Browser, server_url: str) -> None:
    """Finished games were listed in the order their seats were taken, oldest first: after
    a dozen games the one a player had just finished was at the very bottom of My games. The
    finished games now come newest first, by when each ended (not when it began)."""
    me, friend = browser.new_context(), browser.new_context().new_page()
    tables = [seated_table(me, friend, server_url) for _ in range(3)]
    for _, mine in (tables[2], tables[0], tables[1]):  # the last one made ends first
        mine.bring_to_front()
        resign(mine)
    page = me.new_page()
    page.goto(server_url + "/cs/games")
    finished = page.locator('#games-list li[data-group="over"]')
    expect(finished).to_have_count(3)
    order = [tables[i][0]["id"] for i in (1, 0, 2)]
    assert finished.evaluate_all("rows => rows.map(row => row.dataset.table)") == order
    expect(finished.first).to_contain_text("Vzdali jste se")


def test_each_game_link_on_my_games_says_whose_game_it_is_and_whose_move(
    browser: Browser, server_url: str
) -> None:
    """Tabbing through My games, a keyboard or screen reader user heard "Pisteet ja
    laatikot, link" once per table, nothing to tell one game from the next. Each link is now
    described by its row's opponent and status (whose move, or the result)."""
    me, friend = browser.new_context(), browser.new_context().new_page()
    created, _ = seated_table(me, friend, server_url)
    save_name(friend, "Anna")
    ended, mine = seated_table(me, friend, server_url)
    resign(mine)
    page = me.new_page()
    page.goto(server_url + "/fi/games")
    running = page.locator(f'li[data-table="{created["id"]}"] h2 a')
    expect(running).to_have_accessible_name("Pisteet ja laatikot")
    expect(running).to_have_accessible_description(
        "Sinä: Punainen · vastustaja: Anna (Sininen) · poissa Sinun siirtosi"
    )
    over = page.locator(f'li[data-table="{ended["id"]}"] h2 a')
    expect(over).to_have_accessible_description(
        "Sinä: Punainen · vastustaja: Sininen · paikalla Luovutit · 0–0"
    )
