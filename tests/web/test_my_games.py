"""My games and "continue on another device": the seats this browser's cookies hold."""

from __future__ import annotations

import re
import time

from starlette.testclient import TestClient

from playtable.web.timing import time_left_in
from tests.web.conftest import (
    DOTS,
    Socket,
    claim,
    connect,
    create_table,
    renew_seat_link,
    two_players,
)


def test_my_games_lists_the_seats_this_browser_holds_yours_to_move_first(
    client: TestClient,
) -> None:
    first = create_table(client, seat="red")  # red to move: waiting for this browser
    second = create_table(client, seat="blue")  # red to move: the opponent's
    claim(client, second)  # somebody else takes red (claim clears the cookies)
    client.cookies.set(f"pt_{first.id}", first.token)
    client.cookies.set(f"pt_{second.id}", second.token)
    client.cookies.set("pt_abcdefghij", "made-up-token")  # a forged cookie shows nothing
    page = client.get("/games")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    order = re.findall(r'data-table="(\w+)" data-group="(\w+)"', page.text)
    assert order == [(first.id, "yours"), (second.id, "running")]
    assert "You play Blue against Red · offline" in page.text
    assert first.token not in page.text and second.token not in page.text
    home = client.get("/")
    assert "1 game is waiting for your move" in home.text
    assert 'href="/games"' in home.text
    client.cookies.clear()
    assert "no seat at any table" in client.get("/games").text
    assert "waiting for your move" not in client.get("/").text


def test_a_finished_game_goes_last_and_the_home_page_counts_in_the_pages_language(
    client: TestClient,
) -> None:
    done = create_table(client, seat="red")
    mine = create_table(client, seat="red")
    with connect(client, done.id, done.token) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
    other = create_table(client, seat="red")
    client.cookies.set(f"pt_{done.id}", done.token)
    client.cookies.set(f"pt_{mine.id}", mine.token)
    client.cookies.set(f"pt_{other.id}", other.token)
    groups = re.findall(r'data-group="(\w+)"', client.get("/games").text)
    assert groups == ["yours", "yours", "over"]
    assert "2 games are waiting for your move" in client.get("/").text
    assert "2 peliä odottaa siirtoasi" in client.get("/fi/").text


def test_the_continue_page_shows_the_seat_link_and_its_qr_code_only_to_the_seat_holder(
    client: TestClient,
) -> None:
    table = create_table(client, seat="red", options=DOTS)
    client.cookies.set(f"pt_{table.id}", table.token)
    page = client.get(f"/t/{table.id}/continue")
    assert page.status_code == 200
    assert page.headers["referrer-policy"] == "same-origin"  # its form must carry its Origin
    assert f"/t/{table.id}/seat/{table.token}" in page.text
    assert "<svg" in page.text and "Whoever has it can play for you" in page.text
    assert "<script" not in page.text.split("</footer>")[0].split('id="seat-qr"')[1]
    client.cookies.clear()
    assert client.get(f"/t/{table.id}/continue").status_code == 403
    assert client.get("/t/nosuchtabl/continue").status_code == 404


def test_the_continue_page_names_the_game_whose_seat_link_it_shows(client: TestClient) -> None:
    """The page said only "Continue on another device": a player with several games open
    could not tell which table's seat the link and QR code were. It names the game, its
    settings and time control and the player's colour, under the heading and in its title."""
    dots = create_table(
        client, seat="blue", time_control={"kind": "correspondence", "days": 3}, options=DOTS
    )
    swaptimum = create_table(client, game="swaptimum", options={"size": 7}, seat="red")
    client.cookies.set(f"pt_{dots.id}", dots.token)
    client.cookies.set(f"pt_{swaptimum.id}", swaptimum.token)

    def said(path: str) -> tuple[str, str]:
        page = client.get(path).text
        title = re.search(r"<title>(.*?)</title>", page, re.S)
        game = re.search(r'<p class="continue-game" id="continue-game">(.*?)</p>', page, re.S)
        assert title and game
        return title.group(1), re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", game.group(1)))

    title, game = said(f"/t/{dots.id}/continue")
    assert title == (
        "Continue on another device · Dots and Boxes · 2 × 2 boxes · Swedish board · Blue"
        " · Playtable"
    )
    assert game.strip() == (
        "Dots and Boxes · 2 × 2 boxes · Swedish board · 3 days per move"
        " You play Blue against Red (seat free)"
    )
    title, game = said(f"/t/{swaptimum.id}/continue")
    assert (
        title.startswith("Continue on another device · Swaptimum · 7 × 7") and " · Red · " in title
    )
    assert "You play Red against Blue (seat free)" in game and "per move" not in game
    title, game = said(f"/fi/t/{dots.id}/continue")
    assert (
        title.startswith("Jatka toisella laitteella · Pisteet ja laatikot") and "Sininen" in title
    )
    assert "3 päivää siirtoa kohden" in game
    assert "Sinä: Sininen · vastustaja: Punainen (paikka vapaana)" in game  # one colon a label
    assert "상대: 파랑 (빈자리)" in said(f"/ko/t/{swaptimum.id}/continue")[1]
    games = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", client.get("/cs/games").text))
    assert "Vy: Modrý · soupeř: Červený (volné místo)" in games  # My games words it alike


