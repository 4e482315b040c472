"""Whether a change to the style sheets changed what any page looks like.

Serves this checkout and another one (``--versus DIR``, e.g. ``git worktree add /tmp/base
HEAD``) side by side, walks both through the same page states in Chromium (home, rules,
variants, atlas, a 404, My games, a Dots and Boxes table waiting, its invitation, seated,
after moves, the resign dialog, the result, the replay, the analysis, the continue page, a
Swaptimum table), on a desktop in the light and the dark theme and on a phone, and compares
the computed style of every element and its ``::before`` and ``::after``. It prints each
difference, then how many elements differ. Content that differs by itself between two runs
(a QR code, analysis values still arriving, a spectator count) shows up too: read the list.

    .venv/bin/python scripts/style_diff.py --versus /tmp/base

Used to check that the split of style.css into sheets by page (b96f9e3) changed nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import latency  # noqa: E402  bench/latency.py: free ports, waiting for a server
from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from tests.e2e.helpers import api_table, take_both_seats, wait_ply  # noqa: E402

DUMP = """() => {
  const out = {};
  // elements that draw nothing (a script, a preload) neither count nor shift the others
  const silent = (el) => ["SCRIPT", "LINK", "STYLE", "TEMPLATE", "META"].includes(el.tagName);
  const path = (el) => {
    const parts = [];
    while (el && el.nodeType === 1) {
      let i = 1, s = el;
      while ((s = s.previousElementSibling)) if (!silent(s)) i++;
      parts.unshift(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + ":" + i);
      el = el.parentElement;
    }
    return parts.join(">");
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (silent(el)) continue;
    for (const pseudo of [null, "::before", "::after"]) {
      const style = getComputedStyle(el, pseudo);
      if (pseudo && (style.content === "none" || style.content === "normal")) continue;
      const values = {};
      for (let i = 0; i < style.length; i++) values[style[i]] = style.getPropertyValue(style[i]);
      out[path(el) + (pseudo || "")] = values;
    }
  }
  return out;
}"""
MODES = (
    ("desktop", "light", {"width": 1280, "height": 900}),
    ("desktop", "dark", {"width": 1280, "height": 900}),
    ("phone", "light", {"width": 390, "height": 844}),
)
PAGES = (
    "/",
    "/fi/",
    "/ko/",
    "/rules/swaptimum",
    "/fi/rules/dots-and-boxes",
    "/variants",
    "/cs/variants/swedish-board",
    "/ko/variants/hexagon-grid",
    "/atlas",
    "/atlas/square-3x5-standard-normal",
    "/no-such-page",
    "/games",
)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def serve(checkout: str | None, folder: str) -> tuple[subprocess.Popen[bytes], str]:
    port = latency.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
    env["PLAYTABLE_SECRET"] = "style-diff-" + "0123456789abcdef" * 2
    if checkout is not None:  # its own code first (the editable install's finder comes last)
        env["PYTHONPATH"] = os.path.abspath(checkout)
    command = [sys.executable, "-c", "import sys; from playtable.cli import main; sys.exit(main())"]
    command += ["serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    command += ["--database-url", f"sqlite:///{folder}/style.sqlite3"]
    process = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    latency.wait_until_up(port, process, 60)
    return process, f"http://127.0.0.1:{port}"


def settle(page: Page) -> None:
    page.wait_for_load_state("networkidle")
    page.evaluate("document.getAnimations().forEach(a => a.finish())")
    time.sleep(0.3)


def states(browser: Browser, url: str, scheme: str, viewport: Any) -> Iterator[tuple[str, Page]]:
    """The page states, each yielded once its page has settled."""
    options: dict[str, Any] = {
        "viewport": viewport,
        "color_scheme": scheme,
        "reduced_motion": "reduce",
    }
    if viewport["width"] < 600:
        options.update(has_touch=True, is_mobile=True)
    red_context, blue_context = browser.new_context(**options), browser.new_context(**options)
    red, blue = red_context.new_page(), blue_context.new_page()
    for path in PAGES:
        red.goto(url + path)
        settle(red)
        yield path, red
    clock = {"kind": "realtime", "minutes": 5, "increment": 3}
    created = api_table(red_context, url, "dots", {"rows": 3, "cols": 3}, clock)
    red.goto(created["seat_url"])
    settle(red)
    yield "dots, waiting", red
    blue.goto(created["invite_url"])
    settle(blue)
    yield "invitation", blue
    take_both_seats(red, blue, created)
    settle(red)
    yield "dots, seated", red
    for ply, page in enumerate((red, blue, red), start=1):
        page.locator("#board [data-move]").first.click()
        wait_ply(red, ply)
    settle(red)
    settle(blue)
    yield "dots, after moves, red", red
    yield "dots, after moves, blue", blue
    table = red.url.split("?")[0].split("#")[0]
    red.locator("#resign-dialog").evaluate("dialog => dialog.showModal()")
    settle(red)
    yield "resign dialog", red
    red.locator("#resign-confirm").click()
    red.locator("#result-text").wait_for()
    settle(red)
    settle(blue)
    yield "result, red", red
    yield "result, blue", blue
    red.goto(table + "#ply=1")
    settle(red)
    yield "replay", red
    red.goto(table + "/analysis")
    settle(red)
    yield "analysis", red
    red.goto(table + "/continue")
    settle(red)
    yield "continue", red
    swaptimum = api_table(red_context, url, "swaptimum", {"size": 5})
    take_both_seats(red, blue, swaptimum)
    settle(red)
    yield "swaptimum, red", red
    red_context.close()
    blue_context.close()


def compare(name: str, before: dict[str, Any], after: dict[str, Any]) -> int:
    differ = 0
    for element in sorted(before.keys() | after.keys()):
        if element not in before or element not in after:
            print(f"{name}: only on one side: {element}")
            differ += 1
            continue
        changed = {
            prop: (value, after[element].get(prop))
            for prop, value in before[element].items()
            if after[element].get(prop) != value
        }
        if changed:
            differ += 1
            print(f"{name}: {element}: {json.dumps(changed)[:300]}")
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versus", metavar="DIR", required=True, help="the other checkout")
    options = parser.parse_args()
    total = 0
    with tempfile.TemporaryDirectory(prefix="playtable-style-") as folder:
        Path(folder, "other").mkdir()
        Path(folder, "this").mkdir()
        other, other_url = serve(options.versus, str(Path(folder, "other")))
        this, this_url = serve(None, str(Path(folder, "this")))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                for device, scheme, viewport in MODES:
                    walks = zip(
                        states(browser, other_url, scheme, viewport),
                        states(browser, this_url, scheme, viewport),
                        strict=True,
                    )
                    for (name, before), (_, after) in walks:
                        label = f"{device}, {scheme}, {name}"
                        total += compare(label, before.evaluate(DUMP), after.evaluate(DUMP))
                browser.close()
        finally:
            for process in (other, this):
                process.terminate()
                process.wait(timeout=15)
    print(f"elements that differ: {total}")


if __name__ == "__main__":
    main()
