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

>>> timed = GameRecord("dots", record.options, ("a1-b1", "a1-a2"), None, "300+3", (300.0, 297.25))
>>> print(timed.to_text().splitlines()[-1])
1. a1-b1 {[%clk 0:05:00]} 2. a1-a2 {[%clk 0:04:57.2]}
>>> GameRecord.from_text(timed.to_text()).clocks
(300.0, 297.2)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from playtable.games.base import GameError

_TAG = re.compile(r'^\[(?P<tag>[A-Za-z][A-Za-z0-9_]*) "(?P<value>(?:[^"\\]|\\.)*)"\]$')
_PLY = re.compile(r"^(?P<n>\d+)\.$")
_TOKEN = re.compile(r"\{[^}]*\}|[^\s{]+")
_CLK = re.compile(r"\[%clk (?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)\]")
_WIDTH = 78


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
    time_control: str | None = field(default=None, compare=False)  # None: no clock
    #: The mover's time left after each move, in seconds (``None`` where unknown).
    clocks: tuple[float | None, ...] = field(default=(), compare=False)

    # -- JSON -----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game,
            "options": dict(self.options),
            "moves": list(self.moves),
        }
        if self.time_control is not None:
            data["time_control"] = self.time_control
            data["clocks"] = list(self.clocks)
        return data

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Read the JSON form; raises :class:`RecordError` naming what is wrong."""
        if not isinstance(data, Mapping):
            raise RecordError("a record must be a JSON object")
        unknown = sorted(set(data) - {"game", "options", "moves", "time_control", "clocks"})
        if unknown:
            raise RecordError(f"unknown field {unknown[0]!r} in the record")
        game = data.get("game")
        if not isinstance(game, str):
            raise RecordError('the record needs a "game" name')
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise RecordError('"options" must be a JSON object')
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RecordError('"moves" must be a list of move texts')
        control = data.get("time_control")
        clocks = data.get("clocks", [])
        if control is not None and not isinstance(control, str):
            raise RecordError('"time_control" must be a text such as "300+3"')
        if not isinstance(clocks, list) or not all(
            c is None or (isinstance(c, int | float) and not isinstance(c, bool)) for c in clocks
        ):
            raise RecordError('"clocks" must be a list of seconds')
        return cls(game, dict(options), tuple(moves), None, control, tuple(clocks))

    # -- text -----------------------------------------------------------------------------------
    def to_text(self) -> str:
        lines = [f'[Game "{_format_value(self.game)}"]']
        lines += [f'[{_tag_name(k)} "{_format_value(v)}"]' for k, v in self.options.items()]
        if self.result is not None:
            lines.append(f'[Result "{self.result}"]')
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
        moves: list[str] = []
        control: str | None = None
        clocks: list[float | None] = []
        in_header = True
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.split(";", 1)[0].strip()
            if not line:
                if game is not None:
                    in_header = False
                continue
            if in_header and line.startswith("["):
                match = _TAG.match(line)
                if not match:
                    raise RecordError(f'line {number}: a header line looks like [Tag "value"]')
                tag, value = match["tag"], match["value"]
                if tag == "Game":
                    game = re.sub(r"\\(.)", r"\1", value)
                elif tag == "Result":
                    result = value
                elif tag == "TimeControl":
                    control = value
                else:
                    options[tag[:1].lower() + tag[1:]] = _parse_value(value)
                continue
            in_header = False
            for token in _TOKEN.findall(line):
                if token.startswith("{"):
                    clk = _CLK.search(token)
                    if clk and moves and len(clocks) == len(moves):
                        clocks[-1] = int(clk["h"]) * 3600 + int(clk["m"]) * 60 + float(clk["s"])
                    continue
                numbered = _PLY.match(token)
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
        return cls(game, options, tuple(moves), result, control, tuple(clocks))


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
        data = json.loads(line)
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
        record.time_control,
        record.clocks,
    )
