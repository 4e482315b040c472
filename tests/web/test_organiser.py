"""A table set up for two other players (a club's organiser): the home form's "Neither" gives
both players' links and seats nobody in the organiser's browser."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from tests.web.conftest import Socket, connect, csrf_of

FORM = {"game": "dots", "dots_rows": "3", "dots_cols": "3", "opponent": "friend"}


def set_up(client: TestClient, lang: str = "", **fields: str) -> str:
    """Create a table from the home form with the colour "Neither"; the links page's path."""
    token = csrf_of(client.get(f"{lang}/").text)
    made = client.post(
        f"{lang}/tables",
        data={**FORM, "seat": "none", "csrf": token, **fields},
        follow_redirects=False,
    )
    assert made.status_code == 303, made.text
    return str(made.headers["location"])


def link(page: str, field: str) -> str:
    match = re.search(rf'id="{field}" type="text" readonly value="([^"]+)"', page)
    assert match, f"the page shows {field}"
    return match.group(1)


def test_the_organiser_gets_both_links_and_sits_at_neither_seat(client: TestClient) -> None:
    where = set_up(client, time="realtime", time_preset="10+5")
    table_id = where.split("/")[2]
    assert where == f"/t/{table_id}/links"
    assert f"pt_{table_id}" not in client.cookies  # seated nowhere
    page = client.get(where)
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert "Links for the players" in page.text and "10 min + 5 s" in page.text
    red, blue = link(page.text, "red-url"), link(page.text, "blue-url")
    assert f"/t/{table_id}/join/" in red and f"/t/{table_id}/join/" in blue and red != blue
    assert "Red's invitation" in page.text and "Blue's invitation" in page.text
    assert page.text.count("<svg") >= 2  # a QR code each
    # the table page shows the organiser a spectator's view; My games lists nothing
    table = client.get(f"/t/{table_id}").text
    assert '"you":null' in table and 'id="invite-url"' not in table.split("<script")[0]
    games = client.get("/games").text
    assert 'id="no-games"' in games  # not among this browser's own games, only set up
    assert table_id in games.split('id="organised-list"')[1]
    # "Set up another table like this": the same settings, the same way
    next_table = re.search(r'href="([^"]+)" id="next-table"', page.text)
    assert next_table
    home = client.get(next_table.group(1).replace("&amp;", "&")).text
    assert 'name="seat" value="none" aria-describedby="seat-none-hint" checked' in home
    assert '<option value="10+5" selected>' in home

    # Red opens their invitation on a phone: a GET takes nothing (a chat app's preview, or
    # a camera app's look at the QR code), the button takes Red's seat
    organiser = dict(client.cookies)
    client.cookies.clear()
    red_path = red.removeprefix("http://testserver")
    invitation = client.get(red_path)
    assert "Take the red seat" in invitation.text and f"pt_{table_id}" not in client.cookies
    red_phone = dict(client.cookies)
    # someone beside Red scans the same code on the organiser's screen at the same time
    client.cookies.clear()
    seen = client.get(red_path)
    assert "Take the red seat" in seen.text
    neighbour = dict(client.cookies)
    client.cookies.clear()
    client.cookies.update(red_phone)
    taken = client.post(red_path, data={"csrf": csrf_of(invitation.text)}, follow_redirects=False)
    assert taken.status_code == 303 and f"pt_{table_id}" in taken.cookies
    assert '"you":"red"' in client.get(f"/t/{table_id}").text
    # and presses its button a moment later: no seat, not even Blue's free one
    client.cookies.clear()
    client.cookies.update(neighbour)
    late = client.post(red_path, data={"csrf": csrf_of(seen.text)}, follow_redirects=False)
    assert late.status_code == 303 and f"pt_{table_id}" not in late.cookies
    assert '"you":null' in client.get(f"/t/{table_id}").text
    again = client.get(red_path, follow_redirects=False)  # the link now only shows the game
    assert again.status_code == 303 and again.headers["location"] == f"/t/{table_id}"
    # Blue's invitation needs the button, as any invitation
    client.cookies.clear()
    path = blue.removeprefix("http://testserver")
    invitation = client.get(path)
    assert "Take the blue seat" in invitation.text
    taken = client.post(path, data={"csrf": csrf_of(invitation.text)}, follow_redirects=False)
    assert taken.status_code == 303 and f"pt_{table_id}" in taken.cookies
    # the organiser's page now says both are seated and shows no invitation any more
    client.cookies.clear()
    client.cookies.update(organiser)
    after = client.get(where).text
    assert "Red has taken the seat." in after and 'id="red-url"' not in after
    assert "Blue has taken the seat." in after and 'id="blue-url"' not in after


