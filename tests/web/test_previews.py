"""Link previews of the ordinary pages: a chat app or a search engine shows what the page is,
in its language (a table page has its own, with the board: tests/web/test_links.py)."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient


def meta(page: str) -> dict[str, str]:
    found = re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"', page)
    return {key: html.unescape(value) for key, value in found}


@pytest.mark.parametrize(
    ("path", "title", "description"),
    [
        ("/", "Playtable: play abstract strategy games", "Two players, one board, no accounts."),
        ("/fi/", "Playtable", "Kaksi pelaajaa"),
        ("/variants/swedish-board", "Swedish board", "outer border already drawn"),
        ("/cs/variants/swedish-board", "Švédská deska", "okraj"),
        ("/ko/rules/swaptimum", "스왑티멈", "크로스컷"),
        ("/variants", "variants", "a different start, goal or board"),
        ("/atlas", "Playtable", "No registration. Share a link and start playing."),
    ],
)
def test_a_page_shared_in_a_chat_says_what_it_is(
    client: TestClient, path: str, title: str, description: str
) -> None:
    """These pages had only a <title>: a preview showed no description at all."""
    tags = meta(client.get(path).text)
    assert title in tags["og:title"]
    assert description in tags["og:description"] == tags["description"]
    assert tags["og:type"] == "website" and tags["og:site_name"] == "Playtable"
    assert tags["og:url"] == "http://testserver" + path
    assert tags["twitter:card"] == "summary"


def test_a_table_page_keeps_its_own_preview_only(client: TestClient) -> None:
    from tests.web.conftest import create_table

    table = create_table(client, seat="red")
    page = client.get(f"/t/{table.id}").text
    assert page.count('property="og:title"') == 1
    assert "og:image" in meta(page)
