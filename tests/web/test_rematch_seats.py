"""A rematch this browser never visited, opened straight at its table page (a push of it, a
link in a chat): the browser that holds a seat of the game before is seated there, as My
games finds it, instead of watching its own game."""

from __future__ import annotations

import json
import re

from starlette.testclient import TestClient

from playtable.tables import tokens
from tests.web.conftest import Socket, claim, connect, create_table, renew_seat_link


def rematch(client: TestClient, table_id: str, red: str, blue: str) -> str:
    """Red resigns and proposes a rematch, Blue accepts: the rematch's id."""
    with connect(client, table_id, red) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
        socket.send("rematch")
        socket.until_state(lambda t: t["offers"]["rematch"] == ["red"])
    with connect(client, table_id, blue) as session:
        socket = Socket(session)
        socket.join()
        socket.send("rematch")
        found = socket.until_state(lambda t: t["rematch_id"] is not None)
    rematch_id: str = found[1]["rematch_id"]
    return rematch_id


def seen_as(client: TestClient, path: str, cookies: dict[str, str]) -> tuple[str | None, str]:
    """Who the page at ``path`` seats, for a browser with ``cookies``; and the seat cookie it
    sets for the table, if any."""
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies.set(name, value)
    page = client.get(path)
    assert page.status_code == 200
    data = re.search(r'id="table-data"[^>]*>(.*?)</script>', page.text, re.S)
    assert data
    table_id = path.rstrip("/").rsplit("/", 1)[-1] if "/watch" not in path else ""
    set_cookie = page.cookies.get(f"pt_{table_id}", "") if table_id else ""
    client.cookies.clear()
    return json.loads(data.group(1))["you"], set_cookie


def test_a_rematch_opened_straight_seats_the_player_of_the_game_before(
    client: TestClient,
) -> None:
    table = create_table(client, seat="red")
    blue = claim(client, table)
    first = rematch(client, table.id, table.token, blue)
    # colours swap in a rematch: Red of the first game is Blue
    you, cookie = seen_as(client, f"/t/{first}", {f"pt_{table.id}": table.token})
    assert you == "blue"
    assert cookie == tokens.rematch_token(table.token, first)  # kept for the next visit
    you, _ = seen_as(client, f"/t/{first}", {f"pt_{table.id}": blue})
    assert you == "red"
    # two rematches later, from the first game's seat alone
    second = rematch(
        client, first, tokens.rematch_token(blue, first), tokens.rematch_token(table.token, first)
    )
    you, _ = seen_as(client, f"/t/{second}", {f"pt_{table.id}": table.token})
    assert you == "red"
    # the watch page stays a spectator's; another game's seat opens nothing
    you, _ = seen_as(client, f"/t/{first}/watch", {f"pt_{table.id}": table.token})
    assert you is None
    other = create_table(client, seat="red")
    you, cookie = seen_as(client, f"/t/{first}", {f"pt_{other.id}": other.token})
    assert (you, cookie) == (None, "")


def test_a_seat_link_replaced_at_the_rematch_is_not_found_from_the_game_before(
    client: TestClient,
) -> None:
    """A player replaced their seat link at the rematch (someone saw it): the key derived from
    the first game, which that someone may also hold, opens nothing there any more."""
    table = create_table(client, seat="red")
    blue = claim(client, table)
    first = rematch(client, table.id, table.token, blue)
    renew_seat_link(client, first, tokens.rematch_token(table.token, first))
    you, cookie = seen_as(client, f"/t/{first}", {f"pt_{table.id}": table.token})
    assert (you, cookie) == (None, "")
