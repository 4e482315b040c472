"""Game records: the game, its settings and the move texts, as text or JSON.

The text form is in the spirit of PGN: a header of ``[Tag "value"]`` lines (the game, then
each option in canonical order, then an optional result), a blank line, and the moves
numbered by ply. ``docs/notation.md`` documents it.

>>> record = GameRecord("dots", {"grid": "square", "rows": 1, "cols": 1,
...                              "start": "standard", "misere": False}, ("a1-b1", "a1-a2"))
>>> print(record.to_text(), end="")
[Game "dots"]
[Grid "square"]
[Rows "1"]
[Cols "1"]
[Start "standard"]
[Misere "false"]
<BLANKLINE>
1. a1-b1 2. a1-a2
>>> GameRecord.from_text(record.to_text()) == record
True

A clocked game carries its time control (PGN's TimeControl: ``"300+3"`` for 5 minutes and
3 seconds a turn, ``"1/259200"`` for 3 days a move) and each mover's time left after each
move, as PGN's ``[%clk]`` comments:

>>> timed = GameRecord("dots", record.options, ("a1-b1", "a1-a2"),
...                    time_control="300+3", clocks=(300.0, 297.25))
>>> print(timed.to_text().splitlines()[-1])
1. a1-b1 {[%clk 0:05:00]} 2. a1-a2 {[%clk 0:04:57.2]}
>>> GameRecord.from_text(timed.to_text()).clocks
(300.0, 297.2)
"""

from __future__ import annotations

import json
import json.scanner
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from playtable.games.base import GameError

# A header line, with a comment after it if any (a value may hold a ";": a player's name).
_TAG = r'^\[(?P<tag>[A-Za-z][A-Za-z0-9_]*) "(?P<value>(?:[^"\\]|\\.)*)"\]\s*(?:;.*)?$'
_PLY = r"^(?P<n>\d+)\.$"  # compiled on first use (re's cache): JSON records never need them
_FIELDS = frozenset({"game", "options", "moves", "result", "metadata", "time_control", "clocks"})
# json.loads's own scanner, called without its layers.
_SCAN = cast(
    Callable[[str, int], tuple[Any, int]],
    json.scanner.make_scanner(json.JSONDecoder()),  # type: ignore[arg-type]
)
_TOKEN = r"\{[^}]*\}|[^\s{]+"
_CLK = r"\[%clk (?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)\]"
_WIDTH = 78
_STR = frozenset({str})  # JSON's strings are exactly str: one C-level test for every move

#: Header tags that describe the game rather than set it up: kept in ``metadata``, never taken
#: for options. ``Red`` and ``Blue`` are the names the players chose at the table (PGN's
#: White and Black), ``Date`` is the day the game began (ISO, ``2026-12-01``), ``Reason`` how
#: it ended (the outcome reasons of docs/protocol.md: ``score``, ``resign``, ...). The clock
#: has fields of its own (``time_control``, ``clocks``: the ``TimeControl`` tag and ``[%clk]``).
METADATA_TAGS = ("Red", "Blue", "Date", "Reason")


class RecordError(GameError):
    """A record that cannot be read; the message says where."""


def _tag_name(option: str) -> str:
    return option[:1].upper() + option[1:]


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _parse_value(text: str) -> Any:
    text = re.sub(r"\\(.)", r"\1", text)
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


