"""A keen player's review of the table page: the end of a game and the next one, as a player
sees and hears them at 1280x800 and on a phone (390x844)."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

from tests.e2e.games import PlayedGame, play_game
from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    seat,
    take_both_seats,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.test_a11y_review import LIVE_RECORDER, live

pytestmark = pytest.mark.e2e

DESKTOP = ViewportSize(width=1280, height=800)
PHONE = ViewportSize(width=390, height=844)


def pair(
    browser: Browser,
    server_url: str,
    red_viewport: ViewportSize = DESKTOP,
    blue_viewport: ViewportSize = DESKTOP,
    **fields: str,
) -> tuple[Page, Page]:
    """Red creates a 2x2 Dots and Boxes table, Blue takes the invitation: both connected."""
    fields = {"dots_grid": "square", "dots_rows": "2", "dots_cols": "2", **fields}
    red = browser.new_context(viewport=red_viewport).new_page()
    create_table(red, server_url, "dots", seat="red", **fields)
    blue = browser.new_context(viewport=blue_viewport).new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    wait_ready(blue)
    return red, blue


def resign(page: Page) -> None:
    page.locator("#action-resign").click()
    page.locator('#resign-dialog button[value="resign"]').click()
    expect(page.locator("#result")).to_be_visible(timeout=TIMEOUT)


def press(page: Page, control: Locator) -> None:
    """Focus a control and press Enter on it, as a keyboard user does."""
    control.focus()
    page.keyboard.press("Enter")


def duplicate_ids(page: Page) -> list[str]:
    found: list[str] = page.evaluate(
        """() => {
            const ids = Array.from(document.querySelectorAll("[id]"), (el) => el.id);
            return ids.filter((id, i) => ids.indexOf(id) !== i);
        }"""
    )
    return found


# -- 1: a rematch asked for and answered where the result is ---------------------------------
def test_a_rematch_is_asked_for_at_the_result_and_answered_in_one_card(
    browser: Browser, server_url: str
) -> None:
    red, blue = pair(browser, server_url, blue_viewport=PHONE)
    resign(blue)

    # Red (1280x800) asks for the next game from the result, on the first screen
    rematch = red.locator("#result").get_by_role("button", name="Rematch", exact=True)
    expect(rematch).to_be_visible(timeout=TIMEOUT)
    expect(rematch).to_be_in_viewport()
    press(red, rematch)
    # the focus follows to the proposal, which says it waits for an answer
    expect(red.locator("#offer-rematch")).to_be_focused()
    expect(red.locator("#offer-rematch")).to_have_accessible_name(
        "You proposed a rematch. Waiting for an answer."
    )

    # Blue, on a phone, back at the top of the page (the board): told under the board, and
    # taken to both answers, side by side
    blue.evaluate("window.scrollTo(0, 0)")
    alert = blue.locator("#offer-alert")
    expect(alert).to_contain_text("Red wants a rematch.", timeout=TIMEOUT)
    expect(alert).to_be_in_viewport()
    alert.get_by_role("button", name="Answer").click()
    offer = blue.locator("#offer-rematch")
    expect(offer).to_have_accessible_name("Red wants a rematch.")
    accept = offer.get_by_role("button", name="Accept rematch")
    decline = offer.get_by_role("button", name="Decline")
    expect(accept).to_be_focused()
    expect(accept).to_be_in_viewport()
    expect(decline).to_be_in_viewport()
    # one way to accept on the page, and no "Rematch" of Blue's own beside it
    expect(blue.get_by_role("button", name="Accept rematch")).to_have_count(1)
    expect(blue.get_by_role("button", name="Rematch", exact=True)).to_have_count(0)
    blue.keyboard.press("Tab")
    expect(decline).to_be_focused()
    assert duplicate_ids(blue) == [] and duplicate_ids(red) == []

    # declined: Blue's focus goes to the result, where Blue may ask in turn
    blue.keyboard.press("Enter")
    expect(blue.locator("#result")).to_be_focused()
    expect(red.locator("#feedback")).to_have_text("Blue declined the rematch.", timeout=TIMEOUT)
    expect(rematch).to_be_visible()
    blue_rematch = blue.locator("#result").get_by_role("button", name="Rematch", exact=True)
    blue.keyboard.press("Tab")
    expect(blue_rematch).to_be_focused()
    blue.keyboard.press("Enter")

    # Red (1280x800) sees Blue's proposal with both answers together, on the first screen,
    # and accepts it with the keyboard, as the old Actions button did: both at the new table
    offer = red.locator("#offer-rematch")
    expect(offer).to_have_accessible_name("Blue wants a rematch.", timeout=TIMEOUT)
    accept = offer.get_by_role("button", name="Accept rematch")
    expect(accept).to_be_in_viewport()
    expect(offer.get_by_role("button", name="Decline")).to_be_in_viewport()
    expect(red.get_by_role("button", name="Rematch", exact=True)).to_have_count(0)
    old = red.url
    press(red, accept)
    for page in (red, blue):
        page.wait_for_url(lambda url: "/t/" in url and url.rstrip("/") != old, timeout=TIMEOUT)
        wait_ready(page)
    assert red.url == blue.url
    assert (seat(red), seat(blue)) == ("blue", "red")


# -- 2: the colours swapped at the rematch, said once ----------------------------------------
def test_the_rematch_says_once_that_the_colours_swapped(browser: Browser, server_url: str) -> None:
    red, blue = pair(browser, server_url)
    for page in (red, blue):
        page.context.add_init_script(LIVE_RECORDER)
    old = red.url
    resign(blue)
    red.locator("#action-rematch").click()
    blue.locator("#accept-rematch").click()
    for page, now in ((red, "Blue"), (blue, "Red")):
        page.wait_for_url(lambda url: "/t/" in url and url.rstrip("/") != old, timeout=TIMEOUT)
        wait_ready(page)
        note = f"Rematch: you play {now} this time."
        expect(page.locator("#feedback")).to_have_text(note)
        expect(page.locator("#feedback")).to_be_in_viewport()
        page.wait_for_function(
            "note => window.__live.some((said) => said.text.includes(note))",
            arg=note,
            timeout=TIMEOUT,
        )
    new = red.url

    # once: not again when the page loads again
    red.reload()
    wait_ready(red)
    expect(red.locator("#feedback")).to_be_hidden()
    assert not any("Rematch:" in said["text"] for said in live(red))

    # back at the old game, its link to the rematch says it again on the way there
    red.goto(old)
    wait_ready(red)
    red.locator("#rematch-seat-link").click()
    red.wait_for_url(new, timeout=TIMEOUT)
    wait_ready(red)
    expect(red.locator("#feedback")).to_have_text("Rematch: you play Blue this time.")


# -- 3: the line above the board says the result, to each player ----------------------------
def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def seated(browser: Browser, server_url: str, game: PlayedGame, lang: str = "") -> dict[str, Page]:
    """The two players' pages (from their seat links, `lang` "/fi" say) and a spectator's."""
    pages = {}
    for player, token in game.tokens.items():
        page = browser.new_context().new_page()
        page.goto(f"{server_url}{lang}/t/{game.id}/seat/{token}")
        pages[player] = page
    pages["watcher"] = browser.new_context().new_page()
    pages["watcher"].goto(f"{server_url}/t/{game.id}/watch")
    for page in pages.values():
        wait_ready(page)
    return pages


@pytest.mark.parametrize(
    ("options", "unit"),
    [
        ({"grid": "square", "rows": 3, "cols": 3}, None),
        ({"grid": "triangle", "size": 2, "misere": True}, "cells"),
        ({"grid": "hexagon", "size": 1, "misere": True}, "cells"),
        ({"grid": "square", "rows": 2, "cols": 2, "misere": True}, "boxes"),
    ],
    ids=["square", "triangle-misere", "hexagon-misere", "square-misere"],
)
def test_the_line_above_the_board_gives_a_player_the_score(
    browser: Browser, server_url: str, options: dict[str, object], unit: str | None
) -> None:
    for seed in range(20):  # a game with a winner (a draw has no "you")
        game = play_game(server_url, options, seed=seed)
        outcome = get_json(f"{server_url}/api/tables/{game.id}")["outcome"]
        if outcome["winner"]:
            break
    winner, score = outcome["winner"], outcome["score"]
    loser = "blue" if winner == "red" else "red"
    rule = f" Misère: the player with fewer {unit} wins." if unit else ""
    pages = seated(browser, server_url, game)
    turn = {who: page.locator("#turn") for who, page in pages.items()}
    expect(turn[winner]).to_have_text(f"You win {score[winner]}–{score[loser]}.{rule}")
    expect(turn[loser]).to_have_text(f"You lose {score[loser]}–{score[winner]}.{rule}")
    expect(turn["watcher"]).to_have_text(
        f"{winner.capitalize()} wins {score[winner]}–{score[loser]}.{rule}"
    )
    # the result card says it in the same words (it said "Red wins 18–7." to both players)
    for who, page in pages.items():
        expect(page.locator("#result-text")).to_have_text(turn[who].inner_text())


def test_the_line_above_the_board_says_a_finnish_player_lost_and_by_how_much(
    browser: Browser, server_url: str
) -> None:
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 3}, seed=3)
    outcome = get_json(f"{server_url}/api/tables/{game.id}")["outcome"]
    winner, score = outcome["winner"], outcome["score"]
    assert winner, outcome  # 6 boxes: the seed gives a winner
    loser = "blue" if winner == "red" else "red"
    pages = seated(browser, server_url, game, lang="/fi")
    expect(pages[winner].locator("#turn")).to_have_text(f"Voitit {score[winner]}–{score[loser]}.")
    expect(pages[loser].locator("#turn")).to_have_text(f"Hävisit {score[loser]}–{score[winner]}.")


def test_the_line_above_the_board_says_how_a_swaptimum_game_was_won(
    browser: Browser, server_url: str
) -> None:
    game = play_game(server_url, {"size": 4}, seed=2, game="swaptimum")
    outcome = get_json(f"{server_url}/api/tables/{game.id}")["outcome"]
    winner = outcome["winner"]
    assert outcome["reason"] == "connection", outcome
    loser = "blue" if winner == "red" else "red"
    pages = seated(browser, server_url, game)
    last = get_json(f"{server_url}/t/{game.id}/position.json?ply={len(game.moves)}")
    if last["movers"][-1] == winner:
        words = {
            winner: "You win: your chain joins both sides.",
            loser: "You lose: your opponent's chain joins both sides.",
        }
    else:  # the loser's own swap completed the winner's chain
        words = {
            winner: "You win: your opponent's swap completed your chain.",
            loser: "You lose: your swap completed your opponent's chain.",
        }
    for player, text in words.items():
        expect(pages[player].locator("#turn")).to_have_text(text)
    expect(pages["watcher"].locator("#turn")).to_have_text(
        re.compile(rf"^{winner.capitalize()} wins( on {loser.capitalize()}'s turn)?: ")
    )


def test_the_line_above_the_board_says_a_resignation_and_an_agreed_draw(
    browser: Browser, server_url: str
) -> None:
    red, blue = pair(browser, server_url)
    watcher = browser.new_context().new_page()
    watcher.goto(red.locator("#watch-url").input_value())
    wait_ready(watcher)
    resign(blue)
    expect(red.locator("#turn")).to_have_text("Blue resigned. You win.")
    expect(blue.locator("#turn")).to_have_text("You resigned. Red wins.")
    expect(watcher.locator("#turn")).to_have_text("Blue resigned. Red wins.")

    red, blue = pair(browser, server_url)
    red.locator(f'#board [data-move="{wait_moves_offered(red)[0]}"]').click()
    wait_ply(blue, 1)
    blue.locator("#action-draw").click()
    red.locator("#offer-draw").get_by_role("button", name="Accept draw").click()
    for page in (red, blue):
        expect(page.locator("#turn")).to_have_text("Draw agreed.")


def test_the_line_above_the_board_says_who_ran_out_of_time(
    browser: Browser, server_url: str
) -> None:
    context = browser.new_context()
    created = context.request.post(
        server_url + "/api/tables",
        data=json.dumps(
            {
                "game": "dots",
                "options": {"grid": "square", "rows": 2, "cols": 2},
                "seat": "red",
                "time_control": {"kind": "realtime", "minutes": 0.1, "increment": 0},
            }
        ),
        headers={"Content-Type": "application/json"},
    ).json()
    red = context.new_page()
    blue = browser.new_context().new_page()
    take_both_seats(red, blue, created)
    # the clocks start with each player's first move; then Red lets the 6 seconds run out
    for ply, page in enumerate((red, blue)):
        page.locator(f'#board [data-move="{wait_moves_offered(page)[0]}"]').click()
        wait_ply(page, ply + 1)
    expect(red.locator("#turn")).to_have_text(
        "You ran out of time. Blue wins.", timeout=TIMEOUT + 6000
    )
    expect(blue.locator("#turn")).to_have_text("Red ran out of time. You win.")


# -- 4: a player's own name in one pair of brackets ------------------------------------------
def test_a_players_own_name_has_its_colour_and_you_in_one_pair_of_brackets(
    browser: Browser, server_url: str
) -> None:
    red, blue = pair(browser, server_url)
    table = blue.url
    expect(blue.locator("#player-blue .player__name")).to_have_text("Blue (you)")
    blue.locator("#nickname").fill("Väinämöinen the Great")
    blue.locator("#nickname").press("Enter")
    name = blue.locator("#player-blue .player__name")
    expect(name).to_have_text("Väinämöinen the Great (Blue, you)", timeout=TIMEOUT)
    expect(red.locator("#player-blue .player__name")).to_have_text("Väinämöinen the Great (Blue)")
    expect(red.locator("#player-red .player__name")).to_have_text("Red (you)")
    for lang, words in (("fi", "Sininen, sinä"), ("cs", "Modrý, vy"), ("ko", "파랑, 나")):
        blue.goto(table.replace("/t/", f"/{lang}/t/", 1))
        wait_ready(blue)
        expect(name).to_have_text(f"Väinämöinen the Great ({words})")
