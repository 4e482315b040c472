"""The stored atlas (playtable/ai/atlas.json): re-proved on a sample, published values kept."""

from __future__ import annotations

import random
from pathlib import Path

from playtable.ai import atlas
from playtable.cli import main as cli

ENTRIES = atlas.load()


def test_the_atlas_is_built_and_covers_every_small_board() -> None:
    stored = {e.board.key for e in ENTRIES}
    small = [b.key for b in atlas.boards() if len(b.game().board.lines) <= 24]
    assert small and set(small) <= stored, sorted(set(small) - stored)


def test_stored_values_agree_with_the_published_ones() -> None:
    # Of the published results, the atlas stores the boards whose every first line the solver
    # proves in its time (2x2 and 3x3; 3x5 and 4x4 are beyond it): each stored one agrees.
    stored = {}
    for size, value in sorted(atlas.PUBLISHED.items()):
        entry = atlas.entry_for({"rows": size[0], "cols": size[1]})
        if entry is not None:
            stored[size] = (entry.value, value)
    assert {(2, 2), (3, 3)} <= set(stored)
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
