"""What the internet sends a real app on real SQLite (a review of link previews, odd
headers and odd frames): each request gets a clear answer in the visitor's language, and
nothing a cache keeps is shown to someone it was not made for."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

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
