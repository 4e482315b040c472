"""What the pictures and the replay's positions cost the server, as a visitor notices it: a
picture already drawn answers at once, a picture being drawn holds up no other request,
drawing is bounded (a request that would wait too long is told to come back), and one
address's flood is refused in its own language.

The slow drawing is our own drawing step made to wait on an event, so each test is as slow
as it says, whatever the machine: drawn in threads of the server
(``PLAYTABLE_PICTURE_PROCESSES=0``), where a monkeypatch reaches it, and, for the worker
processes the site draws in by default, a drawing that waits for a file to appear."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from playtable.games.records import GameRecord
from playtable.pictures import drawings
from playtable.pictures.positions import Position
from playtable.web.app import create_app
from playtable.web.limits import Limits
from tests.web.conftest import SECRET, create_table
from tests.web.test_limits import app_with
from tests.web.test_pictures import play_blue_wins

PATIENCE = 5.0  # seconds a request that should answer at once may take on a slow machine
GATE = "PLAYTABLE_TEST_PICTURE_GATE"  # the folder a worker's slow drawing waits in


@pytest.fixture
def client(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The site drawing in threads of its own process, where a monkeypatch reaches."""
    monkeypatch.setenv("PLAYTABLE_PICTURE_PROCESSES", "0")
    with TestClient(create_app(db_url, secret=SECRET)) as client:
        yield client


class Background:
    """One request sent from another thread, to be looked at while others go on."""

    def __init__(self, client: TestClient, path: str) -> None:
        self.response: Any = None
        self.thread = threading.Thread(target=self._run, args=(client, path), daemon=True)
        self.thread.start()

    def _run(self, client: TestClient, path: str) -> None:
        self.response = client.get(path)

    def result(self, timeout: float = PATIENCE) -> Any:
        """The response, or ``None`` if it has not come within ``timeout`` seconds."""
        self.thread.join(timeout)
        return self.response


@contextmanager
def slowed(monkeypatch: pytest.MonkeyPatch, target: Any, name: str) -> Iterator[threading.Event]:
    """``target.name`` waits, once started, until the event yielded is set (set for good on
    leaving, so nothing stays blocked); ``started`` (an attribute of the event) tells when
    a drawing is under way."""
    release = threading.Event()
    started = threading.Event()
    original: Callable[..., Any] = getattr(target, name)

    def slow(*args: Any, **kwargs: Any) -> Any:
        started.set()
        release.wait(30)
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, slow)
    release.started = started  # type: ignore[attr-defined]
    try:
        yield release
    finally:
        release.set()


