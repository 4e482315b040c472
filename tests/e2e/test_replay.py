"""Replay on the board: stepping back while the opponent moves, the move list, the keys."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from tests.e2e.games import claimed_by_moves, line_words, play_game
from tests.e2e.helpers import (
    TIMEOUT,
    accept_invitation,
    create_table,
    wait_moves_offered,
    wait_ply,
    wait_ready,
)
from tests.e2e.test_a11y import serious_violations

pytestmark = pytest.mark.e2e


def play(page: Page, ply: int) -> str:
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, ply)
    return move


def shown(page: Page, ply: int) -> None:
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(ply), timeout=TIMEOUT)


def step_by_keyboard(page: Page, ply: int) -> None:
    """From the first position to the one after ``ply`` moves, with the keyboard's keys."""
    page.locator("h1").click()
    page.keyboard.press("Home")
    shown(page, 0)
    for _ in range(ply):
        page.keyboard.press("ArrowRight")
    shown(page, ply)


def test_a_player_replays_while_the_opponent_moves(browser: Browser, server_url: str) -> None:
    red = browser.new_context().new_page()
    table_url = create_table(
        red, server_url, "dots", seat="red", dots_grid="square", dots_rows="2", dots_cols="2"
    )
    blue = browser.new_context().new_page()
    accept_invitation(blue, red.locator("#invite-url").input_value())
    blue.wait_for_url(table_url)
    wait_ready(blue)
    first = play(red, 1)
    second = play(blue, 2)
    wait_ply(red, 2)

    # blue steps back one move with the key (the page's, not the board's: arrows on the
    # board stay on the board), then to the start with the button
    blue.evaluate("() => document.activeElement.blur()")
    blue.keyboard.press("ArrowLeft")
    shown(blue, 1)
    expect(blue.locator("#board")).to_have_attribute("data-past", "true")
    expect(blue.locator("#board .line--drawn")).to_have_count(1)
    expect(blue.locator(f'#board .line--by-red[data-line="{first}"]')).to_have_count(1)
    blue.get_by_role("button", name="Starting position").click()
    shown(blue, 0)
    expect(blue.locator("#board .line--drawn")).to_have_count(0)

    # red moves meanwhile: blue's board stays in the past, with the news and no targets
    third = play(red, 3)
    wait_ply(blue, 3)
    expect(blue.locator("#replay-news")).to_have_text(f"New move: {third}.")
    expect(blue.locator("#board .line--drawn")).to_have_count(0)
    expect(blue.locator("#board [data-move]")).to_have_count(0)

    # a click on the second move in the list shows the position after it
    blue.locator('#move-list [data-replay-ply="2"]').click()
    shown(blue, 2)
    expect(blue.locator("#board .line--drawn")).to_have_count(2)
    expect(blue.locator(f'#board .line--by-blue[data-line="{second}"]')).to_have_count(1)
    expect(blue.locator(f'#board .line--last[data-line="{second}"]')).to_have_count(1)
    assert blue.locator("#board [data-move]").count() == 0

    # one action back to the game, where it is blue's turn and the board plays again
    blue.get_by_role("button", name="Back to the game").click()
    shown(blue, 3)
    expect(blue.locator("#board")).to_have_attribute("data-past", "false")
    expect(blue.locator("#replay-live")).to_be_hidden()
    play(blue, 4)
    wait_ply(red, 4)


