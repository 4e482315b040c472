"""Web Push, server side, against a local receiver that stands in for a browser's push
service: it checks the VAPID signature and decrypts the payload (RFC 8291, aes128gcm) with
the subscription's private key, as the browser would."""

from __future__ import annotations

import base64
import contextlib
import json
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from starlette.testclient import TestClient

from playtable.tables import tokens
from tests.web.conftest import Socket, Table, claim, connect, renew_seat_link

DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}
# No box is completed: every move passes the turn.
MOVES = ["a1-b1", "a1-a2", "b1-c1", "c1-d1", "a4-b4", "b4-c4", "c4-d4", "d3-d4"]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Receiver:
    """A push service on loopback: keeps every request, answers ``status``."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.status = 201
        self.location: str | None = None  # sent with the answer (a redirect)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {name.lower(): value for name, value in self.headers.items()}
                receiver.requests.append((self.path, headers, body))
                self.send_response(receiver.status)
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            assert time.monotonic() < deadline, f"{len(self.requests)} pushes, not {count}"
            time.sleep(0.02)


@pytest.fixture
def receiver(client: TestClient) -> Iterator[Receiver]:
    """The stand-in push service, on loopback and over http: allowed for this site only."""
    client.app.state.pusher.private_endpoints = True  # type: ignore[attr-defined]
    receiver = Receiver()
    yield receiver
    receiver.server.shutdown()


def verify_vapid(headers: dict[str, str], audience: str, server_key: str) -> dict[str, Any]:
    """The VAPID JWT's claims, once its ES256 signature checks out against ``k`` (RFC 8292)."""
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == server_key
    head, claims, signature = fields["t"].split(".")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(fields["k"]))
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
    key.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    decoded: dict[str, Any] = json.loads(unb64(claims))
    assert decoded["aud"] == audience and decoded["exp"] > time.time()
    return decoded


def play(client: TestClient, table_id: str, token: str, ply: int) -> None:
    with connect(client, table_id, token) as session:
        socket = Socket(session)
        socket.join()
        socket.send("move", ply=ply, move=MOVES[ply])
        socket.until_state(lambda t: t["ply"] > ply)


def test_a_correspondence_player_is_pushed_their_move_until_they_revoke_it(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)

    # Blue's browser subscribes (its keys as a browser makes them) for this seat only.
    browser_key = ec.generate_private_key(ec.SECP256R1())
    auth = secrets.token_bytes(16)
    public = browser_key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    endpoint = f"{receiver.url}/push/blue-browser"
    keys = {"p256dh": b64(public), "auth": b64(auth)}
    body = {"subscription": {"endpoint": endpoint, "keys": keys}, "lang": "fi"}
    assert client.post(f"/t/{table_id}/push", json=body).status_code == 403  # no seat cookie
    client.cookies.set(f"pt_{table_id}", blue)
    assert client.post(f"/t/{table_id}/push", content=json.dumps(body)).status_code == 415
    assert client.post(f"/t/{table_id}/push", json={"subscription": {}}).status_code == 400
    assert client.post(f"/t/{table_id}/push", json=body).status_code == 201
    client.cookies.clear()

    play(client, table_id, red, 0)  # the turn passes to blue: blue is told
    receiver.wait(1)
    path, headers, payload = receiver.requests[0]
    assert path == "/push/blue-browser"
    assert headers["content-encoding"] == "aes128gcm" and headers["ttl"] == "86400"
    server_key = client.get("/push/key").json()["key"]
    claims = verify_vapid(headers, receiver.url, server_key)
    assert claims["sub"].startswith("mailto:")
    message = json.loads(
        http_ece.decrypt(payload, private_key=browser_key, auth_secret=auth, version="aes128gcm")
    )
    assert message == {
        "title": "Sinun siirtosi Playtablessa",  # in the language the player subscribed in
        # which game, on a line of its own: the player has several
        "body": "Vastustajasi on siirtänyt.\nPisteet ja laatikot · 3 × 3 laatikkoa · "
        "Tavallinen alkuasetelma",
        "url": f"/fi/t/{table_id}",  # the Finnish table page, the tab a Finnish player has open
    }

    play(client, table_id, blue, 1)  # red has no subscription: nothing is sent
    play(client, table_id, red, 2)
    receiver.wait(2)
    time.sleep(0.3)
    assert len(receiver.requests) == 2

    # Revoked: no more pushes.
    client.cookies.set(f"pt_{table_id}", blue)
    revoked = client.request("DELETE", f"/t/{table_id}/push", json={"endpoint": endpoint})
    assert revoked.json() == {"removed": True}
    client.cookies.clear()
    play(client, table_id, blue, 3)
    play(client, table_id, red, 4)
    time.sleep(0.5)
    assert len(receiver.requests) == 2

    # A subscription the push service says is gone is forgotten.
    client.cookies.set(f"pt_{table_id}", blue)
    assert client.post(f"/t/{table_id}/push", json=body).status_code == 201
    client.cookies.clear()
    receiver.status = 410
    play(client, table_id, blue, 5)
    play(client, table_id, red, 6)
    receiver.wait(3)
    time.sleep(0.3)
    client.cookies.set(f"pt_{table_id}", blue)
    gone = client.request("DELETE", f"/t/{table_id}/push", json={"endpoint": endpoint})
    assert gone.json() == {"removed": False}


