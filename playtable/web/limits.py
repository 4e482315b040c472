"""Limits that keep one client from hurting the others, and the settings that tune them.

Every limit answers with a clear error, never a silent drop. The per-socket and
per-connection limits live in each server process; the per-address budgets of
:mod:`playtable.web.budgets` are shared through Redis when there is one.
"""

from __future__ import annotations

import ipaddress
import os
import time
from dataclasses import dataclass, fields
from typing import Any

from playtable import settings
from playtable.settings import SettingError


def _env_number(name: str, default: float) -> float:
    """A limit's variable as docs/deploy.md says it is checked: a count is a whole number of
    at least 1, a rate or a time more than 0 (0 was taken: a site with
    PLAYTABLE_TABLES_PER_MINUTE=0 refused every new table, 'at most 0 a minute')."""
    if isinstance(default, int):
        return settings.whole_number(name, default, minimum=1)
    return settings.number(name, default, above=0)


@dataclass(frozen=True)
class Limits:
    """The abuse limits of one server process; each field has an environment variable."""

    message_bytes: int = 16 * 1024  # PLAYTABLE_MESSAGE_BYTES: one WebSocket message
    message_burst: int = 30  # PLAYTABLE_MESSAGE_BURST: messages at once per connection
    messages_per_second: float = 10.0  # PLAYTABLE_MESSAGES_PER_SECOND: sustained
    # After this many refused messages in a row the connection is closed (1008): a client
    # that ignores "rate_limited" is not a page that went wrong but a flood.
    flood_close_after: int = 200  # PLAYTABLE_FLOOD_CLOSE_AFTER
    # Per client address and minute, shared by every process through Redis (web/budgets.py):
    tables_per_minute: int = 30  # PLAYTABLE_TABLES_PER_MINUTE: new tables, rematches too
    reads_per_minute: int = 600  # PLAYTABLE_READS_PER_MINUTE: socket joins, table pages, analyses
    offers_per_minute: int = 20  # PLAYTABLE_OFFERS_PER_MINUTE: draw offers, take-backs
    # PLAYTABLE_QUICK_MESSAGES_PER_MINUTE: a seat's quick messages, whatever process its
    # sockets are on (per seat, not per address; each process also keeps a seat to a few at
    # once, connections.py)
    quick_messages_per_minute: int = 15
    analyses_per_minute: int = 30  # PLAYTABLE_ANALYSES_PER_MINUTE: best moves
    # PLAYTABLE_SOLVER_SECONDS_PER_MINUTE: the solver's time those best moves took
    solver_seconds_per_minute: float = 30.0
    sockets_per_table: int = 64  # PLAYTABLE_SOCKETS_PER_TABLE: spectators, per process
    sockets_per_seat: int = 16  # PLAYTABLE_SOCKETS_PER_SEAT: a seated player's, per process
    sockets_per_address: int = 64  # PLAYTABLE_SOCKETS_PER_ADDRESS: per process
    # PLAYTABLE_SOCKETS_PER_ADDRESS_PER_TABLE: one address watching one table
    sockets_per_address_per_table: int = 8
    idle_seconds: float = 300.0  # PLAYTABLE_IDLE_SECONDS: close a socket silent this long
    # PLAYTABLE_JOIN_SECONDS: close a socket that has not joined by then (a page joins at
    # once; one that never does hears nothing, and must not hold a place)
    join_seconds: float = 15.0

    @classmethod
    def from_env(cls) -> Limits:
        values: dict[str, Any] = {}
        for spec in fields(cls):
            default = getattr(cls, spec.name)
            value = _env_number(f"PLAYTABLE_{spec.name.upper()}", default)
            values[spec.name] = value
        return cls(**values)


class TokenBucket:
    """``burst`` at once, refilled at ``rate`` a second."""

    __slots__ = ("allowance", "burst", "checked_at", "rate")

    def __init__(self, burst: float, rate: float) -> None:
        self.burst = burst
        self.rate = rate
        self.allowance = burst
        self.checked_at = time.monotonic()

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.allowance = min(self.burst, self.allowance + (now - self.checked_at) * self.rate)
        self.checked_at = now
        if self.allowance < 1:
            return False
        self.allowance -= 1
        return True

    def wait(self) -> float:
        """Seconds until the next token."""
        return max(0.0, (1 - self.allowance) / self.rate) if self.rate else 60.0


def trusted_proxies() -> list[str]:
    """``PLAYTABLE_TRUSTED_PROXIES``: addresses or networks whose X-Forwarded-For is believed.

    Empty by default: the address of a request is its peer's, and a client cannot pose as
    another by sending the header itself. Anything else than an address or a network (a
    host name, or ``10.0.0.5/24`` with host bits set) raises :class:`SettingError`: uvicorn
    took it for a name that no peer address ever equals, so the site trusted no proxy, and
    every player behind it shared the proxy's budgets (30 new tables a minute, site-wide).
    """
    raw = os.environ.get("PLAYTABLE_TRUSTED_PROXIES", "")
    proxies = [item.strip() for item in raw.split(",") if item.strip()]
    for item in proxies:
        try:
            ipaddress.ip_network(item)  # as uvicorn reads it: 10.0.0.5/24 is no network
        except ValueError:
            raise SettingError(
                f"PLAYTABLE_TRUSTED_PROXIES must list addresses or networks "
                f"(10.0.0.5, 10.0.0.0/24, fd00::/8), not {item!r}"
            ) from None
    return proxies


__all__ = ["Limits", "TokenBucket", "trusted_proxies"]
