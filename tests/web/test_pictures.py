"""The picture and position routes: /t/{id}.svg, .png, .gif and /t/{id}/position.json."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

from PIL import Image
from starlette.testclient import TestClient

from tests.web.conftest import BLUE_WINS, Table, claim, create_table, two_players


def play_blue_wins(client: TestClient) -> Table:
    """The Swedish 2x2 game of BLUE_WINS, finished."""
    with two_players(client) as (table, red, blue):
        sockets = {"red": red, "blue": blue}
        for ply, (player, move) in enumerate(BLUE_WINS):
            sockets[player].send("move", ply=ply, move=move)
            sockets[player].at_version(2 + ply)
        return table


def drawn_lines(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [e.get("class", "") for e in root.iter() if "line--drawn" in e.get("class", "")]


def test_pictures_of_each_ply(client: TestClient) -> None:
    table = play_blue_wins(client)
    for ply in range(len(BLUE_WINS) + 1):
        svg = client.get(f"/t/{table.id}.svg?ply={ply}")
        assert svg.status_code == 200
        assert svg.headers["content-type"].startswith("image/svg+xml")
        assert len(drawn_lines(svg.text)) == ply
    assert len(drawn_lines(client.get(f"/t/{table.id}.svg").text)) == len(BLUE_WINS)
    png = client.get(f"/t/{table.id}.png?ply=2")
    assert png.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(png.content)).format == "PNG"
    gif = client.get(f"/t/{table.id}.gif")
    assert gif.headers["content-type"] == "image/gif"
    assert Image.open(io.BytesIO(gif.content)).n_frames == len(BLUE_WINS) + 1


def test_a_finished_game_is_cached_for_good_a_running_one_revalidated(
    client: TestClient,
) -> None:
    finished = play_blue_wins(client)
    for suffix in (".svg?ply=1", ".png", ".gif", "/position.json?ply=0"):
        response = client.get(f"/t/{finished.id}{suffix}")
        assert "immutable" in response.headers["cache-control"], suffix
    running = create_table(client)
    first = client.get(f"/t/{running.id}.svg")
    assert "immutable" not in first.headers["cache-control"]
    assert "no-cache" in first.headers["cache-control"]
    again = client.get(f"/t/{running.id}.svg", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304


def test_a_take_back_changes_the_etag(client: TestClient) -> None:
    with two_players(client) as (table, red, blue):
        red.send("move", ply=0, move="a2-b2")
        red.at_version(2)
        before = client.get(f"/t/{table.id}.svg?ply=1").headers["etag"]
        png_before = client.get(f"/t/{table.id}.png?ply=1").content
        assert client.get(f"/t/{table.id}.png?ply=1").content == png_before  # kept
        red.send("request_undo")
        red.at_version(3)
        blue.send("answer_undo", accept=True)
        red.at_version(4)
        red.send("move", ply=0, move="b1-b2")
        red.at_version(5)
        after = client.get(f"/t/{table.id}.svg?ply=1")
        assert after.headers["etag"] != before
        # the picture kept in memory was of the old moves: this one is drawn anew
        assert client.get(f"/t/{table.id}.png?ply=1").content != png_before
        assert client.get(f"/t/{table.id}/position.json?ply=1").json()["moves"] == ["b1-b2"]


def test_position_json(client: TestClient) -> None:
    table = play_blue_wins(client)
    data = client.get(f"/t/{table.id}/position.json?ply=2").json()
    assert data["ply"] == 2
    assert data["moves"] == ["a2-b2", "b1-b2"]
    assert data["movers"] == ["red", "blue"]
    assert data["closed"] == [0]  # b1-b2 closed the lower-left box (Swedish 2x2)
    assert data["view"]["score"] == {"red": 0, "blue": 1}
    assert data["view"]["legal_moves"] == []


def test_unknown_tables_and_bad_plies(client: TestClient) -> None:
    table = play_blue_wins(client)
    for suffix in (".svg", ".png", ".gif", "/position.json"):
        assert client.get(f"/t/nosuchtable{suffix}").status_code == 404
        for bad in ("-1", "x", "5", "99999", "1.5", ""):
            assert client.get(f"/t/{table.id}{suffix}?ply={bad}").status_code == 400, (
                suffix,
                bad,
            )


def test_a_refused_picture_or_position_says_why_in_the_visitors_language(
    client: TestClient,
) -> None:
    """These addresses are opened from pages in every language (and shared): an unknown
    table or a bad ply was answered in English whatever the page or the browser said."""
    table = play_blue_wins(client)
    last = len(BLUE_WINS)
    czech = client.get(f"/cs/t/{table.id}.png?ply=99")
    assert czech.status_code == 400
    assert czech.headers["content-language"] == "cs"
    assert czech.text == f"Pozice se zadává počtem tahů před ní, od 0 do {last}."
    client.cookies.clear()  # the /cs/ page's language is remembered: a new visitor now
    korean = client.get(
        f"/t/{table.id}/position.json?ply=abc", headers={"Accept-Language": "ko-KR,ko;q=0.9"}
    )
    assert korean.status_code == 400
    assert korean.headers["content-language"] == "ko"
    assert korean.json() == {
        "error": f"국면은 그 앞까지 둔 수의 개수로 지정합니다(0부터 {last}까지).",
        "code": "bad_ply",
    }
    missing = client.get("/fi/t/nosuchtable.svg")
    assert (missing.status_code, missing.text) == (404, "Tällaista pöytää ei ole")
    assert client.get("/t/nosuchtable/position.json").json()["code"] == "not_found"
    gif = client.get(f"/cs/t/{table.id}.gif?ply=2")
    assert (gif.status_code, gif.text) == (
        400,
        "Animace ukazuje celou partii: pozice se u ní nezadává.",
    )
    assert gif.headers["cache-control"] == "no-store"


def test_no_secret_in_a_picture(client: TestClient) -> None:
    table = create_table(client)
    blue_token = claim(client, table)
    client.cookies.set(f"pt_{table.id}", table.token)
    for suffix in (".svg", "/position.json"):
        body = client.get(f"/t/{table.id}{suffix}").text
        for secret in (table.token, table.invite, blue_token):
            assert secret not in body
    # the same picture whoever asks: a seated player's cookie changes nothing
    seated = client.get(f"/t/{table.id}.svg").content
    client.cookies.clear()
    assert client.get(f"/t/{table.id}.svg").content == seated


def test_you_json_names_the_seat_of_this_browser_only(client: TestClient) -> None:
    table = create_table(client)
    assert client.get(f"/t/{table.id}/you.json").json() == {"you": None}
    client.cookies.set(f"pt_{table.id}", table.token)
    seated = client.get(f"/t/{table.id}/you.json")
    assert seated.json() == {"you": "red"}
    assert seated.headers["cache-control"] == "no-store"
    client.cookies.set(f"pt_{table.id}", "not-a-token")
    assert client.get(f"/t/{table.id}/you.json").json() == {"you": None}
    assert client.get("/t/nosuchtable/you.json").status_code == 404


def test_the_table_page_previews_the_game_without_secrets(client: TestClient) -> None:
    table = create_table(client)
    client.cookies.set(f"pt_{table.id}", table.token)
    html = client.get(f"/t/{table.id}").text
    meta = re.findall(r'<meta (?:property|name)="((?:og|twitter):[\w:]+)" content="([^"]*)">', html)
    tags = dict(meta)
    assert tags["og:image"] == f"http://testserver/t/{table.id}.png?ply=0"
    assert tags["twitter:image"] == tags["og:image"]
    assert tags["og:url"] == f"http://testserver/t/{table.id}/watch"
    assert tags["og:title"] == "Dots and Boxes · 2 × 2 boxes · Swedish board"
    # the table's own address is no invitation: nobody can sit down through it
    assert (
        tags["og:description"]
        == "A game waiting for its second player: watch it begin. 0 moves played."
    )
    assert tags["og:image:alt"] == "The board after 0 moves"
    for _, content in meta:
        assert table.token not in content and table.invite not in content
    # the image it names is there
    picture = client.get(tags["og:image"].removeprefix("http://testserver"))
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    # translated on the translated page
    finnish = dict(
        re.findall(
            r'<meta (?:property|name)="((?:og|twitter):[\w:]+)" content="([^"]*)">',
            client.get(f"/fi/t/{table.id}").text,
        )
    )
    assert finnish["og:description"].startswith("Peli odottaa toista pelaajaa")


def test_an_invitation_link_previews_the_game_without_its_secret(client: TestClient) -> None:
    table = create_table(client)
    client.cookies.clear()
    html = client.get(f"/t/{table.id}/join/{table.invite}").text
    tags = dict(
        re.findall(r'<meta (?:property|name)="((?:og|twitter):[\w:]+)" content="([^"]*)">', html)
    )
    assert tags["og:image"] == f"http://testserver/t/{table.id}.png?ply=0"
    assert "A seat is free: open the link to play." in tags["og:description"]
    assert all(table.invite not in content for content in tags.values())
    # no canonical address: a service that follows og:url would send the friend to watch
    assert "og:url" not in tags


def test_a_clocked_tables_invitation_previews_its_time_control(client: TestClient) -> None:
    """A club's player got the invitation in a chat app: its preview said "Dots and Boxes ·
    5 × 5 boxes · Swedish board", not that the game is played at 10 minutes and 5 seconds a
    move, as the page's own heading says (and in Czech, in Czech)."""
    options = {"grid": "square", "rows": 5, "cols": 5, "start": "swedish"}
    clock = {"kind": "realtime", "minutes": 10, "increment": 5}
    table = create_table(client, options=options, time_control=clock)
    client.cookies.clear()
    for prefix, title in (
        ("", "Dots and Boxes · 5 × 5 boxes · Swedish board · 10 min + 5 s"),
        ("/cs", "Puntíky a čtverce · 5 × 5 čtverců · Švédská deska · 10 min + 5 s"),
    ):
        html = client.get(f"{prefix}/t/{table.id}/join/{table.invite}").text
        tags = dict(
            re.findall(
                r'<meta (?:property|name)="((?:og|twitter):[\w:]+)" content="([^"]*)">', html
            )
        )
        assert tags["og:title"] == tags["twitter:title"]
        assert tags["og:title"].replace("\xa0", " ") == title
    # a correspondence table's too
    table = create_table(client, time_control={"kind": "correspondence", "days": 3})
    client.cookies.clear()
    html = client.get(f"/t/{table.id}/watch").text
    title = re.search(r'property="og:title" content="([^"]*)"', html)
    assert title and title[1].startswith("Dots and Boxes · 2 × 2 boxes · Swedish board · 3 days")
