"""The server secret that invitation links are derived from."""

from __future__ import annotations

import subprocess
import sys
import time
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


def test_servers_starting_at_once_share_one_whole_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two servers started together on a fresh checkout: one makes the file, and the other
    never reads it empty (it crashed with 'the server secret needs at least 128 bits')."""
    monkeypatch.delenv("PLAYTABLE_SECRET", raising=False)
    key = tmp_path / "var" / "secret.key"
    monkeypatch.setenv("PLAYTABLE_SECRET_FILE", str(key))
    # Another process has just made the file and not yet written it.
    key.parent.mkdir()
    key.touch(mode=0o600)
    code = "from playtable.web.app import load_secret; print(load_secret().decode())"
    waits = "import playtable.web.app; print('imported', flush=True); " + code
    reader = subprocess.Popen([sys.executable, "-c", waits], stdout=subprocess.PIPE, text=True)
    assert reader.stdout is not None and reader.stdout.readline() == "imported\n"
    time.sleep(0.3)  # the reader is reading the empty file meanwhile
    key.write_text("a" * 64 + "\n")
    out, _ = reader.communicate(timeout=30)
    assert out.strip() == "a" * 64
    # And of many fresh starts at once, every one reads the same secret.
    key.unlink()
    starts = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    secrets = {start.communicate(timeout=60)[0].strip() for start in starts}
    assert len(secrets) == 1 and len(secrets.pop()) == 64
    assert [p.name for p in key.parent.iterdir()] == ["secret.key"]  # no draft left behind
