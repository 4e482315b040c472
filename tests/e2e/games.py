"""Whole games played against the real server without a browser: the JSON API creates the
table, the invitation seats the second player, and each player's socket plays the moves."""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from websockets.sync.client import connect


@dataclass
class PlayedGame:
    id: str
    tokens: dict[str, str]  # seat tokens by colour
    moves: list[str]


def post_json(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


def _claim(invite_url: str) -> str:
    """Open the invitation as a new browser would and take the seat with its form (a POST
    with the page's CSRF token and cookie); the seat token the answer's cookie carries."""
    parts = urllib.parse.urlsplit(invite_url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=10)
    connection.request("GET", parts.path)
    page = connection.getresponse()
    html = page.read().decode()
    csrf_cookie = (page.getheader("Set-Cookie") or "").split(";", 1)[0]
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, "the invitation page has its form"
    body = urllib.parse.urlencode({"csrf": match.group(1)})
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": csrf_cookie,
        "Origin": f"{parts.scheme}://{parts.netloc}",
    }
    connection.request("POST", parts.path, body, headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    seat = next(
        value
        for name, value in response.getheaders()
        if name.lower() == "set-cookie" and value.startswith("pt_") and "csrf" not in value
    )
    return seat.split("=", 1)[1].split(";", 1)[0]


def play_game(
    server_url: str,
    options: dict[str, Any],
    seed: int,
    plies: int | None = None,
    game: str = "dots",
) -> PlayedGame:
    """A game (Dots and Boxes unless ``game`` says) between two people, each move chosen at
    random (``seed``)."""
    created = post_json(
        f"{server_url}/api/tables", {"game": game, "options": options, "seat": "red"}
    )
    table_id = created["id"]
    tokens = {"red": created["seat_url"].rsplit("/", 1)[1], "blue": _claim(created["invite_url"])}
    ws_url = server_url.replace("http://", "ws://") + f"/t/{table_id}/ws"
    rng = random.Random(seed)
    moves: list[str] = []
    with contextlib.ExitStack() as stack:
        sockets = {
            player: stack.enter_context(
                connect(ws_url, additional_headers={"Cookie": f"pt_{table_id}={token}"})
            )
            for player, token in tokens.items()
        }
        for socket in sockets.values():
            socket.send(json.dumps({"type": "join", "protocol": 2, "since": None}))
        while plies is None or len(moves) < plies:
            table = _get(f"{server_url}/api/tables/{table_id}")
            if table["outcome"] is not None:
                break
            move = rng.choice(table["legal_moves"])
            socket = sockets[table["to_move"]]
            sent = json.dumps({"type": "move", "ply": table["ply"], "move": move})
            socket.send(sent)
            while True:  # until the change of this move (or a state at least as new)
                message = json.loads(socket.recv(timeout=10))
                if message["type"] == "error" and message["code"] == "rate_limited":
                    # One seat may make many moves in a row (every box closed is another
                    # turn), faster than a socket's sustained allowance: wait as a page does.
                    time.sleep(0.2)
                    socket.send(sent)
                    continue
                assert message["type"] != "error", message
                if message["type"] == "change" and message["version"] > table["version"]:
                    break
                if message["type"] == "state" and message["table"]["ply"] > table["ply"]:
                    break
            moves.append(move)
    return PlayedGame(table_id, tokens, moves)


def claimed_by_moves(options: dict[str, Any], moves: list[str]) -> list[int]:
    """How many boxes (cells) each move of a Dots and Boxes game claimed, from the server's
    own replay of the record (the positions the pictures and position.json are made of)."""
    from playtable.games.records import GameRecord
    from playtable.pictures.positions import positions

    record = GameRecord("dots", options, tuple(moves))
    return [len(position.closed) for position in positions(record)][1:]


def line_words(player: str, move: str, claimed: int, unit: str = "box") -> str:
    """A Dots and Boxes move as the English page says it: "Blue drew the line from b2 to c2
    and claimed two boxes." (``unit`` "cell" on a triangle or hexagon grid)."""
    start, end = move.split("-")
    plural = {"box": "boxes", "cell": "cells"}[unit]
    claim = ["", f" and claimed a {unit}", f" and claimed two {plural}"][claimed]
    return f"{player.capitalize()} drew the line from {start} to {end}{claim}."