def test_a_kept_png_answers_while_another_picture_is_drawn(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = play_blue_wins(client)
    preview = client.get(f"/t/{table.id}.png")  # the link preview, drawn once
    assert preview.status_code == 200
    with slowed(monkeypatch, drawings, "to_png") as release:
        drawing = Background(client, f"/t/{table.id}.png?ply=1")
        assert release.started.wait(PATIENCE)  # type: ignore[attr-defined]
        again = Background(client, f"/t/{table.id}.png")
        answered = again.result()
        assert answered is not None, "a kept picture waited for another one's drawing"
        assert answered.status_code == 200 and answered.content == preview.content
        assert drawing.result(0) is None  # still being drawn meanwhile
        release.set()
        done = drawing.result()
        assert done is not None and done.status_code == 200


def test_a_kept_gif_answers_while_gifs_are_drawn_and_too_many_are_refused_at_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, *others = [create_table(client) for _ in range(4)]
    gif = client.get(f"/t/{kept.id}.gif")
    assert gif.status_code == 200
    with slowed(monkeypatch, drawings, "to_gif") as release:
        first = Background(client, f"/t/{others[0].id}.gif")
        assert release.started.wait(PATIENCE)  # type: ignore[attr-defined]
        second = Background(client, f"/t/{others[1].id}.gif")  # waits its turn
        assert second.result(0.3) is None
        # A third is told at once to come back later, rather than queued for minutes.
        third = Background(client, f"/t/{others[2].id}.gif").result()
        assert third is not None, "a GIF request was queued behind the ones being drawn"
        assert third.status_code == 503
        assert int(third.headers["retry-after"]) >= 1
        assert third.text == "Too many pictures are being drawn right now. Try again in a moment."
        again = Background(client, f"/t/{kept.id}.gif").result()
        assert again is not None and again.content == gif.content
        release.set()
        for waiting in (first, second):
            response = waiting.result()
            assert response is not None and response.status_code == 200


@pytest.mark.parametrize(
    ("target", "name", "suffix"),
    [
        (drawings, "to_svg", ".svg?ply=1"),
        (Position, "to_json", "/position.json?ply=1"),
    ],
    ids=["svg", "position"],
)
def test_a_position_being_drawn_holds_up_no_other_request(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, target: Any, name: str, suffix: str
) -> None:
    table = play_blue_wins(client)
    with slowed(monkeypatch, target, name) as release:
        drawing = Background(client, f"/t/{table.id}{suffix}")
        assert release.started.wait(PATIENCE)  # type: ignore[attr-defined]
        health = Background(client, "/healthz").result()
        assert health is not None, "the server stopped answering while it drew a position"
        assert health.status_code == 200
        release.set()
        done = drawing.result()
        assert done is not None and done.status_code == 200


def test_a_position_asked_again_is_not_drawn_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = play_blue_wins(client)
    drawn: list[int] = []
    to_svg = drawings.to_svg
    monkeypatch.setattr(drawings, "to_svg", lambda scene: drawn.append(1) or to_svg(scene))
    to_json = Position.to_json
    monkeypatch.setattr(Position, "to_json", lambda self: drawn.append(2) or to_json(self))
    for suffix in (".svg?ply=2", "/position.json?ply=2"):
        first = client.get(f"/t/{table.id}{suffix}")
        for _ in range(3):
            again = client.get(f"/t/{table.id}{suffix}")
            assert again.status_code == 200 and again.content == first.content
    assert drawn == [1, 2]


def gated_svg(record: GameRecord, ply: int) -> bytes:
    """The SVG, drawn (in a worker process) once the file ``go`` is in the gate's folder;
    ``started`` tells the test it is waiting."""
    gate = Path(os.environ[GATE])
    (gate / "started").touch()
    deadline = time.monotonic() + 30
    while not (gate / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return drawings.svg(record, ply)


def wait_for(path: Path) -> bool:
    deadline = time.monotonic() + 60  # a worker process is spawned first
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_pictures_are_drawn_in_a_worker_process_that_holds_up_nothing(
    db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(GATE, str(tmp_path))  # the worker inherits it when spawned
    monkeypatch.delenv("PLAYTABLE_PICTURE_PROCESSES", raising=False)
    with TestClient(create_app(db_url, secret=SECRET)) as client:
        table = play_blue_wins(client)
        kept = client.get(f"/t/{table.id}.svg?ply=2")  # drawn in the worker, then kept
        assert kept.status_code == 200 and b"<svg" in kept.content
        monkeypatch.setattr(drawings, "svg", gated_svg)
        try:
            drawing = Background(client, f"/t/{table.id}.svg?ply=1")
            assert wait_for(tmp_path / "started")
            for path in ("/healthz", f"/t/{table.id}.svg?ply=2"):
                answered = Background(client, path).result()
                assert answered is not None, f"{path} waited for a drawing in the worker"
                assert answered.status_code == 200
            assert drawing.result(0) is None
        finally:
            (tmp_path / "go").touch()
        done = drawing.result(30)
        assert done is not None and done.status_code == 200
        assert done.content.count(b"line--drawn") < kept.content.count(b"line--drawn")


def test_one_address_flooding_pictures_is_refused_in_its_language(db_url: str) -> None:
    with app_with(db_url, Limits(reads_per_minute=4)) as client:
        table = create_table(client)  # creating spends no read
        for suffix in (".svg", ".svg?ply=0", ".png", "/position.json"):
            assert client.get(f"/t/{table.id}{suffix}").status_code == 200, suffix
        finnish = {"Accept-Language": "fi"}
        refused = client.get(f"/t/{table.id}.svg", headers=finnish)
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.text == "Liian monta toimintoa kerralla. Odota hetki ja yritä uudelleen."
        assert refused.headers["content-language"] == "fi"
        position = client.get(f"/t/{table.id}/position.json", headers=finnish)
        assert position.status_code == 429
        assert position.json()["code"] == "rate_limited"
        assert position.json()["error"].startswith("Liian monta toimintoa")
        # The choice made on the site (its cookie) wins over the browser's languages.
        client.cookies.set("pt_lang", "cs")
        czech = client.get(f"/t/{table.id}.png", headers=finnish)
        assert czech.status_code == 429 and czech.headers["content-language"] == "cs"
