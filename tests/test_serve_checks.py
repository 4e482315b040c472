"""What an operator sees when ``playtable serve`` (or ``playtable db``) cannot run with what
it was given: one line that names the problem and exit status 2, never a traceback of dozens
of lines, nor a site that runs oddly (an operator's review found each of these)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.nodes import Node, free_port


def playtable(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
    return subprocess.run(
        [sys.executable, "-m", "playtable.cli", *args],
        cwd=tmp_path,
        env={**clean, "PLAYTABLE_SECRET": "checks-" + "0123456789abcdef" * 2, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def refused(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("playtable: ")]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("PLAYTABLE_BOT_WORKERS", "abc", "PLAYTABLE_BOT_WORKERS must be a whole number"),
        ("PLAYTABLE_ANALYSIS_WORKERS", "1.5", "PLAYTABLE_ANALYSIS_WORKERS must be a whole"),
        ("PLAYTABLE_BOT_BUDGET", "-1", "PLAYTABLE_BOT_BUDGET must be more than 0"),
        ("PLAYTABLE_BOT_BUDGET", "nan", "PLAYTABLE_BOT_BUDGET must be a number"),
        ("PLAYTABLE_BOT_BUDGET", "5", "PLAYTABLE_BOT_BUDGET (5 s) must be below PLAYTABLE_BOT_CAP"),
        ("PLAYTABLE_PENDING_PER_ADDRESS", "0", "PLAYTABLE_PENDING_PER_ADDRESS must be at least 1"),
        ("PLAYTABLE_READ_TIMEOUT", "-5", "PLAYTABLE_READ_TIMEOUT must be more than 0"),
        ("PLAYTABLE_TABLES_PER_MINUTE", "many", "PLAYTABLE_TABLES_PER_MINUTE must be a whole"),
        ("PLAYTABLE_DATABASE_URL", "notaurl", "the database address 'notaurl' is not one"),
        ("PLAYTABLE_DATABASE_URL", "mysql://db/x", "the database must be SQLite or PostgreSQL"),
    ],
)
def test_a_setting_the_site_cannot_run_with_is_named_in_one_line(
    tmp_path: Path, variable: str, value: str, said: str
) -> None:
    line = refused(playtable(tmp_path, "serve", "--port", "0", env={variable: value}))
    assert said in line, line


def test_an_unreachable_database_is_said_in_one_line(tmp_path: Path) -> None:
    url = f"postgresql://app:hunter2@127.0.0.1:{free_port()}/playtable"
    for command in (["serve", "--port", "0"], ["db", "upgrade"]):
        line = refused(playtable(tmp_path, *command, env={"PLAYTABLE_DATABASE_URL": url}))
        assert "cannot be used" in line and "hunter2" not in line, line


def test_a_database_a_newer_release_upgraded_is_refused_with_what_to_do(tmp_path: Path) -> None:
    """An old process restarting during a roll (or a release rolled back) found a schema it
    did not know and died with 90 lines of Alembic's traceback."""
    database = tmp_path / "site.sqlite3"
    url = f"sqlite:///{database}"
    assert playtable(tmp_path, "db", "upgrade", "--database-url", url).returncode == 0
    with sqlite3.connect(database) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099'")
    for command in (["serve", "--port", "0"], ["db", "upgrade"]):
        line = refused(playtable(tmp_path, *command, env={"PLAYTABLE_DATABASE_URL": url}))
        assert "revision 0099, which this release does not know" in line, line
        assert "playtable db downgrade" in line, line


def test_db_downgrade_brings_the_schema_back_and_serve_brings_it_up_again(tmp_path: Path) -> None:
    database = tmp_path / "site.sqlite3"
    url = f"sqlite:///{database}"
    assert playtable(tmp_path, "db", "upgrade", "--database-url", url).returncode == 0
    result = playtable(tmp_path, "db", "downgrade", "0007", "--database-url", url)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(database) as conn:
        (version,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert version == "0007" and "site_heartbeat" not in tables
    assert playtable(tmp_path, "db", "upgrade", "--database-url", url).returncode == 0
    line = refused(playtable(tmp_path, "db", "downgrade", "0042", "--database-url", url))
    assert "0042" in line, line


def test_db_upgrade_prints_no_password(tmp_path: Path, postgres_url: str) -> None:
    url = postgres_url + "?password=hunter2"
    result = playtable(tmp_path, "db", "upgrade", "--database-url", url)
    assert result.returncode == 0, result.stderr
    assert "database at head" in result.stdout and "hunter2" not in result.stdout


def test_a_second_server_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    """Two processes on one SQLite file without Redis each kept their players' moves to
    themselves: a player on the other process saw nothing and lost on time."""
    env = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'site.sqlite3'}"}
    first = Node(tmp_path, env, "first").start()
    try:
        line = refused(playtable(tmp_path, "serve", "--port", "0", env=env))
        assert "another 'playtable serve' is serving" in line, line
        assert "PLAYTABLE_REDIS_URL" in line
    finally:
        first.stop()
    time.sleep(0.2)
    again = Node(tmp_path, env, "again").start()  # the first one gone, the file is free
    again.stop()
