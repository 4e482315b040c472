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


def test_the_next_table_is_set_up_alike_from_the_last_ones_link(
    browser: Browser, server_url: str
) -> None:
    """Six tables at 5x5, Swedish, 10 minutes + 5 s: each time the home form came back at
    its defaults (standard start, no clock), and the organiser chose it all again, six
    times, hoping not to miss one. The table page now links the form with its settings."""
    page = browser.new_context().new_page()
    page.goto(server_url + "/")
    page.locator("#dots_start").select_option("swedish")
    page.locator(".segmented label", has=page.locator('input[value="realtime"]')).click()
    page.locator("#time_preset").select_option("10+5")
    page.get_by_role("button", name="Create table").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    wait_ready(page)
    settings = page.locator(".table-head__settings")
    expect(settings).to_have_text("5 × 5 boxes · Swedish board · 10 min + 5 s")
    page.locator("#same-settings-link").click()
    expect(page.locator("#dots_start")).to_have_value("swedish")
    expect(page.locator("#time_preset")).to_have_value("10+5")
    expect(page.locator('input[name="time"][value="realtime"]')).to_be_checked()
    page.get_by_role("button", name="Create table").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    wait_ready(page)
    expect(settings).to_have_text("5 × 5 boxes · Swedish board · 10 min + 5 s")

    # a custom clock, a Czech page, a triangle misère board and correspondence alike
    page.goto(server_url + "/cs/")
    page.locator(".segmented label", has=page.locator('input[value="triangle"]')).click()
    page.locator('[name="dots_size"]').fill("3")
    page.locator('[name="dots_misere"]').set_checked(True)
    page.locator(".segmented label", has=page.locator('input[value="realtime"]')).click()
    page.locator("#time_preset").select_option("custom")
    page.locator("#time_minutes").fill("7")
    page.locator("#time_increment").fill("2")
    page.locator("#table-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/cs/t/[\w-]+$"))
    wait_ready(page)
    first = page.locator(".table-head__settings").inner_text()
    page.locator("#same-settings-link").click()
    expect(page).to_have_url(re.compile(r"/cs/\?"))
    page.locator("#table-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/cs/t/[\w-]+$"))
    wait_ready(page)
    expect(page.locator(".table-head__settings")).to_have_text(first)
    assert "7 min + 2 s" in first.replace("\xa0", " ")
