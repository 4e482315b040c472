"""Styles and scripts as a phone on a slow network gets them: compressed, and kept by the
browser for as long as their address names their content."""

from __future__ import annotations

import base64
import hashlib
import json
import os
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
    """A module asked for by its plain name (./board.js) may not be kept unchecked, or a new
    table.js would run with an old board.js."""
    response = client.get("/static/js/board.js")
    assert response.status_code == 200
    assert response.headers["cache-control"] == CHECK_FIRST
    assert response.headers["etag"] == f'"{fingerprint(STATIC_DIR / "js" / "board.js")}"'
    again = client.get("/static/js/board.js", headers={"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304


def test_another_release_s_fingerprint_is_not_answered_with_this_release_s_file(
    client: TestClient,
) -> None:
    """During a rolling upgrade a page rendered by one release asks the other's process for
    its files. That process answered with its own bytes under the other's address, and the
    page ran one release's table.js with the other's modules (no board, 'does not provide
    an export named'); now it answers 404, kept by no cache, for a proxy to try another
    process (docs/deploy.md)."""
    created = client.post("/api/tables", json={"game": "dots", "seat": "red"}).json()
    html = client.get("/fi" + created["seat_url"].removeprefix(str(client.base_url))).text
    strings = strings_address(html)
    for address in (
        "/static/style.css?v=0123456789ab",
        "/static/js/board.js?v=0123456789ab",
        "/static/js/board.js?v=",
        strings.partition("?")[0] + "?v=0123456789ab",
    ):
        response = client.get(address)
        assert response.status_code == 404, address
        assert response.headers["cache-control"] == "no-store", address
    assert client.get(strings).status_code == 200


def test_a_cache_never_keeps_one_release_s_file_under_the_other_s_fingerprint(
    tmp_path: Path,
) -> None:
    """Two releases' table.css of one size, from a build that sets every file's time alike
    (a reproducible image): Starlette's ETag (of the time and size) was the same for both,
    so a cache holding release A's bytes under B's address (fetched from a process of A
    during the roll) asked B to confirm them and got 304 with a year of 'immutable'."""
    old, new = tmp_path / "a", tmp_path / "b"
    old.mkdir()
    new.mkdir()
    (old / "table.css").write_text("body { color: red }")
    (new / "table.css").write_text("body { color: tan }")
    for folder in (old, new):
        os.utime(folder / "table.css", ns=(10**18, 10**18))
    a_version, b_version = fingerprint(old / "table.css"), fingerprint(new / "table.css")
    with TestClient(Starlette(routes=[Mount("/static", static_app(old))])) as a:
        # the validator A gave its bytes (also under B's address, before it answered 404)
        held = a.get(f"/static/table.css?v={a_version}")
    with TestClient(Starlette(routes=[Mount("/static", static_app(new))])) as b:
        again = b.get(
            f"/static/table.css?v={b_version}", headers={"If-None-Match": held.headers["etag"]}
        )
        assert again.status_code == 200
        assert again.text == "body { color: tan }"
        assert again.headers["cache-control"] == FOREVER


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
        # the old address no longer answers (with other bytes); the new one does
        assert client.get(f"/static/a.css?v={first}").status_code == 404
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
