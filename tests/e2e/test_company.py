"""The table's company: how many watch, the quick messages, and a rematch declined, seen on
the page in the player's language (Czech: three plural forms)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import TIMEOUT, accept_invitation, create_table, wait_ready

pytestmark = pytest.mark.e2e


def in_czech(page: Page, server_url: str) -> None:
    page.goto(server_url + "/cs" + page.url.removeprefix(server_url))
    wait_ready(page)


def test_spectators_quick_messages_and_a_declined_rematch(
    browser: Browser, server_url: str
) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(red, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
    invite = red.locator("#invite-url").input_value()
    watch = red.locator("#watch-url").input_value()
    in_czech(red, server_url)
    blue = browser.new_context().new_page()
    accept_invitation(blue, invite)
    wait_ready(blue)

    # Spectators are counted on the players' page: 1 divák, 2 diváci.
    spectators = red.locator("#spectators")
    expect(spectators).to_be_hidden()
    watchers = [browser.new_context().new_page() for _ in range(2)]
    watchers[0].goto(watch)
    wait_ready(watchers[0])
    expect(spectators).to_have_text("1 divák", timeout=TIMEOUT)
    watchers[1].goto(watch)
    wait_ready(watchers[1])
    expect(spectators).to_have_text("2 diváci", timeout=TIMEOUT)
    # Spectators may not talk; players have the quick messages.
    expect(watchers[0].locator("#quick")).to_have_count(0)

    # A quick message, from the keyboard, is shown to the other player in Czech.
    blue.locator('#quick [data-say="good_luck"]').focus()
    blue.keyboard.press("Enter")
    expect(red.locator("#feedback")).to_have_text("Modrý říká: Hodně štěstí!", timeout=TIMEOUT)
    expect(red.locator("#quick button")).to_have_count(5)

    # Blue resigns; red proposes a rematch and blue declines it.
    blue.locator("#action-resign").click()
    blue.locator('#resign-dialog button[value="resign"]').click()
    expect(red.locator("#result")).to_be_visible(timeout=TIMEOUT)
    red.locator("#action-rematch").click()
    decline = blue.locator("#decline-rematch")
    expect(decline).to_be_visible(timeout=TIMEOUT)
    decline.click()
    expect(red.locator("#feedback")).to_have_text("Modrý odmítl odvetu.", timeout=TIMEOUT)
    expect(red.locator("#offer-rematch")).to_be_hidden()
    expect(red.locator("#action-rematch")).to_be_visible()  # red may ask again
    assert red.url.endswith(table_url.rsplit("/", 1)[1])

    for page in watchers:
        page.context.close()
    expect(spectators).to_be_hidden(timeout=TIMEOUT)


def test_a_nickname_is_shown_to_the_table_as_text(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    create_table(red, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
    invite = red.locator("#invite-url").input_value()
    blue = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    accept_invitation(blue, invite)
    wait_ready(blue)
    field = blue.locator("#nickname")
    field.fill("<b>Anna</b> \u202e")
    field.press("Enter")  # the keyboard: Enter saves
    expect(red.locator("#player-blue .player__name")).to_have_text(
        "<b>Anna</b> (Blue)", timeout=TIMEOUT
    )
    expect(blue.locator("#player-blue .player__name")).to_have_text(
        "<b>Anna</b> (Blue, you)", timeout=TIMEOUT
    )
    assert red.locator("#player-blue .player__name b").count() == 0  # never markup
    red.reload()
    wait_ready(red)
    expect(red.locator("#player-blue .player__name")).to_have_text("<b>Anna</b> (Blue)")
