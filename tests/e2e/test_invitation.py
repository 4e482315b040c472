"""The invitation needs a person: opening the link shows the table and a button."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.e2e.helpers import TIMEOUT, create_table, seat, wait_ready


def test_the_friend_sees_the_board_then_takes_the_seat_with_the_button(
    browser: Browser, server_url: str
) -> None:
    red_context = browser.new_context()
    friend_context = browser.new_context(locale="fi-FI")
    try:
        red = red_context.new_page()
        create_table(red, server_url, "dots", seat="red", dots_rows="2", dots_cols="2")
        invite = red.locator("#invite-url").input_value()
        friend = friend_context.new_page()
        friend.goto(invite)
        wait_ready(friend)
        assert seat(friend) is None
        # Watching until the button is pressed: the board is there, the seat is still free.
        expect(friend.locator("#board svg")).to_be_visible(timeout=TIMEOUT)
        button = friend.locator("#take-seat")
        expect(button).to_have_text("Ota sinisen paikka")
        expect(red.locator("#invite")).to_be_visible()
        # A reload (or a second preview) takes nothing either.
        friend.reload()
        expect(friend.locator("#take-seat")).to_be_visible(timeout=TIMEOUT)
        friend.locator("#take-seat").focus()
        friend.keyboard.press("Enter")
        friend.wait_for_url(f"**/t/{invite.split('/t/')[1].split('/')[0]}", timeout=TIMEOUT)
        expect(friend.locator("#take-seat")).to_have_count(0)
        wait_ready(friend)
        assert seat(friend) == "blue"
        expect(red.locator("#invite")).to_be_hidden(timeout=TIMEOUT)
    finally:
        red_context.close()
        friend_context.close()
