"""The pictures decode, and show what the position holds: counted from the SVG's elements
and from the PNG's and GIF's pixels."""

from __future__ import annotations

import doctest
import importlib
import io
import math
import random
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from playtable.games import load
from playtable.games.records import GameRecord
from playtable.pictures import (
    NoSuchPly,
    position_at,
    positions,
    scene,
    to_gif,
    to_png,
    to_svg,
)
from playtable.pictures.scene import U

NS = {"s": "http://www.w3.org/2000/svg"}


def random_record(game: str, options: dict[str, object], plies: int, seed: int) -> GameRecord:
    rules = load(game, options)
    rng = random.Random(seed)
    state = rules.initial()
    moves: list[str] = []
    while rules.outcome(state) is None and len(moves) < plies:
        move = rng.choice(rules.legal_move_texts(state))
        moves.append(move)
        state = rules.play(state, move)
    return GameRecord(game, options, tuple(moves), "red" if rules.outcome(state) else None)


def svg_classes(text: str) -> list[str]:
    root = ET.fromstring(text)
    return [element.get("class", "") for element in root.iter()]


def colour_of(pixel: tuple[int, ...]) -> str | None:
    r, g, b = pixel[:3]
    if r > 150 and g < 100 and b < 100:
        return "red"
    if b > 140 and r < 90:
        return "blue"
    return None


def pixel_at(image: Image.Image, box: tuple[float, float, float, float], x: float, y: float):
    left, top, width, _height = box
    scale = image.width / width
    return image.convert("RGB").getpixel((int((x - left) * scale), int((y - top) * scale)))


def test_positions_doctest() -> None:
    result = doctest.testmod(importlib.import_module("playtable.pictures.positions"))
    assert result.attempted > 0
    assert result.failed == 0


def test_dots_svg_shows_each_drawn_line_in_its_drawer_colour() -> None:
    record = random_record("dots", {"grid": "square", "rows": 3, "cols": 3}, 14, seed=3)
    position = position_at(record, 14)
    classes = svg_classes(to_svg(scene(position)))
    drawn = [c for c in classes if "line--drawn" in c]
    assert len(drawn) == 14
    red = sum("line--red" in c for c in drawn)
    assert red == position.movers.count("red")
    # blue's lines carry a white stripe: the drawers never differ by colour alone
    assert classes.count("line-stripe") == position.movers.count("blue")
    assert sum("line--open" in c for c in classes) == 24 - 14
    assert sum(c == "dot" for c in classes) == 16
    # the last move carries its mark, and coordinates name the columns a..d and rows 1..4
    assert classes.count("line-last-halo") == 1
    root = ET.fromstring(to_svg(scene(position)))
    labels = {t.text for t in root.iterfind("s:text", NS)}
    assert labels == {"a", "b", "c", "d", "1", "2", "3", "4"}


def test_predrawn_lines_are_neutral() -> None:
    record = GameRecord("dots", {"grid": "square", "rows": 2, "cols": 2, "start": "swedish"})
    classes = svg_classes(to_svg(scene(position_at(record, 0))))
    assert sum("line--predrawn" in c for c in classes) == 8  # the Swedish 2x2 outline
    assert not any("line--drawn" in c for c in classes)


def test_closed_boxes_are_marked() -> None:
    record = GameRecord(
        "dots", {"grid": "square", "rows": 1, "cols": 1}, ("a1-b1", "a1-a2", "b1-b2", "a2-b2")
    )
    before, last = position_at(record, 3), position_at(record, 4)
    assert "cell-closed" not in svg_classes(to_svg(scene(before)))
    classes = svg_classes(to_svg(scene(last)))
    assert classes.count("cell-closed") == 1
    assert classes.count("cell cell--blue") == 1


