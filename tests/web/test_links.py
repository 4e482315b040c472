"""Seat links, the invitation, the seat cookie, and who may sit where."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.web.conftest import Socket, claim, connect, create_table, csrf_of


def test_a_seat_link_sets_the_cookie_and_leaves_the_address_bar(client: TestClient) -> None:
    table = create_table(client)
    response = client.get(f"/t/{table.id}/seat/{table.token}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/t/{table.id}"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"pt_{table.id}={table.token};")
    for attribute in ("HttpOnly", "Path=/", "SameSite=lax", "Max-Age=34560000"):
        assert attribute in cookie
    assert "Secure" not in cookie  # plain http here; https gets Secure
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["cache-control"] == "no-store"


def test_the_cookie_is_secure_over_https(db_url: str) -> None:
    from playtable.web.app import create_app
    from tests.web.conftest import SECRET

    with TestClient(create_app(db_url, secret=SECRET), base_url="https://testserver") as client:
        table = create_table(client)
        response = client.get(f"/t/{table.id}/seat/{table.token}", follow_redirects=False)
        assert "Secure" in response.headers["set-cookie"]


def test_a_wrong_seat_link_seats_nobody(client: TestClient) -> None:
    table = create_table(client)
    response = client.get(f"/t/{table.id}/seat/{table.invite}", follow_redirects=False)
    assert response.status_code == 403
    assert "not valid" in response.text and "set-cookie" not in response.headers
    response = client.get(f"/t/nosuchtable/seat/{table.token}", follow_redirects=False)
    assert response.status_code == 404


def test_error_pages_do_not_repeat_a_secret_in_their_links(client: TestClient) -> None:
    table = create_table(client)
    for path in (
        f"/t/nosuchtable/seat/{table.token}",  # a real token sent to the wrong table
        f"/fi/t/nosuchtable/join/{table.invite}",
        f"/t/{table.id}/seat/{table.invite}",  # a real secret in the wrong slot
    ):
        response = client.get(path, follow_redirects=False)
        assert response.status_code in (403, 404)
        assert table.token not in response.text and table.invite not in response.text
        assert 'hreflang="cs"' in response.text  # the language links are still there


def test_the_invitation_seats_the_first_and_then_only_watches(client: TestClient) -> None:
    table = create_table(client, seat="red")
    link = f"/t/{table.id}/join/{table.invite}"
    client.cookies.clear()
    page = client.get(link, follow_redirects=False)
    assert page.status_code == 200 and f"pt_{table.id}" not in page.headers.get("set-cookie", "")
    assert "Take the blue seat" in page.text
    assert page.headers["referrer-policy"] == "same-origin"
    first = client.post(link, data={"csrf": csrf_of(page.text)}, follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == f"/t/{table.id}"
    blue_token = first.cookies.get(f"pt_{table.id}")
    assert blue_token and blue_token not in (table.token, table.invite)
    client.cookies.clear()
    second = client.get(link, follow_redirects=False)
    assert second.status_code == 303 and "set-cookie" not in second.headers
    with connect(client, table.id, blue_token) as session:
        assert Socket(session).join()["table"]["you"] == "blue"


def test_the_invitation_keeps_a_seated_visitor_in_place(client: TestClient) -> None:
    table = create_table(client, seat="blue")
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", table.token)
    response = client.get(f"/t/{table.id}/join/{table.invite}", follow_redirects=False)
    assert response.status_code == 303 and "set-cookie" not in response.headers
    client.cookies.clear()
    # The free seat is still free for the person the invitation was meant for.
    assert client.get(f"/api/tables/{table.id}").status_code == 200
    assert claim(client, table)


@pytest.mark.parametrize(
    "agent",
    [
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "WhatsApp/2.23.20.0",
        "TelegramBot (like TwitterBot)",
        "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    ],
)
def test_a_link_preview_does_not_take_the_seat(client: TestClient, agent: str) -> None:
    table = create_table(client)
    link = f"/t/{table.id}/join/{table.invite}"
    for method in ("HEAD", "GET", "GET"):
        client.cookies.clear()
        response = client.request(
            method, link, headers={"user-agent": agent}, follow_redirects=True
        )
        assert response.status_code == 200
        assert f"pt_{table.id}=" not in response.headers.get("set-cookie", "")
    # The preview shows the game, not a secret.
    assert 'property="og:title"' in response.text or "Dots and Boxes" in response.text
    assert client.get(f"/api/tables/{table.id}").json()["ply"] == 0
    assert claim(client, table)  # the friend still gets the seat


def test_taking_the_seat_needs_the_pages_csrf_token(client: TestClient) -> None:
    table = create_table(client)
    link = f"/t/{table.id}/join/{table.invite}"
    client.cookies.clear()
    client.get(link)
    refused = client.post(link, data={"csrf": "x" * 43}, follow_redirects=False)
    assert refused.status_code == 403 and f"pt_{table.id}" not in str(refused.cookies)
    assert claim(client, table)


def test_a_forged_invitation_is_refused(client: TestClient) -> None:
    table = create_table(client)
    client.cookies.clear()
    response = client.get(f"/t/{table.id}/join/{table.token}", follow_redirects=False)
    assert response.status_code == 403 and "set-cookie" not in response.headers
    assert client.get(f"/t/nosuchtable/join/{table.invite}").status_code == 404


def test_reconnecting_returns_you_to_your_seat(client: TestClient) -> None:
    table = create_table(client)
    for _ in range(2):
        with connect(client, table.id, table.token) as session:
            assert Socket(session).join()["table"]["you"] == "red"


def test_another_browser_cannot_take_a_seat(client: TestClient) -> None:
    table = create_table(client)
    blue = claim(client, table)
    for cookie in (None, "forged-" + table.token, blue[:-1]):
        with connect(client, table.id, cookie) as session:
            socket = Socket(session)
            state = socket.join()["table"]
            assert state["you"] is None and state["invite_url"] is None
            socket.send("move", ply=0, move="a2-b2")
            assert socket.error()["code"] == "not_seated"
    # One table's cookie is no key to another table.
    other = create_table(client)
    with connect(client, other.id, table.token) as session:
        assert Socket(session).join()["table"]["you"] is None


def test_the_spectator_link_only_watches(client: TestClient) -> None:
    table = create_table(client)
    with connect(client, table.id, table.token, watch=True) as session:
        socket = Socket(session)
        state = socket.join()["table"]
        assert state["you"] is None and state["invite_url"] is None
        assert table.invite not in str(state) and table.token not in str(state)
        socket.send("move", ply=0, move="a2-b2")
        error = socket.error()
        assert error["code"] == "not_seated" and "watching" in error["message"]


def test_a_page_of_another_site_cannot_act_with_the_cookie(client: TestClient) -> None:
    table = create_table(client)
    with connect(client, table.id, table.token, origin="https://evil.example") as session:
        assert Socket(session).join()["table"]["you"] is None
    with connect(client, table.id, table.token, origin="http://testserver") as session:
        assert Socket(session).join()["table"]["you"] == "red"


def test_a_seat_is_renewed_by_each_visit_so_a_long_game_keeps_its_player(
    client: TestClient,
) -> None:
    """A correspondence game outlives any fixed cookie lifetime (14 days a move): the table
    page and /games renew the seat they recognise, and nothing else."""
    table = create_table(client)
    client.cookies.clear()
    seat = {"cookie": f"pt_{table.id}={table.token}"}
    for path in (f"/t/{table.id}", f"/fi/t/{table.id}", "/games"):
        response = client.get(path, headers=seat)
        cookies = response.headers.get_list("set-cookie")
        renewed = [c for c in cookies if c.startswith(f"pt_{table.id}=")]
        assert renewed and renewed[0].startswith(f"pt_{table.id}={table.token};"), path
        assert "Max-Age=34560000" in renewed[0] and "HttpOnly" in renewed[0]
        client.cookies.clear()
    for path in (f"/t/{table.id}/watch", f"/t/{table.id}"):  # no seat, or a forged one
        forged = {"cookie": f"pt_{table.id}={table.invite}"}
        response = client.get(path, headers=forged)
        assert f"pt_{table.id}=" not in response.headers.get("set-cookie", ""), path
        client.cookies.clear()
