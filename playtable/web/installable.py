"""The site as an app on a phone's home screen: the web app manifest (``/manifest.webmanifest``,
in the page's language: its description, and the home page it opens) and its icons, drawn with
Pillow from the favicon's shapes (a red and a blue square, two dots) so there is one design
and no binary file to keep in step with it.

A player who plays every day adds the site to the home screen ("Install app", "Add to Home
screen") and opens it like an app, without the browser's address bar. Every language's
manifest has the same ``id``: installed from ``/fi/`` or ``/``, it is one app.
"""

from __future__ import annotations

import functools
import io

from PIL import Image, ImageDraw
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.web.templating import gettext_for, language_of, page_url

# the favicon's shapes on its 24-unit grid (static/favicon.svg): (kind, box, colour)
SHAPES = (
    ("square", (2, 2, 11, 11), "#c62828"),
    ("square", (13, 13, 22, 22), "#1d5fbf"),
    ("dot", (15, 4, 20, 9), "#1f2933"),
    ("dot", (4, 15, 9, 20), "#1f2933"),
)
CORNER = 2  # the squares' rounding, in grid units
BACKGROUND = "#f4f5f7"  # the light page's (style.css --bg; base.html's theme-color)
SUPERSAMPLE = 4  # drawn larger, then scaled down: smooth edges

#: icon name -> (size in pixels, the design's share of the width, opaque, purpose)
ICONS = {
    "192.png": (192, 1.0, False, "any"),
    "512.png": (512, 1.0, False, "any"),
    # Android crops a maskable icon to a circle or a rounded square: the design stays inside
    # the middle 80% (the spec's safe zone) on a background of its own.
    "maskable-512.png": (512, 0.6, True, "maskable"),
    # iOS shows transparency as black: its icon has a background
    "apple-touch-icon.png": (180, 0.75, True, None),
}
MAX_AGE = "public, max-age=604800"  # a week: the icons change with the design only


@functools.cache
def icon_png(name: str) -> bytes:
    """The icon ``name`` of :data:`ICONS` as PNG bytes."""
    size, share, opaque, _ = ICONS[name]
    big = size * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), BACKGROUND if opaque else (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    unit = big * share / 24
    offset = (big - 24 * unit) / 2
    for kind, (x0, y0, x1, y1), colour in SHAPES:
        box = [offset + x0 * unit, offset + y0 * unit, offset + x1 * unit, offset + y1 * unit]
        if kind == "square":
            draw.rounded_rectangle(box, radius=CORNER * unit, fill=colour)
        else:
            draw.ellipse(box, fill=colour)
    image = image.resize((size, size), Image.Resampling.LANCZOS)
    if opaque:
        image = image.convert("RGB")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


async def manifest(request: Request) -> Response:
    """``/manifest.webmanifest``: the app's name, the home page it opens in the page's
    language, how it shows, and its icons."""
    _ = gettext_for(request).gettext
    icons = []
    for name, (size, _share, _opaque, purpose) in ICONS.items():
        if purpose is None:
            continue
        icons.append(
            {
                "src": request.url_for("app_icon", name=name).path,
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": purpose,
            }
        )
    body = {
        "id": "/",
        "name": "Playtable",
        "short_name": "Playtable",
        "description": _("No registration. Share a link and start playing."),
        "lang": language_of(request),
        "start_url": page_url(request, "/"),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": BACKGROUND,
        "icons": icons,
    }
    return JSONResponse(
        body,
        media_type="application/manifest+json",
        headers={"Cache-Control": "public, max-age=3600", "Vary": "Accept-Language, Cookie"},
    )


async def app_icon(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ICONS:
        return Response(status_code=404)
    return Response(icon_png(name), media_type="image/png", headers={"Cache-Control": MAX_AGE})


routes: list[BaseRoute] = [
    Route("/manifest.webmanifest", manifest, methods=["GET", "HEAD"], name="manifest"),
    Route("/icons/{name}", app_icon, methods=["GET", "HEAD"], name="app_icon"),
]

__all__ = ["BACKGROUND", "ICONS", "icon_png", "routes"]