def test_dots_png_decodes_with_the_drawn_lines_in_colour() -> None:
    record = random_record("dots", {"grid": "hexagon", "size": 2}, 20, seed=5)
    position = position_at(record, 20)
    picture = scene(position)
    image = Image.open(io.BytesIO(to_png(picture, 1200)))
    assert image.format == "PNG"
    assert max(image.size) == 1200
    view = position.view
    height = view["height"]
    seen = {"red": 0, "blue": 0, None: 0}
    for line in view["lines"]:
        a, b = view["dots"][line["a"]], view["dots"][line["b"]]
        # beside the middle of the line: inside its 9 units, outside blue's white stripe
        length = math.hypot(b["x"] - a["x"], b["y"] - a["y"])
        nx, ny = -(b["y"] - a["y"]) / length, (b["x"] - a["x"]) / length
        x = (a["x"] + b["x"]) / 2 * U + nx * 3
        y = (height - (a["y"] + b["y"]) / 2) * U - ny * 3
        seen[colour_of(pixel_at(image, picture.box, x, y))] += 1
    assert seen["red"] == position.movers.count("red")
    assert seen["blue"] == position.movers.count("blue")
    assert seen[None] == len(view["lines"]) - 20


def swaptimum_checkers(image: Image.Image, box, size: int) -> dict[str | None, int]:
    seen: dict[str | None, int] = {"red": 0, "blue": 0, None: 0}
    for index in range(size * size):
        x = (index % size) * U + U / 2 + 27  # inside the disc, outside its ring or core
        y = (size - 1 - index // size) * U + U / 2
        seen[colour_of(pixel_at(image, box, x, y))] += 1
    return seen


def test_swaptimum_png_shows_every_checker_and_marks_the_swap() -> None:
    record = random_record("swaptimum", {"size": 7}, 30, seed=11)
    position = position_at(record, len(record.moves))
    board = position.view["board"]
    picture = scene(position)
    image = Image.open(io.BytesIO(to_png(picture, 500)))
    seen = swaptimum_checkers(image, picture.box, 7)
    assert seen["red"] == board.count("red")
    assert seen["blue"] == board.count("blue")
    swapped = next(i for i, m in enumerate(record.moves) if ":" in m) + 1
    classes = svg_classes(to_svg(scene(position_at(record, swapped))))
    assert classes.count("last-square") == 1
    assert classes.count("last-swap") == 2
    assert sum(c.startswith("checker checker--") for c in classes) == sum(
        owner is not None for owner in position_at(record, swapped).view["board"]
    )


def test_gif_has_a_frame_per_position_and_ends_on_the_last() -> None:
    record = random_record("swaptimum", {"size": 5}, 12, seed=2)
    scenes = [scene(p) for p in positions(record)]
    gif = Image.open(io.BytesIO(to_gif(scenes, 300)))
    assert gif.format == "GIF"
    assert gif.n_frames == len(record.moves) + 1
    gif.seek(gif.n_frames - 1)
    last = position_at(record, len(record.moves)).view["board"]
    seen = swaptimum_checkers(gif.convert("RGB"), scenes[-1].box, 5)
    assert (seen["red"], seen["blue"]) == (last.count("red"), last.count("blue"))
    gif.seek(0)
    assert swaptimum_checkers(gif.convert("RGB"), scenes[0].box, 5)[None] == 25


def test_a_ply_outside_the_game_is_refused() -> None:
    record = random_record("dots", {"grid": "square", "rows": 2, "cols": 2}, 3, seed=1)
    with pytest.raises(NoSuchPly):
        position_at(record, 4)
    with pytest.raises(NoSuchPly):
        position_at(record, -1)


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("dots", {"grid": "triangle", "size": 3}),
        ("dots", {"grid": "square", "rows": 3, "cols": 3, "start": "icelandic"}),
        ("swaptimum", {"size": 6}),
    ],
)
def test_position_at_is_the_replay_of_every_position(game: str, options: dict) -> None:
    record = random_record(game, options, 40, seed=9)
    for every in positions(record):
        assert position_at(record, every.ply) == every