def test_keys_home_end_and_coordinates(browser: Browser, server_url: str) -> None:
    page = browser.new_context().new_page()
    create_table(
        page,
        server_url,
        "dots",
        seat="red",
        opponent="easy",
        dots_grid="square",
        dots_rows="2",
        dots_cols="2",
    )
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, 2)  # the computer answers at once
    # on the board the arrow keys move between lines; elsewhere on the page they replay
    page.locator("h1").click()
    page.keyboard.press("Home")
    shown(page, 0)
    page.keyboard.press("ArrowRight")
    shown(page, 1)
    # the address follows the position shown, so a link copied now opens it
    table_url = page.url.split("#")[0]
    assert page.url == table_url + "#ply=1"
    page.keyboard.press("End")
    shown(page, 2)
    expect(page.locator("#board")).to_have_attribute("data-past", "false")
    assert page.url == table_url  # the live position: no position in the address
    linked = page.context.new_page()  # the link, opened: the position it names, in the past
    linked.goto(table_url + "#ply=1")
    shown(linked, 1)
    expect(linked.locator("#board")).to_have_attribute("data-past", "true")
    expect(linked.locator("#board .line--drawn")).to_have_count(1)
    linked.close()
    # coordinates on request: the columns' letters and rows' numbers of the move texts
    expect(page.locator("#board .dots-coords")).to_have_count(0)
    page.get_by_label("Coordinates").check()
    labels = page.locator("#board .dots-coords text").all_text_contents()
    assert sorted(labels) == ["1", "2", "3", "a", "b", "c"]
    # the lines in the drawers' colours: one each
    expect(page.locator("#board .line--by-red")).to_have_count(1)
    expect(page.locator("#board .line--by-blue")).to_have_count(1)


def test_swaptimum_replay_marks_the_placement(browser: Browser, server_url: str) -> None:
    page = browser.new_context().new_page()
    create_table(page, server_url, "swaptimum", seat="red", opponent="easy", swaptimum_size="5")
    move = wait_moves_offered(page)[0]
    page.locator(f'#board [data-move="{move}"]').click()
    wait_ply(page, 2)
    expect(page.locator("#board .checkers .checker--red")).to_have_count(1)
    page.locator("h1").click()
    page.keyboard.press("ArrowLeft")
    shown(page, 1)
    expect(page.locator("#board .checkers .checker--blue")).to_have_count(0)
    expect(page.locator("#board .checkers .checker--red")).to_have_count(1)
    expect(page.locator("#board .last-square")).to_have_count(1)
    assert page.locator("#board [data-move]").count() == 0


def test_a_spectator_replays_a_finished_game_and_takes_its_pictures(
    browser: Browser, server_url: str
) -> None:
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=4)
    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True}
    page = browser.new_context(**phone).new_page()  # type: ignore[arg-type]
    page.goto(f"{server_url}/t/{game.id}/watch")
    wait_ready(page)
    total = len(game.moves)
    shown(page, total)
    expect(page.locator("#board .line--drawn")).to_have_count(total)
    # every control of the replay is a target a finger can hit (WCAG 2.5.8: 24 px at least)
    heights = page.evaluate(
        """() => [...document.querySelectorAll(
            "#move-list [data-replay-ply], #replay-png, #replay-gif")]
            .map((el) => el.getBoundingClientRect().height)"""
    )
    assert len(heights) >= 3 and min(heights) >= 24, heights
    page.locator('#move-list [data-replay-ply="5"]').click()
    shown(page, 5)
    expect(page.locator("#board .line--drawn")).to_have_count(5)
    assert not serious_violations(page), serious_violations(page)

    # the picture of the shown position and the GIF of the game, from the replay's links
    png = page.request.get(server_url + (page.locator("#replay-png").get_attribute("href") or ""))
    image = Image.open(io.BytesIO(png.body()))
    assert image.format == "PNG"
    svg = page.request.get(f"{server_url}/t/{game.id}.svg?ply=5").text()
    assert svg.count("line--drawn") == 5
    gif = page.request.get(server_url + (page.locator("#replay-gif").get_attribute("href") or ""))
    animation = Image.open(io.BytesIO(gif.body()))
    assert animation.format == "GIF" and animation.n_frames == total + 1
    # the browser decodes them too
    for url in (f"/t/{game.id}.png?ply=5", f"/t/{game.id}.gif"):
        size = page.evaluate(
            """async (url) => {
                const img = new Image();
                img.src = url;
                await img.decode();
                return [img.naturalWidth, img.naturalHeight];
            }""",
            url,
        )
        assert size[0] > 100 and size[1] > 100


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_move_list_shows_the_last_move_of_a_long_game(
    browser: Browser, server_url: str, width: int, height: int
) -> None:
    """A finished 3x3 game opened by a player: the move list, scrolled to its end, shows the
    last move in full (a review: the last four of 24 moves sat below the list's edge, the
    list scrolled to where its end had been before the page's other panels were drawn)."""
    game = play_game(server_url, {"grid": "square", "rows": 3, "cols": 3}, seed=11)
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"{server_url}/t/{game.id}/seat/{game.tokens['red']}")
    expect(page.locator("#result")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("#move-list li")).to_have_count(len(game.moves))
    page.wait_for_timeout(300)
    gap = page.evaluate(
        """() => {
            const list = document.getElementById("move-list");
            const last = list.lastElementChild.getBoundingClientRect();
            return last.bottom - list.getBoundingClientRect().bottom;
        }"""
    )
    assert gap <= 1, f"the last move is {gap} px below the list's edge"
    context.close()


