"""Requests an attacker or a broken client sends: each gets a clear answer, never a 500,
and never a redirect off the site."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.web.conftest import create_table


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
