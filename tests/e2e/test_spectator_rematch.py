"""A spectator's page follows the players to their rematch: a club's projector left on a
table's watch page went on showing the finished game while both players had moved on to
the new table, until someone walked up to click "Watch the rematch"."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from playtable.games import load
from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    record_announcements,
    seat,
    wait_announced,
    wait_ply,
    wait_ready,
)
from tests.e2e.positions import play_record
from tests.e2e.test_a11y import serious_violations

pytestmark = pytest.mark.e2e

GAME = load("dots", {"grid": "square", "rows": 1, "cols": 1})
MOVES = [GAME.format_move(move) for move in GAME.legal_moves(GAME.initial())]
TABLE_ID = re.compile(r"/t/([\w-]+)")


def table_id(page: Page) -> str:
    match = TABLE_ID.search(page.url)
    assert match, page.url
    return match.group(1)


def two_players(browser: Browser, server_url: str) -> tuple[Page, Page]:
    """A 1x1 Dots and Boxes table (four lines) with Red and Blue seated."""
    red = browser.new_context().new_page()
    create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="1", dots_cols="1"
    )
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    return red, blue


def watch(browser: Browser, address: str) -> Page:
    page = browser.new_context().new_page()
    page.clock.install()  # the page's own time, moved on where the test says: no waiting 20 s
    page.goto(address)
    wait_ready(page)
    return page


def finish_and_rematch(
    players: list[Page], watchers: list[Page], moves: list[str] = MOVES
) -> list[Page]:
    """The game played to its end (``moves``, the rest of it), a rematch proposed and
    accepted: both players' pages at the new table, returned as [red, blue] there."""
    first, second = players
    seats = {seat(first): first, seat(second): second}
    play_record(seats, moves)
    for watcher in watchers:
        wait_ply(watcher, len(MOVES))
        expect(watcher.locator("#result")).to_be_visible(timeout=TIMEOUT)
    old = first.url
    seats["red"].locator("#action-rematch").click()
    accept = seats["blue"].locator("#accept-rematch")
    expect(seats["blue"].locator("#offer-rematch")).to_be_visible(timeout=TIMEOUT)
    accept.click()
    for page in players:
        page.wait_for_url(lambda url: url != old and "/t/" in url, timeout=TIMEOUT)
        wait_ready(page)
    return sorted(players, key=lambda page: 0 if seat(page) == "red" else 1)


def test_a_spectator_at_the_end_follows_the_rematch_in_its_language(
    browser: Browser, server_url: str
) -> None:
    """A Finnish watch page left at the final position: told that the rematch began, with
    a way to stay, it moves to the rematch's Finnish watch page, shows its moves, and
    follows the rematch of the rematch the same way."""
    red, blue = two_players(browser, server_url)
    old_id = table_id(red)
    projector = watch(browser, f"{server_url}/fi/t/{old_id}/watch")
    record_announcements(projector)

    players = finish_and_rematch([red, blue], [projector])
    new_id = table_id(players[0])
    follow = projector.locator("#rematch-follow")
    expect(follow).to_be_visible(timeout=TIMEOUT)
    expect(follow).to_contain_text("Uusintaottelu alkoi")
    expect(projector.locator("#rematch-follow-stay")).to_have_text("Jää tälle sivulle")
    wait_announced(projector, "Uusintaottelu alkoi")
    # time to find "Stay here" with a screen reader and press it (5 s before)
    assert re.search(r"(20|19|18) sekunnin kuluttua", follow.inner_text()), follow.inner_text()
    projector.wait_for_timeout(2000)  # the count goes down; it is read out once only
    said = projector.evaluate("() => window.__said")
    assert sum("Uusintaottelu alkoi" in text for text in said) == 1, said
    assert projector.url.endswith(f"/fi/t/{old_id}/watch")  # not yet
    projector.clock.fast_forward(20_000)

    projector.wait_for_url(f"{server_url}/fi/t/{new_id}/watch", timeout=TIMEOUT)
    wait_ready(projector)
    assert seat(projector) is None
    expect(projector.locator("html")).to_have_attribute("lang", "fi")
    expect(projector.locator("#rematch-follow")).to_be_hidden()

    # the new game's moves reach the projector
    first = MOVES[0]
    play_record({"red": players[0], "blue": players[1]}, [first])
    wait_ply(projector, 1)
    expect(projector.locator(f'.line--last[data-line="{first}"]')).to_have_count(1)

    # and the rematch of the rematch is followed too
    third = finish_and_rematch(players, [projector], MOVES[1:])
    expect(follow).to_be_visible(timeout=TIMEOUT)
    projector.clock.fast_forward(21_000)
    projector.wait_for_url(f"{server_url}/fi/t/{table_id(third[0])}/watch", timeout=TIMEOUT)
    wait_ready(projector)
    expect(projector.locator("#board")).to_have_attribute("data-ply", "0")


