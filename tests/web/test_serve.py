"""``playtable serve`` for real: uvicorn on a loopback port, a SQLite file under ./var/."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from playtable.tables import patch
from tests.web.conftest import DOTS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_serving(process: subprocess.Popen[str] | subprocess.Popen[bytes], base: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(base + "/", timeout=1).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("playtable serve did not start") from None
            time.sleep(0.1)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "playtable.cli",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=tmp_path,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(process, base)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
    # The default database and the server secret live in ./var/ of the working directory.
    assert (tmp_path / "var" / "playtable.sqlite3").exists()
    assert (tmp_path / "var" / "secret.key").stat().st_mode & 0o077 == 0


def logged_server(cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """``playtable serve`` started in ``cwd`` with its output piped, and its address."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
    command = [sys.executable, "-m", "playtable.cli", "serve", "--port", str(port)]
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return process, f"http://127.0.0.1:{port}"


def post_json(url: str, body: object) -> dict[str, str]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        data: dict[str, str] = json.load(response)
        return data


def test_serve_plays_over_a_real_websocket(server: str) -> None:
    created = post_json(server + "/api/tables", {"game": "dots", "options": DOTS, "seat": "red"})
    table_id, token = created["id"], created["seat_url"].rsplit("/", 1)[1]
    ws_url = server.replace("http", "ws") + f"/t/{table_id}/ws"
    with connect(ws_url, additional_headers={"Cookie": f"pt_{table_id}={token}"}) as ws:
        ws.send(json.dumps({"type": "join", "protocol": 2, "since": None}))
        state = json.loads(ws.recv(timeout=5))
        assert state["type"] == "state" and state["table"]["you"] == "red"
        # Oversized for the protocol but not for the server: an error, and the line stays up.
        ws.send(json.dumps({"type": "move", "ply": 0, "move": "x" * 20_000}))
        while (message := json.loads(ws.recv(timeout=5)))["type"] != "error":
            pass
        assert message["code"] == "too_large"
        ws.send(json.dumps({"type": "move", "ply": 0, "move": "a2-b2"}))
        # The move comes as a patch of the state the page holds (after any news of who is
        # online, which patches the same version).
        follower = patch.Follower()
        follower.receive(state)
        while (message := json.loads(ws.recv(timeout=5)))["type"] != "change" or (
            message["version"] == state["version"]
        ):
            follower.receive(message)
        assert message["base"] == follower.version and "table" not in message
        follower.receive(message)
        assert follower.table is not None and follower.table["moves"] == ["a2-b2"]


def test_the_access_log_never_shows_a_seat_token() -> None:
    import logging

    from playtable.cli import RedactLinks

    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        0,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/t/k3j9x2mq/seat/s3cr3t-T0ken_", "1.1", 303),
        None,
    )
    assert RedactLinks().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "GET /t/k3j9x2mq/seat/… HTTP/1.1" 303'


def test_the_server_log_says_when_what_and_where_from(tmp_path: Path) -> None:
    """An operator reads the log: each line has its time, level and source; the first says
    which database, bus and secret the process uses; a seat link is logged without its key."""
    process, base = logged_server(tmp_path)
    try:
        wait_until_serving(process, base)
        created = post_json(base + "/api/tables", {"game": "dots", "options": DOTS})
        urllib.request.urlopen(created["seat_url"], timeout=5).close()
        token = created["seat_url"].rsplit("/", 1)[1]
        table = created["seat_url"].split("/t/", 1)[1].split("/", 1)[0]
        # The same key spelled other ways (an operator's review found each in the log): an
        # encoded slash seats the visitor too, mistyped links are 404s, and uvicorn's own
        # line for a WebSocket refused at the handshake names its path.
        for path in (
            f"/t/{table}/seat%2F{token}",
            f"/t/{table}//seat/{token}",
            f"/T/{table}/SEAT/{token}",
        ):
            with contextlib.suppress(urllib.error.HTTPError):
                urllib.request.urlopen(base + path, timeout=5).close()
        with contextlib.suppress(Exception):
            connect(base.replace("http", "ws") + f"/t/{table}/seat/{token}", open_timeout=5).close()
    finally:
        process.terminate()
        out, err = process.communicate(timeout=10)
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}"
    first = next(line for line in err.splitlines() if "playtable" in line)
    database = f"sqlite:///{tmp_path.resolve() / 'var' / 'playtable.sqlite3'}"
    assert re.match(rf"{stamp} INFO playtable\.web\.app: Playtable \d", first), first
    assert f"database {database}" in first and "bus in this process" in first
    assert f"secret in {tmp_path.resolve() / 'var' / 'secret.key'}" in first
    seat = [line for line in out.splitlines() if "/seat/" in line]
    assert seat and re.match(rf"{stamp} INFO access: ", seat[0]), out
    assert token not in out + err and "/seat/…" in seat[0]