@dataclass(frozen=True)
class GameRecord:
    """A whole game: replaying ``moves`` from the start under ``options`` is its only truth."""

    game: str
    options: Mapping[str, Any]
    moves: tuple[str, ...] = ()
    result: str | None = field(default=None, compare=False)  # "red", "blue", "draw" or None
    metadata: Mapping[str, str] = field(default_factory=dict, compare=False)  # METADATA_TAGS
    time_control: str | None = field(default=None, compare=False)  # None: no clock
    #: The mover's time left after each move, in seconds (``None`` where unknown).
    clocks: tuple[float | None, ...] = field(default=(), compare=False)

    # -- JSON -----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The JSON form; ``result``, ``metadata`` and the clock only when there are any, so a
        record of the first format reads and writes exactly as before."""
        data: dict[str, Any] = {
            "game": self.game,
            "options": dict(self.options),
            "moves": list(self.moves),
        }
        if self.result is not None:
            data["result"] = self.result
        if self.metadata:
            data["metadata"] = {tag: self.metadata[tag] for tag in _ordered(self.metadata)}
        if self.time_control is not None:
            data["time_control"] = self.time_control
            data["clocks"] = list(self.clocks)
        return data

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Read the JSON form; raises :class:`RecordError` naming what is wrong."""
        if not (type(data) is dict or isinstance(data, Mapping)):
            raise RecordError("a record must be a JSON object")
        if not _FIELDS.issuperset(data):
            unknown = sorted(set(data) - _FIELDS)
            raise RecordError(f"unknown field {unknown[0]!r} in the record")
        game = data.get("game")
        if not isinstance(game, str):
            raise RecordError('the record needs a "game" name')
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise RecordError('"options" must be a JSON object')
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not (
            _STR.issuperset(map(type, moves)) or all(isinstance(m, str) for m in moves)
        ):
            raise RecordError('"moves" must be a list of move texts')
        result = data.get("result")
        if result is not None and not isinstance(result, str):
            raise RecordError('"result" must be "red", "blue", "draw" or "aborted"')
        metadata = data.get("metadata", {})
        if not isinstance(metadata, Mapping) or not all(
            tag in METADATA_TAGS and isinstance(value, str) for tag, value in metadata.items()
        ):
            raise RecordError(f'"metadata" maps {", ".join(METADATA_TAGS)} to texts')
        control = data.get("time_control")
        clocks = data.get("clocks", [])
        if control is not None and not isinstance(control, str):
            raise RecordError('"time_control" must be a text such as "300+3"')
        if not isinstance(clocks, list) or not all(
            c is None or (isinstance(c, int | float) and not isinstance(c, bool)) for c in clocks
        ):
            raise RecordError('"clocks" must be a list of seconds')
        return cls(
            game, dict(options), tuple(moves), result, dict(metadata), control, tuple(clocks)
        )

    # -- text -----------------------------------------------------------------------------------
    def to_text(self) -> str:
        lines = [f'[Game "{_format_value(self.game)}"]']
        lines += [f'[{_tag_name(k)} "{_format_value(v)}"]' for k, v in self.options.items()]
        if self.result is not None:
            lines.append(f'[Result "{self.result}"]')
        for tag in _ordered(self.metadata):
            lines.append(f'[{tag} "{_format_value(self.metadata[tag])}"]')
        if self.time_control is not None:
            lines.append(f'[TimeControl "{_format_value(self.time_control)}"]')
        lines.append("")
        row = ""
        for ply, move in enumerate(self.moves, 1):
            token = f"{ply}. {move}"
            left = self.clocks[ply - 1] if ply - 1 < len(self.clocks) else None
            if left is not None:
                token += f" {{[%clk {_clk(left)}]}}"
            if row and len(row) + 1 + len(token) > _WIDTH:
                lines.append(row)
                row = token
            else:
                row = f"{row} {token}" if row else token
        if row:
            lines.append(row)
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """Read the text form. Comments run from ``;`` to the end of a line."""
        game: str | None = None
        options: dict[str, Any] = {}
        result: str | None = None
        metadata: dict[str, str] = {}
        moves: list[str] = []
        control: str | None = None
        clocks: list[float | None] = []
        in_header = True
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not (in_header and line.startswith("[")):
                line = line.split(";", 1)[0].strip()
            if not line:
                if game is not None:
                    in_header = False
                continue
            if in_header and line.startswith("["):
                match = re.match(_TAG, line)
                if not match:
                    raise RecordError(f'line {number}: a header line looks like [Tag "value"]')
                tag, value = match["tag"], match["value"]
                if tag == "Game":
                    game = re.sub(r"\\(.)", r"\1", value)
                elif tag == "Result":
                    result = value
                elif tag == "TimeControl":
                    control = value
                elif tag in METADATA_TAGS:
                    metadata[tag] = re.sub(r"\\(.)", r"\1", value)
                else:
                    options[tag[:1].lower() + tag[1:]] = _parse_value(value)
                continue
            in_header = False
            for token in re.findall(_TOKEN, line):
                if token.startswith("{"):
                    clk = re.search(_CLK, token)
                    if clk and moves and len(clocks) == len(moves):
                        clocks[-1] = int(clk["h"]) * 3600 + int(clk["m"]) * 60 + float(clk["s"])
                    continue
                numbered = re.match(_PLY, token)
                if numbered:
                    if int(numbered["n"]) != len(moves) + 1:
                        raise RecordError(
                            f"line {number}: move number {numbered['n']} should be {len(moves) + 1}"
                        )
                    continue
                moves.append(token)
                clocks.append(None)
        if game is None:
            raise RecordError('the record has no [Game "..."] header')
        if control is None:
            clocks = []
        return cls(game, options, tuple(moves), result, metadata, control, tuple(clocks))


def _ordered(metadata: Mapping[str, str]) -> list[str]:
    return [tag for tag in METADATA_TAGS if tag in metadata]


def clk_seconds(seconds: float) -> float:
    """The seconds a ``[%clk]`` comment writes for ``seconds``: tenths, cut (not rounded).

    >>> clk_seconds(297.25), clk_seconds(-0.5)
    (297.2, 0.0)
    """
    return int(max(0.0, seconds) * 10) / 10


def _clk(seconds: float) -> str:
    """``H:MM:SS`` with tenths when there are any (the ``[%clk]`` of PGN)."""
    tenths = int(max(0.0, seconds) * 10)
    whole, tenth = divmod(tenths, 10)
    text = f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    return f"{text}.{tenth}" if tenth else text


def results_per_line(
    lines: Iterable[str], handle: Callable[[GameRecord], dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """``handle`` applied to each JSON Lines record; a line that is not a record gets an error
    result instead, so later lines are processed whatever earlier lines held."""
    for line in lines:
        if not line.strip():
            continue
        try:
            yield handle(parse_json_line(line))
        except GameError as error:
            yield {"ok": False, "error": str(error)}
        except RecursionError:
            yield {"ok": False, "error": "the record is nested too deeply"}


def parse_json_line(line: str) -> GameRecord:
    """One record of JSON Lines; raises :class:`RecordError` for bad JSON or fields."""
    try:
        # json.loads(line) without its layers for the usual line (no leading whitespace):
        # what it accepts and the errors it raises are json.loads's own.
        try:
            data, end = _SCAN(line, 0)
        except StopIteration:
            data, end = json.loads(line), len(line)
        if end != len(line) and line[end:].strip(" \t\n\r"):  # JSON's whitespace only
            data = json.loads(line)  # raises "Extra data"
    except json.JSONDecodeError as error:
        raise RecordError(f"not valid JSON: {error.msg} at column {error.colno}") from None
    return GameRecord.from_json(data)


def normalized(
    record: GameRecord, canonical_options: Mapping[str, Any], moves: Sequence[str] | None = None
) -> GameRecord:
    """The same record with every option spelled out (and canonical move texts if given)."""
    return GameRecord(
        record.game,
        dict(canonical_options),
        tuple(moves) if moves is not None else record.moves,
        record.result,
        record.metadata,
        record.time_control,
        record.clocks,
    )