def test_a_spectator_who_stays_or_replays_is_not_moved(browser: Browser, server_url: str) -> None:
    """Who pressed "Stay here" (with the keyboard), or is stepping through the game, stays
    on the finished game with its link to the rematch."""
    red, blue = two_players(browser, server_url)
    address = f"{server_url}/t/{table_id(red)}/watch"
    stayer = watch(browser, address)
    replayer = watch(browser, address)

    play_record({"red": red, "blue": blue}, MOVES)
    for page in (stayer, replayer):
        wait_ply(page, len(MOVES))
        expect(page.locator("#result")).to_be_visible(timeout=TIMEOUT)
    replayer.keyboard.press("ArrowLeft")  # one move back: the replay
    expect(replayer.locator("#replay")).to_have_attribute("data-live", "false")

    red.locator("#action-rematch").click()
    expect(blue.locator("#offer-rematch")).to_be_visible(timeout=TIMEOUT)
    blue.locator("#accept-rematch").click()
    red.wait_for_url(lambda url: url != address.removesuffix("/watch"), timeout=TIMEOUT)

    stay = stayer.locator("#rematch-follow-stay")
    expect(stay).to_have_text("Stay here", timeout=TIMEOUT)
    expect(stayer.locator("#rematch-follow")).to_contain_text("The rematch has begun")
    for _ in range(60):  # reached with Tab, as a keyboard user does
        if stay.evaluate("el => el === document.activeElement"):
            break
        stayer.keyboard.press("Tab")
    else:
        raise AssertionError("Tab never reached the Stay button")
    # the count waits while the button has the focus (whoever reached it decides)
    assert not serious_violations(stayer), serious_violations(stayer)
    stayer.clock.fast_forward(25_000)  # longer than the count
    stayer.wait_for_timeout(1000)
    expect(stayer.locator("#rematch-follow")).to_be_visible()
    assert stayer.url == address
    stayer.keyboard.press("Enter")
    expect(stayer.locator("#rematch-follow")).to_be_hidden()
    expect(stayer.locator("#rematch-watch-link")).to_be_focused()

    expect(replayer.locator("#rematch-watch-link")).to_be_visible(timeout=TIMEOUT)
    expect(replayer.locator("#rematch-follow")).to_be_hidden()

    replayer.wait_for_timeout(1000)  # the replayer was never counted down; the stayer no more
    for page in (stayer, replayer):
        assert page.url.split("#")[0] == address, page.url
        expect(page.locator("#rematch-watch-link")).to_be_visible()
        expect(page.locator("#rematch-follow")).to_be_hidden()
    expect(replayer.locator("#replay")).to_have_attribute("data-live", "false")

    # back at the final position, the replayer is told, and may stay too
    replayer.keyboard.press("End")
    expect(replayer.locator("#rematch-follow")).to_contain_text("The rematch has begun")
    replayer.locator("#rematch-follow-stay").click()
    expect(replayer.locator("#rematch-follow")).to_be_hidden()
