"""Requests an attacker or a broken client sends: each gets a clear answer, never a 500,
and never a redirect off the site."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

from playtable.web.app import create_app
from tests.web.conftest import SECRET, create_table, csrf_of


@pytest.mark.parametrize(
    "path",
    ["//evil.example/?lang=en", "/\\evil.example/?lang=en", "//evil.example/x?lang=fi"],
)
def test_the_language_switch_never_redirects_to_another_site(client: TestClient, path: str) -> None:
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith("/") and not location.startswith(("//", "/\\"))
    assert "evil.example" not in location.split("/")[2:3]


def test_a_path_in_korean_with_a_language_switch_is_redirected_not_a_500(
    client: TestClient,
) -> None:
    response = client.get("/ko/규칙?lang=en", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == "/%EA%B7%9C%EC%B9%99"
    assert client.get(response.headers["location"]).status_code == 404  # our own 404 page


def test_an_api_body_nested_thousands_deep_is_a_400(client: TestClient) -> None:
    body = '{"game": ' + "[" * 8000 + "]" * 8000 + "}"
    response = client.post(
        "/api/tables", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert "error" in response.json()
    create_table(client)  # and the server still serves


@pytest.mark.parametrize(
    "time_control",
    [
        '{"kind": "realtime", "minutes": NaN, "increment": 0}',  # Python's json reads these
        '{"kind": "realtime", "minutes": Infinity, "increment": 0}',
        '{"kind": "realtime", "minutes": 1e308, "increment": 0}',
        '{"kind": []}',
        '{"kind": {}}',
    ],
)
def test_an_absurd_time_control_is_a_400(client: TestClient, time_control: str) -> None:
    body = '{"game": "dots", "seat": "red", "time_control": ' + time_control + "}"
    response = client.post(
        "/api/tables", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert '"kind"' in response.json()["error"] or '"minutes"' in response.json()["error"]


@pytest.mark.parametrize("ply", ["²", "٣", "-1", "1e3"])
def test_a_ply_that_is_not_plain_digits_is_a_400(client: TestClient, ply: str) -> None:
    """ "²" and "٣" are digits to str.isdigit(): the first made int() fail with a 500."""
    table = create_table(client)
    for path in (
        f"/t/{table.id}/position.json",
        f"/t/{table.id}.svg",
        f"/t/{table.id}.png",
        f"/api/tables/{table.id}/analysis/best",
    ):
        response = client.get(path, params={"ply": ply})
        assert response.status_code == 400, path


@pytest.mark.parametrize(
    "fields",
    [
        {"dots_rows": "--5"},
        {"dots_rows": "²"},
        {"game": "swaptimum", "swaptimum_size": "--7"},
        {"time": "realtime", "time_preset": "custom", "time_minutes": "³", "time_increment": "0"},
    ],
)
def test_a_home_form_number_that_is_not_plain_digits_is_the_forms_error(
    client: TestClient, fields: dict[str, str]
) -> None:
    page = client.get("/fi/")
    data = {
        "csrf": csrf_of(page.text),
        "game": "dots",
        "dots_grid": "square",
        "dots_rows": "3",
        "dots_cols": "3",
        "dots_start": "standard",
        "swaptimum_size": "9",
        "seat": "red",
        "opponent": "friend",
        "time": "unlimited",
        **fields,
    }
    response = client.post("/fi/tables", data=data, follow_redirects=False)
    assert response.status_code == 400
    assert '<html lang="fi">' in response.text and 'role="alert"' in response.text


def test_a_method_an_address_does_not_take_is_a_page_in_the_language(
    client: TestClient,
) -> None:
    page = client.put("/ko/")
    assert page.status_code == 405 and "GET" in page.headers["allow"]
    assert '<html lang="ko">' in page.text and "지원하지 않는 요청입니다" in page.text
    assert "content-security-policy" in page.headers
    api = client.put("/api/tables", json={})
    assert api.status_code == 405 and api.json()["error"].startswith("This address")


def test_an_unknown_unprefixed_address_answers_in_the_visitors_language(
    client: TestClient,
) -> None:
    korean = client.get("/nosuch", headers={"accept-language": "ko"})
    assert korean.status_code == 404 and '<html lang="ko">' in korean.text
    client.cookies.set("pt_lang", "cs")  # a choice made on the site wins over the browser
    czech = client.get("/nosuch", headers={"accept-language": "ko"})
    assert '<html lang="cs">' in czech.text
    assert 'href="/cs/"' in czech.text  # and the page's own links are Czech too


def test_a_failure_inside_the_server_is_a_page_in_the_language_with_the_sites_headers(
    tmp_path: Path,
) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'boom.sqlite3'}", secret=SECRET)

    async def broken(request: Request) -> Response:
        raise RuntimeError("a bug")

    app.router.add_route("/broken", broken)
    with TestClient(app, raise_server_exceptions=False) as failing:
        page = failing.get("/fi/broken")
        assert page.status_code == 500
        assert '<html lang="fi">' in page.text and "Palvelinvirhe" in page.text
        assert page.headers["x-content-type-options"] == "nosniff"
        assert "content-security-policy" in page.headers
        assert failing.get("/").status_code == 200  # and the site goes on


@pytest.mark.parametrize(("path", "kept"), [("/static", "/static/"), ("/ko/static", "/ko/static/")])
def test_a_redirect_never_leads_to_the_host_a_client_made_up(
    client: TestClient, path: str, kept: str
) -> None:
    """Starlette adds a missing trailing slash with an absolute address built from the Host
    header: a forged Host made it an open redirect (and it lost the language prefix)."""
    response = client.get(path, headers={"host": "evil.example"}, follow_redirects=False)
    assert response.status_code in (301, 302, 303, 307, 308)
    assert response.headers["location"] == kept
