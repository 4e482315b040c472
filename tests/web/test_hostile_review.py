"""What the internet sends a real app on real SQLite (a review of link previews, odd
headers and odd frames): each request gets a clear answer in the visitor's language, and
nothing a cache keeps is shown to someone it was not made for."""

from __future__ import annotations

import base64
import html
import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests import nodes
from tests.nodes import Node
from tests.web.conftest import create_table


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/no/such/page"),  # the 404 page
        ("PUT", "/games"),  # the 405 page
        ("GET", "/t/nosuchtable/join/abc"),  # an invitation to no table: the table's 404
        ("GET", "/t/nosuchtable/watch"),
    ],
)
def test_a_page_worded_for_the_visitors_browser_says_its_language_and_varies_with_it(
    client: TestClient, method: str, path: str
) -> None:
    """An address without a language prefix answered in the browser's language: the page
    was Finnish (``<html lang="fi">``) while its ``Content-Language`` said ``en``, and it
    named no ``Vary``, so a shared cache in front of the site could keep a 404 in Finnish
    and show it to everyone (a 404 and a 405 are cacheable without any header)."""
    finnish = client.request(method, path, headers={"accept-language": "fi"})
    assert '<html lang="fi"' in finnish.text
    assert finnish.headers["content-language"] == "fi"
    vary = {v.strip().lower() for v in finnish.headers.get("vary", "").split(",")}
    assert {"accept-language", "cookie"} <= vary
    english = client.request(method, path, headers={"accept-language": "en"})
    assert english.headers["content-language"] == "en"


def test_a_page_whose_address_names_its_language_does_not_vary(client: TestClient) -> None:
    table = create_table(client)
    page = client.get("/fi/no/such/page", headers={"accept-language": "ko"})
    assert page.status_code == 404 and page.headers["content-language"] == "fi"
    assert "accept-language" not in page.headers.get("vary", "").lower()
    assert client.get(f"/cs/t/{table.id}/watch").headers["content-language"] == "cs"


