"""The words a Dots and Boxes page uses for the board's cells: boxes on a square grid, cells
on a triangle or hexagon grid, in every language (a review found a hexagon table saying
"Box claimed by Blue" and, in Czech, "Čtverec získal", "vyhrává hráč s méně čtverci");
and the Swaptimum rules' restricted placement, a position a real game can reach."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from playtable.games import load
from playtable.games.swaptimum import Swaptimum
from playtable.web.app import create_app
from playtable.web.client_strings import client_strings
from playtable.web.templating import translations
from tests.web.conftest import create_table
from tests.web.page_strings import page_strings

SQUARE = {"grid": "square", "rows": 3, "cols": 3, "start": "standard", "misere": True}
HEXAGON = {"grid": "hexagon", "size": 2, "start": "standard", "misere": True}
TRIANGLE = {"grid": "triangle", "size": 3, "start": "standard", "misere": True}
#: each language's words for a box (a square grid's cell) and for a triangle's or hexagon's
BOX = {"en": r"\bbox", "fi": r"laatik", "cs": r"čtver", "ko": r"상자"}
CELL = {"en": r"\bcell", "fi": r"ruut|ruud", "cs": r"políč", "ko": r"칸"}
#: the client strings that name the cells (the misère rule, the claims, the cells' labels)
KEYS = ("misere_rule", "ann_move_claim_one", "ann_move_claim_two", "dots_box", "dots_box_sides")
#: the analysis board's words for a margin and its misère note
VALUES = ("eval_wins", "eval_you_win", "eval_about", "eval_about_you_lose", "eval_misere")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'cells.sqlite3'}", secret="s" * 40)
    with TestClient(app) as c:
        yield c


def words(text: str) -> str:
    """``text`` without its placeholders (``%(boxes)s`` is a number)."""
    return re.sub(r"%\(\w+\)[sd]", "", text)


def prefixed(lang: str, path: str) -> str:
    return path if lang == "en" else f"/{lang}{path}"


@pytest.mark.parametrize("lang", ["en", "fi", "cs", "ko"])
def test_a_hexagon_table_says_cells_and_a_square_one_boxes(client: TestClient, lang: str) -> None:
    for options, word, not_word in (
        (HEXAGON, CELL[lang], BOX[lang]),
        (TRIANGLE, CELL[lang], BOX[lang]),
        (SQUARE, BOX[lang], CELL[lang]),
    ):
        table = create_table(client, options=options)
        html = client.get(prefixed(lang, f"/t/{table.id}")).text
        strings = page_strings(client, html)
        everything = words(json.dumps(strings, ensure_ascii=False))
        if options is not SQUARE:
            # nothing the page may say about a hexagon's or a triangle's cells calls them boxes
            assert not re.search(not_word, everything, re.I), (lang, options["grid"])
        for key in KEYS:
            assert re.search(word, words(strings[key]), re.I), (lang, options["grid"], key)
            assert not re.search(not_word, words(strings[key]), re.I), (lang, options["grid"], key)


def test_the_czech_hexagon_table_page_says_policko_not_ctverec(client: TestClient) -> None:
    hexagon = page_strings(
        client, client.get(f"/cs/t/{create_table(client, options=HEXAGON).id}").text
    )
    assert hexagon["dots_box"] == "%(player)s získal políčko"
    assert hexagon["misere_rule"] == "Misère: vyhrává hráč s méně políčky."
    assert "čtverec" not in json.dumps(hexagon, ensure_ascii=False)
    assert "čtverci" not in json.dumps(hexagon, ensure_ascii=False)
    square = page_strings(
        client, client.get(f"/cs/t/{create_table(client, options=SQUARE).id}").text
    )
    assert square["dots_box"] == "%(player)s získal čtverec"
    assert square["misere_rule"] == "Misère: vyhrává hráč s méně čtverci."
    english = page_strings(
        client, client.get(f"/t/{create_table(client, options=HEXAGON).id}").text
    )
    assert english["dots_box"] == "Cell claimed by %(player)s"
    assert english["ann_move_claim_two"].endswith("and claimed two cells.")


@pytest.mark.parametrize("lang", ["fi", "ko"])
def test_the_analysis_values_name_cells_where_the_language_names_the_unit(lang: str) -> None:
    catalog = translations(lang)
    boxes, cells = client_strings(catalog), client_strings(catalog, True)
    for key in VALUES:
        assert re.search(CELL[lang], str(cells[key])), (lang, key, cells[key])
        assert re.search(BOX[lang], str(boxes[key])), (lang, key, boxes[key])
    for key, text in cells.items():
        assert not re.search(BOX[lang], str(text)), (lang, key, text)
    # the Swaptimum strings and the rest are the same on either board
    assert boxes["wins_connection"] == cells["wins_connection"]


def test_a_variant_page_of_the_hexagon_grid_labels_its_cells(client: TestClient) -> None:
    hexagon = page_strings(client, client.get("/cs/variants/hexagon-grid").text)
    assert "políčko" in hexagon["dots_box_sides"]
    misere = page_strings(client, client.get("/cs/variants/misere").text)
    assert "čtverec" in misere["dots_box_sides"]


def test_the_restricted_placement_of_the_swaptimum_rules_can_happen_in_a_game(
    client: TestClient,
) -> None:
    """Red moves first and a swap never changes the counts, so on Red's turn both colours
    have as many checkers; the diagram's position is reached by placements from the empty
    board, and Red may not place on the marked square."""
    found = re.search(
        r'data-diagram="restricted">.*?class="diagram__data">(.*?)</script>',
        client.get("/rules/swaptimum").text,
        re.S,
    )
    assert found
    view = json.loads(found.group(1))["table"]["view"]
    board = view["board"]
    assert view["to_move"] == "red" and view["winner"] is None
    assert board.count("red") == board.count("blue") == 16
    game = load(Swaptimum.name, {"size": view["size"]})
    assert isinstance(game, Swaptimum)
    red = [game.names[i] for i, colour in enumerate(board) if colour == "red"]
    blue = [game.names[i] for i, colour in enumerate(board) if colour == "blue"]
    state = game.initial()
    for r, b in zip(red, blue, strict=True):  # any order works: no subset holds a crosscut
        state = game.play(game.play(state, r), b)
    assert game.outcome(state) is None and state.to_move == "red"
    assert not game._crosscuts(state.red, state.blue)
    (marked,) = view["marked"]
    assert marked not in view["placements"]
    assert all(move.square != game.index[marked] for move in game.legal_moves(state))
    assert game._crosscut_makers(state.red, state.blue, "red") >> game.index[marked] & 1
    # the caption names the same square, in every language
    for lang, words in (
        ("en", f"Red may not place on {marked}"),
        ("fi", f"Punainen ei saa asettaa nappulaa ruutuun {marked}"),
        ("cs", f"Červený nesmí položit kámen na {marked}"),
        ("ko", f"빨강은 {marked}에 둘 수 없습니다"),
    ):
        assert words in client.get(prefixed(lang, "/rules/swaptimum")).text, lang
