"""A game's settings error reaches the home form in the page's language: the game raises a
catalog message with parameters, the page translates it (issue 15: `/fi/` with 13 rows
said "Rows must be a whole number from 1 to 12" in English)."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient

from playtable.games import SettingsError, load
from tests.pages.test_pages import client, csrf_of, form

__all__ = ["client"]


@pytest.mark.parametrize(
    ("lang", "fields", "expected"),
    [
        ("fi", {"dots_rows": "13"}, "Rivien määrän on oltava kokonaisluku 1–12"),
        ("cs", {"dots_cols": "0"}, "Počet sloupců musí být celé číslo od 1 do 12"),
        ("ko", {"dots_grid": "hexagon", "dots_size": "7"}, "크기는 1에서 6 사이의 정수여야 합니다"),
        (
            "fi",
            {"dots_grid": "triangle", "dots_start": "icelandic"},
            "Islantilaista lautaa pelataan vain neliöruudukolla",
        ),
        ("cs", {"game": "swaptimum", "swaptimum_size": "27"}, "od 2 do 26"),
        ("en", {"dots_rows": "13"}, "Rows must be a whole number from 1 to 12"),
    ],
)
def test_the_reason_is_in_the_language_of_the_page(
    client: TestClient, lang: str, fields: dict[str, str], expected: str
) -> None:
    csrf = csrf_of(client)
    prefix = "" if lang == "en" else f"/{lang}"
    response = client.post(f"{prefix}/tables", data=form(csrf, **fields), follow_redirects=False)
    assert response.status_code == 400
    error = re.search(r'id="form-error".*?</div>', response.text, re.S)
    assert error, response.text[:500]
    assert expected in html.unescape(error.group(0))


def test_the_error_keeps_its_english_text_and_its_parameters() -> None:
    with pytest.raises(SettingsError) as caught:
        load("dots", {"rows": 13})
    assert str(caught.value) == "rows must be a whole number from 1 to 12"
    assert caught.value.message == "rows must be a whole number from %(low)s to %(high)s"
    assert caught.value.params == {"low": 1, "high": 12}
