"""The strings a page's scripts show, as a browser finds them: the page's import map names
the module of its language's strings (web/script_strings.py), which is fetched and read."""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.testclient import TestClient


def strings_address(html: str) -> str:
    found = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    assert found, "the page has an import map"
    address: str = json.loads(found.group(1))["imports"]["/static/js/strings.js"]
    return address


def page_strings(client: TestClient, html: str) -> dict[str, Any]:
    response = client.get(strings_address(html))
    assert response.status_code == 200
    text = response.text
    assert text.startswith("export default ") and text.rstrip().endswith(";")
    strings: dict[str, Any] = json.loads(text.removeprefix("export default ").rstrip()[:-1])
    return strings
