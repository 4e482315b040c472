"""The web app manifest and its icons (web/installable.py): what a phone installs."""

from __future__ import annotations

import io

from PIL import Image
from starlette.testclient import TestClient


def test_every_page_links_the_manifest_of_its_language(client: TestClient) -> None:
    assert '<link rel="manifest" href="/manifest.webmanifest">' in client.get("/").text
    assert '<link rel="manifest" href="/cs/manifest.webmanifest">' in client.get("/cs/").text
    manifest = client.get("/cs/manifest.webmanifest")
    assert manifest.status_code == 200
    assert manifest.headers["content-type"] == "application/manifest+json"
    data = manifest.json()
    assert data["start_url"] == "/cs/" and data["lang"] == "cs" and data["id"] == "/"
    assert data["description"] == "Bez registrace. Sdílejte odkaz a začněte hrát."
    assert data["display"] == "standalone" and data["name"] == "Playtable"


def test_the_icons_are_the_sizes_the_manifest_says(client: TestClient) -> None:
    for icon in client.get("/manifest.webmanifest").json()["icons"]:
        response = client.get(icon["src"])
        assert response.status_code == 200 and response.headers["content-type"] == "image/png"
        assert "max-age" in response.headers["cache-control"]
        image = Image.open(io.BytesIO(response.content))
        assert f"{image.width}x{image.height}" == icon["sizes"]
        if icon["purpose"] == "maskable":
            # cropped to a circle by the phone: a background to the edge, the design inside
            assert image.mode == "RGB"
            centre = image.getpixel((image.width // 2, image.height // 2))
            assert image.getpixel((0, 0)) == centre  # nothing drawn in the middle or corner
    apple = Image.open(io.BytesIO(client.get("/icons/apple-touch-icon.png").content))
    assert apple.size == (180, 180) and apple.mode == "RGB"  # iOS shows transparency black
    assert client.get("/icons/nothing.png").status_code == 404
    assert client.head("/icons/192.png").status_code == 200
