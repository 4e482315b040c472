"""A link as a QR code, for a phone's camera (the continue page, the players' links)."""

from __future__ import annotations

import segno
from markupsafe import Markup


def qr_svg(text: str) -> Markup:
    """``text`` as a QR code, an inline SVG (no script needed to show it). Hidden from screen
    readers, which read it as an unnamed image: it is for a camera, the caption around it
    says whose it is, and the link itself is written out beside it."""
    code = segno.make(text, error="m")
    svg = code.svg_inline(scale=4, border=2, dark="#1f2933", light="#ffffff")
    svg = svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" ', 1)
    return Markup(svg)  # segno escapes nothing of ours: the SVG holds only the modules


__all__ = ["qr_svg"]
