"""``PLAYTABLE_ALLOWED_HOSTS``: a forged ``Host`` cannot put another site's name in the links."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from playtable.settings import SettingError
from playtable.web.app import create_app
from playtable.web.hosts import AllowedHostsMiddleware, allowed_hosts, host_name
from tests.web.conftest import SECRET, Socket, connect, create_table

HOSTS = ["playtable.example", "*.games.example"]


@pytest.fixture
def site(db_url: str) -> Iterator[TestClient]:
    app = create_app(db_url, secret=SECRET, hosts=HOSTS)
    with TestClient(app, base_url="http://playtable.example") as client:
        yield client


def test_the_site_answers_to_its_own_names(site: TestClient) -> None:
    assert site.get("/").status_code == 200
    assert site.get("/", headers={"host": "PlayTable.example:8443"}).status_code == 200
    assert site.get("/", headers={"host": "fi.games.example"}).status_code == 200
    table = create_table(site)
    page = site.get(f"/t/{table.id}")
    assert page.status_code == 200
    assert "http://playtable.example/t/" in page.text  # the links carry the real name


def test_a_forged_host_gets_a_page_in_the_visitors_language_and_no_links(
    site: TestClient,
) -> None:
    table = create_table(site)
    for host in (
        "evil.example",
        "games.example",
        "playtable.example.evil",
        "x:y",
        "",
        "evil.example/.games.example",  # a wildcard pattern, fooled before
        ".games.example",
    ):
        response = site.get(f"/t/{table.id}/watch", headers={"host": host})
        assert response.status_code == 400, host
        assert "evil" not in response.text
    finnish = site.get("/fi/", headers={"host": "evil.example"})
    assert finnish.status_code == 400
    assert '<html lang="fi"' in finnish.text and "Tuntematon" in finnish.text
    site.cookies.clear()  # the Finnish page set the language cookie
    korean = site.get("/", headers={"host": "evil.example", "accept-language": "ko"})
    assert '<html lang="ko"' in korean.text


def test_a_socket_with_a_forged_host_is_refused_at_the_handshake(site: TestClient) -> None:
    table = create_table(site)
    with connect(site, table.id, watch=True, host="playtable.example") as session:
        assert Socket(session).join()["table"]["id"] == table.id
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        connect(site, table.id, watch=True, host="evil.example"),
    ):
        pass
    assert refused.value.code == 1008


def test_without_the_setting_every_name_is_served(client: TestClient) -> None:
    assert client.get("/", headers={"host": "anything.example"}).status_code == 200


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("playtable.example", "playtable.example"),
        ("PlayTable.Example:8000", "playtable.example"),
        ("[::1]:8000", "::1"),
        ("[::1]", "::1"),
        ("[::1]x", None),
        ("host:port", None),
        ("host:８０", None),  # full-width digits are not a port
        (":80", None),
        ("", None),
        (None, None),
        ("PlayTable.Example.:443", "playtable.example"),  # the root's trailing dot
        ("evil.example/.games.example", None),  # no name at all: a wildcard must not match
        ("evil.example#.games.example", None),
        ("user@x.games.example", None),
        (".games.example", None),
        ("x y.games.example", None),
        ("10.0.0.11:8001", "10.0.0.11"),
    ],
)
def test_host_names(header: str | None, name: str | None) -> None:
    assert host_name(header) == name


def test_a_wildcard_anywhere_but_the_front_is_a_configuration_error() -> None:
    with pytest.raises(ValueError):
        AllowedHostsMiddleware(create_app, ["play*.example"])


def test_a_name_set_with_its_port_still_lets_its_visitors_in(
    monkeypatch: pytest.MonkeyPatch, db_url: str
) -> None:
    """PLAYTABLE_ALLOWED_HOSTS=127.0.0.1:8746 (an operator's review) refused every request,
    even those with that very Host: names are compared without their port."""
    monkeypatch.setenv("PLAYTABLE_ALLOWED_HOSTS", "127.0.0.1:8746, *.Play.example:443, [::1]:80")
    assert allowed_hosts() == ["127.0.0.1", "*.play.example", "::1"]
    app = create_app(db_url, secret=SECRET, hosts=allowed_hosts())
    with TestClient(app, base_url="http://127.0.0.1:8746") as client:
        assert client.get("/").status_code == 200
        assert client.get("/", headers={"Host": "www.play.example"}).status_code == 200
        assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    monkeypatch.setenv("PLAYTABLE_ALLOWED_HOSTS", "play*.example")
    with pytest.raises(SettingError, match="PLAYTABLE_ALLOWED_HOSTS"):
        allowed_hosts()