def _frame(opcode: int, payload: bytes) -> bytes:
    """One masked client frame, final (RFC 6455 5.2): payloads under 126 bytes."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked


def _raw_socket(node: Node, table_id: str) -> socket.socket:
    """A spectator's socket, upgraded by hand: frames no WebSocket library would send."""
    conn = socket.create_connection(("127.0.0.1", node.port), 5)
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall(
        f"GET /t/{table_id}/ws?watch=1 HTTP/1.1\r\nHost: 127.0.0.1:{node.port}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += conn.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return conn


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    server = Node(tmp_path, {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'n.sqlite3'}"})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_text_frame_that_is_not_utf8_closes_the_socket_without_a_traceback(
    node: Node,
) -> None:
    """Invalid UTF-8 in a text frame (RFC 6455: close 1007) was logged by uvicorn at ERROR
    with a traceback, one per socket: any visitor could fill the operator's log with them.
    The socket is still closed with 1007, the log says one line, and the table still serves."""
    table_id, _, _ = nodes.create_table(node)
    for _ in range(3):
        with _raw_socket(node, table_id) as conn:
            conn.sendall(_frame(0x1, b'{"type": "ping", "x": "\xff\xfe"}'))
            answer = b""
            while len(answer) < 4:
                chunk = conn.recv(64)
                if not chunk:
                    break
                answer += chunk
        assert answer[0] == 0x88 and int.from_bytes(answer[2:4], "big") == 1007, answer
    with _raw_socket(node, table_id) as conn:  # the server still speaks to the next one
        conn.sendall(_frame(0x1, b'{"type": "ping"}'))
        assert b'"pong"' in conn.recv(64)
    time.sleep(0.2)
    assert "Traceback" not in node.log() and "ERROR" not in node.log(), node.log()


def _tags(page: str) -> dict[str, str]:
    found = re.findall(r'<meta (?:property|name)="((?:og|twitter):[\w:]+)" content="([^"]*)"', page)
    return {key: html.unescape(value) for key, value in found}


@pytest.mark.parametrize("page", ["/fi/t/{id}", "/fi/t/{id}/watch"])
def test_a_finnish_table_link_keeps_its_language_for_a_service_that_follows_og_url(
    client: TestClient, page: str
) -> None:
    """Facebook (and LinkedIn) fetch the page that ``og:url`` names and show that page's
    preview. A Finnish table page named the spectator link without its prefix, so a player
    who shared their Finnish address there got an English preview (the crawler asks in
    English). The canonical address keeps the page's language."""
    table = create_table(client)
    client.cookies.clear()
    crawler = {"user-agent": "facebookexternalhit/1.1", "accept-language": "en-US"}
    shared = _tags(client.get(page.format(id=table.id), headers=crawler).text)
    assert shared["og:title"].startswith("Pisteet ja laatikot")
    assert shared["og:url"] == f"http://testserver/fi/t/{table.id}/watch"
    followed = _tags(client.get(shared["og:url"], headers=crawler).text)
    assert followed["og:title"] == shared["og:title"]
    assert followed["og:url"] == shared["og:url"]
    # the image it names is absolute and answers a crawler without cookies
    picture = client.get(shared["og:image"], headers=crawler)
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    # an address without a prefix stays the language-free spectator link
    english = _tags(client.get(f"/t/{table.id}", headers=crawler).text)
    assert english["og:url"] == f"http://testserver/t/{table.id}/watch"
    finnish_crawler = {**crawler, "accept-language": "fi"}
    neutral = _tags(client.get(f"/t/{table.id}/watch", headers=finnish_crawler).text)
    assert neutral["og:title"].startswith("Pisteet ja laatikot")
    assert neutral["og:url"] == f"http://testserver/t/{table.id}/watch"


STYLE = "/static/style.css"


@pytest.mark.parametrize("header", ["chars=0-5", "bytes=5-1", "bytes=abc", "bytes=0-1,x"])
def test_a_range_the_site_cannot_read_is_ignored_not_a_400(client: TestClient, header: str) -> None:
    """A Range of another unit, or one that names no bytes, was answered 400 with an English
    line of plain text ("Range header: start must be less than end"): RFC 9110 says a server
    ignores a range unit it does not know, and may ignore any Range. The file comes whole."""
    whole = client.get(STYLE, headers={"accept-encoding": "identity"})
    response = client.get(STYLE, headers={"range": header, "accept-encoding": "identity"})
    assert response.status_code == 200, response.text[:80]
    assert response.content == whole.content


def test_a_range_of_bytes_is_still_served(client: TestClient) -> None:
    part = client.get(STYLE, headers={"range": "bytes=0-9", "accept-encoding": "identity"})
    assert part.status_code == 206 and len(part.content) == 10
    assert client.get(STYLE, headers={"range": "bytes=99999999-"}).status_code == 416


@pytest.mark.parametrize(
    ("accept", "compressed"),
    [
        ("gzip;q=0", False),  # "not gzip", said explicitly: it was sent gzipped
        ("gzip;q=0, identity", False),
        ("br;q=1, gzip;q=0.0", False),
        ("identity", False),
        ("gzip", True),
        ("gzip;q=0.5, identity;q=1", True),
        ("br, gzip, deflate", True),
        ("*", True),
        ("*;q=0.1, gzip;q=0", False),
    ],
)
def test_the_compression_a_client_refuses_is_not_sent(
    client: TestClient, accept: str, compressed: bool
) -> None:
    response = client.get(STYLE, headers={"accept-encoding": accept})
    assert response.status_code == 200
    assert (response.headers.get("content-encoding") == "gzip") is compressed, accept


@pytest.mark.parametrize("kind", ["png", "svg"])
def test_a_picture_asked_for_again_is_not_sent_again(client: TestClient, kind: str) -> None:
    """``If-None-Match: *`` (any version the client holds) was answered with the whole picture
    again; a list of tags, or the weak form, still gets 304, and another tag does not."""
    table = create_table(client)
    address = f"/t/{table.id}.{kind}?ply=0"
    etag = client.get(address).headers["etag"]
    for header in ("*", etag, f"W/{etag}", f'"other", {etag}'):
        answer = client.get(address, headers={"if-none-match": header})
        assert answer.status_code == 304, header
        assert answer.headers["etag"] == etag
    inside = '"x' + etag.strip('"') + 'y"'
    assert client.get(address, headers={"if-none-match": inside}).status_code == 200


@pytest.mark.parametrize(
    ("accept", "page"),
    [
        ("ko;q=nan, fi;q=0.5", "fi"),  # NaN: Korean, or not, as the sort happened to fall
        ("ko;q=inf, cs;q=0.5", "cs"),
        ("fi;q=1e999, en;q=0.9", "en"),
        ("ko-KR;q=abc", "en"),
        ("*", "en"),
        (",".join(f"x{i:03d}" for i in range(200)) + ",cs", "cs"),
    ],
)
def test_an_accept_language_with_odd_qualities_is_read_as_the_rfc_says(
    client: TestClient, accept: str, page: str
) -> None:
    """A quality that is no number between 0 and 1 counts for nothing (as ``q=abc`` did):
    ``q=nan`` and ``q=1e999`` won over every real preference."""
    answer = client.get("/", headers={"accept-language": accept}, follow_redirects=False)
    expected = "/" if page == "en" else f"/{page}/"
    assert answer.headers.get("location", "/") == expected, accept


def _switcher(page: str) -> dict[str, str]:
    nav = re.search(r'<nav class="language-switcher".*?</nav>', page, re.S)
    assert nav
    found = re.findall(r'<a href="([^"]+)" hreflang="(\w+)"', nav.group(0))
    return {lang: html.unescape(href) for href, lang in found}


def test_a_friend_who_switches_the_invitation_to_their_language_can_still_sit_down(
    client: TestClient,
) -> None:
    """The invitation opened in English (the friend's browser says so); they choose Suomi in
    the switcher. Its link led to /fi/t/{id}, the watching view, with no button to take
    the seat: the friend had lost the invitation. It leads to the invitation in Finnish."""
    table = create_table(client)
    client.cookies.clear()
    link = f"/t/{table.id}/join/{table.invite}"
    english = client.get(link, headers={"accept-language": "en"})
    assert 'id="take-seat"' in english.text
    finnish = client.get(_switcher(english.text)["fi"])
    assert finnish.status_code == 200
    assert finnish.url.path == f"/fi{link}"
    assert 'id="take-seat"' in finnish.text and '<html lang="fi"' in finnish.text
    back = client.get(_switcher(finnish.text)["en"])
    assert 'id="take-seat"' in back.text and '<html lang="en"' in back.text
    # the page where the invitation is refused still names no secret (test_links.py)
    refused = client.get(f"/fi/t/nosuchtable/join/{table.invite}")
    assert table.invite not in refused.text
