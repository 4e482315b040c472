"""Cookie headers are parsed in linear time (CVE-2024-7592 on the Python this runs on)."""

from __future__ import annotations

import http.cookies

import pytest
from starlette.requests import cookie_parser
from starlette.testclient import TestClient

from playtable.web.cookies import unquote

# The standard library's own reading of quoted values, which the fix must keep.
CASES = [
    ('"plain"', "plain"),
    ('"a\\"b"', 'a"b'),
    ('"a\\\\b"', "a\\b"),
    ('"line\\012break"', "line\nbreak"),
    ('"\\377\\101"', "\xffA"),
    ('"\\8"', "8"),
    ("unquoted\\", "unquoted\\"),
    ('"', '"'),
    ("", ""),
]


@pytest.mark.parametrize(("raw", "value"), CASES)
def test_quoted_cookie_values_read_as_before(raw: str, value: str) -> None:
    assert unquote(raw) == value


def test_a_megabyte_of_backslashes_in_a_cookie_is_read_at_once(client: TestClient) -> None:
    """Before the fix this one value took hours to parse (quadratic: 32 KB took 6.8 s),
    holding the event loop and with it every table; pytest's timeout fails it."""
    assert http.cookies._unquote is unquote or hasattr(http.cookies, "_unquote_sub")
    raw = '"' + "\\\\" * 500_000 + '"'
    assert cookie_parser(f"a={raw}; pt_lang=ko")["a"] == "\\" * 500_000
    header = 'a="' + "\\\\" * 20_000 + '"; pt_lang=ko'  # 40 KB, as the attack sent
    page = client.get("/", headers={"Cookie": header})
    assert page.status_code == 200
    assert '<html lang="ko">' in page.text  # the language cookie after it still counts
