"""How the table page feels on a mid-range phone through a long game on the biggest boards.

Chromium (Debian's, headless) opens a seated player's table page in a phone's viewport
(390 x 844) with its CPU slowed four times (CDP ``Emulation.setCPUThrottlingRate``), as a
mid-range phone runs it. Two unthrottled pages hold a socket for each seat and play a game of
random legal moves, one at a time: each move is sent once the watched page shows the one
before. The page under measure records, in the page itself:

- move to redraw: from a socket message's arrival to the next frame after its handler (the
  board, the panels and the move list drawn), median and worst, in ms;
- long tasks (over 50 ms) while the game is played;
- first draw: from the navigation's start to the board's SVG in the page;
- tap: a click on a line or a cell (every tenth move of the page's own seat is played so)
  until the next frame with its provisional mark;
- replay step: the game over, the left arrow held (a key every 33 ms, 60 steps): from each
  key to the next frame, median and worst;
- heap (MB), DOM nodes and event listeners after a forced garbage collection, at the start of
  the game and at its end.

    python bench/client.py                          # this checkout, all four boards
    python bench/client.py --boards dots12,swap26 --moves 200
    python bench/client.py --versus /tmp/base       # and another checkout in the same run

``--versus DIR`` starts a second server with ``PYTHONPATH=DIR`` (a ``git worktree add
/tmp/base REV``), as bench/page_load.py does, and measures both, boards alternating.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import page_load  # bench/page_load.py: a checkout's server, Chromium's arguments

BOARDS: dict[str, tuple[str, dict[str, Any]]] = {
    "dots12": ("dots", {"grid": "square", "rows": 12, "cols": 12}),
    "triangle10": ("dots", {"grid": "triangle", "size": 10}),
    "hexagon6": ("dots", {"grid": "hexagon", "size": 6}),
    "swap26": ("swaptimum", {"size": 26}),
}
PHONE = {"width": 390, "height": 844}

# Installed before the page's own scripts: times every socket message's handler until the
# next frame, the long tasks, the board's first drawing, clicks and keys until their frame.
PROBE = """(() => {
  const probe = { moves: [], taps: [], keys: [], long: 0, firstDraw: null };
  window.__probe = probe;
  const afterFrame = (start, into) =>
    requestAnimationFrame(() => setTimeout(() => into.push(performance.now() - start), 0));
  const add = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type !== "message") return add.call(this, type, listener, options);
    return add.call(this, type, (event) => {
      const start = performance.now();
      listener.call(this, event);
      if (String(event.data).includes('"move"')) afterFrame(start, probe.moves);
    }, options);
  };
  new PerformanceObserver((list) => { probe.long += list.getEntries().length; })
    .observe({ type: "longtask", buffered: true });
  document.addEventListener("click", () => afterFrame(performance.now(), probe.taps), true);
  document.addEventListener("keydown", () => afterFrame(performance.now(), probe.keys), true);
  const seen = new MutationObserver(() => {
    if (document.querySelector("#board svg")) {
      probe.firstDraw = performance.now();
      seen.disconnect();
    }
  });
  seen.observe(document, { childList: true, subtree: true });
})();"""

# A socket of a seat (the page's cookie) kept open: `__play(ply, move)` sends a move.
DRIVER = """async () => {
  const data = JSON.parse(document.getElementById("table-data").textContent);
  const url = new URL(data.ws_url, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url);
  await new Promise((resolve) => {
    ws.onopen = () => ws.send(JSON.stringify({ type: "join", protocol: 2, since: null }));
    ws.onmessage = (event) => { if (JSON.parse(event.data).type === "state") resolve(); };
  });
  window.__play = (ply, move) => ws.send(JSON.stringify({ type: "move", ply, move }));
}"""


def api(base: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else {}
    request = urllib.request.Request(base + path, data, headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def metrics(client: Any) -> dict[str, float]:
    client.send("HeapProfiler.collectGarbage")
    got = client.send("Performance.getMetrics")["metrics"]
    values = {m["name"]: m["value"] for m in got}
    return {
        "heap MB": values["JSHeapUsedSize"] / 1e6,
        "nodes": values["Nodes"],
        "listeners": values["JSEventListeners"],
    }


def wait_ply(page: Any, ply: int) -> None:
    page.wait_for_function(
        "(n) => Number(document.getElementById('board').dataset.ply) >= n",
        arg=ply,
        polling=50,
        timeout=60000,
    )


def tap(page: Any, move: str) -> bool:
    """Click the board's target of `move` as a finger would; False if it is not there."""
    return bool(
        page.evaluate(
            """(move) => {
              const target = [...document.querySelectorAll("#board .target[data-move]")]
                .find((t) => t.dataset.move === move) ||
                document.querySelector(`#board .target[data-key="${move.split(/[-+]/)[0]}"]`);
              if (!target) return false;
              target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
              return true;
            }""",
            move,
        )
    )


