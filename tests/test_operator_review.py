"""What an operator running Playtable meets, found by running it as one (make run, the
settings, the migrations, the command-line tools): each test runs the real command or the
real server and fails on what was wrong before its fix (a traceback where one line was due,
a setting taken silently in a way the docs say it is not)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.nodes import SECRET, Node, free_port, request
from tests.test_serve_checks import playtable, refused


class _Server(Node):
    """``playtable serve`` in a session of its own, as a terminal runs it, so that Ctrl-C
    can be sent the way a terminal does: to the whole process group."""

    def launch(self) -> None:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
        with open(self.workdir / f"{self.name}.log", "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "playtable.cli", "serve", "--port", str(self.port)],
                cwd=self.workdir,
                env={**clean, "PLAYTABLE_SECRET": SECRET, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def signal_group(self, number: int, timeout: float = 30) -> int:
        """Send ``number`` to the process group (Ctrl-C's way); the exit status."""
        assert self.process is not None
        os.killpg(self.process.pid, number)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise


def test_ctrl_c_stops_the_site_in_order_without_a_worker_traceback(tmp_path: Path) -> None:
    """`make run`, a game against the computer and a picture, then Ctrl-C: the terminal
    showed four KeyboardInterrupt tracebacks of twenty lines (the computer's and the
    pictures' workers, idle on their job queues, got the terminal's SIGINT too)."""
    server = _Server(tmp_path, {}, "serve").start()
    body = {"game": "dots", "options": {"rows": 2, "cols": 2}, "seat": "blue"}
    status, table = request(server, "POST", "/api/tables", {**body, "opponent": {"bot": "easy"}})
    assert status == 201, table
    deadline = time.monotonic() + 20
    while request(server, "GET", f"/api/tables/{table['id']}")[1]["ply"] < 1:
        assert time.monotonic() < deadline, "the computer never moved"
        time.sleep(0.1)
    assert request(server, "GET", f"/t/{table['id']}.png")[0] == 200
    assert server.signal_group(signal.SIGINT) == 0  # what Ctrl-C in the terminal does
    time.sleep(1.5)  # a worker left behind would have written by now
    log = server.log()
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log
    # The games are kept: the same file serves them again.
    again = _Server(tmp_path, {}, "again").start()
    status, kept = request(again, "GET", f"/api/tables/{table['id']}")
    # uvicorn ends by raising the signal it caught again, once shut down in order.
    assert again.signal_group(signal.SIGTERM) in (0, -signal.SIGTERM)
    assert status == 200 and kept["ply"] >= 1, kept


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        # A traceback of 20 to 40 lines before, each.
        ("PLAYTABLE_SECRET", "short", "PLAYTABLE_SECRET must be at least 16 characters"),
        ("PLAYTABLE_REDIS_URL", "localhost:6379", "PLAYTABLE_REDIS_URL is not a Redis address"),
        ("PLAYTABLE_REDIS_URL", "http://cache/0", "PLAYTABLE_REDIS_URL is not a Redis address"),
        # Taken before, and the site ran otherwise than the operator meant:
        # every player behind the proxy shared its address's budgets (no proxy trusted),
        ("PLAYTABLE_TRUSTED_PROXIES", "nginx.internal", "PLAYTABLE_TRUSTED_PROXIES must list"),
        ("PLAYTABLE_TRUSTED_PROXIES", "10.0.0.5/24", "not '10.0.0.5/24'"),
        # every new table refused ('at most 0 a minute'), a socket closed as soon as opened,
        ("PLAYTABLE_TABLES_PER_MINUTE", "0", "PLAYTABLE_TABLES_PER_MINUTE must be at least 1"),
        ("PLAYTABLE_SOCKETS_PER_TABLE", "2.5", "PLAYTABLE_SOCKETS_PER_TABLE must be a whole"),
        ("PLAYTABLE_IDLE_SECONDS", "0", "PLAYTABLE_IDLE_SECONDS must be more than 0"),
        # a setting left off although the operator wrote 'true',
        ("PLAYTABLE_WS_COMPRESSION", "true", "PLAYTABLE_WS_COMPRESSION must be 1 (on) or 0"),
        ("PLAYTABLE_PUSH_PRIVATE_ENDPOINTS", "yes", "PLAYTABLE_PUSH_PRIVATE_ENDPOINTS must be 1"),
        # and push claims no push service takes.
        ("PLAYTABLE_VAPID_SUBJECT", "ops@example.org", "PLAYTABLE_VAPID_SUBJECT must be a mailto:"),
    ],
)
def test_a_setting_the_docs_refuse_stops_the_server_with_one_line(
    tmp_path: Path, variable: str, value: str, said: str
) -> None:
    line = refused(playtable(tmp_path, "serve", "--port", "0", env={variable: value}))
    assert said in line, line


def test_a_secret_file_that_cannot_be_used_is_named_in_one_line(tmp_path: Path) -> None:
    """A PLAYTABLE_SECRET_FILE that cannot be made (under a file, not a folder) or that is a
    folder ended 'playtable serve' with a traceback of 30 lines."""
    (tmp_path / "etc").write_text("a file where the folder should be")
    for path, said in [
        (tmp_path / "etc" / "secret", f"File exists ({tmp_path / 'etc'})"),
        (tmp_path, "Is a dir"),
    ]:
        env = {"PLAYTABLE_SECRET": "", "PLAYTABLE_SECRET_FILE": str(path)}
        line = refused(playtable(tmp_path, "serve", "--port", "0", env=env))
        assert f"PLAYTABLE_SECRET_FILE {path} cannot be read or made: {said}" in line, line