def test_a_finished_game_says_how_it_ended_for_this_seat(client: TestClient) -> None:
    """Won, lost, on time, resigned, aborted: each reads differently, with the score."""
    from tests.web.test_pictures import play_blue_wins

    table = play_blue_wins(client)  # blue takes all four boxes
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", table.token)  # red's seat
    page = client.get("/games").text
    assert "You lost · 0–4" in page
    client.cookies.clear()  # (the page renewed red's seat cookie)
    client.cookies.set(f"pt_{table.id}", table.urls["blue_token"])
    assert "Voitit · 4–0" in client.get("/fi/games").text
    assert "Vyhráli jste · 4:0" in client.get("/cs/games").text  # as the table writes scores
    assert "승리 · 4:0" in client.get("/ko/games").text
    resigned = create_table(client, seat="red")
    blue = claim(client, resigned)
    with connect(client, resigned.id, resigned.token) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
    client.cookies.clear()
    client.cookies.set(f"pt_{resigned.id}", resigned.token)
    assert "You resigned" in client.get("/games").text
    client.cookies.clear()
    client.cookies.set(f"pt_{resigned.id}", blue)
    assert "You won: your opponent resigned" in client.get("/games").text


def test_the_newest_seats_are_listed_when_the_browser_holds_more_than_a_hundred(
    client: TestClient,
) -> None:
    """Browsers send cookies oldest first. With more seat cookies than the page lists, the
    page listed the oldest ones (and renewed them, so they never expired): every game taken
    after the hundredth seat was missing from My games and from the home page's count."""
    from playtable.tables.tokens import ID_ALPHABET
    from playtable.web.my_games import MAX_SEATS

    newest = create_table(client, seat="red")  # red to move: waiting for this browser
    client.cookies.clear()
    ids = ["".join(ID_ALPHABET[(k >> (5 * i)) % 32] for i in range(10)) for k in range(100)]
    old = [f"pt_{id_}=gone{k}" for k, id_ in enumerate(ids[:MAX_SEATS])]  # older seats, gone
    cookie = "; ".join([*old, f"pt_{newest.id}={newest.token}"])
    page = client.get("/games", headers={"cookie": cookie})
    assert re.findall(r'data-table="(\w+)"', page.text) == [newest.id]
    home = client.get("/", headers={"cookie": cookie})
    assert "1 game is waiting for your move" in home.text


def _status(page: str, table_id: str) -> str:
    row = page.split(f'data-table="{table_id}"', 1)[1].split("</li>", 1)[0]
    status = row.split('class="game-row__status"', 1)[1]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", status.split(">", 1)[1])).strip()


def test_my_games_tells_the_time_that_really_is_left(client: TestClient) -> None:
    """A real-time table just seated must have its first move within a minute, or it is
    aborted: the page said "10 minutes left" (the clock's base time). A table waiting for the
    opponent tells the opponent's time, not this seat's untouched allowance."""
    mine = create_table(client, time_control={"kind": "realtime", "minutes": 10, "increment": 5})
    claim(client, mine)
    theirs = create_table(client, seat="blue", time_control={"kind": "correspondence", "days": 3})
    claim(client, theirs)
    client.cookies.set(f"pt_{mine.id}", mine.token)
    client.cookies.set(f"pt_{theirs.id}", theirs.token)
    page = client.get("/games").text
    assert re.fullmatch(r"Your move (5\d|60) seconds left", _status(page, mine.id))
    assert _status(page, theirs.id) == "Opponent's move Your opponent has 2 days, 23 hours left"
    finnish = client.get("/fi/games").text
    assert "2 päivää ja 23 tuntia" in _status(finnish, theirs.id)