def test_a_push_in_english_opens_the_english_table_page(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """English has no prefix: its notification opens ``/t/{id}``, as a subscription that
    named no language (or one the site does not have) does."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    browser_key = ec.generate_private_key(ec.SECP256R1())
    auth = secrets.token_bytes(16)
    public = browser_key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    keys = {"p256dh": b64(public), "auth": b64(auth)}
    client.cookies.set(f"pt_{table_id}", blue)
    for lang in ("en", "xx"):
        body = {"subscription": {"endpoint": f"{receiver.url}/{lang}", "keys": keys}, "lang": lang}
        assert client.post(f"/t/{table_id}/push", json=body).status_code == 201
    client.cookies.clear()
    play(client, table_id, red, 0)
    receiver.wait(2)
    for _, _, payload in receiver.requests:
        message = json.loads(
            http_ece.decrypt(
                payload, private_key=browser_key, auth_secret=auth, version="aes128gcm"
            )
        )
        assert message == {
            "title": "Your move at Playtable",
            "body": "Your opponent has moved.\nDots and Boxes · 3 × 3 boxes · Standard start",
            "url": f"/t/{table_id}",
        }


def test_a_real_time_table_sends_no_push(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    created = client.post(
        "/api/tables",
        json={"game": "dots", "options": DOTS, "seat": "red",
              "time_control": {"kind": "realtime", "minutes": 5, "increment": 0}},
    ).json()  # fmt: skip
    table_id = created["id"]
    red = created["seat_url"].rsplit("/", 1)[1]
    invite = created["invite_url"].rsplit("/", 1)[1]
    blue = claim(client, Table(table_id, "red", red, invite, created))
    client.cookies.set(f"pt_{table_id}", blue)
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    raw = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    keys = {"p256dh": b64(raw), "auth": b64(b"0" * 16)}
    body = {"subscription": {"endpoint": receiver.url + "/x", "keys": keys}}
    assert client.post(f"/t/{table_id}/push", json=body).status_code == 201
    client.cookies.clear()
    play(client, table_id, red, 0)
    time.sleep(0.5)
    assert receiver.requests == []


def correspondence_table(client: TestClient) -> tuple[str, str, str]:
    """A correspondence table with both seats taken: (id, red's token, blue's token)."""
    created = client.post(
        "/api/tables",
        json={"game": "dots", "options": DOTS, "seat": "red",
              "time_control": {"kind": "correspondence", "days": 3}},
    ).json()  # fmt: skip
    table_id, red = created["id"], created["seat_url"].rsplit("/", 1)[1]
    invite = created["invite_url"].rsplit("/", 1)[1]
    return table_id, red, claim(client, Table(table_id, "red", red, invite, created))


def subscription(endpoint: str) -> dict[str, Any]:
    raw = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"subscription": {"endpoint": endpoint, "keys": {"p256dh": b64(raw), "auth": "AA"}}}


def wait_for(condition: Any, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


def test_a_push_endpoint_must_be_an_https_address_on_the_internet(client: TestClient) -> None:
    """The endpoint comes from the browser: a seat must not make the server post to this
    machine or its network (one move sent 301 requests to a loopback port)."""
    table_id, _, blue = correspondence_table(client)
    client.cookies.set(f"pt_{table_id}", blue)
    for endpoint in (
        "http://push.example/x",  # not https
        "https://127.0.0.1:8799/x",
        "https://localhost/x",  # a name for a loopback address
        "https://10.1.2.3/x",
        "https://192.168.0.1/x",
        "https://169.254.169.254/latest/meta-data",  # a cloud's metadata service
        "https://[::1]/x",
        "https://user:secret@push.example/x",
        "https://push.example:99999/x",
    ):
        refused = client.post(f"/t/{table_id}/push", json=subscription(endpoint))
        assert refused.status_code == 400, endpoint
    # A push service's name that does not resolve from here is checked again at each send.
    accepted = client.post(f"/t/{table_id}/push", json=subscription("https://push.example/x"))
    assert accepted.status_code == 201


def test_an_endpoint_is_checked_again_when_the_push_is_sent(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name may point elsewhere later: each send resolves the host again, and an endpoint
    that turned private gets nothing and is forgotten."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    client.cookies.set(f"pt_{table_id}", blue)
    body = subscription(receiver.url + "/blue")
    assert client.post(f"/t/{table_id}/push", json=body).status_code == 201
    client.cookies.clear()
    client.app.state.pusher.private_endpoints = False  # type: ignore[attr-defined]
    play(client, table_id, red, 0)
    store = client.app.state.store  # type: ignore[attr-defined]
    wait_for(lambda: not client.portal.call(store.push_subscriptions, table_id, "blue"))
    assert receiver.requests == []


def test_a_host_that_rebinds_to_loopback_after_the_check_gets_nothing(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding (a review: the host was resolved for the check, and again by the
    connection): a name whose first lookups give a global address and the next ones
    loopback. The send connects, sees where it is connected and closes before a byte."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    received: list[bytes] = []

    def serve() -> None:
        with listener:
            listener.settimeout(10)
            with contextlib.suppress(OSError):
                conn, _ = listener.accept()
                with conn:
                    conn.settimeout(2)
                    with contextlib.suppress(OSError):
                        received.append(conn.recv(4096))

    threading.Thread(target=serve, daemon=True).start()
    real_getaddrinfo = socket.getaddrinfo
    lookups: list[str] = []

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebinding.test":
            return real_getaddrinfo(host, *args, **kwargs)
        lookups.append(host)
        address = "93.184.215.14" if len(lookups) <= 2 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    table_id, red, blue = correspondence_table(client)
    client.cookies.set(f"pt_{table_id}", blue)
    body = subscription(f"https://rebinding.test:{port}/blue")
    assert client.post(f"/t/{table_id}/push", json=body).status_code == 201  # lookup 1
    client.cookies.clear()
    play(client, table_id, red, 0)  # the send's check: lookup 2; its connection: lookup 3
    store = client.app.state.store  # type: ignore[attr-defined]
    wait_for(lambda: not client.portal.call(store.push_subscriptions, table_id, "blue"))
    assert len(lookups) == 3
    assert received in ([], [b""]), "the push's connection sent bytes to loopback"


def test_a_push_service_that_redirects_sends_the_push_nowhere_else(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: an endpoint on a checked public host answered ``307 Location:
    http://127.0.0.1/internal-admin`` and the server POSTed the push there (a redirect is
    never checked): anyone could make the server post to its own network."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    inside = Receiver()  # a service of the site's own network
    try:
        receiver.status, receiver.location = 307, f"{inside.url}/internal-admin"
        table_id, red, blue = correspondence_table(client)
        client.cookies.set(f"pt_{table_id}", blue)
        assert (
            client.post(f"/t/{table_id}/push", json=subscription(receiver.url)).status_code == 201
        )
        client.cookies.clear()
        play(client, table_id, red, 0)
        receiver.wait(1)
        time.sleep(0.5)  # time enough to follow the redirect, if it were followed
        assert inside.requests == []
    finally:
        inside.server.shutdown()


def test_a_seat_is_told_on_its_four_newest_subscriptions_only(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each subscription is a request at every move: a seat keeps four (a phone, a laptop...),
    the oldest making way, so one move cannot fan out to hundreds."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    client.cookies.set(f"pt_{table_id}", blue)
    for n in range(6):
        body = subscription(f"{receiver.url}/browser-{n}")
        assert client.post(f"/t/{table_id}/push", json=body).status_code == 201
    client.cookies.clear()
    play(client, table_id, red, 0)
    receiver.wait(4)
    pusher = client.app.state.pusher  # type: ignore[attr-defined]
    wait_for(lambda: not pusher._tasks)
    assert sorted(path for path, _, _ in receiver.requests) == [
        f"/browser-{n}" for n in range(2, 6)
    ]


def test_subscriptions_are_refused_past_an_addresss_budget_and_bodies_past_4_kib(
    client: TestClient,
) -> None:
    table_id, _, blue = correspondence_table(client)
    client.cookies.set(f"pt_{table_id}", blue)
    big = json.dumps({"subscription": {"endpoint": "https://push.example/" + "x" * 5000}})
    too_large = client.post(
        f"/t/{table_id}/push", content=big, headers={"Content-Type": "application/json"}
    )
    assert too_large.status_code == 413
    deep = client.post(
        f"/t/{table_id}/push", content="[" * 3000, headers={"Content-Type": "application/json"}
    )
    assert deep.status_code == 400 and deep.json()["error"]
    statuses = [
        client.post(f"/t/{table_id}/push", json=subscription(f"https://push.example/{n}"))
        for n in range(25)
    ]
    assert statuses[0].status_code == 201
    assert statuses[-1].status_code == 429 and int(statuses[-1].headers["Retry-After"]) > 0


def test_processes_starting_at_once_share_one_whole_vapid_key(tmp_path: Path) -> None:
    """Of servers started together, each reads the same key pair, never a half-written
    file (11 of 60 loads failed with 'Could not deserialize key data' before)."""
    go = tmp_path / "go"
    code = (
        "import pathlib, sys, time\n"
        "from playtable.web.push import load_vapid, public_key\n"
        "print('ready', flush=True)\n"
        "while not pathlib.Path(sys.argv[1]).exists(): time.sleep(0.001)\n"
        "for n in range(15):\n"
        "    print(public_key(load_vapid(sys.argv[2] + f'/{n}/vapid.pem')), flush=True)\n"
    )
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(go), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for start in starts:  # every one imported and waiting
        assert start.stdout is not None and start.stdout.readline() == "ready\n"
    go.touch()  # all at once
    outputs = [start.communicate(timeout=60) for start in starts]
    assert all(start.returncode == 0 for start in starts), [err for _, err in outputs]
    for n in range(15):  # each path: one key, the same for every process
        assert len({out.splitlines()[n] for out, _ in outputs}) == 1
        folder = tmp_path / str(n)
        assert [p.name for p in folder.iterdir()] == ["vapid.pem"]  # no draft left behind
        assert (folder / "vapid.pem").stat().st_mode & 0o077 == 0


class Browser:
    """A browser's push subscription: its keys, to read what it is sent."""

    def __init__(self, receiver: Receiver, name: str, lang: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)
        self.path = f"/push/{name}"
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        keys = {"p256dh": b64(public), "auth": b64(self.auth)}
        self.body = {"subscription": {"endpoint": receiver.url + self.path, "keys": keys}}
        self.body["lang"] = lang

    def subscribe(self, client: TestClient, table_id: str, token: str) -> None:
        client.cookies.set(f"pt_{table_id}", token)
        assert client.post(f"/t/{table_id}/push", json=self.body).status_code == 201
        client.cookies.clear()

    def told(self, receiver: Receiver) -> list[dict[str, str]]:
        return [
            json.loads(
                http_ece.decrypt(
                    payload, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
                )
            )
            for path, _, payload in receiver.requests
            if path == self.path
        ]


def test_both_players_are_pushed_the_end_of_a_game_lost_on_time(
    client: TestClient,
    receiver: Receiver,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Days a move, and both players asked to be told: Red let the deadline pass and the
    server ended the game, but nobody was pushed a word (a push came for moves only). The
    player who waits for a move that will never come, and the one who lost, heard of it only
    by opening the table again. Now both are told, each in their language and as themselves."""
    import sqlite3

    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    phone, laptop = Browser(receiver, "red-phone", "fi"), Browser(receiver, "blue-laptop", "cs")
    phone.subscribe(client, table_id, red)
    laptop.subscribe(client, table_id, blue)
    play(client, table_id, red, 0)
    play(client, table_id, blue, 1)
    receiver.wait(2)  # each was told of their move
    # Four days pass: every stored time moves four days into the past (the version on, as a
    # writer's would, so that the process reads the table again).
    shift = "created_at = strftime('%Y-%m-%d %H:%M:%f', created_at, '-4 days')"
    with contextlib.closing(sqlite3.connect(db_url.removeprefix("sqlite:///"))) as db, db:
        db.execute(f"UPDATE moves SET {shift} WHERE table_id = ?", (table_id,))
        db.execute(f"UPDATE seats SET {shift} WHERE table_id = ?", (table_id,))
        db.execute(
            "UPDATE tables SET version = version + 1, "
            "deadline = strftime('%Y-%m-%d %H:%M:%f', deadline, '-4 days') WHERE id = ?",
            (table_id,),
        )
    receiver.wait(4)  # the sweep ended the table: both are told
    assert client.get(f"/api/tables/{table_id}").json()["outcome"]["reason"] == "timeout"
    url = f"/t/{table_id}"
    assert phone.told(receiver)[-1] == {
        "title": "Peli on päättynyt.",
        "body": "Aikasi loppui. Sininen voittaa.\nPisteet ja laatikot · 3 × 3 laatikkoa · "
        "Tavallinen alkuasetelma",
        "url": "/fi" + url,
    }
    assert laptop.told(receiver)[-1] == {
        "title": "Hra skončila.",
        "body": "Červený: došel čas. Vyhráli jste.\nPuntíky a čtverce · 3 × 3 čtverce · "
        "Standardní výchozí pozice",
        "url": "/cs" + url,
    }


def test_the_opponent_of_a_player_who_resigns_is_pushed_the_result(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resignation ends a correspondence game as surely as a move: the opponent, who waits
    for a move, is told; the player who resigned, who knows, is not."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    red_phone, blue_phone = Browser(receiver, "red", "ko"), Browser(receiver, "blue", "ko")
    red_phone.subscribe(client, table_id, red)
    blue_phone.subscribe(client, table_id, blue)
    play(client, table_id, red, 0)
    receiver.wait(1)
    with connect(client, table_id, blue) as session:
        socket = Socket(session)
        socket.join()
        socket.send("nickname", name="민지")  # the name the friend chose at the table
        socket.until_state(lambda t: t["seats"]["blue"].get("nickname") == "민지")
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
    receiver.wait(2)
    assert red_phone.told(receiver) == [
        {
            "title": "게임이 끝났습니다.",
            "body": "파랑 기권. 빨강 승리.\n점과 상자 · 상자 3 × 3 · 기본 시작 · 민지 (파랑)",
            "url": f"/ko/t/{table_id}",
        }
    ]
    time.sleep(0.3)
    assert len(blue_phone.told(receiver)) == 1  # its move only


def test_an_offer_of_the_opponent_is_pushed_to_the_player_it_is_made_to(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Days a move: a draw offer, a take-back request or, once the game is over, a rematch
    proposal waited unseen for days (a push came for moves only, and nobody opens a table
    whose move is the opponent's, nor one that is over). The player it is made to is told,
    in the words of the table page; the one who made it is not."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    red_laptop, blue_phone = Browser(receiver, "red", "cs"), Browser(receiver, "blue", "fi")
    red_laptop.subscribe(client, table_id, red)
    blue_phone.subscribe(client, table_id, blue)
    play(client, table_id, red, 0)  # blue is told of the move
    with connect(client, table_id, red) as session:
        socket = Socket(session)
        socket.join()
        socket.send("request_undo")  # on blue's turn
        socket.until_state(lambda t: t["offers"]["undo"] == "red")
        socket.send("offer_draw")
        socket.until_state(lambda t: t["offers"]["draw"] == "red")
    receiver.wait(3)
    with connect(client, table_id, blue) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
        socket.send("rematch")
        socket.until_state(lambda t: t["offers"]["rematch"] == ["blue"])
    receiver.wait(5)  # the end to red, then blue's rematch proposal
    which_fi = "Pisteet ja laatikot · 3 × 3 laatikkoa · Tavallinen alkuasetelma"
    # (each push is sent on its own: they may arrive in any order)
    assert sorted((m["title"], m["body"]) for m in blue_phone.told(receiver)) == [
        ("Punainen pyytää saada perua viimeisimmän siirtonsa.", which_fi),
        ("Punainen tarjoaa tasapeliä.", which_fi),
        ("Sinun siirtosi Playtablessa", "Vastustajasi on siirtänyt.\n" + which_fi),
    ]
    told_red = red_laptop.told(receiver)
    assert sorted(m["title"] for m in told_red) == ["Hra skončila.", "Modrý navrhuje odvetu."]
    assert {m["url"] for m in told_red} == {f"/cs/t/{table_id}"}


def test_a_rematch_accepted_days_later_is_pushed_and_its_moves_too(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red proposed a rematch of a correspondence game and closed the tab; Blue accepted it
    days later. Red was never told the new game had begun, nor of Blue's moves in it: the
    subscriptions were the first table's alone, and asking again meant finding the rematch.
    The proposer is told it begins (their colour, swapped), and the subscriptions of both
    go on to their seats in the rematch."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    red_laptop, blue_phone = Browser(receiver, "red", "fi"), Browser(receiver, "blue", "cs")
    red_laptop.subscribe(client, table_id, red)
    blue_phone.subscribe(client, table_id, blue)
    with connect(client, table_id, red) as session:
        socket = Socket(session)
        socket.join()
        socket.send("resign")
        socket.until_state(lambda t: t["outcome"] is not None)
        socket.send("rematch")
        socket.until_state(lambda t: t["offers"]["rematch"] == ["red"])
    receiver.wait(2)  # blue: the end, the proposal
    with connect(client, table_id, blue) as session:
        socket = Socket(session)
        socket.join()
        socket.send("rematch")
        rematch_id = socket.until_state(lambda t: t["rematch_id"] is not None)[1]["rematch_id"]
    receiver.wait(3)
    which_fi = "Pisteet ja laatikot · 3 × 3 laatikkoa · Tavallinen alkuasetelma"
    assert red_laptop.told(receiver) == [
        {
            "title": "Sininen hyväksyi uusintaottelun.",
            "body": "Uusintaottelu: tällä kertaa olet Sininen.\n" + which_fi,
            "url": f"/fi/t/{rematch_id}",
        }
    ]
    # In the rematch Blue of the first game is Red, and moves first: Red of the first game,
    # Blue now, is told of it, and then Red of the moves of Blue.
    new_red = tokens.rematch_token(blue, rematch_id)
    new_blue = tokens.rematch_token(red, rematch_id)
    play(client, rematch_id, new_red, 0)
    receiver.wait(4)
    assert red_laptop.told(receiver)[-1]["url"] == f"/fi/t/{rematch_id}"
    assert red_laptop.told(receiver)[-1]["title"] == "Sinun siirtosi Playtablessa"
    play(client, rematch_id, new_blue, 1)
    receiver.wait(5)
    assert blue_phone.told(receiver)[-1] == {
        "title": "Jste na tahu v Playtable",
        "body": "Soupeř zahrál svůj tah.\nPuntíky a čtverce · 3 × 3 čtverce · "
        "Standardní výchozí pozice",
        "url": f"/cs/t/{rematch_id}",
    }

    # The push opens the rematch's page, which asks whether its seat keeps this browser's
    # subscription (push.js): it does, so the page says push is on, not "Turn on".
    laptop_endpoint = red_laptop.body["subscription"]["endpoint"]
    phone_endpoint = blue_phone.body["subscription"]["endpoint"]
    client.cookies.set(f"pt_{rematch_id}", new_blue)
    kept = f"/t/{rematch_id}/push/kept"
    assert client.post(kept, json={"endpoint": laptop_endpoint}).json() == {"kept": True}
    assert client.post(kept, json={"endpoint": phone_endpoint}).json() == {"kept": False}
    assert client.post(kept, json={}).status_code == 400
    client.cookies.clear()
    refused = client.post(kept, json={"endpoint": laptop_endpoint})  # not a player's
    assert refused.status_code == 403


def test_a_replaced_seat_link_tells_the_device_that_saw_it_nothing_more(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone saw Blue's seat link, opened it and asked to be told of the seat's moves.
    Blue replaced the link: that device could play no more, but went on being pushed every
    move of the game, with its name and the opponent's. The seat's subscriptions go with
    the old link; the player's own page sends its own again, with the new key (push.js)."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, blue = correspondence_table(client)
    stranger, mine = Browser(receiver, "stranger", "en"), Browser(receiver, "mine", "en")
    stranger.subscribe(client, table_id, blue)
    play(client, table_id, red, 0)
    receiver.wait(1)
    new_blue = renew_seat_link(client, table_id, blue)
    client.cookies.set(f"pt_{table_id}", blue)  # the stranger's page sends it again: refused
    assert client.post(f"/t/{table_id}/push", json=stranger.body).status_code == 403
    client.cookies.clear()
    mine.subscribe(client, table_id, new_blue)  # the player's own page, with the new key
    play(client, table_id, new_blue, 1)
    play(client, table_id, red, 2)
    receiver.wait(2)
    time.sleep(0.3)
    assert len(stranger.told(receiver)) == 1  # the move before the link was replaced only
    assert len(mine.told(receiver)) == 1


def test_a_player_who_reloads_their_pages_can_still_offer_a_draw(
    client: TestClient, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every visit of a player's table page sends its subscription again (push.js). Each
    spent the offers' budget (20 a minute), and a correspondence player who went through
    their games a few times was then refused a draw offer. Sent again, a subscription the
    server keeps already costs nothing of it."""
    monkeypatch.setenv("PLAYTABLE_VAPID_KEY_FILE", str(tmp_path / "vapid.pem"))
    table_id, red, _blue = correspondence_table(client)
    phone = Browser(receiver, "red", "en")
    phone.subscribe(client, table_id, red)
    client.cookies.set(f"pt_{table_id}", red)
    visits = [client.post(f"/t/{table_id}/push", json=phone.body) for _ in range(25)]
    client.cookies.clear()
    with connect(client, table_id, red) as session:
        socket = Socket(session)
        socket.join()
        socket.send("offer_draw")
        socket.until_state(lambda t: t["offers"]["draw"] == "red")
    assert {visit.status_code for visit in visits} == {200}  # kept already: none refused
    # a new subscription still spends it: pushes are requests the server sends at every move
    client.cookies.set(f"pt_{table_id}", red)
    laptop = Browser(receiver, "laptop", "en")
    assert client.post(f"/t/{table_id}/push", json=laptop.body).status_code == 201
