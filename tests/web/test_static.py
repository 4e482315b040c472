"""Styles and scripts as a phone on a slow network gets them: compressed, and kept by the
browser for as long as their address names their content."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from playtable.web.static_files import CHECK_FIRST, FOREVER, fingerprint, static_app
from playtable.web.templating import STATIC_DIR
from tests.web.page_strings import page_strings, strings_address


def static_addresses(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/static/[^"]+)"', html)


def test_the_files_a_page_names_are_kept_for_a_year(client: TestClient) -> None:
    addresses = static_addresses(client.get("/").text)
    assert any(a.startswith("/static/style.css?v=") for a in addresses), addresses
    for address in addresses:
        response = client.get(address)
        assert response.status_code == 200, address
        assert response.headers["cache-control"] == FOREVER, address


def test_a_file_without_its_fingerprint_is_checked_before_each_use(client: TestClient) -> None:
    """The modules a script imports (./board.js) have no query; a page of an older release
    names an older fingerprint. Neither may be kept unchecked, or a new table.js would run
    with an old board.js."""
    for address in ("/static/js/board.js", "/static/style.css?v=0123456789ab"):
        response = client.get(address)
        assert response.status_code == 200
        assert response.headers["cache-control"] == CHECK_FIRST, address
        etag = response.headers["etag"]
        again = client.get(address, headers={"If-None-Match": etag})
        assert again.status_code == 304, address


def test_text_files_are_compressed_and_pages_are_not(client: TestClient) -> None:
    style = client.get("/static/style.css", headers={"Accept-Encoding": "gzip"})
    assert style.headers["content-encoding"] == "gzip"
    assert style.content == (STATIC_DIR / "style.css").read_bytes()  # decoded by the client
    assert "accept-encoding" in style.headers.get("vary", "").lower()
    assert int(style.num_bytes_downloaded) < len(style.content) / 2
    # a page carries a CSRF token next to reflected input: never compressed (BREACH)
    page = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in page.headers


def test_an_edited_file_gets_a_new_address_at_once(tmp_path: Path) -> None:
    (tmp_path / "a.css").write_text("body { color: red }")
    first = fingerprint(tmp_path / "a.css")
    app = Starlette(routes=[Mount("/static", static_app(tmp_path))])
    with TestClient(app) as client:
        assert client.get(f"/static/a.css?v={first}").headers["cache-control"] == FOREVER
        (tmp_path / "a.css").write_text("body { color: blue; margin: 0 }")
        second = fingerprint(tmp_path / "a.css")
        assert second != first
        # the old address is no longer kept unchecked; the new one is
        assert client.get(f"/static/a.css?v={first}").headers["cache-control"] == CHECK_FIRST
        response = client.get(f"/static/a.css?v={second}")
        assert response.headers["cache-control"] == FOREVER
        assert response.text == "body { color: blue; margin: 0 }"
    assert fingerprint(tmp_path / "missing.css") == ""


def test_a_page_names_every_module_its_script_imports_by_its_fingerprint(
    client: TestClient,
) -> None:
    """The table page's script imports 22 modules by their plain names (./board.js). The
    page maps each one to its fingerprinted address (an import map) and asks for them all at
    once (modulepreload), so a returning player's browser keeps every one for a year instead
    of checking each with the server before the board can be drawn; the page's policy lets
    that one inline map run, and nothing else."""
    created = client.post("/api/tables", json={"game": "dots", "seat": "red"}).json()
    response = client.get(created["seat_url"])
    html = response.text
    found = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    assert found, "no import map"
    imports = json.loads(found.group(1))["imports"]
    table_js = (STATIC_DIR / "js" / "table.js").read_text()
    for name in re.findall(r'from "\./([\w.]+\.js)"', table_js):
        address = f"/static/js/{name}"
        assert imports[address] == f"{address}?v={fingerprint(STATIC_DIR / 'js' / name)}"
        assert f'<link rel="modulepreload" href="{imports[address]}">' in html
    assert len(imports) >= 20, imports
    for address in imports.values():
        assert client.get(address).headers["cache-control"] == FOREVER, address
    digest = base64.b64encode(hashlib.sha256(found.group(1).encode()).digest()).decode()
    policy = response.headers["content-security-policy"]
    assert f"script-src 'self' 'sha256-{digest}';" in policy
    assert "unsafe-inline" not in policy
    # a page whose script imports nothing has no map, and the site's own policy
    home = client.get("/")
    assert "importmap" not in home.text
    assert "script-src 'self';" in home.headers["content-security-policy"]


def test_a_page_s_strings_come_once_in_a_module_the_browser_keeps(client: TestClient) -> None:
    """The scripts' 17.7 KB of translated strings were a JSON block in every table page (and
    pages are not compressed); they are a module per language and kind of board, named by
    its content, kept a year and compressed."""
    created = client.post("/api/tables", json={"game": "dots", "seat": "red"}).json()
    finnish = client.get("/fi" + created["seat_url"].removeprefix(str(client.base_url)))
    assert 'id="i18n"' not in finnish.text
    address = strings_address(finnish.text)
    assert address.startswith("/strings/fi-boxes.js?v=")
    module = client.get(address, headers={"Accept-Encoding": "gzip"})
    assert module.headers["cache-control"] == FOREVER
    assert module.headers["content-type"].startswith("text/javascript")
    assert module.headers["content-encoding"] == "gzip"
    assert page_strings(client, finnish.text)["red"] == "Punainen"
    assert f'<link rel="modulepreload" href="{address}">' in finnish.text
    again = client.get(address, headers={"If-None-Match": module.headers["etag"]})
    assert again.status_code == 304
    assert client.get(address.partition("?")[0]).headers["cache-control"] == CHECK_FIRST
    for wrong in ("/strings/xx-boxes.js", "/strings/fi-squares.js", "/strings/fi-boxes.css"):
        assert client.get(wrong).status_code == 404, wrong
    korean = client.get("/ko/rules/swaptimum").text
    assert page_strings(client, korean)["red"] == "빨강"
