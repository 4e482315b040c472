"""A review of the site as the internet treats it, in the browser: links opened by people
whose browser speaks another language than they do, on phones whose network comes and goes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.helpers import TIMEOUT, api_table, seat, wait_ready

pytestmark = pytest.mark.e2e


def test_a_friend_who_switches_the_invitation_to_finnish_can_still_take_the_seat(
    browser: Browser, server_url: str
) -> None:
    """The friend's phone is set to English, the friend reads Finnish: they open the
    invitation and choose "Suomi". The switcher led to the Finnish watching view, with no
    button to take the seat, and the invitation was lost to them."""
    red = browser.new_context()
    created = api_table(red, server_url, "dots", {"grid": "square", "rows": 2, "cols": 2})
    friend = browser.new_context(locale="en-US").new_page()
    friend.goto(created["invite_url"])
    wait_ready(friend)
    expect(friend.locator("#take-seat")).to_have_text("Take the blue seat")
    friend.get_by_role("link", name="Suomi").click()
    friend.wait_for_url(re.compile(r"/fi/t/[^/]+/join/[^/]+$"), timeout=TIMEOUT)
    wait_ready(friend)
    button = friend.locator("#take-seat")
    expect(button).to_have_text("Ota sinisen paikka")
    button.click()
    friend.wait_for_url(re.compile(r"/fi/t/[^/]+$"), timeout=TIMEOUT)
    wait_ready(friend)
    assert seat(friend) == "blue"
    expect(friend.locator("html")).to_have_attribute("lang", "fi")
