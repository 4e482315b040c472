"""Real server processes on loopback ports, and scripted players that talk to them.

Used by the tests that need whole processes: several nodes sharing PostgreSQL and Redis, a
server killed with SIGKILL, a fuzzer hammering one. Everything stays on 127.0.0.1, and every
wait has a deadline.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection, connect

from playtable.tables.patch import Follower

SECRET = "test secret shared by every node of one site"
DOTS_3X3 = {"grid": "square", "rows": 3, "cols": 3, "start": "standard"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Node:
    """One ``playtable serve`` process."""

    def __init__(self, workdir: Path, env: dict[str, str], name: str = "node") -> None:
        self.workdir = workdir
        self.env = env
        self.name = name
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> Node:
        self.launch()
        return self.wait_ready(timeout)

    def launch(self) -> None:
        """Start the process without waiting for it (to start several at once)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYTABLE_")}
        env.update({"PLAYTABLE_SECRET": SECRET, **self.env})
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = open(self.workdir / f"{self.name}.log", "ab")  # noqa: SIM115 (the child owns it)
        command = [sys.executable, "-m", "playtable.cli", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, "--log-level", "warning"],
            cwd=self.workdir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def wait_ready(self, timeout: float = 30) -> Node:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while True:
            try:
                status, _ = request(self, "GET", "/")
                if status == 200:
                    return self
            except OSError:
                pass
            exited = self.process.poll() is not None
            if exited and "already in use" in self.log() and time.monotonic() < deadline:
                # Another process took the free port between free_port() and the bind.
                self.port = free_port()
                self.launch()
                continue
            if exited or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not start: {self.log()[-2000:]}")
            time.sleep(0.05)

    def log(self) -> str:
        path = self.workdir / f"{self.name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def kill(self) -> None:
        """SIGKILL: no cleanup, no goodbye, as when a machine dies."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def request(
    node: Node,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> tuple[int, Any]:
    """One HTTP request, redirects not followed; the status and the JSON (or text) body."""
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
    try:
        all_headers = dict(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            all_headers.setdefault("Content-Type", "application/json")
        conn.request(method, path, data, all_headers)
        response = conn.getresponse()
        payload = response.read()
        request.last_headers = dict(response.getheaders())  # type: ignore[attr-defined]
        try:
            return response.status, json.loads(payload)
        except ValueError:
            return response.status, payload.decode(errors="replace")
    finally:
        conn.close()


def create_table(node: Node, options: dict[str, Any] | None = None) -> tuple[str, str, str]:
    """A dots table with its creator as red: ``(id, red token, invitation)``."""
    status, data = request(
        node, "POST", "/api/tables", {"game": "dots", "options": options or DOTS_3X3, "seat": "red"}
    )
    assert status == 201, data
    return data["id"], data["seat_url"].rsplit("/", 1)[1], data["invite_url"].rsplit("/", 1)[1]


def claim(node: Node, table_id: str, invite: str) -> str:
    """Open the invitation as a new browser on ``node`` and take the seat; the seat token of
    its cookie."""
    link = f"/t/{table_id}/join/{invite}"
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
    try:
        conn.request("GET", link)
        page = conn.getresponse()
        text = page.read().decode()
        assert page.status == 200, page.status
        cookie = next(
            value.split(";", 1)[0]
            for name, value in page.getheaders()
            if name.lower() == "set-cookie" and value.startswith("pt_csrf=")
        )
        csrf = re.search(r'name="csrf" value="([^"]+)"', text)
        assert csrf, "the invitation page has a form"
        body = urlencode({"csrf": csrf.group(1)})
        headers = {"content-type": "application/x-www-form-urlencoded", "cookie": cookie}
        conn.request("POST", link, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        assert response.status == 303, response.status
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith(f"pt_{table_id}="):
                return value.split(";", 1)[0].split("=", 1)[1]
        raise AssertionError("no seat cookie")
    finally:
        conn.close()


class Player:
    """A scripted table page: one WebSocket, the newest state it has seen."""

    def __init__(self, table_id: str, token: str | None) -> None:
        self.table_id = table_id
        self.token = token
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.follower = Follower()
        self.pending: list[dict[str, Any]] = []

    @property
    def version(self) -> int:
        return -1 if self.state is None else int(self.state["version"])

    async def connect(self, node: Node) -> dict[str, Any]:
        headers = {"Cookie": f"pt_{self.table_id}={self.token}"} if self.token else {}
        self.ws = await connect(
            f"{node.ws_base}/t/{self.table_id}/ws",
            additional_headers=headers,
            open_timeout=10,
            compression=None,
        )
        since = None if self.state is None else self.state["version"]
        self.pending = []
        await self.send({"type": "join", "protocol": 2, "since": since})
        return await self.until(lambda t: True)

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(message))

    async def receive(self, timeout: float = 10) -> dict[str, Any]:
        """The next message, a ``change`` seen as the ``state`` it leads to (as table_events.js)."""
        assert self.ws is not None
        while not self.pending:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            self.pending = self.follower.receive(message)
            if self.follower.missed:  # a version went missing: read afresh, as a page does
                await self.send({"type": "join", "protocol": 2, "since": self.version})
        message = self.pending.pop(0)
        if message["type"] == "state" and message["version"] >= self.version:
            self.state = message["table"]
        elif message["type"] == "error":
            self.errors.append(message)
        return message

    async def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15
    ) -> dict[str, Any]:
        """Read until a state satisfying ``predicate`` arrives; that table."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"no such state; last {self.state}")
            message = await self.receive(left)
            if message["type"] == "state" and predicate(message["table"]):
                return self.state or message["table"]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None
