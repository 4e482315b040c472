"""What a picture worker draws: a record and a ply in, the answer's bytes out.

The web's picture routes hand these functions to a worker process by name, so this module
imports only the pictures and the games: a spawned worker that imported the web module
instead loaded Starlette, Jinja2, SQLAlchemy and the table service for nothing (75 MB a
worker; about 30 MB with this module).
"""

from __future__ import annotations

import json

from playtable.games.records import GameRecord
from playtable.pictures.positions import position_at, positions
from playtable.pictures.raster import to_gif, to_png
from playtable.pictures.scene import scene
from playtable.pictures.svg import to_svg

MAX_GIF_FRAMES = 300  # a longer game's GIF shows every n-th position, and the last


def svg(record: GameRecord, ply: int) -> bytes:
    return to_svg(scene(position_at(record, ply))).encode()


def png(record: GameRecord, ply: int) -> bytes:
    return to_png(scene(position_at(record, ply)))


def position_json(record: GameRecord, ply: int) -> bytes:
    """``position.json``'s body, encoded as Starlette's ``JSONResponse`` would."""
    content = position_at(record, ply).to_json()
    text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode()


def gif(record: GameRecord, ply: int) -> bytes:
    """The whole game (``ply`` is its last)."""
    every = max(1, -(-(len(record.moves) + 1) // MAX_GIF_FRAMES))
    shown = [
        scene(p) for p in positions(record) if p.ply % every == 0 or p.ply == len(record.moves)
    ]
    return to_gif(shown)


__all__ = ["MAX_GIF_FRAMES", "gif", "png", "position_json", "svg"]