def opponent_comes_and_goes(browser: Browser, server_url: str, game: Any, page: Page) -> None:
    """Blue's page opens and closes: red's page draws the table again twice (presence), with
    no new move."""
    opponent = browser.new_context()
    blue = opponent.new_page()
    blue.goto(f"{server_url}/t/{game.id}/seat/{game.tokens['blue']}")
    presence = page.locator("#player-blue .player__presence")
    expect(presence).to_have_attribute("data-presence", "online", timeout=TIMEOUT)
    opponent.close()
    expect(presence).to_have_attribute("data-presence", "offline", timeout=TIMEOUT)


def test_a_player_who_scrolled_up_the_move_list_stays_there(
    browser: Browser, server_url: str
) -> None:
    """A player scrolls up the move list of a long game to read it; the opponent's page then
    comes and goes (the table is drawn again, with no new move). The list used to jump back
    to its end on every such drawing, taking the player's place away."""
    game = play_game(server_url, {"grid": "square", "rows": 3, "cols": 3}, seed=11)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{server_url}/t/{game.id}/seat/{game.tokens['red']}")
    expect(page.locator("#move-list li")).to_have_count(len(game.moves), timeout=TIMEOUT)
    page.wait_for_timeout(300)
    scrollable = page.evaluate(
        """() => {
            const list = document.getElementById("move-list");
            return list.scrollHeight > list.clientHeight + 20;
        }"""
    )
    assert scrollable, "the list is not long enough to scroll: the test shows nothing"
    page.locator("#move-list").evaluate("list => list.scrollTo(0, 0)")
    page.wait_for_timeout(100)
    opponent_comes_and_goes(browser, server_url, game, page)
    page.wait_for_timeout(300)
    top = page.locator("#move-list").evaluate("list => list.scrollTop")
    assert top == 0, f"the list moved to {top} px while the player read its start"
    context.close()


def test_a_move_button_keeps_the_keyboard_focus_when_the_table_is_drawn_again(
    browser: Browser, server_url: str
) -> None:
    """A keyboard user on a move of the list (a button showing the position after it): the
    opponent's page comes and goes, the table is drawn again, and the focus stays on that
    move instead of dropping to the start of the page."""
    game = play_game(server_url, {"grid": "square", "rows": 3, "cols": 3}, seed=11)
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/t/{game.id}/seat/{game.tokens['red']}")
    expect(page.locator("#move-list .move-jump")).to_have_count(len(game.moves), timeout=TIMEOUT)
    page.locator('#move-list .move-jump[data-replay-ply="5"]').focus()
    opponent_comes_and_goes(browser, server_url, game, page)
    focused = page.evaluate("() => document.activeElement.dataset.replayPly || null")
    assert focused == "5", f"the focus went to {focused!r}"
    page.context.close()


