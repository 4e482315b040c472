"""The rules review: what the rules pages, the variant pages and the atlas say, checked against
the engines and the precise readings (../shared/rules), in every language."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from playtable.web import guides
from playtable.web.app import create_app

SECRET = "test secret of the rules review, long enough to be a secret"
PREFIXES = ("", "/fi", "/cs", "/ko")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(
        create_app(f"sqlite+aiosqlite:///{tmp_path / 'rules.sqlite3'}", secret=SECRET)
    ) as c:
        yield c


def text_of(page: str) -> str:
    """The page's words, tags removed, spaces collapsed."""
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def paragraph(page: str, css_class: str) -> str:
    match = re.search(rf'<p class="{css_class}"[^>]*>(.*?)</p>', page, re.S)
    assert match, css_class
    return text_of(match.group(1))


# -- the atlas ---------------------------------------------------------------------------------
# What the atlas said before of every board, words that are wrong for the Swedish and Icelandic
# boards (not empty at the start) and for the triangle and hexagon grids (cells, not boxes).
EMPTY_BOARD = {
    "": "empty board",
    "/fi": "tyhj",  # tyhjästä laudasta, tyhjän laudan
    "/cs": "prázdné desk",  # z prázdné desky, prázdné desky
    "/ko": "빈 보드",
}
CELLS = {"": "cells", "/fi": "ruutu", "/cs": "políč", "/ko": "칸"}


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_atlas_lead_fits_every_board_it_lists(client: TestClient, prefix: str) -> None:
    """The index lists Swedish and Icelandic boards and triangles and hexagons: its lead said
    every value was proved 'from the empty board' and 'counts boxes'."""
    page = client.get(f"{prefix}/atlas").text
    assert 'data-board="square-4x4-swedish-normal"' in page
    assert 'data-board="triangle-2-standard-normal"' in page
    lead = paragraph(page, "lead")
    assert EMPTY_BOARD[prefix] not in lead.lower(), lead
    assert CELLS[prefix] in lead, lead
    misere = text_of(page.split('<p class="lead">', 1)[1].split("</p>", 2)[1])
    assert CELLS[prefix] in misere, misere


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_map_of_a_swedish_board_does_not_call_it_empty(client: TestClient, prefix: str) -> None:
    """The map of a board with pre-drawn lines values only the lines left to draw; its text
    said it showed 'every line of the empty board'."""
    page = client.get(f"{prefix}/atlas/square-2x2-swedish-normal").text
    assert "data-predrawn" in page
    section = page.split('id="first-moves"', 1)[1].split("<figure", 1)[0]
    assert EMPTY_BOARD[prefix] not in text_of(section).lower(), text_of(section)


CAPTIONS = {
    "": "Triangle of side 2: the first moves",
    "/fi": "Kolmio, sivu 2: ensimmäiset siirrot",
    "/cs": "Trojúhelník o straně 2: první tahy",
    "/ko": "한 변이 2인 삼각형: 첫 수",
}


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_map_caption_names_a_triangle_board_as_its_heading_does(
    client: TestClient, prefix: str
) -> None:
    """The caption put the board's name inside a sentence: 'First moves on the Triangle of side
    2 board', 'Ensimmäiset siirrot laudalla Kolmio, sivu 2', 'První tahy na desce Trojúhelník o
    straně 2'. It now leads with the name, as the heading writes it."""
    page = client.get(f"{prefix}/atlas/triangle-2-standard-normal").text
    caption = text_of(re.search(r'<figcaption id="map-caption">(.*?)</figcaption>', page, re.S)[1])
    assert caption.startswith(CAPTIONS[prefix]), caption


