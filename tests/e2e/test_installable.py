"""The site installs as an app on a phone's home screen: Chromium itself finds nothing
missing (the manifest, its icons, how it opens), in the page's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import BrowserType

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.e2e


def test_chromium_can_install_the_site_from_a_korean_page(
    browser_type: BrowserType, server_url: str, tmp_path: Path
) -> None:
    # a profile of its own: Chromium never offers to install from a private window
    context = browser_type.launch_persistent_context(
        tmp_path / "profile", executable_path=CHROMIUM, args=CHROMIUM_ARGS, locale="ko-KR"
    )
    try:
        page = context.new_page()
        page.goto(f"{server_url}/ko/")
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
        app = cdp.send("Page.getAppManifest")
        assert app["errors"] == []
        manifest = app["manifest"]
        # opened from the home screen: the Korean home page, without the address bar
        assert manifest["startUrl"] == f"{server_url}/ko/"
        assert manifest["display"] == "kStandalone"
        assert manifest["description"] == "가입할 필요가 없습니다. 링크를 공유하고 바로 시작하세요."
        # one app, whichever language it was installed from
        assert manifest["id"] == f"{server_url}/"
        sizes = {icon["sizes"] for icon in manifest["icons"]}
        assert {"192x192", "512x512"} <= sizes
    finally:
        context.close()