def _row(page: str, table_id: str) -> str:
    row = page.split(f'data-table="{table_id}"', 1)[1].split("</li>", 1)[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row.split(">", 1)[1])).strip()


def test_each_row_names_its_time_control_and_the_first_move_deadline(client: TestClient) -> None:
    """A row said nothing of the table's clock: "58 seconds left" of what, and then what? It
    names the time control as the table page does, and while the table waits for a first
    move, when it is aborted without one (Babel's words of the page's language, in UTC, which
    the page's script writes again in the visitor's time zone: tests/e2e/test_clocks.py)."""
    blitz = create_table(client, time_control={"kind": "realtime", "minutes": 5, "increment": 3})
    claim(client, blitz)
    post = create_table(client, seat="blue", time_control={"kind": "correspondence", "days": 3})
    claim(client, post)
    free = create_table(client, time_control={"kind": "realtime", "minutes": 5, "increment": 3})
    unclocked = create_table(client)
    for table in (blitz, post, free, unclocked):
        client.cookies.set(f"pt_{table.id}", table.token)
    page = client.get("/games").text
    assert "· 5 min + 3 s" in _row(page, blitz.id)
    assert "· 3 days per move" in _row(page, post.id)
    assert "per move" not in _row(page, unclocked.id) and " s " not in _row(page, unclocked.id)
    time_of_day = r"\d{1,2}:\d\d:\d\d\s[AP]M UTC"  # a minute away: to the second
    assert re.search(
        rf"The table is aborted if you make no first move by {time_of_day} ?\.",
        _row(page, blitz.id),
    )
    due = time.gmtime(time.time() + 3 * 86400)
    date = time.strftime("%b %-d, %Y", due)  # days away: its date too
    assert re.search(
        rf"The table is aborted if your opponent makes no first move by {date}, "
        r"\d{1,2}:\d\d\s[AP]M UTC ?\.",
        _row(page, post.id),
    )
    assert "first move" not in _row(page, free.id)  # nobody sat down: no clock runs
    assert "first move" not in _row(page, unclocked.id)
    finnish = client.get("/fi/games").text
    assert "5 min + 3 s" in _row(finnish, blitz.id)
    assert "3 päivää siirtoa kohden" in _row(finnish, post.id)
    assert time.strftime("%-d.%-m.%Y", due) in _row(finnish, post.id)
    czech = client.get("/cs/games").text
    assert re.search(r"\d{1,2}:\d\d:\d\d UTC", _row(czech, blitz.id))


def test_a_time_left_is_never_told_as_more_than_it_is() -> None:
    hours_37 = 37 * 3600 + 59 * 60
    assert time_left_in(hours_37, "en") == "1 day, 13 hours"
    assert time_left_in(hours_37, "fi") == "1 päivä ja 13 tuntia"
    assert time_left_in(hours_37, "cs") == "1 den a\xa013 hodin"  # no break after a one-letter word
    assert time_left_in(hours_37, "ko") == "1일 13시간"
    assert time_left_in(2 * 86400 + 59, "en") == "2 days"
    assert time_left_in(3599, "en") == "59 minutes"
    assert time_left_in(3 * 3600 + 61, "en") == "3 hours, 1 minute"
    assert time_left_in(59.9, "en") == "59 seconds"
    assert time_left_in(-1, "en") == "0 seconds"


def test_a_seen_seat_link_can_be_replaced_and_the_old_one_plays_no_more(
    client: TestClient,
) -> None:
    """The continue page shows the seat's own link and its QR code: a player who posted a
    screenshot of it lost the seat for good (a review). A new link replaces it; the old one,
    and a device already playing with it, can no longer play."""
    table = create_table(client, seat="red", options=DOTS)
    blue = claim(client, table)
    client.cookies.set(f"pt_{table.id}", table.token)
    page = client.get(f"/t/{table.id}/continue")
    assert "Make a new seat link" in page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf
    with connect(client, table.id, table.token) as session:  # the device that saw it
        old_device = Socket(session)
        state = old_device.join()
        client.cookies.set(f"pt_{table.id}", table.token)
        client.cookies.set("pt_csrf", csrf.group(1))
        renewed = client.post(
            f"/t/{table.id}/continue", data={"csrf": csrf.group(1)}, follow_redirects=False
        )
        assert renewed.status_code == 303
        assert f"/t/{table.id}/continue?renewed=" in renewed.headers["location"]
        target = renewed.headers["location"]
        token = renewed.cookies.get(f"pt_{table.id}")
        assert token and token != table.token
        move = state["table"]["view"]["legal_moves"][0]
        assert old_device.error()["code"] == "seat_key_replaced"  # and closed (test_seat_key.py)
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", token)
    page = client.get(target)
    assert f"/t/{table.id}/seat/{token}" in page.text and "This is a new link" in page.text
    # An address that only says so does not make it so (a review: ?renewed=1 said it of a
    # link never replaced).
    assert "This is a new link" not in client.get(f"/t/{table.id}/continue?renewed=1").text
    odd = client.get(f"/t/{table.id}/continue?renewed=%C3%A9")  # a 500 before (a review)
    assert odd.status_code == 200 and "This is a new link" not in odd.text
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", table.token)
    assert client.get(f"/t/{table.id}/continue").status_code == 403  # the old key opens nothing
    with connect(client, table.id, token) as session:
        red = Socket(session)
        red.join()
        red.send("move", ply=0, move=move)
        red.until_state(lambda t: t["ply"] == 1)
    with connect(client, table.id, blue) as session:  # the other seat is untouched
        assert Socket(session).join()["table"]["you"] == "blue"


