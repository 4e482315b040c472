"""A scene drawn with Pillow: PNG pictures and animated GIFs of whole games.

Pillow draws without anti-aliasing, so a picture is drawn at ``SUPERSAMPLE`` times its size
and scaled down with a Lanczos filter.
"""

from __future__ import annotations

import functools
import io
import itertools
import math
from collections.abc import Iterable, Sequence

from PIL import Image, ImageDraw, ImageFont

from playtable.pictures.scene import PALETTE, Circle, Line, Point, Polygon, Scene, Shape, Text

SUPERSAMPLE = 2
DEFAULT_PIXELS = 600  # the longer side of a PNG
GIF_PIXELS = 420
GIF_FRAME_MS = 700
GIF_LAST_MS = 3000


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _colour(value: str) -> tuple[int, int, int]:
    value = value.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


@functools.cache
def _palette() -> list[int]:
    return [channel for colour in PALETTE for channel in _colour(colour)]


class _Painter:
    def __init__(
        self, scene: Scene, pixels: int, supersample: int = SUPERSAMPLE, mode: str = "RGB"
    ) -> None:
        left, top, width, height = scene.box
        self.supersample = supersample
        self.scale = pixels * supersample / max(width, height)
        self.left, self.top = left, top
        size = (round(width * self.scale), round(height * self.scale))
        if mode == "P":
            # One fixed palette: colours are looked up in it, never quantized per frame.
            self.image = Image.new("P", size, PALETTE.index(scene.background))
            self.image.putpalette(_palette())
        else:
            self.image = Image.new("RGB", size, _colour(scene.background))
        self.draw = ImageDraw.Draw(self.image)
        self.final_size = (
            max(1, round(size[0] / supersample)),
            max(1, round(size[1] / supersample)),
        )

    def p(self, point: Point) -> tuple[float, float]:
        return ((point[0] - self.left) * self.scale, (point[1] - self.top) * self.scale)

    def w(self, width: float) -> int:
        return max(1, round(width * self.scale))

    def segment(self, a: Point, b: Point, colour: tuple[int, int, int], width: float) -> None:
        pa, pb = self.p(a), self.p(b)
        self.draw.line([pa, pb], fill=colour, width=self.w(width))
        r = width * self.scale / 2
        for x, y in (pa, pb):
            self.draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)

    def dashed(
        self,
        a: Point,
        b: Point,
        colour: tuple[int, int, int],
        width: float,
        dash: tuple[float, float],
        caps: bool,
    ) -> None:
        length = math.dist(a, b)
        if length == 0:
            return
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        at = 0.0
        while at < length:
            end = min(at + dash[0], length)
            start_point = (a[0] + ux * at, a[1] + uy * at)
            end_point = (a[0] + ux * end, a[1] + uy * end)
            if caps:
                self.segment(start_point, end_point, colour, width)
            else:
                self.draw.line(
                    [self.p(start_point), self.p(end_point)], fill=colour, width=self.w(width)
                )
            at = end + dash[1]

    def shape(self, shape: Shape) -> None:
        if isinstance(shape, Line):
            colour = _colour(shape.stroke)
            if shape.dash:
                # round caps only where they show: a few pixels wide
                caps = shape.width * self.scale >= 4
                self.dashed(shape.a, shape.b, colour, shape.width, shape.dash, caps=caps)
            else:
                self.segment(shape.a, shape.b, colour, shape.width)
        elif isinstance(shape, Circle):
            x, y = self.p(shape.centre)
            r = shape.r * self.scale
            self.draw.ellipse(
                (x - r, y - r, x + r, y + r),
                fill=_colour(shape.fill) if shape.fill else None,
                outline=_colour(shape.stroke) if shape.stroke else None,
                width=self.w(shape.width) if shape.stroke else 0,
            )
        elif isinstance(shape, Polygon):
            points = [self.p(point) for point in shape.points]
            if shape.fill:
                self.draw.polygon(points, fill=_colour(shape.fill))
            if shape.stroke:
                colour = _colour(shape.stroke)
                ring = [*shape.points, shape.points[0]]
                for a, b in itertools.pairwise(ring):
                    if shape.dash:
                        self.dashed(a, b, colour, shape.width, shape.dash, caps=False)
                    else:
                        self.draw.line(
                            [self.p(a), self.p(b)], fill=colour, width=self.w(shape.width)
                        )
        else:
            assert isinstance(shape, Text)
            anchor = "rm" if shape.anchor == "end" else "mm"
            self.draw.text(
                self.p(shape.at),
                shape.text,
                fill=_colour(shape.fill),
                font=_font(max(6, round(shape.size * self.scale))),
                anchor=anchor,
            )

    def finish(self) -> Image.Image:
        if self.supersample == 1:
            return self.image
        return self.image.resize(self.final_size, Image.Resampling.LANCZOS)


def to_image(
    scene: Scene, pixels: int = DEFAULT_PIXELS, supersample: int = SUPERSAMPLE, mode: str = "RGB"
) -> Image.Image:
    """The scene as an image whose longer side is ``pixels``: RGB, ``supersample`` times that
    drawn and scaled down; or ``mode="P"``, drawn at size on the scenes' palette."""
    if mode == "P":
        supersample = 1
    painter = _Painter(scene, pixels, supersample, mode)
    for shape in scene.shapes:
        painter.shape(shape)
    return painter.finish()


def to_png(scene: Scene, pixels: int = DEFAULT_PIXELS) -> bytes:
    out = io.BytesIO()
    to_image(scene, pixels).save(out, "PNG")
    return out.getvalue()


def to_gif(
    scenes: Iterable[Scene],
    pixels: int = GIF_PIXELS,
    frame_ms: int = GIF_FRAME_MS,
    last_ms: int = GIF_LAST_MS,
) -> bytes:
    """An animated GIF, one frame a scene, looping; the last frame stays longer.

    Frames are drawn at size (GIF's 256 colours make smoothing mostly noise) on one palette,
    so that each frame stores only what changed since the one before.
    """
    frames: Sequence[Image.Image] = [to_image(scene, pixels, mode="P") for scene in scenes]
    if not frames:
        raise ValueError("a GIF needs at least one frame")
    durations = [frame_ms] * (len(frames) - 1) + [last_ms]
    out = io.BytesIO()
    frames[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=list(frames[1:]),
        duration=durations,
        loop=0,
    )
    return out.getvalue()
