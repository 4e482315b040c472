"""Per-address budgets on what costs the server, each refusal a clear error; with Redis they
hold across processes."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from playtable.bus import InProcessBus
from playtable.tables import tokens
from playtable.web.app import create_app
from playtable.web.limits import Limits
from tests.web.conftest import DOTS, SECRET, Socket, claim, connect, create_table
from tests.web.test_limits import app_with

NEW_TABLE = {"game": "dots", "options": DOTS, "seat": "red"}


def test_joins_and_table_pages_past_the_budget_are_refused_then_the_page_retries(
    db_url: str,
) -> None:
    with app_with(db_url, Limits(reads_per_minute=3)) as client:
        table = create_table(client)
        assert client.get(f"/t/{table.id}/watch").status_code == 200
        for _ in range(2):
            with connect(client, table.id, watch=True) as session:
                Socket(session).join()
        with connect(client, table.id, watch=True) as session:
            socket = Socket(session)
            socket.send("join", protocol=2, since=None)
            error = socket.error()
            assert error["code"] == "rate_limited" and "try again in" in error["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive()
            assert closed.value.code == 1013  # try again later: the page reconnects
        page = client.get(f"/t/{table.id}/watch")
        assert page.status_code == 429 and int(page.headers["retry-after"]) >= 1


def test_offers_have_a_budget_per_address(db_url: str) -> None:
    with app_with(db_url, Limits(offers_per_minute=2)) as client:
        table = create_table(client)
        blue = claim(client, table)
        with connect(client, table.id, table.token) as session:
            red = Socket(session)
            red.join()
            red.send("offer_draw")
            red.until_state(lambda t: t["offers"]["draw"] == "red")
            with connect(client, table.id, blue) as other:
                blue_socket = Socket(other)
                blue_socket.join()
                blue_socket.send("answer_draw", accept=False)
                blue_socket.until_state(lambda t: t["offers"]["draw"] is None)
            red.until_state(lambda t: t["offers"]["draw"] is None)
            red.send("offer_draw")  # counted, though declined offers wait for a move
            assert red.error()["code"] == "illegal"
            red.send("offer_draw")
            assert red.error()["code"] == "rate_limited"


def test_a_rematch_counts_as_a_new_table(db_url: str) -> None:
    with app_with(db_url, Limits(tables_per_minute=1)) as client:
        table = create_table(client)  # the one table of this minute
        blue = claim(client, table)
        with connect(client, table.id, blue) as blue_session:
            blue_socket = Socket(blue_session)
            blue_socket.join()
            blue_socket.send("resign")
            blue_socket.until_state(lambda t: t["outcome"] is not None)
            blue_socket.send("rematch")
            assert blue_socket.error()["code"] == "rate_limited"


def test_the_budget_holds_across_processes_through_redis(db_url: str, redis_url: str) -> None:
    import os
    import secrets

    os.environ["PLAYTABLE_REDIS_PREFIX"] = f"playtable-test-budget-{secrets.token_hex(4)}:"
    try:
        apps = [
            create_app(
                db_url,
                secret=SECRET,
                bus=InProcessBus(),  # the bus does not matter here: only the budgets' Redis
                redis_url=redis_url,
                limits=Limits(tables_per_minute=3),
                proxies=[],
            )
            for _ in range(2)
        ]
        with TestClient(apps[0]) as one, TestClient(apps[1]) as two:
            statuses = [
                client.post("/api/tables", json=NEW_TABLE).status_code
                for client in (one, two, one, two, one)
            ]
    finally:
        del os.environ["PLAYTABLE_REDIS_PREFIX"]
    assert statuses == [201, 201, 201, 429, 429]


@pytest.mark.anyio
async def test_the_solver_time_is_one_budget_for_every_process(redis_url: str) -> None:
    """Two processes spend one address's solver seconds in Redis: what one spent, the other
    sees, and a job that outran what was left uses it all up (the next request waits)."""
    import secrets

    from playtable.web.budgets import Budget, Budgets

    prefix = f"playtable-test-solver-{secrets.token_hex(4)}:"
    limits = Limits(solver_seconds_per_minute=2.0)  # 20 tenths of a second
    one, two = Budgets(limits, redis_url, prefix), Budgets(limits, redis_url, prefix)
    try:
        assert await one.left(Budget.SOLVER_TIME, "192.0.2.7") is None
        await one.spend(Budget.SOLVER_TIME, "192.0.2.7", 15)
        assert await two.left(Budget.SOLVER_TIME, "192.0.2.7") is None  # 5 left
        await two.spend(Budget.SOLVER_TIME, "192.0.2.7", 40)  # outran the 5 left
        wait = await one.left(Budget.SOLVER_TIME, "192.0.2.7")
        assert wait is not None and 1 <= wait <= 60
        assert await two.left(Budget.SOLVER_TIME, "198.51.100.2") is None  # another address
    finally:
        await one.close()
        await two.close()


def test_my_games_spends_a_read_for_each_table_its_cookies_name(db_url: str) -> None:
    """``/games`` and the home page's count read every table the seat cookies name (a
    forged request names a hundred big boards): each table is a read of the address's
    budget; past it, /games is refused in the page's language and the home page still
    opens, without the count."""
    with app_with(db_url, Limits(reads_per_minute=12)) as client:
        tables = [create_table(client) for _ in range(5)]
        for table in tables:
            client.cookies.set(f"pt_{table.id}", table.token)
        assert "5 games are waiting for your move" in client.get("/").text  # five reads
        page = client.get("/games")  # five more
        assert page.status_code == 200 and page.text.count("data-table=") == 5
        assert client.get("/games").status_code == 200  # two left: the last is spent
        refused = client.get("/fi/games")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert "Liian monta toimintoa kerralla" in refused.text
        home = client.get("/")
        assert home.status_code == 200 and "waiting for your move" not in home.text


def _said(socket: Socket) -> str:
    """What became of a quick message just sent: "heard" (the table told of it) or the
    error's code."""
    while True:
        message = socket.receive()
        if message["type"] == "error":
            return str(message["code"])
        if message["type"] == "event" and message["event"]["kind"] == "quick":
            return "heard"


