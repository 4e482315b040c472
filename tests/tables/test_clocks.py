"""The clock rules, decided on plain values with a clock the test moves: flag, increment,
abort, the first-move window, lag compensation, correspondence deadlines, the record."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from playtable import games
from playtable.games import Player, Termination
from playtable.store import MoveRow, TableRow
from playtable.tables import clocks, computer_time, decisions, tokens, views
from playtable.tables.clocks import (
    FIRST_MOVE_S,
    LAG_BOUND_S,
    Correspondence,
    Expiry,
    RealTime,
    TimeControlError,
)
from playtable.tables.errors import Illegal
from playtable.tables.table import LoadedTable, Offers

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
# 3x3 squares, standard start: no box can be completed in the first few moves.
DOTS = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}
RED, BLUE = "red-token", "blue-token"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def table(
    control: str,
    moves: list[tuple[Player, str, float]] = (),  # type: ignore[assignment]
    *,
    seated_at: datetime | None = T0,
    options: dict[str, Any] | None = None,
    lag_ms: int = 0,
) -> LoadedTable:
    """A table with both seats taken at ``seated_at``; moves as (player, move, seconds)."""
    loaded = games.load("dots", options or DOTS)
    seats = {"red": tokens.hash_token(RED), "blue": tokens.hash_token(BLUE)}
    row = TableRow(
        id="t1",
        game=loaded.name,
        options=loaded.options(),
        version=3,
        outcome=None,
        invite_hash=tokens.hash_token("invite"),
        offers=Offers().to_json(),
        rematch_id=None,
        created_at=T0,
        seats=seats if seated_at is not None else {"red": seats["red"]},  # type: ignore[dict-item]
        time_control=control,
        seated_at=seated_at,
    )
    rows = tuple(
        MoveRow(ply, text, player, at(seconds), lag_ms)
        for ply, (player, text, seconds) in enumerate(moves)
    )
    loaded_table = LoadedTable(row, rows, loaded, loaded.replay([m for _, m, _ in moves]))
    deadline = loaded_table.clocks().deadline
    return dataclasses.replace(loaded_table, row=dataclasses.replace(row, deadline=deadline))


def token(player: Player) -> str:
    return RED if player == "red" else BLUE


# -- time controls ------------------------------------------------------------------------------
def test_time_controls_read_and_write_their_specs_and_refuse_what_is_out_of_bounds() -> None:
    for spec in ("-", "300+3", "5+0", "10800+60", "1/86400", "1/1209600"):
        assert clocks.parse(spec).spec() == spec
    assert clocks.from_json({"kind": "realtime", "minutes": 0.1, "increment": 0}) == RealTime(6)
    assert clocks.from_json({"kind": "correspondence", "days": 7}) == Correspondence(7)
    for bad in (
        {"kind": "realtime", "minutes": 0.05, "increment": 0},  # 3 seconds
        {"kind": "realtime", "minutes": 181, "increment": 0},
        {"kind": "realtime", "minutes": 5, "increment": 61},
        {"kind": "realtime", "minutes": True, "increment": 0},
        {"kind": "realtime", "minutes": float("nan"), "increment": 0},  # JSON's NaN, as read
        {"kind": "realtime", "minutes": float("inf"), "increment": 0},
        {"kind": "realtime", "minutes": 1e308, "increment": 0},
        {"kind": []},
        {"kind": {}},
        {"kind": "correspondence", "days": 4},
        {"kind": "blitz"},
        {"kind": "unlimited", "days": 1},
        "5+3",
    ):
        with pytest.raises(TimeControlError):
            clocks.from_json(bad)
    with pytest.raises(TimeControlError):
        clocks.parse("1/1000")


# -- real time: Fischer clocks, the increment, the flag ---------------------------------------
def test_a_clock_starts_on_its_players_first_move_and_the_increment_comes_as_the_turn_passes():
    t = table("60+2", [("red", "a1-b1", 5), ("blue", "a1-a2", 9), ("red", "b1-c1", 19)])
    c = t.clocks()
    # The first moves cost nothing; each passes the turn, so each earns the increment.
    assert c.history == (62.0, 62.0, 54.0)
    assert c.running == "blue"
    assert c.remaining("blue", at(29)) == 52.0
    assert c.remaining("red", at(29)) == 54.0
    assert c.deadline == at(19 + 62 + LAG_BOUND_S)
    assert c.expiry is Expiry.FLAG


def test_a_run_of_boxes_is_one_turn_with_one_increment() -> None:
    # 1x1 board: red draws three sides; blue closes the box and, having claimed it, moves on.
    options = {"grid": "square", "rows": 1, "cols": 2, "start": "standard"}
    moves: list[tuple[Player, str, float]] = [
        ("red", "a1-b1", 1),
        ("blue", "a2-b2", 2),
        ("red", "a1-a2", 4),
        ("blue", "b1-b2", 10),  # completes the left box: blue moves again
        ("blue", "b1-c1", 13),
    ]
    t = table("30+5", moves, options=options)
    assert [m.player for m in t.moves] == ["red", "blue", "red", "blue", "blue"]
    assert t.to_move() == "red"
    c = t.clocks()
    # Blue's turn ran from 4 s to 13 s: 9 s charged, one increment at its end only.
    assert c.history[3] == 35.0 - 6  # after b1-b2: 6 s spent, no increment (still blue's turn)
    assert c.history[4] == 35.0 - 9 + 5
    assert c.running == "red"


def test_a_correspondence_flag_leaves_the_loser_no_time() -> None:
    """Lost on time in correspondence: the loser's clock shows nothing left, not the full
    days a move every clock shows once the game is over."""
    t = table("1/172800", [("red", "a1-b1", 1), ("blue", "a1-a2", 2), ("red", "b1-c1", 5)])
    deadline = t.clocks().deadline
    assert deadline == at(5 + 2 * 86400)
    decision = decisions.flag(t, deadline)
    assert decision is not None
    clock = decision.after.clocks().to_json(deadline)
    assert clock is not None
    assert clock["remaining"] == {"red": 2 * 86400.0, "blue": 0.0}


def test_the_flag_falls_at_the_deadline_and_the_side_to_move_loses_on_time() -> None:
    t = table("10+0", [("red", "a1-b1", 1), ("blue", "a1-a2", 2), ("red", "b1-c1", 5)])
    deadline = t.clocks().deadline
    # Blue's clock (10 s: the first move was free) runs from red's move at 5 s.
    assert deadline == at(5 + 10 + LAG_BOUND_S)
    assert decisions.flag(t, deadline - timedelta(milliseconds=1)) is None
    decision = decisions.flag(t, deadline)
    assert decision is not None
    outcome = decision.after.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("red", Termination.TIMEOUT)
    assert [e.to_json()["kind"] for e in decision.events] == ["time_out", "game_over"]
    assert decision.change.deadline is None  # the game is over: nothing left to sweep
    assert decisions.flag(decision.after, deadline + timedelta(hours=1)) is None


def test_a_move_after_the_time_ran_out_ends_the_game_on_time_instead() -> None:
    t = table("10+0", [("red", "a1-b1", 1), ("blue", "a1-a2", 2), ("red", "b1-c1", 5)])
    in_time = decisions.play(t, BLUE, 3, "c1-c2", at(14.9))
    assert in_time.after.ply == 4
    assert in_time.after.clocks().history[-1] == pytest.approx(0.1)
    late = decisions.play(t, BLUE, 3, "c1-c2", at(15.2))
    assert late.after.ply == 3
    assert late.after.outcome() is not None
    assert late.after.outcome().reason is Termination.TIMEOUT  # type: ignore[union-attr]


def test_transit_is_credited_within_the_lag_bound() -> None:
    t = table("10+0", [("red", "a1-b1", 1), ("blue", "a1-a2", 2), ("red", "b1-c1", 5)])
    # Blue's page measured 9.8 s of thinking; at the server 10.2 s passed: 0.4 s of transit.
    saved = decisions.play(t, BLUE, 3, "c1-c2", at(15.2), think_s=9.8)
    assert saved.after.ply == 4
    assert saved.after.moves[-1].lag_ms == 400
    assert saved.after.clocks().history[-1] == pytest.approx(0.2)
    # A page claiming to have thought no time at all gets no more than the bound.
    greedy = decisions.play(t, BLUE, 3, "c1-c2", at(14.0), think_s=0.0)
    assert greedy.after.moves[-1].lag_ms == LAG_BOUND_S * 1000
    assert greedy.after.clocks().history[-1] == pytest.approx(10 - 9 + LAG_BOUND_S)
    # Beyond the bound the move is late whatever the page says.
    late = decisions.play(t, BLUE, 3, "c1-c2", at(15.0 + LAG_BOUND_S + 0.01), think_s=0.0)
    assert late.after.outcome() is not None


# -- before both players have moved: abort ---------------------------------------------------
def test_either_player_may_abort_until_both_have_moved() -> None:
    t = table("300+3", [("red", "a1-b1", 1)])
    for player in ("red", "blue"):
        decision = decisions.abort(t, token(player))
        outcome = decision.after.outcome()
        assert outcome is not None
        assert (outcome.winner, outcome.reason) == (None, Termination.ABORTED)
        assert views.record(decision.after).result == "aborted"
    both = table("300+3", [("red", "a1-b1", 1), ("blue", "a1-a2", 2)])
    with pytest.raises(Illegal):
        decisions.abort(both, RED)


def test_a_first_move_that_does_not_come_in_time_aborts_the_table() -> None:
    t = table("300+3")
    c = t.clocks()
    assert (c.running, c.waiting_for, c.expiry) == (None, "red", Expiry.ABORT)
    assert c.deadline == at(FIRST_MOVE_S)
    assert c.remaining("red", at(50)) == 300.0  # the clock itself has not started
    decision = decisions.flag(t, at(FIRST_MOVE_S))
    assert decision is not None
    assert decision.after.outcome().reason is Termination.ABORTED  # type: ignore[union-attr]
    # Blue's window opens with red's first move.
    after_red = table("300+3", [("red", "a1-b1", 20)])
    assert after_red.clocks().deadline == at(20 + FIRST_MOVE_S)
    assert decisions.flag(after_red, at(20 + FIRST_MOVE_S)).after.outcome().winner is None  # type: ignore[union-attr]


def test_no_clock_runs_while_a_seat_is_free() -> None:
    waiting = table("60+0", [("red", "a1-b1", 1)], seated_at=None)
    assert waiting.clocks().deadline is None
    assert decisions.flag(waiting, at(10**6)) is None
    # Seating the second player starts the first-move window.
    seated = decisions.take_seat(waiting, "blue", tokens.hash_token(BLUE), at(500))
    assert seated.change.deadline == at(500 + FIRST_MOVE_S)
    assert seated.after.row.seated_at == at(500)


# -- correspondence -------------------------------------------------------------------------------
def test_a_correspondence_deadline_resets_when_the_turn_passes() -> None:
    day = 86400
    t = table("1/172800", [("red", "a1-b1", 3600), ("blue", "a1-a2", 2 * 3600)])
    c = t.clocks()
    assert c.deadline == at(2 * 3600 + 2 * day)
    assert c.remaining("red", at(3 * 3600)) == 2 * day - 3600
    assert c.remaining("blue", at(3 * 3600)) == 2 * day
    assert c.history == (2 * day - 3600, 2 * day - 3600)
    assert decisions.flag(t, at(2 * 3600 + 2 * day - 1)) is None
    ended = decisions.flag(t, at(2 * 3600 + 2 * day))
    assert ended is not None
    assert (ended.after.outcome().winner, ended.after.outcome().reason) == (  # type: ignore[union-attr]
        "blue",
        Termination.TIMEOUT,
    )


def test_a_correspondence_move_made_in_time_moves_the_deadline_on() -> None:
    t = table("1/86400", [("red", "a1-b1", 10), ("blue", "a1-a2", 20)])
    moved = decisions.play(t, RED, 2, "b1-c1", at(20 + 86000))
    assert moved.change.deadline == at(20 + 86000 + 86400)


# -- the record and the public clock -------------------------------------------------------------
def test_the_record_carries_the_time_control_and_each_moves_time_left() -> None:
    t = table("60+2", [("red", "a1-b1", 5), ("blue", "a1-a2", 9), ("red", "b1-c1", 19)])
    record = views.record(t)
    assert record.time_control == "60+2"
    assert record.to_json()["clocks"] == [62.0, 62.0, 54.0]
    text = record.to_text()
    assert '[TimeControl "60+2"]' in text
    assert "3. b1-c1 {[%clk 0:00:54]}" in text
    again = type(record).from_text(text)
    assert (again.time_control, again.clocks) == ("60+2", (62.0, 62.0, 54.0))
    assert type(record).from_json(record.to_json()).clocks == (62.0, 62.0, 54.0)


def test_the_public_table_shows_both_clocks_as_of_now() -> None:
    t = table("60+2", [("red", "a1-b1", 5), ("blue", "a1-a2", 9)])
    public = views.public(t, views.Census(), _Links(), at(12.5))
    clock = public["clock"]
    assert clock["remaining"] == {"red": 58.5, "blue": 62.0}
    assert clock["running"] == "red"
    assert clock["control"] == {"kind": "realtime", "minutes": 1, "increment": 2}
    assert clock["deadline"] == "2026-12-01T12:01:11.500Z"
    assert views.public(table("-"), views.Census(), _Links(), at(1))["clock"] is None


class _Links:
    def seat(self, table_id: str, token: str) -> str:
        return f"/t/{table_id}/seat/{token}"

    def invite(self, table_id: str, invite_token: str) -> str:
        return f"/t/{table_id}/join/{invite_token}"

    def watch(self, table_id: str) -> str:
        return f"/t/{table_id}/watch"


def test_the_computer_thinks_within_its_time() -> None:
    t = table("10+0", [("red", "a1-b1", 1), ("blue", "a1-a2", 2)])
    c = t.clocks()
    assert computer_time.think_budget(c, "red", at(2), 1.4) == pytest.approx(0.5)  # 10 s / 20
    assert computer_time.think_budget(c, "red", at(11.5), 1.4) == 0.0  # under a second left
    assert computer_time.think_budget(table("-").clocks(), "red", at(2), 1.4) == 1.4


def test_the_server_waits_for_the_computer_no_longer_than_its_clock_allows() -> None:
    t = table("10+0", [("red", "a1-b1", 1), ("blue", "a1-a2", 2)])
    c = t.clocks()
    budget = computer_time.think_budget(c, "red", at(2), 1.4)  # 0.5 s: 10 s / 20
    assert computer_time.wait_cap(c, "red", at(2), budget, 1.8) == pytest.approx(0.9)  # + 0.4
    assert computer_time.wait_cap(c, "red", at(8), 0.2, 1.8) == pytest.approx(0.4)  # + 4 s / 20
    assert computer_time.wait_cap(table("-").clocks(), "red", at(2), 1.4, 1.8) == 1.8


def test_the_examples_in_the_clocks_docstrings_run() -> None:
    import doctest

    result = doctest.testmod(clocks)
    assert result.attempted > 0 and result.failed == 0


def test_a_resignation_stops_both_clocks_as_they_stood() -> None:
    """The side on turn is charged its time up to the resignation and the last mover keeps
    its increment: the clocks a player saw do not jump when the game ends."""
    t = table("60+2", [("red", "a1-b1", 5), ("blue", "a1-a2", 9), ("red", "b1-c1", 19)])
    before = t.clocks()
    assert before.remaining("red", at(29)) == 54.0 and before.remaining("blue", at(29)) == 52.0
    for decide in (
        lambda: decisions.resign(t, BLUE, at(29)),  # blue, on turn, resigns after 10 s
        lambda: decisions.resign(t, RED, at(29)),  # red resigns while blue thinks
        lambda: decisions.answer_draw(
            decisions.offer_draw(t, RED, at(25)).after, BLUE, True, at(29)
        ),
    ):
        after = decide().after
        assert after.outcome() is not None and after.to_move() is None
        stopped = after.clocks()
        assert stopped.running is None and stopped.deadline is None
        for moment in (29, 100):  # and they stay so
            assert stopped.remaining("red", at(moment)) == 54.0
            assert stopped.remaining("blue", at(moment)) == 52.0


def test_a_table_read_back_after_a_resignation_shows_the_same_clocks() -> None:
    """The stored result's time is what a reload derives the clocks from."""
    t = table("60+2", [("red", "a1-b1", 5), ("blue", "a1-a2", 9), ("red", "b1-c1", 19)])
    decision = decisions.resign(t, RED, at(29))
    assert decision.change.at == at(29)  # the store's finished_at
    read_back = dataclasses.replace(
        decision.after, row=dataclasses.replace(decision.after.row, finished_at=at(29))
    )
    assert read_back.clocks().remaining("blue", at(500)) == 52.0
    assert read_back.clocks().remaining("red", at(500)) == 54.0


def test_a_restart_stored_before_there_could_be_several_is_still_read() -> None:
    from playtable.tables.table import Offers

    one = {"ply": 2, "at": "2026-12-01T12:00:25.000Z", "left": {"red": 12.0, "blue": 17.0}}
    legacy = Offers.from_json({"draw": None, "undo": None, "rematch": [], "restart": one})
    assert [r.to_json() for r in legacy.restarts] == [one]
    assert Offers.from_json(legacy.to_json()) == legacy
    # both keys: the previous release, running beside this one during a roll, reads "restart"
    assert legacy.to_json()["restarts"] == [one] and legacy.to_json()["restart"] == one
    assert Offers.from_json({"restarts": [one, {"bad": 1}]}).restarts == legacy.restarts
