"""The serving process's collector: what the app's start-up made is frozen out of its walks."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from playtable.web.collector import frozen_after_start_up


class Catalog:
    """Something a start-up loads and keeps for the process's life."""


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the test process keeps collecting as usual


def walked(obj: object) -> bool:
    """Whether the collector's collections still walk ``obj``."""
    return any(o is obj for o in gc.get_objects())


def app_loading(kept: list[Any], fail: bool = False) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if fail:
            raise RuntimeError("the store did not open")
        kept.append([Catalog() for _ in range(3)])
        yield

    async def home(request: Any) -> PlainTextResponse:
        return PlainTextResponse("served")

    return Starlette(routes=[Route("/", home)], lifespan=lifespan)


def test_what_the_start_up_loaded_is_frozen_once_it_is_done() -> None:
    kept: list[Any] = []
    app = frozen_after_start_up(app_loading(kept))
    with TestClient(app) as client:  # runs the lifespan's start-up
        assert kept, "the start-up ran"
        assert not walked(kept[0]), "the start-up's objects are out of the collector's walks"
        assert gc.get_freeze_count() > 0
        # what comes after the start-up is collected as usual, and requests pass through
        later = [Catalog()]
        assert walked(later)
        assert client.get("/").text == "served"


def test_a_failed_start_up_freezes_nothing() -> None:
    kept: list[Any] = []
    app = frozen_after_start_up(app_loading(kept, fail=True))
    with pytest.raises(RuntimeError, match="did not open"), TestClient(app):
        pass
    assert gc.get_freeze_count() == 0


def test_playtable_serve_runs_the_frozen_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """``playtable serve`` hands uvicorn the wrapped app (without starting a server here)."""
    import uvicorn

    from playtable import cli, logs

    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: served.append(app))
    # the server's logging (handlers on the playtable loggers) stays out of this test process
    monkeypatch.setattr(logs, "configure", lambda level: None)
    assert cli.main(["serve", "--database-url", "sqlite:///:memory:"]) == 0
    (app,) = served
    assert app.__qualname__ == "frozen_after_start_up.<locals>.wrapped"
    # and it still serves the site through the freeze
    kept_before = gc.get_freeze_count()
    with TestClient(app) as client:
        assert client.get("/").status_code == 200
        assert gc.get_freeze_count() > kept_before


def test_the_freeze_runs_in_the_event_loop_only_once() -> None:
    kept: list[Any] = []
    app = frozen_after_start_up(app_loading(kept))
    counts: list[int] = []

    async def lifespan_twice() -> None:
        messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])

        async def receive() -> dict[str, Any]:
            return next(messages)

        async def send(message: Any) -> None:
            counts.append(gc.get_freeze_count())

        await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)

    asyncio.run(lifespan_twice())
    # start-up complete (then frozen), shutdown complete: frozen by then, not before
    assert counts[0] == 0 and counts[1] > 0
