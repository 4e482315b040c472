"""The home form's board sizes are the engines' limits: the fields' min and max (what home.js
checks), the hints and the messages under a field out of range, in every language. They were
written by hand in home.html and home.js ('Boxes, 1 to 12 each way.', min="1" max="12",
'Hexagon radius, 1 to 6 (2 makes 7 hexagons, 3 makes 19).'), and the messages were the API's
fragments ('rows must be a whole number from 1 to 12', no full stop)."""

from __future__ import annotations

import html
import re

import pytest
from babel.numbers import format_decimal
from starlette.testclient import TestClient

from playtable.games import swaptimum
from playtable.games.dots import geometry
from playtable.web.templating import translations

LANGUAGES = ("en", "fi", "cs", "ko")

# the messages and hints as each language writes a range (and the hexagon examples)
SENTENCES = {
    "en": {
        "rows": "Rows must be a whole number from {low} to {high}.",
        "cols": "Columns must be a whole number from {low} to {high}.",
        "size": "Size must be a whole number from {low} to {high}.",
        "board": "Board size must be a whole number from {low} to {high}.",
        "boxes": "Boxes, {low} to {high} each way.",
        "triangle": "Triangle side, {low} to {high} small triangles.",
        "hexagon": "Hexagon radius, {low} to {high} ({r} makes {c} hexagons, {r2} makes {c2}).",
        "swaptimum": "Squares per side, {low} to {high}.",
    },
    "fi": {
        "rows": "Rivien määrän on oltava kokonaisluku {low}–{high}.",
        "cols": "Sarakkeiden määrän on oltava kokonaisluku {low}–{high}.",
        "size": "Koon on oltava kokonaisluku {low}–{high}.",
        "board": "Laudan koon on oltava kokonaisluku {low}–{high}.",
        "boxes": "Laatikoita, {low}–{high} kumpaankin suuntaan.",
        "triangle": "Kolmion sivu, {low}–{high} pientä kolmiota.",
        "hexagon": "Kuusikulmion säde, {low}–{high} (säteellä {r} kuusikulmioita on {c}, "
        "säteellä {r2} niitä on {c2}).",
        "swaptimum": "Ruutuja sivulla, {low}–{high}.",
    },
    "cs": {
        "rows": "Počet řad musí být celé číslo od {low} do {high}.",
        "cols": "Počet sloupců musí být celé číslo od {low} do {high}.",
        "size": "Velikost musí být celé číslo od {low} do {high}.",
        "board": "Velikost desky musí být celé číslo od {low} do {high}.",
        "boxes": "Čtverce, {low} až {high} v každém směru.",
        "triangle": "Strana trojúhelníku, {low} až {high} malých trojúhelníků.",
        "hexagon": "Poloměr šestiúhelníku, {low} až {high} (při poloměru {r} je šestiúhelníků {c}, "
        "při {r2} je jich {c2}).",
        "swaptimum": "Polí na stranu, {low} až {high}.",
    },
    "ko": {
        "rows": "행 수는 {low}에서 {high} 사이의 정수여야 합니다.",
        "cols": "열 수는 {low}에서 {high} 사이의 정수여야 합니다.",
        "size": "크기는 {low}에서 {high} 사이의 정수여야 합니다.",
        "board": "보드 크기는 {low}에서 {high} 사이의 정수여야 합니다.",
        "boxes": "상자 수, 가로세로 각각 {low}~{high}.",
        "triangle": "삼각형의 한 변, 작은 삼각형 {low}~{high}개.",
        "hexagon": "육각형의 반지름, {low}~{high} "
        "(반지름이 {r}이면 육각형 {c}개, {r2}이면 {c2}개).",
        "swaptimum": "한 변의 칸 수, {low}~{high}.",
    },
}


def prefix(lang: str) -> str:
    return "" if lang == "en" else f"/{lang}"