def test_a_position_the_server_refuses_is_explained_and_fetched_again(
    browser: Browser, server_url: str
) -> None:
    """The replay asks for a position while the server is busy drawing (503, Retry-After):
    the status line says so in the server's words, and the position comes when it says (a
    review: the board silently stayed where it was, for good)."""
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=4)
    page = browser.new_context().new_page()
    refused: list[str] = []
    busy = "Too many pictures are being drawn right now. Try again in a moment."

    def answer(route: Any) -> None:
        if not refused:
            refused.append(route.request.url)
            body = f'{{"error": "{busy}", "code": "busy", "retry_after": 1}}'
            route.fulfill(status=503, headers={"Retry-After": "1"}, body=body)
        else:
            route.continue_()

    page.route("**/position.json*", answer)
    page.goto(f"{server_url}/t/{game.id}/watch")
    wait_ready(page)
    page.locator('#move-list [data-replay-ply="3"]').click()
    expect(page.locator("#replay-status")).to_contain_text(busy, timeout=TIMEOUT)
    expect(page.locator("#board .line--drawn")).to_have_count(3, timeout=TIMEOUT)
    expect(page.locator("#replay-status")).not_to_contain_text(busy)
    assert refused and "ply=3" in refused[0]


def strings_of(page: Page) -> dict[str, Any]:
    """The page's translated strings for its scripts: the module its import map names."""
    data: dict[str, Any] = page.evaluate(
        'async () => (await import("/static/js/strings.js")).default'
    )
    return data


def fill(template: str, **params: object) -> str:
    return re.sub(r"%\((\w+)\)s", lambda m: str(params[m.group(1)]), template)


def test_a_replayed_step_shows_and_says_its_own_score_and_turn(
    browser: Browser, server_url: str
) -> None:
    """A review: stepping back through a finished 3x3 game on its watch page drew the board
    at the step, but the players' panel kept the final scores with the winner highlighted,
    the banner kept saying "Blue wins.", and a screen reader heard only "After move 13 of
    24". Now the panel and the banner are the step's, marked as the replay, and the step is
    said with its move, its player and the score; the last move gives the live view back."""
    game = play_game(server_url, {"grid": "square", "rows": 3, "cols": 3}, seed=11)
    total = len(game.moves)
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/t/{game.id}/watch")
    wait_ready(page)
    shown(page, total)
    outcome = page.request.get(f"{server_url}/api/tables/{game.id}").json()["outcome"]
    winner, final = outcome["winner"], outcome["score"]
    expect(page.locator(f"#player-{winner}")).to_have_class(re.compile(r"\bis-winner\b"))

    step_by_keyboard(page, 13)
    position = page.request.get(f"{server_url}/t/{game.id}/position.json?ply=13").json()
    score, to_move = position["view"]["score"], position["view"]["to_move"]
    assert score != final
    expect(page.locator("#player-red .player__score")).to_have_text(str(score["red"]))
    expect(page.locator("#player-blue .player__score")).to_have_text(str(score["blue"]))
    expect(page.locator(".player.is-winner")).to_have_count(0)
    expect(page.locator(".player.is-to-move")).to_have_count(1)
    expect(page.locator(f"#player-{to_move}")).to_have_class(re.compile(r"\bis-to-move\b"))
    # marked as the replay, never to be taken for the result
    expect(page.locator("#turn")).to_have_text(
        f"Replay, after move 13 of {total}: {to_move.capitalize()} to move"
    )
    expect(page.locator("#players-replay")).to_have_text(f"After move 13 of {total}.")
    expect(page.locator(".players")).to_have_attribute("data-past", "true")
    # said: where, the move in words with its player, the score
    mover, move = position["movers"][12], position["moves"][12]
    start, end = move.split("-")
    claim = [".", " and claimed a box.", " and claimed two boxes."][len(position["closed"])]
    expect(page.locator("#replay-said")).to_have_text(
        f"After move 13 of {total}. {mover.capitalize()} drew the line from {start} to {end}"
        f"{claim} Score: Red {score['red']}, Blue {score['blue']}."
    )

    # the last move: the live view again
    page.keyboard.press("End")
    shown(page, total)
    expect(page.locator("#player-red .player__score")).to_have_text(str(final["red"]))
    expect(page.locator("#player-blue .player__score")).to_have_text(str(final["blue"]))
    expect(page.locator(f"#player-{winner}")).to_have_class(re.compile(r"\bis-winner\b"))
    expect(page.locator(".player.is-to-move")).to_have_count(0)
    loser = "blue" if winner == "red" else "red"
    expect(page.locator("#turn")).to_have_text(
        f"{winner.capitalize()} wins {final[winner]}–{final[loser]}."
    )
    expect(page.locator("#players-replay")).to_be_hidden()
    expect(page.locator(".players")).to_have_attribute("data-past", "false")


