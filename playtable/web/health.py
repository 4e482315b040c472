"""``/healthz`` and ``/readyz``: what a load balancer or an orchestrator probes.

``/healthz`` (liveness) answers as long as the process's event loop runs. ``/readyz``
(readiness) also asks the database for one round trip: a process that cannot reach it
cannot store a move, so it answers 503 and should get no new players; so does one whose
last heartbeat could not be written (``read-only``: a read-only file, a full disk: the
database answers reads, and refuses every move); a bus that is
``degraded`` (Redis away: the tables go by the store and the relay) still serves. Both
answer whatever the ``Host`` (probes come by address) and cost no budget.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

# A database slower than this to answer SELECT 1 is as good as away for a player's move.
READY_TIMEOUT_S = 2.0
PATHS = ("/healthz", "/readyz")

_HEADERS = {"Cache-Control": "no-store"}


async def healthz(request: Request) -> Response:
    return JSONResponse({"alive": True}, headers=_HEADERS)


async def readyz(request: Request) -> Response:
    service = request.app.state.service
    try:
        # Shielded: the answer comes after READY_TIMEOUT_S even when cancelling the ping
        # takes longer (a stalled database's connection attempt: 4 s in a review).
        ping = asyncio.ensure_future(service.store.ping())
        ping.add_done_callback(_retrieved)  # a late failure is nobody's to log
        await asyncio.wait_for(asyncio.shield(ping), READY_TIMEOUT_S)
        database = "ok" if request.app.state.sweep.beat_failures == 0 else "read-only"
    except Exception:  # whatever the driver raises: not ready, and nothing more to say
        database = "unreachable"
    ready = database == "ok"
    body = {"ready": ready, "database": database, "bus": service.bus.state()}
    return JSONResponse(body, status_code=200 if ready else 503, headers=_HEADERS)


def _retrieved(task: asyncio.Future[None]) -> None:
    if not task.cancelled():
        task.exception()


__all__ = ["PATHS", "healthz", "readyz"]
