"""Seated players always get in; one address cannot take all the sockets."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from playtable.web.connections import TOLD_FOR
from playtable.web.limits import Limits
from tests.web.conftest import Socket, claim, connect, create_table
from tests.web.test_limits import app_with


def refused(session: object) -> bool:
    socket = Socket(session)
    error = socket.receive()
    if error.get("code") != "too_many_connections":
        return False
    with pytest.raises(WebSocketDisconnect) as closed:
        socket.receive()
    return closed.value.code == 1013


def refused_at_the_handshake(client: TestClient, table_id: str, token: str | None = None) -> bool:
    try:
        with connect(client, table_id, token, watch=token is None):
            return False
    except WebSocketDisconnect:
        return True


def test_a_table_full_of_spectators_still_lets_its_players_in(db_url: str) -> None:
    limits = Limits(sockets_per_table=4, sockets_per_address=100, sockets_per_address_per_table=100)
    with app_with(db_url, limits) as client:
        table = create_table(client)
        blue = claim(client, table)
        with ExitStack() as stack:
            for _ in range(4):
                Socket(stack.enter_context(connect(client, table.id, watch=True))).join()
            assert refused(stack.enter_context(connect(client, table.id, watch=True)))
            # Both players, even with a second tab each, get their seats.
            for token, seat in ((table.token, "red"), (blue, "blue"), (table.token, "red")):
                session = stack.enter_context(connect(client, table.id, token))
                assert Socket(session).join()["table"]["you"] == seat


def test_one_address_has_a_cap_per_table_and_in_all(db_url: str) -> None:
    limits = Limits(sockets_per_table=100, sockets_per_address=5, sockets_per_address_per_table=2)
    with app_with(db_url, limits) as client:
        tables = [create_table(client) for _ in range(4)]
        with ExitStack() as stack:
            first = tables[0]
            for _ in range(2):
                Socket(stack.enter_context(connect(client, first.id, watch=True))).join()
            assert refused(stack.enter_context(connect(client, first.id, watch=True)))
            for other in tables[1:3]:
                Socket(stack.enter_context(connect(client, other.id, watch=True))).join()
            Socket(stack.enter_context(connect(client, tables[3].id, watch=True))).join()
            # Five sockets in all from this address: the sixth is refused on any table; the
            # address was told why a moment ago, so this time at the handshake.
            assert refused_at_the_handshake(client, tables[3].id)
            # The owner of a seat still gets in from the same address.
            seated = stack.enter_context(connect(client, tables[3].id, tables[3].token))
            assert Socket(seated).join()["table"]["you"] == tables[3].seat
        # Closed sockets are counted out.
        with connect(client, first.id, watch=True) as again:
            Socket(again).join()


def test_an_address_that_was_told_is_refused_at_the_handshake_until_it_may_connect(
    db_url: str,
) -> None:
    limits = Limits(sockets_per_table=100, sockets_per_address=2, sockets_per_address_per_table=2)
    with app_with(db_url, limits) as client:
        connections = client.app.state.connections  # type: ignore[attr-defined]
        now = [1000.0]
        connections.clock = lambda: now[0]
        table = create_table(client)
        with ExitStack() as stack:
            held = [stack.enter_context(connect(client, table.id, watch=True)) for _ in range(2)]
            for session in held:
                Socket(session).join()
            # Told once why, then refused before the socket opens: a client reconnecting in
            # a loop costs an HTTP request each.
            assert refused(stack.enter_context(connect(client, table.id, watch=True)))
            for _ in range(3):
                assert refused_at_the_handshake(client, table.id)
            # The seat's owner still gets in from the same address.
            seated = stack.enter_context(connect(client, table.id, table.token))
            assert Socket(seated).join()["table"]["you"] == table.seat
            now[0] += TOLD_FOR  # a while later, still over the cap: told again
            assert refused(stack.enter_context(connect(client, table.id, watch=True)))
            assert refused_at_the_handshake(client, table.id)
        # Its sockets closed, the address gets in at once.
        with connect(client, table.id, watch=True) as again:
            Socket(again).join()


def test_an_address_over_its_join_budget_is_refused_at_the_handshake_until_it_refills(
    db_url: str,
) -> None:
    with app_with(db_url, Limits(reads_per_minute=2)) as client:
        connections = client.app.state.connections  # type: ignore[attr-defined]
        now = [1000.0]
        connections.clock = lambda: now[0]
        table = create_table(client)
        blue = claim(client, table)
        error: dict[str, Any] = {}
        # The budget's two joins, or fewer if claiming read the table; one more if the burst
        # straddles the end of a minute (the sliding window weighs the last one's by time left).
        for _ in range(5):
            with connect(client, table.id, watch=True) as session:
                socket = Socket(session)
                socket.send("join", protocol=2, since=None)
                if (error := socket.receive())["type"] == "error":
                    break
        assert error["code"] == "rate_limited"
        wait = int(error["message"].split("try again in ")[1].split()[0])
        assert refused_at_the_handshake(client, table.id)
        # A forged seat cookie does not get round it.
        assert refused_at_the_handshake(client, table.id, "forged-token")
        # A seated player is still told the reason in words.
        with connect(client, table.id, blue) as session:
            socket = Socket(session)
            socket.send("join", protocol=2, since=None)
            assert socket.error()["code"] == "rate_limited"
        now[0] += wait  # the wait it was told is over: the handshake is not refused
        with connect(client, table.id, watch=True) as session:
            socket = Socket(session)
            socket.send("join", protocol=2, since=None)
            assert socket.error()["code"] == "rate_limited"  # (the budget's own clock is real)