def test_the_links_page_is_in_the_organisers_language(client: TestClient) -> None:
    where = set_up(client, "/fi")
    assert where.startswith("/fi/t/") and where.endswith("/links")
    page = client.get(where).text
    assert "Linkit pelaajille" in page and "Links for the players" not in page


def test_only_the_browser_that_set_it_up_sees_the_links(client: TestClient) -> None:
    where = set_up(client)
    table_id = where.split("/")[2]
    status = client.get(f"{where}/status")
    assert status.status_code == 200 and status.headers["cache-control"] == "no-store"
    assert status.json() == {
        "red": {"taken": False, "online": False},
        "blue": {"taken": False, "online": False},
    }
    client.cookies.clear()
    assert client.get(f"{where}/status").status_code == 403
    assert client.get("/t/nosuchtable/links/status").status_code == 404
    refused = client.get(where)
    assert refused.status_code == 403 and "No links here" in refused.text
    assert client.get("/t/nosuchtable/links").status_code == 404
    client.cookies.set(f"po_{table_id}", "x" * 43)  # a forged key
    assert client.get(where).status_code == 403
    other = set_up(client).split("/")[2]
    client.cookies.set(f"po_{table_id}", client.cookies[f"po_{other}"])  # another table's key
    assert client.get(where).status_code == 403


def test_a_table_set_up_before_the_seats_had_invitations_keeps_its_links(
    client: TestClient,
) -> None:
    """Set up before this release, a table's organiser cookie holds Red's key (and Red's seat
    is taken): its page still hands out Red's seat link and Blue's invitation."""
    token = csrf_of(client.get("/").text)
    made = client.post("/tables", data={**FORM, "seat": "red", "csrf": token})
    table_id = str(made.url).rsplit("/", 1)[1]
    red_key = client.cookies[f"pt_{table_id}"]
    client.cookies.clear()
    client.cookies.set(f"po_{table_id}", red_key)
    page = client.get(f"/t/{table_id}/links").text
    assert link(page, "red-url").endswith(f"/t/{table_id}/seat/{red_key}")
    assert "Whoever opens this link plays Red" in page and 'id="red-handout"' not in page
    assert f"/t/{table_id}/join/" in link(page, "blue-url")
    assert table_id in client.get("/games").text.split('id="organised-list"')[1]


def test_neither_colour_against_the_computer_is_refused_clearly(client: TestClient) -> None:
    token = csrf_of(client.get("/").text)
    refused = client.post(
        "/tables", data={**FORM, "seat": "none", "opponent": "hard", "csrf": token}
    )
    assert refused.status_code == 400
    assert "To play the computer, choose your colour." in refused.text