def test_a_replayed_swaptimum_step_is_said_in_the_page_language(
    browser: Browser, server_url: str
) -> None:
    """The same in Swaptimum, on the Korean page: the player to move at the step is marked,
    and the step is said in Korean with its move and who played it."""
    game = play_game(server_url, {"size": 5}, seed=5, game="swaptimum")
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/ko/t/{game.id}/watch")
    wait_ready(page)
    total = len(game.moves)
    shown(page, total)
    step_by_keyboard(page, 3)
    position = page.request.get(f"{server_url}/t/{game.id}/position.json?ply=3").json()
    strings = strings_of(page)
    to_move = position["view"]["to_move"]
    expect(page.locator(".player.is-to-move")).to_have_count(1)
    expect(page.locator(f"#player-{to_move}")).to_have_class(re.compile(r"\bis-to-move\b"))
    expect(page.locator("#turn")).to_have_text(
        fill(strings["step_turn"], ply=3, total=total, player=strings[to_move])
    )
    mover, move = position["movers"][2], position["moves"][2]
    square, _, pair = move.partition(":")
    where = fill(strings["replay_at"], ply=3, total=total)
    if pair:
        a, b = pair.split("-")
        words = fill(strings["ann_place_swap"], player=strings[mover], square=square, a=a, b=b)
    else:
        words = fill(strings["ann_place"], player=strings[mover], square=square)
    expect(page.locator("#replay-said")).to_have_text(f"{where} {words}")
    assert "placed" not in words


def list_shows(page: Page, selector: str, ply: int) -> bool:
    """Whether the move list's item of `ply` is inside the list's visible box."""
    result: bool = page.evaluate(
        """([selector, ply]) => {
            const list = document.querySelector(selector);
            const item = list.querySelector(`[data-replay-ply="${ply}"]`).closest("li");
            const box = list.getBoundingClientRect();
            const it = item.getBoundingClientRect();
            return it.top >= box.top - 1 && it.bottom <= box.bottom + 1;
        }""",
        [selector, ply],
    )
    return result


def test_the_move_shown_is_scrolled_into_view_in_the_move_list(
    browser: Browser, server_url: str
) -> None:
    """A review: a link to the third move of a long finished game (#ply=3) showed it on the
    board while the move list stayed scrolled to its end, the move out of sight. The list
    scrolls to it (and the page does not move)."""
    game = play_game(server_url, {"grid": "square", "rows": 3, "cols": 3}, seed=11)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{server_url}/t/{game.id}/seat/{game.tokens['red']}#ply=3")
    shown(page, 3)
    expect(page.locator("#board .line--drawn")).to_have_count(3, timeout=TIMEOUT)
    page.wait_for_timeout(300)  # the list's own following of its end has had its turn
    assert list_shows(page, "#move-list", 3)
    # stepping on keeps it in view; the live position brings the end back
    page.locator("h1").click()
    before = page.evaluate("() => window.scrollY")
    page.keyboard.press("ArrowRight")
    shown(page, 4)
    page.wait_for_timeout(200)
    assert list_shows(page, "#move-list", 4)
    assert page.evaluate("() => window.scrollY") == before
    page.keyboard.press("End")
    shown(page, len(game.moves))
    page.wait_for_timeout(300)
    assert list_shows(page, "#move-list", len(game.moves))
    context.close()