def test_the_log_shows_no_password_of_the_database_or_redis_address() -> None:
    from playtable.logs import shown_url

    assert shown_url("postgresql+asyncpg://app:hunter2@db/playtable") == (
        "postgresql+asyncpg://app:***@db/playtable"
    )
    # both drivers also take a password in the query
    shown = shown_url("redis://cache:6379/0?password=hunter2&socket_timeout=5")
    assert "hunter2" not in shown and "password=***" in shown and "socket_timeout=5" in shown
    assert "hunter2" not in shown_url("postgresql+asyncpg://db/p?sslmode=require&password=hunter2")


def test_a_server_stopped_while_the_computer_thinks_stops_cleanly(tmp_path: Path) -> None:
    """An operator restarts the site while the computer is thinking on a 5x5 board: the
    server exits at once, leaves none of its computer's worker processes behind, and its log
    ends without Python's "leaked semaphore objects" warning (it did every time)."""
    process, base = logged_server(tmp_path)
    try:
        wait_until_serving(process, base)
        five = {"grid": "square", "rows": 5, "cols": 5, "start": "standard"}
        body = {"game": "dots", "options": five, "seat": "blue", "opponent": {"bot": "hard"}}
        post_json(base + "/api/tables", body)  # the computer is red: it starts thinking
        deadline = time.monotonic() + 20
        while not (workers := _children(process.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert workers, "the computer's pool never started"
    finally:
        process.terminate()
        _out, err = process.communicate(timeout=15)
    assert "Application shutdown complete" in err, err
    assert "leaked semaphore" not in err, err
    deadline = time.monotonic() + 5
    while (left := [pid for pid in workers if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, [_command(pid) for pid in left]


def test_a_picture_worker_holds_only_the_drawing_code(tmp_path: Path) -> None:
    """What an operator sees in ``ps``: the link preview's PNG is drawn in a worker process of
    its own, and that worker holds the drawing code, not a second copy of the web server
    (it imported Starlette, Jinja2, SQLAlchemy and the table service: 79 MB resident, for
    about 33 MB now)."""
    process, base = logged_server(tmp_path)
    try:
        wait_until_serving(process, base)
        created = post_json(base + "/api/tables", {"game": "dots", "options": DOTS, "seat": "red"})
        with urllib.request.urlopen(f"{base}/t/{created['id']}.png", timeout=30) as response:
            assert response.headers["Content-Type"] == "image/png"
        workers = _children(process.pid)
        assert workers, "the picture was not drawn in a worker process"
        for worker in workers:
            status = Path(f"/proc/{worker}/status").read_text()
            resident = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.MULTILINE)
            assert resident is not None
            assert int(resident.group(1)) < 50 * 1024, _command(worker)
    finally:
        process.terminate()
        process.communicate(timeout=15)


def _alive(pid: int) -> bool:
    try:
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:4]
    except OSError:
        return False


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return "gone"


def _children(pid: int) -> list[int]:
    """The computer's workers: processes whose parent is ``pid`` (Linux's /proc), spawned by
    multiprocessing (not its resource tracker)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        child = int(status.parent.name)
        if re.search(rf"^PPid:\s+{pid}$", text, re.MULTILINE) and "spawn_main" in _command(child):
            found.append(child)
    return found


def test_the_log_filter_takes_keys_out_of_tracebacks_and_leaves_names() -> None:
    import logging

    from playtable.access_log import RedactLinks

    token = "ZyjtvrwNOl11JMeJ2LUizHrkYZoE9TIg"
    try:
        raise ValueError(f"no seat for /t/k3j9x2mq/seat/{token}")
    except ValueError:
        record = logging.LogRecord(
            "playtable.web",
            logging.WARNING,
            __file__,
            0,
            "%s failed",
            ("ConnectionDoesNotExistError",),
            sys.exc_info(),
        )
    assert RedactLinks().filter(record)
    line = logging.Formatter().format(record)
    assert token not in line and "ConnectionDoesNotExistError failed" in line


def test_a_server_without_redis_loads_neither_redis_nor_the_push_sender(tmp_path: Path) -> None:
    """What ``make run`` starts holds no Redis client and no Web Push sender until it needs
    them: they cost each process about 27 MB (the app's imports, 107 MB before, 80 MB
    now), and a site on SQLite uses no Redis; a push is sent only for a correspondence
    move to a player who asked for one."""
    script = (
        "import sys\n"
        "from starlette.testclient import TestClient\n"
        "from playtable.web.app import create_app\n"
        f"app = create_app('sqlite+aiosqlite:///{tmp_path / 'light.sqlite3'}')\n"
        "with TestClient(app) as client:\n"
        "    assert client.get('/').status_code == 200\n"
        "    assert client.get('/push/key').status_code == 200\n"
        "print(' '.join(sorted(m for m in ('redis', 'pywebpush', 'requests', 'aiohttp')\n"
        "                      if m in sys.modules)))\n"
    )
    env = {**os.environ, "PLAYTABLE_VAPID_KEY_FILE": str(tmp_path / "vapid.pem")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], done.stdout
