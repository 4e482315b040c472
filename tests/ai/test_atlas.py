"""The stored atlas (playtable/ai/atlas.json): re-proved on a sample, published values kept."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from playtable.ai import atlas
from playtable.cli import main as cli

ENTRIES = atlas.load()


def test_the_atlas_is_built_and_covers_every_small_board() -> None:
    stored = {e.board.key for e in ENTRIES}
    small = [b.key for b in atlas.boards() if len(b.game().board.lines) <= 24]
    assert small and set(small) <= stored, sorted(set(small) - stored)


def test_stored_values_agree_with_the_published_ones() -> None:
    # Every published result is stored (3x5 and 4x4 since the search proves them in minutes),
    # and each agrees.
    stored = {}
    for size, value in sorted(atlas.PUBLISHED.items()):
        entry = atlas.entry_for({"rows": size[0], "cols": size[1]})
        if entry is not None:
            stored[size] = (entry.value, value)
    assert set(stored) == set(atlas.PUBLISHED)
    assert all(found == published for found, published in stored.values()), stored


def test_every_entry_is_consistent() -> None:
    for entry in ENTRIES:
        game = entry.board.game()
        assert len(entry.first_moves) == len(game.board.lines)
        for line, value in enumerate(entry.first_moves):
            assert (value is None) == bool(game.predrawn >> line & 1), (entry.board.key, line)
        values = [v for v in entry.first_moves if v is not None]
        assert entry.value == (min(values) if entry.board.misere else max(values))
        assert entry.best_lines


def test_a_sample_is_proved_again() -> None:
    rng = random.Random(2026)
    quick = [e for e in ENTRIES if len(e.board.game().board.lines) <= 20]
    for entry in rng.sample(quick, 8):
        again = atlas.prove(entry.board, 60.0)
        assert (again.value, again.first_moves) == (entry.value, entry.first_moves), entry.board


def test_symmetric_lines_share_a_value() -> None:
    entry = atlas.entry_for({"rows": 3, "cols": 3})
    assert entry is not None
    for orbit in atlas.line_classes(entry.board.game()):
        assert len({entry.first_moves[line] for line in orbit}) == 1


def test_the_command_builds_an_atlas_file(tmp_path: Path) -> None:
    out = tmp_path / "atlas.json"
    keys = "square-2x2-standard-normal,triangle-2-standard-misere"
    assert cli(["atlas", "build", "--only", keys, "--output", str(out), "--time-limit", "30"]) == 0
    built = {e.board.key: e for e in atlas.load(out)}
    assert set(built) == set(keys.split(","))
    assert built["square-2x2-standard-normal"].value == 2
    # The same values as the shipped atlas (its node counts are those of the search that built
    # it, and a faster search visits fewer).
    shipped = {e.board.key: e for e in ENTRIES}
    for key, entry in built.items():
        assert (entry.value, entry.first_moves) == (shipped[key].value, shipped[key].first_moves)


def test_a_whole_build_keeps_the_big_boards_as_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 4x4 takes minutes to prove again: a whole build keeps its stored entry as it is.
    big = atlas.AtlasBoard("square", (4, 4), "standard", False)
    small = atlas.AtlasBoard("square", (2, 2), "standard", False)
    stored = next(e for e in ENTRIES if e.board == big)
    out = tmp_path / "atlas.json"
    atlas.save([stored], out)
    monkeypatch.setattr(atlas, "boards", lambda: [small, big])
    assert cli(["atlas", "build", "--output", str(out), "--time-limit", "30"]) == 0
    atlas.load.cache_clear()
    built = {e.board.key: e for e in atlas.load(out)}
    assert set(built) == {small.key, big.key}
    assert built[big.key] == stored
    assert built[small.key].value == 2