def test_my_games_lists_the_tables_set_up_for_others_with_their_players_and_results(
    client: TestClient,
) -> None:
    """A club evening: the organiser's My games has each table set up for others, who sits
    where under the names they chose, and how each game stands or ended."""
    first = set_up(client).split("/")[2]
    second = set_up(client).split("/")[2]
    organiser = dict(client.cookies)
    waiting = client.get("/games").text
    assert "Tables you set up for others" in waiting
    assert waiting.count('href="/t/' + first + '/links"') == 1
    row = waiting.split(f'data-table="{second}"')[1].split("</li>")[0]
    assert "Blue (seat free)" in row  # who sits where, and how the game stands: said once each
    assert f'id="result-{second}">Waiting for both players to take their seats</p>' in row
    # the players of the first table sit down, name themselves, and Blue resigns
    page = client.get(f"/t/{first}/links").text
    red_path = link(page, "red-url").removeprefix("http://testserver")
    blue_path = link(page, "blue-url").removeprefix("http://testserver")
    client.cookies.clear()
    red_page = client.get(red_path).text
    taken = client.post(red_path, data={"csrf": csrf_of(red_page)}, follow_redirects=False)
    red_token = taken.cookies[f"pt_{first}"]
    client.cookies.clear()
    client.cookies.update(organiser)
    row = client.get("/games").text.split(f'data-table="{first}"')[1].split("</li>")[0]
    assert f'id="result-{first}">Waiting for Blue to take the seat</p>' in row
    client.cookies.clear()
    blue_page = client.get(blue_path).text
    taken = client.post(blue_path, data={"csrf": csrf_of(blue_page)}, follow_redirects=False)
    blue_token = taken.cookies[f"pt_{first}"]
    client.cookies.clear()
    with (
        connect(client, first, red_token) as red_session,
        connect(client, first, blue_token) as blue_session,
    ):
        red, blue = Socket(red_session), Socket(blue_session)
        red.join()
        blue.join()
        red.send("nickname", name="Jana")
        blue.send("nickname", name="<b>Petr</b>")
        blue.until_state(lambda t: t["seats"]["red"].get("nickname") == "Jana")
        blue.send("resign")
        red.until_state(lambda t: t["outcome"] is not None)
        # and they play again: the rematch is the evening's too (its seats come from these)
        red.send("rematch")
        blue.until_state(lambda t: t["offers"]["rematch"] == ["red"])
        blue.send("rematch")
        _, finished = red.until_state(lambda t: t["rematch_id"] is not None)
        rematch_id = finished["rematch_id"]
    client.cookies.clear()
    client.cookies.update(organiser)
    evening = client.get("/games").text
    section = evening.split('id="organised-list"')[1]
    # the games still running first (the one waiting for its Blue), then the finished one
    row = section.split(f'data-table="{first}"')[1].split("</li>")[0]
    assert "Blue resigned. Red wins." in row
    assert '<bdi dir="auto">Jana</bdi> (Red)' in row
    assert '<bdi dir="auto">&lt;b&gt;Petr&lt;/b&gt;</bdi> (Blue)' in row and "<b>Petr" not in row
    assert f"/t/{first}/watch" in row and f"/t/{first}/watch?projector=1" in row
    # the rematch, running, comes first of all, named so, without links to hand out
    assert section.index(rematch_id) < section.index(second) < section.index(first)
    again = section.split(f'data-table="{rematch_id}"')[1].split("</li>")[0]
    assert "Dots and Boxes · Rematch</a>" in again and "Red to move" in again
    assert f"/t/{rematch_id}/links" not in again
    # in Czech, as the table page says a result
    assert "Modrý se vzdal. Vítězí Červený." in client.get("/cs/games").text
    # a browser that did not set them up sees none of it
    client.cookies.clear()
    assert "Tables you set up for others" not in client.get("/games").text


def test_a_player_of_a_table_set_up_for_others_cannot_take_the_other_seat(
    client: TestClient,
) -> None:
    """Red, seated with Red's own invitation, tries to sit at Blue's seat too (a club's game
    played against themselves): their page showed the table's own invitation ("send it to
    your opponent"), which seated them as Blue from a second browser; and Red's key put in an
    organiser cookie opened the links page, Blue's invitation on it."""
    where = set_up(client)
    table_id = where.split("/")[2]
    page = client.get(where).text
    red_path = link(page, "red-url").removeprefix("http://testserver")
    blue_path = link(page, "blue-url").removeprefix("http://testserver")
    client.cookies.clear()
    invitation = client.get(red_path).text
    taken = client.post(red_path, data={"csrf": csrf_of(invitation)}, follow_redirects=False)
    red_key = taken.cookies[f"pt_{table_id}"]
    table = client.get(f"/t/{table_id}").text
    assert '"you":"red"' in table and '"invite_url":null' in table
    with connect(client, table_id, red_key) as session:
        assert Socket(session).join()["table"]["invite_url"] is None
    # the table's own invitation, as Red's page gave it: it seats nobody here
    own = client.app.state.service.invite_url(table_id)  # type: ignore[attr-defined]
    client.cookies.clear()
    opened = client.get(own)
    assert opened.status_code == 403 and "This invitation is not valid" in opened.text
    client.get(blue_path)  # a CSRF token of this browser's own
    sent = client.post(own, data={"csrf": client.cookies["pt_csrf"]}, follow_redirects=False)
    assert f"pt_{table_id}" not in sent.cookies
    # Red's key as an organiser cookie: no links page, no Blue invitation
    client.cookies.clear()
    client.cookies.set(f"po_{table_id}", red_key)
    refused = client.get(where)
    assert refused.status_code == 403 and blue_path not in refused.text
    assert client.get(f"{where}/status").status_code == 403
    # Blue's own invitation still seats Blue
    client.cookies.clear()
    invitation = client.get(blue_path).text
    taken = client.post(blue_path, data={"csrf": csrf_of(invitation)}, follow_redirects=False)
    assert f"pt_{table_id}" in taken.cookies
    assert '"you":"blue"' in client.get(f"/t/{table_id}").text