# -- numbers from the engines ------------------------------------------------------------------
def test_the_dots_rules_diagram_caption_counts_the_dots_it_shows(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The caption of the 4x4 diagram wrote '25 dots' by hand, beside counts the page computes."""
    real = guides.board_facts

    def facts(options: dict[str, object]) -> dict[str, int]:
        found = real(options)
        return {**found, "dots": found["dots"] + 1000}

    monkeypatch.setattr(guides, "board_facts", facts)
    for prefix in PREFIXES:
        page = client.get(f"{prefix}/rules/dots-and-boxes").text
        caption = re.search(r'<figcaption id="diagram-standard-caption">(.*?)</figcaption>', page)
        assert caption and "1025" in caption[1], caption
        assert not re.search(r"(?<!\d)25(?!\d)", caption[1]), caption[1]


def test_the_board_sizes_are_the_engines_limits(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'1 to 12 boxes each way', 'Radius 1 to 6', '2×2 to 26×26' were written by hand in the
    rules and variant pages; they are the engines' limits."""
    monkeypatch.setattr(
        guides,
        "size_limits",
        lambda: {"square": (1, 31), "triangle": (1, 32), "hexagon": (1, 33), "swaptimum": (3, 34)},
    )
    for prefix in PREFIXES:
        dots = text_of(client.get(f"{prefix}/rules/dots-and-boxes").text)
        for number in ("31", "32", "33"):
            assert number in dots, (prefix, number)
        for old in ("12", "10", "6"):
            assert not re.search(rf"\b1\s*(to|–|~|až)\s*{old}\b", dots), (prefix, old)
        swaptimum = text_of(client.get(f"{prefix}/rules/swaptimum").text)
        assert "3×3" in swaptimum and "34×34" in swaptimum and "26×26" not in swaptimum
        triangle = text_of(client.get(f"{prefix}/variants/triangle-grid").text)
        hexagon = text_of(client.get(f"{prefix}/variants/hexagon-grid").text)
        assert "32" in triangle and "33" in hexagon, prefix


def test_the_limits_are_those_the_engines_accept() -> None:
    from playtable.games import load

    for grid, (low, high) in guides.size_limits().items():
        if grid == "swaptimum":
            load("swaptimum", {"size": low})
            load("swaptimum", {"size": high})
            continue
        keys = ("rows", "cols") if grid == "square" else ("size",)
        for key in keys:
            for size in (low, high):
                load("dots", {"grid": grid, key: size})
            for size in (low - 1, high + 1):
                with pytest.raises(ValueError):
                    load("dots", {"grid": grid, key: size})


# -- Swaptimum's history, as the designer's notes tell it -------------------------------------
HISTORY = {
    "": "one of only five of Steere's last 18 attempted",
    "/fi": "yksi vain viidestä",
    "/cs": "jednou z pouhých pěti",
    "/ko": "18개 가운데",
}
THAT_YEAR = {"": "of that year", "/fi": "saman vuoden", "/cs": "z toho roku", "/ko": "그해"}


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_history_says_what_steere_wrote(client: TestClient, prefix: str) -> None:
    """Steere's notes: 'Of my last 18 attempted OOSCGs, only five (Halfcut, Clump, Crisscross,
    Flipstop, and Swaptimum) survived Luis's scrutiny', over a months-long odyssey. The page
    said 'one of the few of Steere's ... games of that year', a year the notes never name."""
    history = text_of(client.get(f"{prefix}/rules/swaptimum").text).split("(2023)", 1)[1]
    assert HISTORY[prefix] in history, history
    assert THAT_YEAR[prefix] not in history, history


# -- Finnish ------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/fi/rules/dots-and-boxes", "/fi/variants"])
def test_finnish_writes_the_shapes_of_the_cells_as_one_word(client: TestClient, path: str) -> None:
    """'Kolmion muotoiset ruudut' and 'Kuusikulmion muotoiset ruudut' are compounds in Finnish:
    kolmionmuotoiset, kuusikulmionmuotoiset."""
    page = text_of(client.get(path).text)
    assert "Kolmionmuotoiset ruudut" in page and "Kuusikulmionmuotoiset ruudut" in page
    assert "muotoiset ruudut" not in page.replace("onmuotoiset ruudut", "")


# -- Swaptimum's notation -----------------------------------------------------------------------
BOARD_ORDER = {
    "": "in board order (by column, then by row): d4:c3-d4",
    "/fi": "laudan järjestyksessä (ensin sarakkeen, sitten rivin mukaan): d4:c3-d4",
    "/cs": "v pořadí na desce (nejprve podle sloupce, pak podle řady): d4:c3-d4",
    "/ko": "보드 순서(열 먼저, 그다음 행)대로",
}


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_notation_says_the_swap_is_written_in_board_order(
    client: TestClient, prefix: str
) -> None:
    """The engine refuses d4:d4-c3 ('write the swap in board order') and every record writes
    c3-d4; the page showed d4:c3-d4 without saying why the squares come in that order, or that
    the placed square appears twice when its own checker is swapped."""
    from playtable.games import load

    game = load("swaptimum", {"size": 9})
    with pytest.raises(ValueError, match="board order"):
        game.parse_move("d4:d4-c3")
    page = text_of(client.get(f"{prefix}/rules/swaptimum").text)
    assert BOARD_ORDER[prefix] in page, page.split("d4:c3-d4")[0][-300:]


def test_the_new_tables_board_is_the_engines_default(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'A new table starts as a 5×5 square board with 60 lines': the 5×5 was written by hand
    and the 60 counted on a 5x5 board named by hand, beside the engine's own default."""
    from playtable.games.dots.game import DotsAndBoxes

    assert guides.default_board() == DotsAndBoxes.parse_settings({}).options()
    monkeypatch.setattr(guides, "default_board", lambda: {"grid": "square", "rows": 3, "cols": 7})
    for prefix in PREFIXES:
        page = text_of(client.get(f"{prefix}/rules/dots-and-boxes").text)
        assert "3×7" in page and "52" in page, prefix  # 2*3*7 + 3 + 7 lines
        assert "5×5" not in page, prefix
