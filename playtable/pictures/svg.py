"""A scene as an SVG document: every shape carries the class of its part of the board."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from playtable.pictures.scene import Circle, Line, Polygon, Scene, Shape, Text

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', Arial, sans-serif"


def _n(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _paint(fill: str | None, stroke: str | None, width: float) -> str:
    out = f' fill="{fill or "none"}"'
    if stroke:
        out += f' stroke="{stroke}" stroke-width="{_n(width)}"'
    return out


def _dash(dash: tuple[float, float] | None) -> str:
    return f' stroke-dasharray="{_n(dash[0])} {_n(dash[1])}"' if dash else ""


def _element(shape: Shape) -> str:
    cls = quoteattr(shape.cls)
    if isinstance(shape, Line):
        (x1, y1), (x2, y2) = shape.a, shape.b
        return (
            f'<line class={cls} x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"'
            f' stroke="{shape.stroke}" stroke-width="{_n(shape.width)}"'
            f' stroke-linecap="round"{_dash(shape.dash)}/>'
        )
    if isinstance(shape, Circle):
        cx, cy = shape.centre
        return (
            f'<circle class={cls} cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(shape.r)}"'
            f"{_paint(shape.fill, shape.stroke, shape.width)}/>"
        )
    if isinstance(shape, Polygon):
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in shape.points)
        return (
            f'<polygon class={cls} points="{points}"'
            f"{_paint(shape.fill, shape.stroke, shape.width)}{_dash(shape.dash)}/>"
        )
    assert isinstance(shape, Text)
    x, y = shape.at
    anchor = "end" if shape.anchor == "end" else "middle"
    return (
        f'<text class={cls} x="{_n(x)}" y="{_n(y)}" font-size="{_n(shape.size)}"'
        f' fill="{shape.fill}" text-anchor="{anchor}" dominant-baseline="central">'
        f"{escape(shape.text)}</text>"
    )


def to_svg(scene: Scene, *, title: str = "", pixels: float | None = None) -> str:
    """The whole document; ``pixels``: its width in pixels (default: scalable, no size)."""
    left, top, width, height = scene.box
    size = ""
    if pixels:
        size = f' width="{_n(pixels)}" height="{_n(pixels * height / width)}"'
    parts = [
        f'<svg xmlns="{SVG_NS}" viewBox="{_n(left)} {_n(top)} {_n(width)} {_n(height)}"'
        f'{size} font-family="{FONT}" role="img">',
    ]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    parts.append(
        f'<rect x="{_n(left)}" y="{_n(top)}" width="{_n(width)}" height="{_n(height)}"'
        f' fill="{scene.background}"/>'
    )
    parts.extend(_element(shape) for shape in scene.shapes)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
