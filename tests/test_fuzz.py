"""Thousands of random, malformed and hostile messages against a real server process.

Afterwards the server must still answer, every table must be exactly the replay of the moves
in its database, and no answer may have carried a secret (a seat token, an invitation) that
its receiver did not already hold, or a stack trace.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from playtable.games import load
from tests.nodes import DOTS_3X3, Node, claim, create_table, request

MOVES = load("dots", DOTS_3X3).legal_move_texts(load("dots", DOTS_3X3).initial())
LEAKS = ("Traceback", 'File "', "sqlalchemy", "asyncpg", "Error:")


@dataclass
class Site:
    node: Node
    db: Path
    tables: list[str] = field(default_factory=list)
    secrets: dict[str, dict[str, str]] = field(default_factory=dict)  # table -> name -> secret

    def all_secrets(self) -> set[str]:
        return {s for table in self.secrets.values() for s in table.values()}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    workdir = tmp_path_factory.mktemp("fuzz")
    env = {
        "PLAYTABLE_DATABASE_URL": f"sqlite:///{workdir / 'fuzz.sqlite3'}",
        # The fuzzer must reach the handlers, not only the rate limiter.
        "PLAYTABLE_MESSAGE_BURST": "100000",
        "PLAYTABLE_MESSAGES_PER_SECOND": "100000",
        "PLAYTABLE_TABLES_PER_MINUTE": "100000",
    }
    node = Node(workdir, env, "fuzzed").start()
    site = Site(node, workdir / "fuzz.sqlite3")
    try:
        for _ in range(3):
            table_id, red, invite = create_table(node)
            blue = claim(node, table_id, invite)
            site.tables.append(table_id)
            site.secrets[table_id] = {"red": red, "blue": blue, "invite": invite}
        yield site
    finally:
        node.stop()


def check_answer(text: str, site: Site, allowed: set[str]) -> None:
    for secret in site.all_secrets() - allowed:
        assert secret not in text, "an answer leaked a secret"
    for leak in LEAKS:
        assert leak not in text, f"an answer leaked internals: {text[:300]}"


# -- hostile WebSocket messages -------------------------------------------------------------
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
KINDS = ["join", "move", "resign", "offer_draw", "answer_draw", "request_undo", "answer_undo"]
kinds = st.sampled_from([*KINDS, "rematch", "ping", "state", "", "JOIN", "__proto__"])
plausible = st.builds(
    lambda kind, ply, move, accept, protocol, since: {
        "type": kind,
        "ply": ply,
        "move": move,
        "accept": accept,
        "protocol": protocol,
        "since": since,
    },
    kinds,
    st.one_of(st.integers(0, 30), st.integers(), st.just(2**63), st.text(max_size=3), st.none()),
    st.one_of(st.sampled_from(MOVES), st.text(max_size=20), st.integers()),
    st.one_of(st.booleans(), st.integers(0, 1), st.none()),
    st.one_of(st.just(1), st.integers(), st.text(max_size=2)),
    st.one_of(st.none(), st.integers(-5, 100), st.floats()),
)
# Markers filled in from the table as the connection found it: a legal move at the right ply
# (so games advance and later messages meet real positions), and the replay of an old move.
GOOD_MOVE, REPLAY = "<good move>", "<replay of the last move>"
frames = st.one_of(
    st.sampled_from([GOOD_MOVE, REPLAY]),
    plausible.map(json.dumps),
    st.dictionaries(st.text(max_size=10), json_values, max_size=6).map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=200),  # not JSON at all, unicode included
    st.binary(max_size=64),  # binary frames
    st.just("[" * 5000 + "]" * 5000),  # nesting deep enough to trouble a recursive parser
    st.just(json.dumps({"type": "move", "ply": 0, "move": "x" * 20_000})),  # over 16 KiB
    st.just('{"type": "move", "ply": 1e999, "move": "a1-a2"}'),  # a number JSON cannot hold
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    table=st.integers(0, 2),
    identity=st.sampled_from(["red", "blue", "watch", "other_table", "forged", "invite"]),
    messages=st.lists(frames, min_size=1, max_size=25),
)
def test_hostile_websocket_messages(
    site: Site, table: int, identity: str, messages: list[str | bytes]
) -> None:
    table_id = site.tables[table]
    mine = site.secrets[table_id]
    allowed: set[str] = set()
    cookie: str | None = None
    if identity in ("red", "blue"):
        cookie = mine[identity]
        allowed = {mine["invite"]}  # a seated player may be shown the invitation
    elif identity == "other_table":
        cookie = site.secrets[site.tables[(table + 1) % 3]]["red"]  # another table's token
    elif identity == "forged":
        cookie = "A" * 32
    elif identity == "invite":
        cookie = mine["invite"]  # the invitation is no seat token
    if cookie is not None:
        allowed.add(cookie)
    headers = {"Cookie": f"pt_{table_id}={cookie}"} if cookie else {}
    suffix = "?watch=1" if identity == "watch" else ""
    url = f"{site.node.ws_base}/t/{table_id}/ws{suffix}"
    with connect(url, additional_headers=headers, open_timeout=10, compression=None) as ws:
        ws.send(json.dumps({"type": "join", "protocol": 2, "since": None}))
        first = ws.recv(timeout=20)
        assert isinstance(first, str)
        check_answer(first, site, allowed)
        table_now = json.loads(first)["table"]
        for k, message in enumerate(messages):
            if message == GOOD_MOVE and table_now["view"]["legal_moves"]:
                legal = table_now["view"]["legal_moves"]
                move = {"type": "move", "ply": table_now["ply"], "move": legal[k % len(legal)]}
                message = json.dumps(move)
            elif message == REPLAY and table_now["moves"]:
                last = {"type": "move", "ply": table_now["ply"] - 1, "move": table_now["moves"][-1]}
                message = json.dumps(last)
            ws.send(message)
        ws.send(json.dumps({"type": "ping"}))
        while True:
            text = ws.recv(timeout=20)
            assert isinstance(text, str)
            check_answer(text, site, allowed)
            answer = json.loads(text)
            if answer["type"] == "error":
                assert answer["code"] != "internal", answer  # a failure of ours
                assert isinstance(answer["message"], str) and answer["message"]
            if answer["type"] == "pong":
                break


def test_a_frame_over_the_server_limit_closes_only_its_connection(site: Site) -> None:
    url = f"{site.node.ws_base}/t/{site.tables[0]}/ws?watch=1"
    # The close may interrupt the send or the read, or come as we leave the block.
    with pytest.raises(ConnectionClosed) as closed, connect(url, max_size=None) as ws:
        ws.send("x" * (2 * 1024 * 1024))
        while True:
            ws.recv(timeout=10)
    # 1009 when the close frame arrives before our socket gives up sending the rest.
    assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
    assert request(site.node, "GET", "/")[0] == 200


# -- hostile API requests -------------------------------------------------------------------
paths = st.one_of(
    st.just("/api/tables"),
    st.builds(lambda t: f"/api/tables/{t}", st.text(min_size=1, max_size=20)),
    st.sampled_from(["/t/{id}/seat/{red}", "/t/{id}/join/{invite}", "/t/{id}/record"]),
    st.builds(lambda t: f"/t/{{id}}/seat/{t}", st.text(max_size=40)),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    method=st.sampled_from(["GET", "POST", "HEAD", "PUT"]),
    path=paths,
    table=st.integers(0, 2),
    body=st.one_of(
        st.none(),
        plausible.map(lambda m: {"game": m["move"], "options": m["since"], "seat": m["type"]}),
        st.dictionaries(st.sampled_from(["game", "options", "seat", "x"]), json_values),
        json_values,
    ),
    content_type=st.sampled_from(["application/json", "text/plain", "application/json; x=1"]),
)
def test_hostile_api_requests(
    site: Site, method: str, path: str, table: int, body: Any, content_type: str
) -> None:
    from urllib.parse import quote

    other = site.secrets[site.tables[(table + 1) % 3]]
    # Other tables' tokens, on this table: a seat link must never accept them.
    target = path
    for name, value in (("{id}", site.tables[table]), ("{red}", other["red"])):
        target = target.replace(name, value, 1)
    target = target.replace("{invite}", other["invite"], 1)
    target = quote(target, safe="/")
    raw = None if body is None else json.dumps(body).encode()
    status, answer = request(
        site.node, method, target, raw=raw, headers={"Content-Type": content_type}
    )
    assert status < 500, (status, answer)
    if status in (307, 308) and target.endswith("/"):
        # The router's redirect to the same address without its trailing slash: that
        # address must refuse the stranger in turn.
        status, answer = request(
            site.node, method, target.rstrip("/"), raw=raw, headers={"Content-Type": content_type}
        )
        assert status < 500, (status, answer)
    if "/seat/" in target or "/join/" in target:
        assert status in (403, 404, 405), (target, status)
    text = answer if isinstance(answer, str) else json.dumps(answer)
    # A page may echo its own address (links to it in other languages): what the request
    # carried is no leak. Anything else secret is.
    carried = {secret for secret in site.all_secrets() if secret in target}
    check_answer(text, site, carried)


def test_after_the_fuzz_every_table_is_the_replay_of_its_stored_moves(site: Site) -> None:
    assert request(site.node, "GET", "/")[0] == 200  # still up
    with sqlite3.connect(site.db) as db:
        ids = [row[0] for row in db.execute("SELECT id FROM tables")]
        played = 0
        for table_id in ids:
            game_name, options = db.execute(
                "SELECT game, options FROM tables WHERE id = ?", (table_id,)
            ).fetchone()
            stored = [
                row[0]
                for row in db.execute(
                    "SELECT move FROM moves WHERE table_id = ? ORDER BY ply", (table_id,)
                )
            ]
            game = load(game_name, json.loads(options))
            state = game.replay(stored)  # raises if the stored moves are not a legal game
            status, api = request(site.node, "GET", f"/api/tables/{table_id}")
            assert status == 200
            assert api["moves"] == stored and api["ply"] == len(stored)
            if api["outcome"] is None:
                assert api["to_move"] == game.to_move(state)
                assert api["legal_moves"] == game.legal_move_texts(state)
            played += len(stored)
    assert played > 0  # the fuzzer's plausible moves really did play