def run_board(browser: Any, base: str, board: str, options: argparse.Namespace) -> dict[str, Any]:
    game, settings = BOARDS[board]
    created = api(base, "/api/tables", {"game": game, "options": settings, "seat": "red"})
    table_id = created["id"]
    red = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    blue = browser.new_context()
    blue_page = blue.new_page()
    blue_page.goto(created["invite_url"])
    blue_page.locator("#take-seat").click()
    blue_page.wait_for_url(f"**/t/{table_id}")
    drivers = {"blue": blue_page, "red": red.new_page()}
    drivers["red"].goto(created["seat_url"])
    drivers["red"].wait_for_url(f"**/t/{table_id}")
    for driver in drivers.values():
        driver.evaluate(DRIVER)
    page = red.new_page()
    page.add_init_script(PROBE)
    client = red.new_cdp_session(page)
    client.send("Performance.enable")
    client.send("Emulation.setCPUThrottlingRate", {"rate": options.throttle})
    page.goto(base + f"/t/{table_id}")
    page.locator('#connection[data-state="connected"]').wait_for(state="attached")
    first_draw = page.evaluate("__probe.firstDraw")
    start = metrics(client)
    chance = random.Random(board)
    played = 0
    taps = 0
    while played < options.moves:
        now = api(base, f"/api/tables/{table_id}")
        if now["outcome"] or not now["legal_moves"]:
            break
        move = chance.choice(now["legal_moves"])
        mine = now["to_move"] == "red"
        if mine and taps * 10 <= played and tap(page, move):
            taps += 1
            if game == "swaptimum":  # a cell's tap may ask which swap: the page's first choice
                page.wait_for_timeout(50)
                choice = page.locator("#swap-chooser button[data-move]").first
                if choice.count() and choice.is_visible():
                    choice.click()
        else:
            drivers[now["to_move"]].evaluate("([p, m]) => __play(p, m)", [now["ply"], move])
        wait_ply(page, now["ply"] + 1)
        played += 1
    page.wait_for_timeout(500)
    end = metrics(client)
    probe = page.evaluate("({moves: __probe.moves, taps: __probe.taps, long: __probe.long})")
    # the replay: the focus off the board, the left arrow held
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.evaluate("__probe.keys.length = 0")
    for _ in range(min(60, played)):
        page.keyboard.press("ArrowLeft")
        page.wait_for_timeout(33)
    page.wait_for_timeout(1000)
    keys = page.evaluate("__probe.keys")
    result = {
        "moves played": played,
        "first draw ms": first_draw,
        "move to redraw ms, median": statistics.median(probe["moves"] or [0]),
        "move to redraw ms, worst": max(probe["moves"] or [0]),
        "long tasks": probe["long"],
        "tap to mark ms, median": statistics.median(probe["taps"] or [0]),
        "replay step ms, median": statistics.median(keys or [0]),
        "replay step ms, worst": max(keys or [0]),
        "heap MB, start": start["heap MB"],
        "heap MB, end": end["heap MB"],
        "DOM nodes, end": end["nodes"],
        "listeners, start": start["listeners"],
        "listeners, end": end["listeners"],
    }
    red.close()
    blue.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versus", metavar="DIR", help="another checkout, in the same run")
    parser.add_argument("--boards", default=",".join(BOARDS), help="of: " + ", ".join(BOARDS))
    parser.add_argument("--moves", type=int, default=400, help="at most this many a game")
    parser.add_argument("--throttle", type=float, default=4, help="CPU slowdown")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    boards = options.boards.split(",")
    checkouts: dict[str, str | None] = {"this": None}
    if options.versus:
        checkouts["other"] = options.versus
    results: dict[str, dict[str, dict[str, Any]]] = {label: {} for label in checkouts}
    with tempfile.TemporaryDirectory(prefix="playtable-client-") as folder:
        servers = {}
        try:
            for label, checkout in checkouts.items():
                Path(folder, label).mkdir()
                servers[label] = page_load.start(checkout, str(Path(folder, label)))
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium", args=page_load.ARGS
                )
                for number, board in enumerate(boards):
                    order = list(checkouts) if number % 2 == 0 else list(reversed(checkouts))
                    for label in order:
                        started = time.perf_counter()
                        results[label][board] = run_board(
                            browser, servers[label][1], board, options
                        )
                        took = time.perf_counter() - started
                        print(f"  {label} {board}: {took:.0f} s", file=sys.stderr, flush=True)
                browser.close()
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(timeout=15)
    print(f"CPU {options.throttle:g}x slower, {PHONE['width']}x{PHONE['height']} viewport")
    for board in boards:
        print(f"\n{board}")
        keys = list(results["this"][board])
        for key in keys:
            row = "  ".join(f"{label} {results[label][board][key]:9.1f}" for label in checkouts)
            print(f"  {key:28} {row}")


if __name__ == "__main__":
    main()
