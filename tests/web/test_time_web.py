"""Time controls through the site: the API's ``time_control``, the home form's fieldset, the
table page's clocks and abort button, the record's clock comments."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from tests.web.conftest import DOTS, Socket, Table, claim, connect, two_players

FORM = {
    "game": "dots",
    "dots_grid": "square",
    "dots_rows": "2",
    "dots_cols": "2",
    "dots_start": "swedish",
    "seat": "red",
    "opponent": "friend",
}


def csrf(client: TestClient, path: str = "/") -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert match
    return match.group(1)


def test_the_api_creates_a_clocked_table_and_refuses_a_bad_time_control(
    client: TestClient,
) -> None:
    body = {"game": "dots", "options": DOTS, "seat": "red"}
    bad = client.post("/api/tables", json={**body, "time_control": {"kind": "realtime"}})
    assert bad.status_code == 400 and "minutes" in bad.json()["error"]
    too_long = {"kind": "correspondence", "days": 30}
    assert client.post("/api/tables", json={**body, "time_control": too_long}).status_code == 400
    control = {"kind": "realtime", "minutes": 3, "increment": 2}
    created = client.post("/api/tables", json={**body, "time_control": control})
    assert created.status_code == 201
    table_id = created.json()["id"]
    client.get(created.json()["seat_url"])
    page = client.get(f"/t/{table_id}")
    assert "3 min + 2 s" in page.text
    assert 'id="clock-red"' in page.text and 'id="clock-blue"' in page.text
    half = {"kind": "realtime", "minutes": 1.5, "increment": 2}
    created = client.post("/api/tables", json={**body, "time_control": half})
    table_id = created.json()["id"]
    client.get(created.json()["seat_url"])
    finnish = client.get(f"/fi/t/{table_id}").text
    assert "1,5\u00a0min + 2\u00a0s" in finnish  # the decimal comma, no break before a unit
    assert "1.5 min + 2 s" in client.get(f"/t/{table_id}").text


def test_the_home_form_sets_the_time_control(client: TestClient) -> None:
    home = client.get("/")
    assert 'name="time" value="unlimited" checked' in home.text
    assert "10 min + 5 s" in home.text and "14 days per move" in home.text
    token = csrf(client)
    bad = client.post(
        "/tables",
        data={**FORM, "csrf": token, "time": "realtime", "time_preset": "custom",
              "time_minutes": "999", "time_increment": "0"},
    )  # fmt: skip
    assert bad.status_code == 400 and "Minutes: 1 to 180." in bad.text
    # the refused form's links to other languages lead to the form, not to /fi/tables (a
    # POST-only address: "Request not supported"), and so does that address reloaded
    assert 'href="/fi/tables' not in bad.text and 'href="/fi/"' in bad.text
    for path, home in (("/fi/tables", "/fi/"), ("/tables", "/")):
        again = client.get(path, follow_redirects=False)
        assert again.status_code == 303 and again.headers["location"] == home
    made = client.post(
        "/tables", data={**FORM, "csrf": token, "time": "correspondence", "time_days": "5"}
    )
    assert made.status_code == 200
    assert "5 days per move" in made.text
    table_id = made.url.path.rsplit("/", 1)[1]
    with client.websocket_connect(f"/t/{table_id}/ws") as session:
        state = Socket(session).join()["table"]
        assert state["clock"]["control"] == {"kind": "correspondence", "days": 5}
        assert state["clock"]["deadline"] is None  # nobody sits opposite yet


def test_a_player_aborts_before_both_have_moved_and_the_record_shows_it(
    client: TestClient,
) -> None:
    control = {"kind": "realtime", "minutes": 1, "increment": 0}
    created = client.post(
        "/api/tables", json={"game": "dots", "options": DOTS, "time_control": control}
    ).json()
    table_id = created["id"]
    client.get(created["seat_url"])
    page = client.get(f"/t/{table_id}")
    assert 'id="abort-form"' in page.text and 'id="abort-form" hidden' not in page.text
    token = csrf(client, f"/t/{table_id}")
    refused = client.post(f"/t/{table_id}/abort", data={"csrf": "forged" * 8})
    assert refused.status_code == 403
    seat = client.cookies.pop(f"pt_{table_id}")  # a spectator, or an expired seat cookie
    spectator = client.post(f"/fi/t/{table_id}/abort", data={"csrf": token})
    assert spectator.status_code == 403
    assert "Vain pelaajat voivat tehdä niin." in spectator.text  # not "before both moved"
    client.cookies.set(f"pt_{table_id}", seat)
    done = client.post(f"/t/{table_id}/abort", data={"csrf": token}, follow_redirects=False)
    assert done.status_code == 303
    state = client.get(f"/api/tables/{table_id}").json()
    assert state["outcome"] == {"winner": None, "reason": "aborted"}
    record = client.get(f"/t/{table_id}/record").text
    assert '[Result "aborted"]' in record and '[TimeControl "60+0"]' in record
    again = client.post(f"/t/{table_id}/abort", data={"csrf": token})
    assert again.status_code == 409 and "The game is already over." in again.text


def test_the_clocks_tick_in_the_state_and_the_record_after_moves(client: TestClient) -> None:
    control = {"kind": "realtime", "minutes": 5, "increment": 3}
    created = client.post(
        "/api/tables",
        json={"game": "dots", "options": DOTS, "seat": "red", "time_control": control},
    ).json()
    table_id = created["id"]
    red = created["seat_url"].rsplit("/", 1)[1]
    invite = created["invite_url"].rsplit("/", 1)[1]
    blue = claim(client, Table(table_id, "red", red, invite, created))
    for token, ply, move in ((red, 0, "a2-b2"), (blue, 1, "b1-b2")):
        client.cookies.set(f"pt_{table_id}", token)
        with client.websocket_connect(f"/t/{table_id}/ws") as session:
            socket = Socket(session)
            socket.join()
            socket.send("move", ply=ply, move=move)
            _, state = socket.until_state(lambda t, ply=ply: t["ply"] > ply)
    clock = state["clock"]
    assert clock["spec"] == "300+3"
    assert clock["remaining"]["red"] == 303.0  # the first move is free, the increment earned
    assert clock["waiting_for"] == "blue"  # blue claimed a box: blue moves again
    record = client.get(f"/t/{table_id}/record.json").json()
    assert record["time_control"] == "300+3" and record["clocks"][0] == 303.0


def test_the_form_offers_and_checks_the_clocks_own_bounds(client: TestClient) -> None:
    """The custom clock's range, its messages and the correspondence days are the clocks'
    own (tables/clocks.py), written nowhere else: the page, the check and the sentence agree."""
    from playtable.tables import clocks
    from playtable.web import timing

    assert timing.MINUTES == (1, clocks.BASE_MAX_S // 60)
    assert timing.INCREMENT == (0, clocks.INCREMENT_MAX_S)
    page = client.get("/fi/").text
    minutes = re.search(r'<input id="time_minutes"[^>]*>', page)
    assert minutes and f'max="{clocks.BASE_MAX_S // 60}"' in minutes.group(0)
    assert f"Minuutit: 1–{clocks.BASE_MAX_S // 60}." in minutes.group(0)
    days = re.findall(
        r'<option value="(\d+)"', page.split('id="time_days"')[1].split("</select>")[0]
    )
    assert tuple(map(int, days)) == clocks.DAYS
    form = {"time": "realtime", "time_preset": "custom", "time_minutes": "0", "time_increment": "5"}
    with pytest.raises(timing.FormError) as refused:
        timing.time_control_from_form(form)
    assert str(refused.value) == f"Minutes: 1 to {clocks.BASE_MAX_S // 60}."
    form["time_minutes"] = "many"
    with pytest.raises(timing.FormError) as refused:
        timing.time_control_from_form(form)
    assert str(refused.value) == f"Minutes: 1 to {clocks.BASE_MAX_S // 60}."


def test_a_link_to_the_home_form_preselects_its_clock() -> None:
    from playtable.web.home import form_from_query, same_settings_query

    form = form_from_query({"time": "realtime", "minutes": "10", "increment": "5"})
    assert (form["time"], form["time_preset"]) == ("realtime", "10+5")
    form = form_from_query({"time": "realtime", "minutes": "7", "increment": "2"})
    assert (form["time_preset"], form["time_minutes"], form["time_increment"]) == (
        "custom",
        "7",
        "2",
    )
    assert form_from_query({"time": "correspondence", "days": "7"})["time_days"] == "7"
    odd = form_from_query({"time": "blitz", "minutes": "-1", "increment": "x", "days": "٣"})
    assert (odd["time"], odd["time_preset"], odd["time_days"]) == ("unlimited", "5+3", "3")
    # the table page's link back to it, with a table's settings and clock
    options = {"grid": "square", "rows": 5, "cols": 5, "start": "swedish", "misere": False}
    query = same_settings_query("dots", options, "600+5")
    assert query == (
        "game=dots&grid=square&rows=5&cols=5&start=swedish&misere=0"
        "&time=realtime&minutes=10&increment=5"
    )
    assert same_settings_query("swaptimum", {"size": 9}, "1/259200") == (
        "game=swaptimum&size=9&time=correspondence&days=3"
    )
    assert same_settings_query("swaptimum", {"size": 9}, None) == "game=swaptimum&size=9"


def clk_values(record: str) -> list[float]:
    """The seconds of each ``[%clk H:MM:SS(.t)]`` comment of a text record, in order."""
    return [
        int(h) * 3600 + int(m) * 60 + float(s)
        for h, m, s in re.findall(r"\[%clk (\d+):(\d\d):(\d\d(?:\.\d+)?)\]", record)
    ]


def test_a_finished_timed_table_carries_its_clock_history_and_a_running_one_does_not(
    client: TestClient,
) -> None:
    """The replay's clocks (docs/protocol.md "clock_history"): once the game is over the table
    carries each mover's time left after each move, the record's [%clk] to the tenth, a
    take-back's moves left out as the record leaves them out; never while it runs, nor in a
    move's patch before the last."""
    with two_players(client, time_control={"kind": "realtime", "minutes": 5}) as (
        table,
        red,
        blue,
    ):
        red.send("move", ply=0, move="a2-b2")
        blue.until_state(lambda t: t["ply"] == 1)
        blue.send("move", ply=1, move="b1-b2")  # a box: blue moves again
        red.until_state(lambda t: t["ply"] == 2)
        blue.send("request_undo")
        red.until_state(lambda t: t["offers"]["undo"] == "blue")
        red.send("answer_undo", accept=True)
        blue.until_state(lambda t: t["ply"] == 1)
        for ply, move in enumerate(("b1-b2", "b2-b3"), start=1):
            blue.send("move", ply=ply, move=move)
            _, running = red.until_state(lambda t, ply=ply: t["ply"] > ply)
            assert "clock_history" not in running
        blue.send("move", ply=3, move="b2-c2")  # the last box: blue wins
        _, over = red.until_state(lambda t: t["outcome"] is not None)
        moves = [m for m in red.raw if m["type"] == "change"]
        assert all("clock_history" not in str(m) for m in moves[:-1])
        assert "clock_history" in str(moves[-1])  # the move that ended it added it
    with connect(client, table.id, watch=True) as session:
        fresh = Socket(session).join()["table"]  # a page opened now
    history = over["clock_history"]
    assert history == fresh["clock_history"]
    assert over["moves"] == ["a2-b2", "b1-b2", "b2-b3", "b2-c2"]
    recorded = clk_values(client.get(f"/t/{table.id}/record").text)
    assert len(recorded) == len(history) == 4
    assert all(abs(a - b) < 1e-9 for a, b in zip(history, recorded, strict=True))
    assert history[0] == 300.0  # each side's first move is free
    assert 299.0 < history[3] <= 300.0  # blue's time after its last move


def test_a_finished_untimed_table_has_no_clock_history(client: TestClient) -> None:
    with two_players(client) as (_, red, blue):
        red.send("move", ply=0, move="a2-b2")
        blue.until_state(lambda t: t["ply"] == 1)
        blue.send("resign")
        _, over = red.until_state(lambda t: t["outcome"] is not None)
    assert over["clock"] is None and "clock_history" not in over
