"""The server secret that invitation links are derived from."""

from __future__ import annotations

from pathlib import Path

import pytest

from playtable.web.app import load_secret


def test_the_secret_file_is_made_once_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLAYTABLE_SECRET", raising=False)
    monkeypatch.setenv("PLAYTABLE_SECRET_FILE", str(tmp_path / "var" / "secret.key"))
    first = load_secret()
    assert len(first) >= 32
    assert load_secret() == first  # a restart derives the same invitation links
    assert (tmp_path / "var" / "secret.key").stat().st_mode & 0o077 == 0


def test_the_environment_and_the_argument_come_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYTABLE_SECRET_FILE", str(tmp_path / "unused.key"))
    monkeypatch.setenv("PLAYTABLE_SECRET", "from the environment")
    assert load_secret() == b"from the environment"
    assert load_secret("given") == b"given"
    assert not (tmp_path / "unused.key").exists()