def test_db_downgrade_takes_only_a_release_s_revision_and_says_why_not(tmp_path: Path) -> None:
    """'playtable db downgrade base' dropped every table, every game with them, and said
    'database at base'; '-1' said 'database at -1'; a database that does not answer was a
    traceback of 40 lines; a missing SQLite file was made, empty, and called 'not a valid
    downgrade target'; a server still serving the file was left on a schema it did not know."""
    database = tmp_path / "site.sqlite3"
    env = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{database}"}
    assert playtable(tmp_path, "db", "upgrade", env=env).returncode == 0
    for revision in ("base", "-1"):
        line = refused(playtable(tmp_path, "db", "downgrade", "--", revision, env=env))
        assert "REVISION must be one of this release's revisions, 0001 to" in line, line
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'tables'").fetchone()
        (version,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert version != "0005"
    assert playtable(tmp_path, "db", "downgrade", "0005", env=env).returncode == 0
    line = refused(playtable(tmp_path, "db", "downgrade", "0007", env=env))
    assert "the database is at revision 0005, older than 0007" in line, line

    missing = {"PLAYTABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'none.sqlite3'}"}
    line = refused(playtable(tmp_path, "db", "downgrade", "0005", env=missing))
    assert "there is no database at" in line and not (tmp_path / "none.sqlite3").exists()

    away = {"PLAYTABLE_DATABASE_URL": f"postgresql://app:hunter2@127.0.0.1:{free_port()}/x"}
    line = refused(playtable(tmp_path, "db", "downgrade", "0005", env=away))
    assert "cannot be used" in line and "hunter2" not in line, line

    assert playtable(tmp_path, "db", "upgrade", env=env).returncode == 0
    server = Node(tmp_path, env, "serving").start()
    try:
        line = refused(playtable(tmp_path, "db", "downgrade", "0005", env=env))
        assert "stop every server first" in line, line
    finally:
        server.stop()


def test_the_command_line_tools_answer_bad_input_in_one_line(tmp_path: Path) -> None:
    """Each was a traceback (or a run that did what was not asked) before."""
    record = tmp_path / "game.txt"
    record.write_bytes(b'\xff\xfe[Game "dots"]\n')  # a UTF-16 file, as some editors save
    result = playtable(tmp_path, "replay", str(record))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{record}: not UTF-8 text" in result.stderr

    # nan passed the check 'time_limit <= 0' and solved without any limit.
    result = playtable(tmp_path, "solve", "--time-limit", "nan")
    assert result.returncode == 2 and "--time-limit must be positive" in result.stderr

    def atlas(*args: str) -> subprocess.CompletedProcess[str]:
        result = playtable(tmp_path, "atlas", *args)
        assert "Traceback" not in result.stderr, result.stderr
        return result

    output = tmp_path / "atlas.json"
    # A key that names no board proved nothing and wrote '0 boards'.
    result = atlas("build", "--only", "square-3x3-standrad-normal", "--output", str(output))
    assert result.returncode == 2 and not output.exists(), result.stderr
    assert "no board square-3x3-standrad-normal in the atlas" in result.stderr
    # An output that cannot be written was a traceback after every proof.
    for where in (tmp_path, tmp_path / "missing" / "atlas.json"):
        result = atlas("build", "--only", "square-1x2-standard-normal", "--output", str(where))
        assert result.returncode == 2 and f"cannot write {where}" in result.stderr
        assert "square-1x2-standard-normal:" not in result.stderr  # nothing proved first
    # A negative sample (ValueError of random.sample), a limit of 0 (SolverTimeout).
    for args in (["check", "--sample", "-3"], ["build", "--time-limit", "0"]):
        result = atlas(*args)
        assert result.returncode == 2 and "error: argument" in result.stderr, result.stderr
    result = atlas("check", "--sample", "1", "--time-limit", "0.000001")
    assert result.returncode == 1 and "not proved again within" in result.stderr


def test_serve_refuses_a_port_that_is_none(tmp_path: Path) -> None:
    """'playtable serve --port 99999' said 'Uvicorn running on http://127.0.0.1:99999' and
    listened on 34463 (the remainder by 65536), where nobody would look for it."""
    result = playtable(tmp_path, "serve", "--port", "99999", timeout=20)
    assert result.returncode == 2, result.stderr
    assert "argument --port: must be 0 to 65535, not 99999" in result.stderr


def test_a_vapid_key_file_that_cannot_be_used_is_named_at_start(tmp_path: Path) -> None:
    """Found at the first page that asked for the push key before: a 503, and a log line
    blaming the database ('GET /push/key refused, the database is away: FileNotFoundError')."""
    (tmp_path / "etc").write_text("a file where the folder should be")
    for path, said in [(tmp_path / "etc" / "vapid.pem", "File exists"), (tmp_path, "Is a dir")]:
        env = {"PLAYTABLE_VAPID_KEY_FILE": str(path)}
        line = refused(playtable(tmp_path, "serve", "--port", "0", env=env))
        assert f"PLAYTABLE_VAPID_KEY_FILE {path} cannot be read or made: {said}" in line, line
