"""Game records: text and JSON forms round-trip exactly."""

from __future__ import annotations

import pytest

from playtable.games.records import GameRecord, RecordError, parse_json_line

DOTS_OPTIONS = {"grid": "square", "rows": 4, "cols": 4, "start": "swedish", "misere": False}


def test_text_round_trip_keeps_everything() -> None:
    moves = tuple(f"m{i}" for i in range(40))
    record = GameRecord("dots", DOTS_OPTIONS, moves, result="red")
    text = record.to_text()
    assert text.startswith('[Game "dots"]\n[Grid "square"]\n[Rows "4"]\n')
    assert '[Result "red"]' in text
    assert all(len(line) <= 78 for line in text.splitlines())
    back = GameRecord.from_text(text)
    assert back == record and back.result == "red"
    assert back.to_text() == text
    assert back.options == DOTS_OPTIONS  # types restored: ints and booleans


def test_json_round_trip() -> None:
    record = GameRecord("swaptimum", {"size": 7}, ("d4", "c3", "c4:c3-c4"))
    assert GameRecord.from_json(record.to_json()) == record
    assert record.to_json() == {
        "game": "swaptimum",
        "options": {"size": 7},
        "moves": ["d4", "c3", "c4:c3-c4"],
    }


def test_text_ignores_comments_and_layout() -> None:
    text = '[Game "swaptimum"]\n[Size "5"] ; a small board\n\n1. c3 2. b2\n3. b3\n'
    record = GameRecord.from_text(text)
    assert record == GameRecord("swaptimum", {"size": 5}, ("c3", "b2", "b3"))


def test_empty_game() -> None:
    record = GameRecord("swaptimum", {"size": 9})
    assert GameRecord.from_text(record.to_text()) == record


@pytest.mark.parametrize(
    "text,message",
    [
        ("1. a1-b1\n", "Game"),
        ('[Game "dots"]\n\n1. a1-b1 3. b1-c1\n', "should be 2"),
        ("[Game dots]\n", "header"),
    ],
)
def test_bad_text_records(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        GameRecord.from_text(text)


@pytest.mark.parametrize(
    "line,message",
    [
        ("{", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"options": {}}', "game"),
        ('{"game": "dots", "options": 3}', "options"),
        ('{"game": "dots", "moves": "a1-b1"}', "moves"),
        ('{"game": "dots", "moves": [1]}', "moves"),
        ('{"game": "dots", "extra": 1}', "extra"),
    ],
)
def test_bad_json_records(line: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        parse_json_line(line)


def test_metadata_round_trips_and_is_never_an_option() -> None:
    metadata = {"Date": "2026-12-01", "Reason": "resign"}
    record = GameRecord(
        "dots", DOTS_OPTIONS, ("a1-b1",), result="blue", metadata=metadata, time_control="300+5"
    )
    text = record.to_text()
    assert '[Result "blue"]\n[Date "2026-12-01"]\n[Reason "resign"]\n[TimeControl "300+5"]\n' in (
        text
    )
    back = GameRecord.from_text(text)
    assert back.options == DOTS_OPTIONS
    assert back.metadata == metadata and back.result == "blue" and back.time_control == "300+5"
    assert back.to_text() == text
    data = record.to_json()
    assert data["result"] == "blue" and data["metadata"] == metadata
    again = GameRecord.from_json(data)
    assert again == record and again.metadata == metadata and again.result == "blue"


def test_records_without_metadata_read_and_write_as_before() -> None:
    old = '[Game "swaptimum"]\n[Size "5"]\n\n1. c3 2. b2\n'
    record = GameRecord.from_text(old)
    assert record.metadata == {} and record.to_text() == old
    assert record.to_json() == {"game": "swaptimum", "options": {"size": 5}, "moves": ["c3", "b2"]}
    with pytest.raises(RecordError):
        GameRecord.from_json({"game": "dots", "metadata": {"Event": "x"}})


def test_the_players_names_round_trip_whatever_they_hold() -> None:
    names = {"Red": 'Jana "J;K" \\ Nová', "Blue": "민준 ; [x]"}
    record = GameRecord("dots", DOTS_OPTIONS, ("a1-b1",), metadata={**names, "Date": "2026-12-07"})
    text = record.to_text()
    assert '[Red "Jana \\"J;K\\" \\\\ Nová"]\n[Blue "민준 ; [x]"]\n[Date "2026-12-07"]\n' in text
    back = GameRecord.from_text(text)
    assert back.metadata == {**names, "Date": "2026-12-07"} and back.options == DOTS_OPTIONS
    assert back.to_text() == text
    assert GameRecord.from_text('[Game "dots"] ; a comment\n[Rows "2"] ; two\n').options == {
        "rows": 2
    }
