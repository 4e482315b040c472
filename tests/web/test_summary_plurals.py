"""A table's settings in a few words take the noun's form for the number beside it (a review:
the Czech summary said "4 × 4 čtverců", the form for five and more, and Finnish "1 × 1
laatikkoa")."""

from __future__ import annotations

import pytest

from playtable.web.presentation import settings_summary
from playtable.web.templating import translations


@pytest.mark.parametrize(
    ("lang", "rows", "cols", "summary"),
    [
        ("en", 4, 4, "4 × 4 boxes · Standard start"),
        ("en", 3, 1, "3 × 1 box · Standard start"),
        ("cs", 1, 1, "1 × 1 čtverec · Standardní výchozí pozice"),
        ("cs", 4, 4, "4 × 4 čtverce · Standardní výchozí pozice"),
        ("cs", 5, 5, "5 × 5 čtverců · Standardní výchozí pozice"),
        ("cs", 4, 12, "4 × 12 čtverců · Standardní výchozí pozice"),
        ("fi", 1, 1, "1 × 1 laatikko · Tavallinen alkuasetelma"),
        ("fi", 4, 4, "4 × 4 laatikkoa · Tavallinen alkuasetelma"),
        ("ko", 4, 4, "상자 4 × 4 · 기본 시작"),
    ],
)
def test_the_size_of_a_square_board_reads_as_a_native_speaker_says_it(
    lang: str, rows: int, cols: int, summary: str
) -> None:
    options = {"grid": "square", "rows": rows, "cols": cols, "start": "standard"}
    assert settings_summary("dots", options, translations(lang)) == summary
