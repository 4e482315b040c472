"""A whole game of Dots and Boxes in Korean, two browsers, announced in Korean."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import (
    accept_invitation,
    moves_offered,
    outcome,
    record_announcements,
    seat,
    to_move,
    wait_announced,
    wait_ply,
    wait_ready,
)
from tests.e2e.i18n_helpers import english_on_page

pytestmark = pytest.mark.e2e


def test_a_full_game_in_korean(browser: Browser, server_url: str) -> None:
    red = browser.new_context(locale="ko-KR").new_page()
    red.goto(server_url + "/")
    red.wait_for_url(server_url + "/ko/")
    red.locator("label.tile", has=red.locator('input[value="dots"]')).click()
    red.get_by_label("행", exact=True).fill("2")
    red.get_by_label("열", exact=True).fill("2")
    red.locator(".segmented label", has_text="빨강 (먼저 둠)").click()
    red.get_by_role("button", name="테이블 만들기").click()
    red.wait_for_url(re.compile(r"/ko/t/[\w-]+$"))
    wait_ready(red)
    expect(red.locator("h1")).to_have_text("점과 상자")
    expect(red.locator("#turn")).to_have_text("내 차례입니다")
    expect(red.locator("#turn-note")).to_have_text("아직 상대가 없습니다. 초대 링크를 보내세요.")

    blue = browser.new_context(locale="ko-KR").new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(re.compile(r"/ko/t/[\w-]+$"))
    wait_ready(blue)
    assert (seat(red), seat(blue)) == ("red", "blue")
    record_announcements(red)
    expect(red.locator("#turn")).to_have_text("내 차례입니다")

    pages = {"red": red, "blue": blue}
    ply = 0
    while outcome(red) is None:
        player = to_move(red)
        page: Page = pages[player]
        wait_ply(page, ply)
        move = moves_offered(page)[0]
        page.locator(f'#board [data-move="{move}"]').click()
        ply += 1
        wait_ply(red, ply)
        wait_ply(blue, ply)
    assert ply == 12  # a 2x2 board has 12 lines, one move each

    # the result, the players and the announcements, all in Korean
    winner = outcome(red)
    assert winner in ("red", "blue", "draw")
    # said to the player: "You win (7:5)." / "You lose (5:7)." / "Draw, 6:6."
    expect(red.locator("#result-text")).to_have_text(
        re.compile(r"승리했습니다|패배했습니다|무승부")
    )
    wait_announced(red, "선을 긋고 상자")  # "... drew a line and claimed a box"
    said = red.evaluate("window.__said")
    assert any(s.endswith("차례입니다.") for s in said), said  # "Blue to move."
    for page in (red, blue):
        expect(page.locator("html")).to_have_attribute("lang", "ko")
        assert not english_on_page("ko", page.locator("body").inner_text())
    expect(red.locator(".cell-mark").first).to_have_text(re.compile("빨|파"))

    # a rematch keeps both players in Korean, at the new table, colours swapped
    old = red.url  # before the clicks: a quick server moves both pages before a later read
    red.locator("#action-rematch").click()
    expect(blue.locator("#accept-rematch")).to_have_text("재대결 수락")
    blue.locator("#accept-rematch").click()
    for page in (red, blue):
        page.wait_for_url(lambda url: "/ko/t/" in url and url != old)
        wait_ready(page)
        expect(page.locator("html")).to_have_attribute("lang", "ko")
    assert (seat(red), seat(blue)) == ("blue", "red")


def test_a_rematch_stays_in_the_language_of_the_page_not_the_browser(
    browser: Browser, server_url: str
) -> None:
    """Finnish players (browser and cookie) who opened the table's English address: the
    rematch opens in English too, not in the language a bare seat link would negotiate."""
    red = browser.new_context(locale="fi-FI").new_page()
    red.goto(server_url + "/fi/?game=dots&rows=1&cols=1&seat=red")
    red.locator("#table-form button[type=submit]").click()
    red.wait_for_url(re.compile(r"/fi/t/[\w-]+$"))
    english = red.url.replace("/fi/t/", "/t/")
    red.goto(english)
    wait_ready(red)
    blue = browser.new_context(locale="fi-FI").new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(re.compile(r"/fi/t/[\w-]+$"))
    blue.goto(english)
    wait_ready(blue)
    assert (seat(red), seat(blue)) == ("red", "blue")
    pages = {"red": red, "blue": blue}
    ply = 0
    while outcome(red) is None:
        page = pages[to_move(red)]
        page.locator(f'#board [data-move="{moves_offered(page)[0]}"]').click()
        ply += 1
        wait_ply(red, ply)
        wait_ply(blue, ply)
    red.locator("#action-rematch").click()
    blue.locator("#accept-rematch").click()
    for page in (red, blue):
        page.wait_for_url(lambda url: "/t/" in url and url != english)
        wait_ready(page)
        expect(page.locator("html")).to_have_attribute("lang", "en")
        assert "/fi/" not in page.url
