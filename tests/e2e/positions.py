"""Reaching a position quickly: the moves of a record, sent by each seated page over a
socket of its own (the page's seat cookie authenticates it, as the page's own socket)."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.helpers import to_move, wait_ply

_SEND = """async ([ply, move]) => {
    const page = JSON.parse(document.getElementById("table-data").textContent);
    const url = new URL(page.ws_url, location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(url);
    try {
        return await new Promise((resolve, reject) => {
            ws.onerror = () => reject(new Error("socket failed"));
            ws.onopen = () => ws.send(JSON.stringify({ type: "join", protocol: 2, since: null }));
            let sent = false;
            ws.onmessage = (event) => {
                const message = JSON.parse(event.data);
                if (message.type === "error") reject(new Error(message.message));
                if (message.type === "state" && !sent) {
                    sent = true;
                    ws.send(JSON.stringify({ type: "move", ply, move }));
                } else if (message.type === "state" && message.table.ply > ply) {
                    resolve(message.table.ply);
                } else if (message.type === "change" && message.events.some(
                    (e) => e.kind === "move" && e.ply === ply)) {
                    resolve(ply + 1);  // the move's own change: it was played
                }
            };
        });
    } finally {
        ws.close();
    }
}"""


def play_record(seats: dict[str, Page], moves: list[str]) -> None:
    """Play ``moves`` from the current position, each by the page of the side to move."""
    any_page = next(iter(seats.values()))
    for move in moves:
        ply = int(any_page.locator("#board").get_attribute("data-ply") or "0")
        mover = seats[to_move(any_page)]
        mover.evaluate(_SEND, [ply, move])
        for page in seats.values():
            wait_ply(page, ply + 1)
