"""Every game of a browser carried to another device with one link (``/games/carry``): made
from My games, opened on the phone (which takes nothing), taken with the page's button, once,
within its minutes; the store never holds a seat key."""

from __future__ import annotations

import re
import sqlite3

from starlette.testclient import TestClient

from tests.web.conftest import claim, create_table, csrf_of, renew_seat_link

KEY_COOKIE = re.compile(r"p[to]_[a-z2-9]{10}")  # a seat's, or a table set up for others'
CARRIED = re.compile(r'id="carry-url" type="text" readonly value="([^"]+)"')


def laptop_with_games(client: TestClient) -> tuple[dict[str, str], dict[str, str]]:
    """A browser with two seats (Red of one table, Blue of another) and a table it set up
    for two other players: its cookies, and the other players' keys."""
    first = create_table(client, seat="red")
    first_blue = claim(client, first)
    second = create_table(client, seat="red")
    second_blue = claim(client, second)
    client.cookies.clear()
    home = client.get("/")
    made = client.post(
        "/tables",
        data={
            "csrf": csrf_of(home.text),
            **{"game": "dots", "dots_rows": "3", "dots_cols": "3"},
            **{"seat": "none", "opponent": "friend"},
        },
        follow_redirects=False,
    )
    assert made.status_code == 303, made.text
    organiser = {k: v for k, v in made.cookies.items() if k.startswith("po_")}
    assert len(organiser) == 1
    cookies = {f"pt_{first.id}": first.token, f"pt_{second.id}": second_blue, **organiser}
    client.cookies.clear()
    return cookies, {"first_blue": first_blue, "second_red": second.token}


def make_link(client: TestClient, cookies: dict[str, str]) -> str:
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies.set(name, value)
    games = client.get("/games")
    assert "Make a link for another device" in games.text
    page = client.post("/games/carry", data={"csrf": csrf_of(games.text)})
    assert page.status_code == 200, page.text
    assert page.headers["cache-control"] == "no-store"
    assert "2 games · 1 table you set up for others" in page.text
    assert "The link works once, for 10 minutes." in page.text
    found = CARRIED.search(page.text)
    assert found
    client.cookies.clear()
    return found.group(1).split("://", 1)[1].split("/", 1)[1]  # the path


def test_every_game_goes_to_the_phone_with_one_link(client: TestClient) -> None:
    cookies, _ = laptop_with_games(client)
    link = "/" + make_link(client, cookies)
    # the phone: a chat app's preview and the camera's look take nothing
    assert client.head(link).status_code == 200
    opened = client.get(link)
    assert opened.status_code == 200
    assert opened.headers["x-robots-tag"] == "noindex"
    assert "2 games · 1 table you set up for others" in opened.text
    assert not [name for name in client.cookies if KEY_COOKIE.fullmatch(name)]
    taken = client.post(link, data={"csrf": csrf_of(client.get(link).text)}, follow_redirects=False)
    assert taken.status_code == 303
    assert taken.headers["location"] == "/games"
    assert {k: v for k, v in taken.cookies.items() if KEY_COOKIE.fullmatch(k)} == cookies
    # My games on the phone lists them, as on the laptop
    listed = client.get("/games").text
    for name in cookies:
        assert f'data-table="{name[3:]}"' in listed
    # the link works once: in another browser, no more
    client.cookies.clear()
    assert client.get(link).status_code == 410
    assert "This link no longer works" in client.get(link).text
    replayed = client.post(link, data={"csrf": csrf_of(client.get("/").text)})
    assert replayed.status_code == 410


def test_the_store_holds_no_key_and_the_link_expires(client: TestClient, db_url: str) -> None:
    cookies, _ = laptop_with_games(client)
    path = make_link(client, cookies)
    code = path.rsplit("/", 1)[1]
    database = sqlite3.connect(db_url.removeprefix("sqlite:///"))
    with database:
        rows = database.execute("SELECT code_hash, sealed FROM carries").fetchall()
        assert len(rows) == 1
        kept = " ".join(rows[0])
        assert code not in kept
        for key in cookies.values():
            assert key not in kept
        # ten minutes on
        database.execute("UPDATE carries SET expires_at = '2001-01-01 00:00:00.000000'")
    database.close()
    expired = client.get("/fi/" + path)
    assert expired.status_code == 410
    assert "Linkki ei enää toimi" in expired.text