def tag(page: str, element_id: str) -> dict[str, str]:
    """The attributes of the element with ``element_id``."""
    found = re.search(rf'<\w+ id="{element_id}"([^>]*)>', page)
    assert found, element_id
    return {k: html.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', found[1])}


def text(page: str, element_id: str) -> str:
    found = re.search(rf'<p [^>]*id="{element_id}"[^>]*>(.*?)</p>', page, re.S)
    assert found, element_id
    return html.unescape(found[1])


def hexagon_cells(radius: int) -> int:
    return 3 * radius * (radius - 1) + 1


def check_form(client: TestClient, lang: str) -> None:
    """The form of ``lang`` says and checks the engines' limits as they stand now."""
    page = client.get(prefix(lang) + "/").text
    words = SENTENCES[lang]

    def n(value: int) -> str:
        return format_decimal(value, locale=lang)

    square, triangle, hexagon = geometry.SQUARE_MAX, geometry.TRIANGLE_MAX, geometry.HEXAGON_MAX
    low, high = swaptimum.MIN_SIZE, swaptimum.MAX_SIZE
    for field, message in (("dots_rows", "rows"), ("dots_cols", "cols")):
        attributes = tag(page, field)
        assert (attributes["min"], attributes["max"]) == ("1", str(square))
        assert attributes["data-invalid"] == words[message].format(low=n(1), high=n(square))
    assert text(page, "rows-hint") == words["boxes"].format(low=n(1), high=n(square))

    size = tag(page, "dots_size")
    assert (size["min"], size["max"]) == ("1", str(triangle))  # the default grid's: triangle
    assert (size["data-min-triangle"], size["data-max-triangle"]) == ("1", str(triangle))
    assert (size["data-min-hexagon"], size["data-max-hexagon"]) == ("1", str(hexagon))
    assert size["data-invalid-triangle"] == words["size"].format(low=n(1), high=n(triangle))
    assert size["data-invalid-hexagon"] == words["size"].format(low=n(1), high=n(hexagon))
    assert text(page, "size-hint-triangle") == words["triangle"].format(low=n(1), high=n(triangle))
    # the hexagon's examples: the engine's boards of radius 2 and 3, as the formula counts
    assert [len(geometry.hexagon(r).cells) for r in (2, 3)] == [hexagon_cells(2), hexagon_cells(3)]
    assert text(page, "size-hint-hexagon") == words["hexagon"].format(
        low=n(1), high=n(hexagon), r=n(2), c=n(hexagon_cells(2)), r2=n(3), c2=n(hexagon_cells(3))
    )

    board = tag(page, "swaptimum_size")
    assert (board["min"], board["max"]) == (str(low), str(high))
    assert board["data-invalid"] == words["board"].format(low=n(low), high=n(high))
    assert text(page, "swaptimum-size-hint").startswith(
        words["swaptimum"].format(low=n(low), high=n(high))
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_form_says_the_engines_limits(client: TestClient, lang: str) -> None:
    assert (geometry.SQUARE_MAX, geometry.TRIANGLE_MAX, geometry.HEXAGON_MAX) == (12, 10, 6)
    check_form(client, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_limit_changed_in_the_engine_changes_the_form(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """Every number of the form follows the engines; 1000 boxes is written as the page's
    language writes it ('1,000', Finnish and Czech '1 000')."""
    monkeypatch.setattr(geometry, "SQUARE_MAX", 1000)
    monkeypatch.setattr(geometry, "TRIANGLE_MAX", 7)
    monkeypatch.setattr(geometry, "HEXAGON_MAX", 4)
    monkeypatch.setattr(swaptimum, "MIN_SIZE", 3)
    monkeypatch.setattr(swaptimum, "MAX_SIZE", 19)
    check_form(client, lang)
    page = client.get(prefix(lang) + "/").text
    for old in ("12", "10", "26"):
        for element_id in ("rows-hint", "size-hint-triangle", "swaptimum-size-hint"):
            assert not re.search(rf"(?<!\d){old}(?!\d)", text(page, element_id)), (old, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_hexagon_limit_below_the_examples_drops_them(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """A radius the grid does not allow is not given as an example (nor built: the engine
    would refuse it)."""
    monkeypatch.setattr(geometry, "HEXAGON_MAX", 2)
    hint = text(client.get(prefix(lang) + "/").text, "size-hint-hexagon")
    assert hint == translations(lang).gettext("Hexagon radius, %(low)s to %(high)s.") % {
        "low": "1",
        "high": "2",
    }


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_range_messages_are_sentences(client: TestClient, lang: str) -> None:
    """Under the field a player reads a sentence: a capital letter (in the languages that
    have them) and a full stop, as every other message of the form."""
    page = client.get(prefix(lang) + "/").text
    messages = [
        tag(page, "dots_rows")["data-invalid"],
        tag(page, "dots_cols")["data-invalid"],
        tag(page, "dots_size")["data-invalid-triangle"],
        tag(page, "dots_size")["data-invalid-hexagon"],
        tag(page, "swaptimum_size")["data-invalid"],
    ]
    for message in messages:
        assert message.endswith("."), message
        assert message[0] == message[0].upper(), message


@pytest.mark.parametrize(
    ("lang", "fields", "expected"),
    [
        ("en", {"dots_rows": "13"}, "Rows must be a whole number from 1 to 12."),
        ("fi", {"dots_rows": "13"}, "Rivien määrän on oltava kokonaisluku 1–12."),
        ("ko", {"game": "swaptimum", "swaptimum_size": "27"}, "2에서 26 사이의 정수여야 합니다."),
    ],
)
def test_without_scripts_the_reason_is_a_sentence(
    client: TestClient, lang: str, fields: dict[str, str], expected: str
) -> None:
    """After 'The table could not be created.' the server's reason ended with no full stop."""
    page = client.get(prefix(lang) + "/").text
    token = re.search(r'name="csrf" value="([^"]+)"', page)
    assert token
    data = {
        "csrf": token[1],
        "game": "dots",
        "dots_grid": "square",
        "dots_rows": "5",
        "dots_cols": "5",
        "dots_start": "standard",
        "seat": "red",
        "opponent": "friend",
        "time": "unlimited",
        **fields,
    }
    response = client.post(prefix(lang) + "/tables", data=data, follow_redirects=False)
    assert response.status_code == 400
    box = re.search(r'id="form-error".*?</strong>(.*?)</div>', response.text, re.S)
    assert box, response.text[:300]
    assert html.unescape(box[1]).strip().endswith(expected)
