"""The analysis page's refusal: every game the site offers has an analysis, so the page says
only why it is not open yet; the message "for Dots and Boxes games only", which Swaptimum's
analysis made unreachable, is gone from the page and from the catalogs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from playtable.ai.analysis import analysable
from playtable.games import load, registry
from playtable.web.app import create_app
from tests.web.conftest import create_table

DEAD = "The analysis is for Dots and Boxes games only."
I18N = Path(__file__).resolve().parents[2] / "playtable" / "i18n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'analysis.sqlite3'}", secret="s" * 40)
    with TestClient(app) as c:
        yield c


def test_every_game_has_an_analysis() -> None:
    """Why the page needs no refusal by kind of game: a game without one would need it."""
    for name in registry():
        assert analysable(load(name, {})), name


@pytest.mark.parametrize(("game", "options"), [("dots", None), ("swaptimum", {"size": 5})])
def test_a_game_in_progress_is_refused_until_it_is_over(
    client: TestClient, game: str, options: dict[str, int] | None
) -> None:
    table = create_table(client, game, options)
    response = client.get(f"/t/{table.id}/analysis")
    assert response.status_code == 409
    assert "The analysis opens when the game is over" in response.text


def test_the_catalogs_hold_no_unreachable_refusal() -> None:
    for catalog in (I18N / "messages.pot", *sorted(I18N.glob("locales/*/LC_MESSAGES/*.po"))):
        assert DEAD not in catalog.read_text(encoding="utf-8"), catalog