def test_each_row_says_when_its_game_ended_or_was_last_played(client: TestClient) -> None:
    """An evening's games found again the next day: each row has its day, in the page's
    language (the table's time, rewritten in the visitor's time zone by local_times.js)."""
    waiting = create_table(client, seat="red")
    played = create_table(client, seat="red")
    claim(client, played)
    with connect(client, played.id, played.token) as session:
        socket = Socket(session)
        socket.join()
        socket.send("move", ply=0, move="a2-b2")
        socket.at_version(2)
    ended = create_table(client, seat="red")
    with connect(client, ended.id, ended.token) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
    for table in (waiting, played, ended):
        client.cookies.set(f"pt_{table.id}", table.token)
    page = client.get("/games").text
    year = str(time.gmtime().tm_year)
    when = r'<p class="game-row__when">(\w[\w ]*?) <time [^>]*data-local="date">([^<]+)</time>'
    rows = re.findall(when, page)
    assert sorted(said for said, _ in rows) == ["Ended", "Last move", "Set up"]
    assert all(year in shown and "UTC" in shown for _, shown in rows)
    finnish = client.get("/fi/games").text
    assert "Perustettu <time" in finnish and "Päättyi <time" in finnish
    assert "Viimeisin siirto <time" in finnish
    assert "Založeno <time" in client.get("/cs/games").text
    assert "종료: <time" in client.get("/ko/games").text


def test_a_rematch_made_on_another_device_is_listed_where_the_game_was(
    client: TestClient,
) -> None:
    """A correspondence game on the laptop and the phone (its seat link opened on both): the
    game ended and its rematch was accepted on the laptop, and the phone's My games went on
    listing the finished game alone (the rematch's seat cookie went to the laptop only), so
    the running game, and that it waited for this player's move, could not be found on the
    phone. A seat's rematches are listed (their seats come from its key), and the visit gives
    the phone the rematch's seat; not once the rematch's link was replaced."""
    days = {"kind": "correspondence", "days": 3}
    with two_players(client, time_control=days) as (game, red, blue):
        red.send("resign")
        blue.until_state(lambda t: t["outcome"] is not None)
        red.send("rematch")
        blue.until_state(lambda t: t["offers"]["rematch"] == ["red"])
        blue.send("rematch")
        rematch_id = red.until_state(lambda t: t["rematch_id"] is not None)[1]["rematch_id"]
    client.cookies.clear()
    client.cookies.set(f"pt_{game.id}", game.token)  # the phone: the first game's seat only
    page = client.get("/games").text
    order = re.findall(r'data-table="(\w+)" data-group="(\w+)"', page)
    # colours swapped: the phone's player is Blue, and Red (the friend) moves first
    assert order == [(rematch_id, "running"), (game.id, "over")]
    assert "You play Blue against Red" in _row(page, rematch_id)
    assert "3 days per move" in _row(page, rematch_id)
    laptop_key = client.cookies.get(f"pt_{rematch_id}")  # the phone holds the rematch's seat
    assert laptop_key
    with connect(client, rematch_id, laptop_key) as session:
        assert Socket(session).join()["table"]["you"] == "blue"

    # The laptop replaces the rematch's link: the first game's seat finds it no more.
    renew_seat_link(client, rematch_id, laptop_key)
    client.cookies.set(f"pt_{game.id}", game.token)
    order = re.findall(r'data-table="(\w+)" data-group="(\w+)"', client.get("/games").text)
    assert order == [(game.id, "over")]
