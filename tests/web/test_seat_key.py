"""A seat's new key ("Make a new seat link" on the continue page) and the sockets opened
with the old one: they stop playing, stop counting as the player, and say why."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from playtable.web.app import create_app
from playtable.web.limits import Limits
from tests.web.conftest import (
    DOTS,
    SECRET,
    Socket,
    claim,
    connect,
    create_table,
    csrf_of,
    renew_seat_link,
)


def test_a_socket_open_with_the_old_key_is_told_and_no_longer_counts_as_the_player(
    client: TestClient,
) -> None:
    """A review: after 'Make a new seat link', a page already open with the old link went
    on showing 'you are Red', Red stayed 'online' for the opponent, and sixteen sockets
    opened with a seen link kept the owner out (the seat's share of connections)."""
    table = create_table(client, seat="red", options=DOTS)
    blue_token = claim(client, table)
    with (
        connect(client, table.id, table.token) as old_session,
        connect(client, table.id, blue_token) as blue_session,
    ):
        old_device, blue = Socket(old_session), Socket(blue_session)
        assert old_device.join()["table"]["you"] == "red"
        blue.join()
        blue.until_state(lambda t: t["seats"]["red"]["online"])
        new = renew_seat_link(client, table.id, table.token)
        error = old_device.error()
        assert error["code"] == "seat_key_replaced"
        assert "new link" in error["message"]
        with pytest.raises(WebSocketDisconnect):
            old_device.receive()  # closed: the page connects again, as what its key is now
        blue.until_state(lambda t: not t["seats"]["red"]["online"])
    with connect(client, table.id, table.token) as session:
        assert Socket(session).join()["table"]["you"] is None  # the old key: a spectator
    with connect(client, table.id, new) as session:
        assert Socket(session).join()["table"]["you"] == "red"


def test_the_device_that_renewed_the_link_keeps_playing_on_its_open_page(
    client: TestClient,
) -> None:
    """The page this browser has open is closed too (its socket holds the old key), and
    connects again with the cookie just renewed: seated as before."""
    table = create_table(client, seat="red", options=DOTS)
    claim(client, table)
    with connect(client, table.id, table.token) as session:
        page = Socket(session)
        page.join()
        new = renew_seat_link(client, table.id, table.token)
        assert page.error()["code"] == "seat_key_replaced"
    with connect(client, table.id, new) as session:
        again = Socket(session)
        state = again.join()
        assert state["table"]["you"] == "red"
        again.send("move", ply=0, move=state["table"]["view"]["legal_moves"][0])
        again.until_state(lambda t: t["ply"] == 1)


def test_sockets_held_with_a_seen_link_no_longer_keep_the_owner_out(db_url: str) -> None:
    """The seat's share of connections (two here, sixteen by default): someone who saw the
    link and filled it kept the owner out even after the new link (a review)."""
    limits = Limits(sockets_per_seat=2)
    with TestClient(create_app(db_url, secret=SECRET, limits=limits)) as client:
        table = create_table(client, seat="red", options=DOTS)
        claim(client, table)
        with (
            connect(client, table.id, table.token) as first,
            connect(client, table.id, table.token) as second,
        ):
            intruders = [Socket(first), Socket(second)]
            for intruder in intruders:
                intruder.join()
            with connect(client, table.id, table.token) as third:  # the owner, kept out
                assert Socket(third).error()["code"] == "too_many_connections"
            new = renew_seat_link(client, table.id, table.token)
            for intruder in intruders:
                assert intruder.error()["code"] == "seat_key_replaced"
            with connect(client, table.id, new) as owner:
                assert Socket(owner).join()["table"]["you"] == "red"


def test_a_socket_opened_with_the_old_key_and_joined_after_the_new_one_is_not_the_player(
    client: TestClient,
) -> None:
    """A review: a socket opened before the new link and joined after it got 'you: red' and
    showed Red online (it had not joined, so it heard no event)."""
    table = create_table(client, seat="red", options=DOTS)
    claim(client, table)
    with connect(client, table.id, table.token) as session:
        late = Socket(session)
        renew_seat_link(client, table.id, table.token)
        late.send("join", protocol=2, since=None)
        assert late.error()["code"] == "seat_key_replaced"
        with pytest.raises(WebSocketDisconnect):
            late.receive()


def test_sockets_that_never_join_hold_no_place_for_long(db_url: str) -> None:
    """A review: sockets opened with a seen link and never joined (pings keep them from
    idling) hear no event, so they outlived the new link and kept the owner out of the
    seat's share of connections. A page joins at once: a socket that has not joined within
    PLAYTABLE_JOIN_SECONDS is told and closed."""
    limits = Limits(sockets_per_seat=1, join_seconds=0.5)
    with TestClient(create_app(db_url, secret=SECRET, limits=limits)) as client:
        table = create_table(client, seat="red", options=DOTS)
        claim(client, table)
        with connect(client, table.id, table.token) as session:
            hoarder = Socket(session)
            hoarder.send("ping")
            assert hoarder.next("pong")
            error = hoarder.error()
            assert error["code"] == "protocol" and "join" in error["message"]
            with pytest.raises(WebSocketDisconnect):
                hoarder.receive()
            new = renew_seat_link(client, table.id, table.token)
            with connect(client, table.id, new) as owner:  # the hoarder's place is free
                assert Socket(owner).join()["table"]["you"] == "red"


def test_the_new_link_gets_in_at_once_past_sockets_of_the_old_one_that_never_joined(
    db_url: str,
) -> None:
    """A review: sixteen sockets opened with a seen link and never joined hear no event,
    so the owner's new link got 'too many connections' for the 15 s of the join deadline.
    The seat has one key: its places held with another one are counted out at once."""
    limits = Limits(sockets_per_seat=2, join_seconds=30)
    with TestClient(create_app(db_url, secret=SECRET, limits=limits)) as client:
        table = create_table(client, seat="red", options=DOTS)
        claim(client, table)
        with (
            connect(client, table.id, table.token) as first,
            connect(client, table.id, table.token) as second,
        ):
            hoarders = [Socket(first), Socket(second)]
            for hoarder in hoarders:  # alive, never joined
                hoarder.send("ping")
                assert hoarder.next("pong")
            new = renew_seat_link(client, table.id, table.token)
            with connect(client, table.id, new) as owner:
                assert Socket(owner).join()["table"]["you"] == "red"
                for hoarder in hoarders:
                    assert hoarder.error()["code"] == "seat_key_replaced"
                    with pytest.raises(WebSocketDisconnect):
                        hoarder.receive()
                with connect(client, table.id, new) as second_device:  # its place was kept
                    assert Socket(second_device).join()["table"]["you"] == "red"


def test_a_renewal_whose_answer_was_lost_is_sent_again_and_keeps_the_seat(
    client: TestClient,
) -> None:
    """A review: the new key travels only in the renewal's answer. A phone whose answer was
    lost (a train's tunnel) held the old key, which opens the seat no more: the seat was
    lost. The browser sends the same form again on reload: it now gets the same new key."""
    table = create_table(client, seat="red", options=DOTS)
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", table.token)
    page = client.get(f"/t/{table.id}/continue").text
    csrf = csrf_of(page)
    renewal = re.search(r'name="renewal" value="([^"]+)"', page)
    assert renewal
    form = {"csrf": csrf, "renewal": renewal.group(1)}
    client.cookies.set("pt_csrf", csrf)
    first = client.post(f"/t/{table.id}/continue", data=form, follow_redirects=False)
    assert first.status_code == 303
    new = first.cookies.get(f"pt_{table.id}")
    assert new and new != table.token
    # The answer never arrived: the browser still holds the old key, and resends the form.
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", table.token)
    client.cookies.set("pt_csrf", csrf)
    again = client.post(f"/t/{table.id}/continue", data=form, follow_redirects=False)
    assert again.status_code == 303, again.text
    assert again.cookies.get(f"pt_{table.id}") == new
    assert again.headers["location"] == first.headers["location"]
    with connect(client, table.id, new) as session:
        assert Socket(session).join()["table"]["you"] == "red"
    # Someone who saw the old link, sending a form of their own, gets nothing.
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", table.token)
    client.cookies.set("pt_csrf", csrf)
    forged = dict(form, renewal="x" * 22)
    stolen = client.post(f"/t/{table.id}/continue", data=forged, follow_redirects=False)
    assert stolen.status_code == 403
    assert stolen.cookies.get(f"pt_{table.id}") is None
    # A second renewal from a new page makes another key, as before.
    assert renew_seat_link(client, table.id, new) != new


def test_a_finished_games_seen_link_can_be_replaced_until_the_rematch_is_made(
    client: TestClient,
) -> None:
    """A review: once the game was over the continue page (showing the link and its code)
    refused a new link, and whoever had seen it proposed the rematch, got the owner's seat
    there (derived from the same key), replaced that link and locked the owner out."""
    table = create_table(client, seat="red", options=DOTS)
    blue_token = claim(client, table)
    with (
        connect(client, table.id, table.token) as red_session,
        connect(client, table.id, blue_token) as blue_session,
    ):
        red, blue = Socket(red_session), Socket(blue_session)
        red.join()
        blue.join()
        red.send("resign")
        red.at_version(2)
        red.send("rematch")  # the owner proposes, then sees that the link was seen
        red.at_version(3)
        new = renew_seat_link(client, table.id, table.token)
        _, state = blue.at_version(4)
        assert state["offers"]["rematch"] == []  # a proposal on the old key: withdrawn
    with connect(client, table.id, table.token) as session:  # the one who saw the link
        seen = Socket(session)
        assert seen.join()["table"]["you"] is None
        seen.send("rematch")
        assert seen.error()["code"] == "not_seated"
    with (
        connect(client, table.id, new) as red_session,
        connect(client, table.id, blue_token) as blue_session,
    ):
        red, blue = Socket(red_session), Socket(blue_session)
        assert red.join()["table"]["you"] == "red"
        blue.join()
        red.send("rematch")
        blue.until_state(lambda t: t["offers"]["rematch"] == ["red"])
        blue.send("rematch")
        link = red.next("rematch")["url"]
    client.cookies.clear()
    seated = client.get(link, follow_redirects=False)
    assert seated.status_code == 303  # the owner's rematch link works
    # Once the rematch is made, the link is made at the new table.
    client.cookies.clear()
    client.cookies.set(f"pt_{table.id}", new)
    page = client.get(f"/t/{table.id}/continue").text
    assert "Make a new seat link" not in page
    csrf = client.cookies.get("pt_csrf")
    assert csrf
    late = client.post(f"/t/{table.id}/continue", data={"csrf": csrf}, follow_redirects=False)
    assert late.status_code == 409 and "rematch" in late.text
