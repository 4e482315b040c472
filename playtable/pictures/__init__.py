"""Pictures of game positions: SVG, PNG and animated GIF, from one geometry (``scene``).

Pure rendering: a record in, bytes or text out; no I/O, no web. ``positions`` replays the
record with :mod:`playtable.games`; ``scene`` turns a position into shapes in the live
board's units; ``svg`` and ``raster`` (Pillow) draw those shapes.
"""

from playtable.pictures.positions import NoSuchPly, Position, digest, position_at, positions
from playtable.pictures.raster import to_gif, to_image, to_png
from playtable.pictures.scene import Scene, scene
from playtable.pictures.svg import to_svg

__all__ = [
    "NoSuchPly",
    "Position",
    "Scene",
    "digest",
    "position_at",
    "positions",
    "scene",
    "to_gif",
    "to_image",
    "to_png",
    "to_svg",
]
