"""A table set up for two other players (a club's organiser): the home form's "Neither" gives
both players' links and seats nobody in the organiser's browser."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from tests.web.conftest import csrf_of

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
    assert f"/t/{table_id}/seat/" in red and f"/t/{table_id}/join/" in blue
    assert page.text.count("<svg") >= 2  # a QR code each
    # the table page shows the organiser a spectator's view; My games lists nothing
    table = client.get(f"/t/{table_id}").text
    assert '"you":null' in table and 'id="invite-url"' not in table.split("<script")[0]
    assert table_id not in client.get("/games").text
    # "Set up another table like this": the same settings, the same way
    next_table = re.search(r'href="([^"]+)" id="next-table"', page.text)
    assert next_table
    home = client.get(next_table.group(1).replace("&amp;", "&")).text
    assert 'name="seat" value="none" aria-describedby="seat-none-hint" checked' in home
    assert '<option value="10+5" selected>' in home

    # Red opens the seat link on their phone and is seated at once
    organiser = dict(client.cookies)
    client.cookies.clear()
    client.get(red.removeprefix("http://testserver"))
    assert f"pt_{table_id}" in client.cookies
    assert '"you":"red"' in client.get(f"/t/{table_id}").text
    # Blue's invitation needs the button, as any invitation
    client.cookies.clear()
    path = blue.removeprefix("http://testserver")
    taken = client.post(path, data={"csrf": csrf_of(client.get(path).text)}, follow_redirects=False)
    assert taken.status_code == 303 and f"pt_{table_id}" in taken.cookies
    # the organiser's page now says Blue is seated and shows no invitation any more
    client.cookies.clear()
    client.cookies.update(organiser)
    after = client.get(where).text
    assert "Blue has taken the seat." in after and 'id="blue-url"' not in after


def test_the_links_page_is_in_the_organisers_language(client: TestClient) -> None:
    where = set_up(client, "/fi")
    assert where.startswith("/fi/t/") and where.endswith("/links")
    page = client.get(where).text
    assert "Linkit pelaajille" in page and "Links for the players" not in page


def test_only_the_browser_that_set_it_up_sees_the_links(client: TestClient) -> None:
    where = set_up(client)
    table_id = where.split("/")[2]
    client.cookies.clear()
    refused = client.get(where)
    assert refused.status_code == 403 and "No links here" in refused.text
    assert client.get("/t/nosuchtable/links").status_code == 404
    client.cookies.set(f"po_{table_id}", "x" * 43)  # a forged key
    assert client.get(where).status_code == 403


def test_neither_colour_against_the_computer_is_refused_clearly(client: TestClient) -> None:
    token = csrf_of(client.get("/").text)
    refused = client.post(
        "/tables", data={**FORM, "seat": "none", "opponent": "hard", "csrf": token}
    )
    assert refused.status_code == 400
    assert "To play the computer, choose your colour." in refused.text
