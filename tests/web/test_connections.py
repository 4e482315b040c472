"""Seated players always get in; one address cannot take all the sockets."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from starlette.websockets import WebSocketDisconnect

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
            # Five sockets in all from this address: the sixth is refused on any table.
            assert refused(stack.enter_context(connect(client, tables[3].id, watch=True)))
            # The owner of a seat still gets in from the same address.
            seated = stack.enter_context(connect(client, tables[3].id, tables[3].token))
            assert Socket(seated).join()["table"]["you"] == tables[3].seat
        # Closed sockets are counted out.
        with connect(client, first.id, watch=True) as again:
            Socket(again).join()