def test_a_seat_link_replaced_since_is_not_carried(client: TestClient) -> None:
    """Red of the first table made a new seat link after making the carry (someone had seen
    the old one): the old key, which the carry holds, is not put in the phone."""
    cookies, _ = laptop_with_games(client)
    link = "/" + make_link(client, cookies)
    first = next(name for name in cookies if name.startswith("pt_"))
    renew_seat_link(client, first[3:], cookies[first])
    taken = client.post(link, data={"csrf": csrf_of(client.get(link).text)}, follow_redirects=False)
    assert taken.status_code == 303
    assert first not in taken.cookies
    assert len([k for k in taken.cookies if KEY_COOKIE.fullmatch(k)]) == 2  # the rest


def test_forged_and_odd_links_are_refused_in_the_page_language(client: TestClient) -> None:
    for code in ("A" * 32, "x", "%F0%9F%8E%B2" * 8, "a" * 300):
        page = client.get(f"/cs/games/carry/{code}")
        assert page.status_code == 410, code
        assert "Tento odkaz už nefunguje" in page.text
    # no form token: refused, and nothing is made
    assert client.post("/games/carry", data={}).status_code == 403
    # a browser with no games gets no link
    home = client.get("/")
    empty = client.post("/games/carry", data={"csrf": csrf_of(home.text)})
    assert empty.status_code == 404


def test_a_seat_the_phone_holds_at_a_carried_table_stays(client: TestClient) -> None:
    """The phone holds Blue of the laptop's first table (the player tried both sides, or
    the link came from the opponent): taking the carry must not swap its seat for Red's,
    which left the phone without the seat it played, for good."""
    cookies, others = laptop_with_games(client)
    link = "/" + make_link(client, cookies)
    first = next(name for name in cookies if name.startswith("pt_"))
    client.cookies.set(first, others["first_blue"])
    taken = client.post(link, data={"csrf": csrf_of(client.get(link).text)}, follow_redirects=False)
    assert taken.status_code == 303
    assert first not in taken.cookies
    # the phone still plays Blue there, and has the other games
    page = client.get(f"/t/{first[3:]}").text
    assert '"you":"blue"' in page
    assert len([k for k in taken.cookies if KEY_COOKIE.fullmatch(k)]) == 2


def test_the_phone_that_took_the_games_presses_twice_or_goes_back(client: TestClient) -> None:
    """The button pressed twice (a double tap: the browser drops the first answer, which
    held the cookies, for the second's) and the back button after it: the phone that took
    the games gets them again, or My games; it was told 'This link no longer works', as if
    it had failed, and after a double tap had no game at all."""
    cookies, _ = laptop_with_games(client)
    link = "/" + make_link(client, cookies)
    csrf = csrf_of(client.get(link).text)
    first = client.post(link, data={"csrf": csrf}, follow_redirects=False)
    assert first.status_code == 303
    client.cookies.clear()  # the first answer never reached the browser
    client.cookies.set("pt_csrf", csrf)
    second = client.post(link, data={"csrf": csrf}, follow_redirects=False)
    assert second.status_code == 303, second.text
    assert second.headers["location"] == "/games"
    assert {k: v for k, v in second.cookies.items() if KEY_COOKIE.fullmatch(k)} == cookies
    # back to the link's page: My games, with the games
    back = client.get(link)
    assert back.url.path == "/games"
    for name in cookies:
        assert f'data-table="{name[3:]}"' in back.text
    # the link stays dead for any other browser, which cannot take it either
    client.cookies.clear()
    other = client.post(link, data={"csrf": csrf_of(client.get("/").text)})
    assert other.status_code == 410


def test_the_link_page_switches_language_to_my_games(client: TestClient) -> None:
    """The page with the link answers a form: its language switcher led to /fi/games/carry,
    which only takes a POST (405, 'Method Not Allowed'), and the hreflang alternates too."""
    cookies, _ = laptop_with_games(client)
    for name, value in cookies.items():
        client.cookies.set(name, value)
    page = client.post("/games/carry", data={"csrf": csrf_of(client.get("/games").text)})
    assert page.status_code == 200
    assert 'href="/fi/games/carry"' not in page.text
    switched = client.get("/fi/games")
    assert 'href="/fi/games"' in page.text and switched.status_code == 200