def test_a_seats_quick_messages_are_counted_across_processes(db_url: str, redis_url: str) -> None:
    """Each process keeps a seat to three quick messages at once: with its sockets on two
    processes a player had twice that, and N times on N. A minute's allowance per seat in
    Redis holds for all of them."""
    import os
    import secrets

    os.environ["PLAYTABLE_REDIS_PREFIX"] = f"playtable-test-quick-{secrets.token_hex(4)}:"
    try:
        apps = [
            create_app(
                db_url,
                secret=SECRET,
                bus=InProcessBus(),
                redis_url=redis_url,
                limits=Limits(quick_messages_per_minute=4),
                proxies=[],
            )
            for _ in range(2)
        ]
        with TestClient(apps[0]) as one, TestClient(apps[1]) as two:
            table = create_table(one)
            claim(one, table)
            with connect(one, table.id, table.token) as a, connect(two, table.id, table.token) as b:
                first, second = Socket(a), Socket(b)
                first.join()
                second.join()
                heard = []
                for socket in (first, first, first, second, second, second):
                    socket.send("say", message="good_luck")
                    heard.append(_said(socket))
    finally:
        del os.environ["PLAYTABLE_REDIS_PREFIX"]
    # three from the first process, one more from the second, then the minute's four are up
    assert heard == ["heard"] * 4 + ["rate_limited"] * 2


def test_my_games_spends_a_read_for_each_rematch_it_follows(db_url: str) -> None:
    """My games follows a seat's rematches (their seats come from its key): a request with one
    seat cookie, of a game rematched again and again, read every table of the line for one
    read of the budget (a hundred boards for one, each visit about 0.2 s of the server's
    time). Each rematch read is a read of the budget too; past it the line is listed no
    further, and the next visit is refused."""
    with app_with(db_url, Limits(reads_per_minute=12)) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        created = client.portal.call(service.create_table, "dots", DOTS, "red")
        first, red = created.id, created.seat_token
        claimed = client.portal.call(service.claim_invite, first, created.invite_token)
        assert claimed is not None
        table_id, blue = first, claimed[1]
        for _ in range(5):  # the game and five rematches, each resigned and played again
            client.portal.call(service.resign, table_id, red)
            client.portal.call(service.rematch, table_id, red)
            client.portal.call(service.rematch, table_id, blue)
            rematch = client.portal.call(service.snapshot, table_id, None)["rematch_id"]
            red, blue = tokens.rematch_token(blue, rematch), tokens.rematch_token(red, rematch)
            table_id = rematch

        def visit(path: str = "/games") -> int:
            client.cookies.clear()  # the first game's cookie alone, every time
            client.cookies.set(f"pt_{first}", created.seat_token)
            page = client.get(path)
            assert page.status_code != 200 or page.text.count("data-table=") == 6
            return page.status_code

        assert [visit(), visit(), visit()] == [200, 200, 429]


def test_push_unsubscribes_have_the_reads_budget(db_url: str) -> None:
    """``DELETE /t/{id}/push`` spent nothing: a player at their own table sent it 700 times
    a second, each a write to the store (its write lock, every table's moves behind it).
    It is a read of the budget, as ``/push/kept`` and the page's subscription are."""
    with app_with(db_url, Limits(reads_per_minute=3)) as client:
        table = create_table(client)
        client.cookies.set(f"pt_{table.id}", table.token)
        gone = {"endpoint": "https://push.example/gone"}
        codes = [client.request("DELETE", f"/t/{table.id}/push", json=gone) for _ in range(4)]
        assert [c.status_code for c in codes] == [200, 200, 200, 429]
        assert codes[0].json() == {"removed": False}
        assert int(codes[3].headers["retry-after"]) >= 1


def test_forged_carry_codes_have_the_reads_budget(db_url: str) -> None:
    """``POST /games/carry/{code}`` spent nothing: a forged code costs the store a
    transaction, and one address could send them without end. It is a read of the budget."""
    with app_with(db_url, Limits(reads_per_minute=3)) as client:
        home = client.get("/")
        csrf = home.cookies.get("pt_csrf") or client.cookies.get("pt_csrf")
        forged = [client.post(f"/games/carry/{'A' * 31}{n}", data={"csrf": csrf}) for n in range(4)]
        assert [r.status_code for r in forged] == [410, 410, 410, 429]
        assert int(forged[3].headers["retry-after"]) >= 1
