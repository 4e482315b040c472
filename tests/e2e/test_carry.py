"""A player's games carried from the laptop to a Korean phone with one link: made from My
games, opened on the phone, taken with its button; the phone then lists the games and plays
them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.helpers import (
    TIMEOUT,
    api_table,
    create_table,
    take_both_seats,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)

pytestmark = pytest.mark.e2e

DOTS = {"grid": "square", "rows": 2, "cols": 2, "start": "standard"}


def test_the_games_of_the_laptop_go_to_the_phone_with_one_link(
    browser: Browser, server_url: str
) -> None:
    laptop = browser.new_context()
    friend = browser.new_context()
    # two games of the laptop's, each with a friend seated
    ids = []
    for _ in range(2):
        created = api_table(laptop, server_url, "dots", DOTS)
        mine, theirs = laptop.new_page(), friend.new_page()
        take_both_seats(mine, theirs, created)
        ids.append(created["id"])
    page = laptop.new_page()
    page.goto(f"{server_url}/games")
    expect(page.locator("#games-list > li")).to_have_count(2)
    page.get_by_role("button", name="Make a link for another device").click()
    expect(page.locator("#carry-what")).to_have_text("2 games")
    expect(page.locator("#carry-once")).to_have_text("The link works once, for 10 minutes.")
    expect(page.locator("#carry-qr svg")).to_be_visible()
    link = page.locator("#carry-url").input_value()

    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="ko-KR"
    )
    mobile = phone.new_page()
    mobile.goto(link)
    expect(mobile.locator("html")).to_have_attribute("lang", "ko")
    expect(mobile.locator("#carry-what")).to_have_text("게임 2개")
    mobile.get_by_role("button", name="이 브라우저로 게임 가져오기").click()
    mobile.wait_for_url(re.compile(r"/games$"), timeout=TIMEOUT)
    expect(mobile.locator("#games-list > li")).to_have_count(2)
    for table_id in ids:
        expect(mobile.locator(f'#games-list > li[data-table="{table_id}"]')).to_be_visible()
    # and plays there: Red's first move of the first game, from the phone
    mobile.goto(f"{server_url}/t/{ids[0]}")
    wait_ready(mobile)
    move = wait_moves_offered(mobile)[0]
    mobile.locator(f'#board [data-move="{move}"]').tap()
    wait_ply(mobile, 1)
    # the link worked once: the phone's back button goes to its games, and another
    # browser's look at it says it works no more, in Korean
    mobile.go_back()
    mobile.go_back()
    mobile.wait_for_url(re.compile(r"/games$"), timeout=TIMEOUT)
    expect(mobile.locator("#games-list > li")).to_have_count(2)
    other = browser.new_context(locale="ko-KR").new_page()
    other.goto(link)
    expect(other.locator("h1")).to_have_text("이 링크는 더 이상 작동하지 않습니다")


def test_my_games_without_a_game_offers_no_link(browser: Browser, server_url: str) -> None:
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/games")
    expect(page.locator("#no-games")).to_be_visible()
    expect(page.get_by_role("button", name="Make a link for another device")).to_have_count(0)
    create_table(page, server_url, "dots", seat="red")
    page.goto(f"{server_url}/games")
    expect(page.get_by_role("button", name="Make a link for another device")).to_be_visible()
