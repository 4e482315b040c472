"""The atlas pages and the solved boards on the variant pages, in every language."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from playtable.ai import atlas

LANGUAGES = ("", "/fi", "/cs", "/ko")


@pytest.mark.parametrize("prefix", LANGUAGES)
def test_the_index_lists_every_stored_board_with_its_value(client: TestClient, prefix: str) -> None:
    page = client.get(prefix + "/atlas")
    assert page.status_code == 200
    rows = re.findall(r'data-board="([^"]+)"', page.text)
    assert rows == [e.board.key for e in atlas.load() if e.board.grid == "square"] + [
        e.board.key for e in atlas.load() if e.board.grid == "triangle"
    ] + [e.board.key for e in atlas.load() if e.board.grid == "hexagon"]
    three = re.search(r'data-board="square-3x3-standard-normal">(.*?)</tr>', page.text, re.S)
    assert three is not None and ">-3<" in three.group(1)


@pytest.mark.parametrize("prefix", LANGUAGES)
def test_a_board_page_maps_every_first_line(client: TestClient, prefix: str) -> None:
    entry = atlas.entry_for({"rows": 2, "cols": 2})
    assert entry is not None
    page = client.get(prefix + "/atlas/square-2x2-standard-normal")
    assert page.status_code == 200
    kinds = re.findall(r'<g data-line="([^"]+)" data-kind="(\w+)">', page.text)
    game = entry.board.game()
    assert [name for name, _ in kinds] == [line.name for line in game.board.lines]
    # +2 is a first-player win, 0 a draw: drawn differently, and labelled with the number.
    for (name, kind), value in zip(kinds, entry.first_moves, strict=True):
        assert kind == ("win" if value == 2 else "draw"), name
        label = re.search(
            rf'data-line="{name}" data-kind="\w+">.*?<text [^>]*>([^<]+)</text>', page.text, re.S
        )
        assert label is not None and label.group(1) == ("+2" if value == 2 else "0")


def test_predrawn_lines_are_drawn_but_not_valued(client: TestClient) -> None:
    page = client.get("/atlas/square-2x2-swedish-normal")
    assert page.status_code == 200
    assert page.text.count("data-predrawn") == 8
    assert page.text.count("<g data-line=") == 4


def test_an_unknown_board_is_not_found(client: TestClient) -> None:
    assert client.get("/atlas/square-9x9-standard-normal").status_code == 404


@pytest.mark.parametrize(
    ("slug", "family"),
    [("misere", ("square", "standard", True)), ("triangle-grid", ("triangle", "standard", False))],
)
def test_variant_pages_show_their_solved_boards(
    client: TestClient, slug: str, family: tuple[str, str, bool]
) -> None:
    page = client.get(f"/cs/variants/{slug}")
    assert page.status_code == 200
    assert "Vyřešené desky" in page.text
    shown = re.findall(r'data-board="([^"]+)"', page.text)
    expected = [
        e.board.key for e in atlas.load() if (e.board.grid, e.board.start, e.board.misere) == family
    ]
    assert shown == expected and expected


@pytest.mark.parametrize(
    ("prefix", "cells", "boxes"),
    [
        ("", "Second player wins by 2 cells", "Second player wins by 3 boxes"),
        ("/fi", "Toinen pelaaja voittaa 2 ruudulla", "Toinen pelaaja voittaa 3 laatikolla"),
        ("/cs", "Druhý hráč vyhrává o 2 políčka", "Druhý hráč vyhrává o 3 čtverce"),
        (
            "/ko",
            "나중에 두는 사람이 2칸 차이로 이깁니다",
            "나중에 두는 사람이 상자 3개 차이로 이깁니다",
        ),
    ],
)
def test_triangle_and_hexagon_results_count_cells_not_boxes(
    client: TestClient, prefix: str, cells: str, boxes: str
) -> None:
    """A triangle's or a hexagon's cells are not boxes (in Czech the page said "squares"):
    their results count cells, as their rules do; a square board's still count boxes."""
    triangle = client.get(f"{prefix}/variants/triangle-grid").text
    assert cells in triangle  # triangle of side 2: -2
    assert "boxes" not in triangle.split('id="solved"')[1].split("</section>")[0]
    assert cells in client.get(f"{prefix}/atlas/triangle-2-standard-normal").text
    assert boxes in client.get(f"{prefix}/atlas/square-3x3-standard-normal").text  # -3