def test_a_finished_game_goes_back_to_its_final_position_not_to_the_game(
    browser: Browser, server_url: str
) -> None:
    """A review: on a finished table, the replay's button back from an earlier step said
    "Back to the game", though no game is left to go back to. It names the final position;
    on a Czech page in Czech."""
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=4)
    total = len(game.moves)
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/t/{game.id}/watch")
    wait_ready(page)
    page.locator('#move-list [data-replay-ply="5"]').click()
    shown(page, 5)
    back = page.locator("#replay-live button")
    expect(back).to_be_visible()
    expect(back).to_have_accessible_name("Back to the final position")
    expect(page.get_by_role("button", name="Back to the game")).to_have_count(0)
    back.click()
    shown(page, total)
    expect(page.locator("#replay-live")).to_be_hidden()

    page.goto(f"{server_url}/cs/t/{game.id}/watch")
    wait_ready(page)
    page.locator('#move-list [data-replay-ply="5"]').click()
    shown(page, 5)
    strings = strings_of(page)
    assert strings["replay_final"] != strings["replay_live"]
    expect(page.locator("#replay-live button")).to_have_text(strings["replay_final"])
    page.context.close()


def test_the_button_back_names_the_final_position_once_the_game_ends(
    browser: Browser, server_url: str
) -> None:
    """A spectator steps back while the game is played ("Back to the game"); the last move
    comes meanwhile and ends the game: the notice says the move, and the button now goes
    back to the final position."""
    game = play_game(server_url, {"grid": "square", "rows": 2, "cols": 2}, seed=4, plies=11)
    watcher = browser.new_context().new_page()
    watcher.goto(f"{server_url}/t/{game.id}/watch")
    wait_ready(watcher)
    watcher.locator('#move-list [data-replay-ply="5"]').click()
    shown(watcher, 5)
    back = watcher.locator("#replay-live button")
    expect(back).to_have_text("Back to the game")

    to_move = watcher.request.get(f"{server_url}/api/tables/{game.id}").json()["to_move"]
    player = browser.new_context().new_page()
    player.goto(f"{server_url}/t/{game.id}/seat/{game.tokens[to_move]}")
    wait_ready(player)
    last = play(player, 12)
    expect(watcher.locator("#replay-news")).to_have_text(f"New move: {last}.", timeout=TIMEOUT)
    shown(watcher, 5)  # still the step the spectator chose
    expect(back).to_have_text("Back to the final position")
    back.click()
    shown(watcher, 12)
    expect(watcher.locator("#board")).to_have_attribute("data-past", "false")
    player.context.close()
    watcher.context.close()


@pytest.mark.parametrize(
    ("options", "unit"),
    [({"grid": "square", "rows": 3, "cols": 3}, "box"), ({"grid": "triangle", "size": 2}, "cell")],
    ids=["square", "triangle"],
)
def test_each_move_of_the_list_says_the_boxes_it_claimed(
    browser: Browser, server_url: str, options: dict[str, Any], unit: str
) -> None:
    """A review: a move's button in the list was named with who drew which line, never with
    the boxes it claimed (the live announcement and a replayed step said them). Now every
    button says what its move claimed, cells on a triangle grid, as the step does."""
    game = play_game(server_url, options, seed=11)
    claimed = claimed_by_moves(options, game.moves)
    assert 1 in claimed and 2 in claimed, claimed  # the game has both kinds of claim
    page = browser.new_context().new_page()
    page.goto(f"{server_url}/t/{game.id}/watch")
    wait_ready(page)
    total = len(game.moves)
    movers = page.request.get(f"{server_url}/t/{game.id}/position.json?ply={total}").json()[
        "movers"
    ]
    for index, move in enumerate(game.moves):
        expect(
            page.locator(f'#move-list .move-jump[data-replay-ply="{index + 1}"]')
        ).to_have_accessible_name(line_words(movers[index], move, claimed[index], unit))
    # the step of a double claim is heard with the same words
    ply = claimed.index(2) + 1
    page.locator(f'#move-list [data-replay-ply="{ply}"]').click()
    shown(page, ply)
    words = line_words(movers[ply - 1], game.moves[ply - 1], 2, unit)
    expect(page.locator("#replay-said")).to_contain_text(f"After move {ply} of {total}. {words}")
    page.context.close()
