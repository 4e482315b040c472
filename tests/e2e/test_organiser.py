"""A club's organiser sets up a table for two other players from the home form ("Neither"),
hands out both links, and watches: the organiser's browser is seated nowhere."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import TIMEOUT, accept_invitation, seat, wait_ready
from tests.e2e.test_a11y import serious_violations


def set_up_for_two(page: Page, server_url: str, lang: str = "") -> None:
    page.goto(f"{server_url}{lang}/")
    page.locator("label.tile", has=page.locator('input[value="dots"]')).click()
    page.locator(".segmented label", has=page.locator('input[name="seat"][value="none"]')).click()
    page.locator("#table-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/t/\w+/links$"), timeout=TIMEOUT)


def test_the_organiser_hands_out_both_links_and_watches(browser: Browser, server_url: str) -> None:
    organiser = browser.new_context(permissions=["clipboard-read", "clipboard-write"]).new_page()
    set_up_for_two(organiser, server_url)
    expect(organiser.get_by_role("heading", level=1)).to_have_text("Links for the players")
    expect(organiser.locator("#red-here")).to_have_text("The seat is free: send the invitation.")
    expect(organiser.locator("#blue-here")).to_have_text("The seat is free: send the invitation.")
    red_link = organiser.locator("#red-url").input_value()
    blue_link = organiser.locator("#blue-url").input_value()
    # Copy puts Blue's invitation on the clipboard and says so under its own field
    organiser.locator("#blue-links").get_by_role("button", name="Copy").click()
    expect(organiser.locator("#blue-status")).to_have_text("Copied")
    expect(organiser.locator("#red-status")).to_be_empty()
    assert organiser.evaluate("navigator.clipboard.readText()") == blue_link
    # each takes the seat with their invitation's button
    red = browser.new_context().new_page()
    accept_invitation(red, red_link)
    wait_ready(red)
    assert seat(red) == "red"
    blue = browser.new_context().new_page()
    accept_invitation(blue, blue_link)
    wait_ready(blue)
    assert seat(blue) == "blue"
    expect(red.locator("#player-blue .player__presence")).to_have_attribute(
        "data-presence", "online", timeout=TIMEOUT
    )
    # the organiser's page, left open, sees them arrive and puts the invitation away
    expect(organiser.locator("#red-here")).to_have_text("Red is at the table.", timeout=TIMEOUT)
    expect(organiser.locator("#blue-here")).to_have_text("Blue is at the table.")
    expect(organiser.locator("#blue-handout")).to_be_hidden()
    expect(organiser.locator("#red-handout")).to_be_hidden()
    # and loaded again, has nothing left to hand out
    organiser.reload()
    expect(organiser.locator("#red-taken")).to_have_text("Red has taken the seat.")
    expect(organiser.locator("#blue-taken")).to_have_text("Blue has taken the seat.")
    expect(organiser.locator("#blue-url")).to_have_count(0)
    # and watching the game is watching: no seat, both players shown online
    organiser.get_by_role("link", name="Watch the game").click()
    wait_ready(organiser)
    assert seat(organiser) is None
    expect(organiser.locator("#player-red .player__presence")).to_have_attribute(
        "data-presence", "online", timeout=TIMEOUT
    )


def test_the_links_page_on_a_korean_phone(browser: Browser, server_url: str) -> None:
    phone = browser.new_context(
        viewport={"width": 360, "height": 740}, locale="ko-KR", is_mobile=True, has_touch=True
    ).new_page()
    set_up_for_two(phone, server_url, "/ko")
    expect(phone.get_by_role("heading", level=1)).to_have_text("플레이어에게 줄 링크")
    assert not serious_violations(phone)
    # the QR codes are for a camera: a screen reader hears their captions, not unnamed images
    tree = phone.locator("#players-links").aria_snapshot()
    assert "img" not in tree and "빨강" in tree, tree
    table_url = phone.url.removesuffix("/links")
    # watched before anyone sits down, nobody is "to move": the table waits for its players
    watch = phone.context.new_page()
    watch.goto(f"{table_url}/watch")
    wait_ready(watch)
    expect(watch.locator("#turn")).to_have_text("두 플레이어가 자리에 앉기를 기다리는 중")
    watch.close()
    # nothing wider than the screen: both links and their codes fit
    assert phone.evaluate("document.scrollingElement.scrollWidth") <= 360
    for qr in phone.locator(".seat-qr svg").all():
        box = qr.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360
    # My games lists it under the tables set up for others, on the same phone
    phone.goto(f"{server_url}/ko/games")
    expect(phone.locator("#organised-heading")).to_have_text("다른 플레이어를 위해 만든 테이블")
    expect(phone.locator("#organised-list li")).to_have_count(1)
    assert not serious_violations(phone)
    assert phone.evaluate("document.scrollingElement.scrollWidth") <= 360
