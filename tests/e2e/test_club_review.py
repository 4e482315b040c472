"""A club evening as its organiser runs it: several tables followed at once from one
screen, each in a tab of its own."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import TIMEOUT, accept_invitation, create_table, wait_ready

pytestmark = pytest.mark.e2e


def name_yourself(page: Page, name: str) -> None:
    page.locator("#nickname").fill(name)
    page.locator("#nickname").press("Enter")


def test_each_watched_tables_tab_names_its_players_and_then_its_result(
    browser: Browser, server_url: str
) -> None:
    """Six tabs of spectator pages all read "Dots and Boxes · Playtable": the organiser
    could not tell from the tab strip which table was which, nor which had finished."""
    organiser = browser.new_context()
    tabs = []
    players = []
    for red_name, blue_name in (("Jana", "Petr"), ("민준", "Aino")):
        red = browser.new_context().new_page()
        create_table(red, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
        invite = red.locator("#invite-url").input_value()
        watch = red.locator("#watch-url").input_value()
        blue = browser.new_context().new_page()
        accept_invitation(blue, invite)
        wait_ready(blue)
        tab = organiser.new_page()
        tab.goto(watch)
        wait_ready(tab)
        expect(tab).to_have_title("Dots and Boxes · Playtable")  # nobody named yet
        name_yourself(red, red_name)
        name_yourself(blue, blue_name)
        tabs.append(tab)
        players.append((red, blue))
    expect(tabs[0]).to_have_title("Jana – Petr · Dots and Boxes · Playtable", timeout=TIMEOUT)
    expect(tabs[1]).to_have_title("민준 – Aino · Dots and Boxes · Playtable", timeout=TIMEOUT)
    # the players' own tabs too, after "Your turn" when it is theirs
    red, blue = players[0]
    expect(red).to_have_title("Your turn · Jana – Petr · Dots and Boxes · Playtable")
    expect(blue).to_have_title("Jana – Petr · Dots and Boxes · Playtable")

    # Petr resigns: that tab says how the game ended, first, where a tab strip shows it.
    blue.locator("#action-resign").click()
    blue.locator('#resign-dialog button[value="resign"]').click()
    expect(tabs[0]).to_have_title(
        "Blue resigned. Red wins · Jana – Petr · Dots and Boxes · Playtable", timeout=TIMEOUT
    )
    expect(blue).to_have_title(re.compile(r"^You resigned\. Red wins · Jana – Petr · "))
    expect(tabs[1]).to_have_title("민준 – Aino · Dots and Boxes · Playtable")
