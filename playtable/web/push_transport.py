"""How a push leaves the server: encrypted and signed by ``pywebpush``, over a ``requests``
session that follows no redirect and whose connections go to global addresses only (the
checks are in ``push_endpoints``).

Imported when a push is sent, not with the server: ``requests``, ``urllib3`` and
``pywebpush`` cost a process about 20 MB, and most sites send no push for hours.
"""

from __future__ import annotations

import socket
from typing import Any

import requests
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from playtable.web.push_endpoints import EndpointRefused, global_address


def _connected_to_global(sock: socket.socket) -> socket.socket:
    """``sock``, if the address it is connected to is a global one; else it is closed and
    :class:`EndpointRefused` raised, before anything is sent on it."""
    peer = str(sock.getpeername()[0])
    if not global_address(peer):
        sock.close()
        raise EndpointRefused(
            "a push endpoint must be on the internet (it connected to a private address)"
        )
    return sock


class _GlobalHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _connected_to_global(super()._new_conn())


class _GlobalHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        return _connected_to_global(super()._new_conn())


class _GlobalHTTPPool(HTTPConnectionPool):
    ConnectionCls = _GlobalHTTPConnection


class _GlobalHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GlobalHTTPSConnection


class GlobalOnly(HTTPAdapter):
    """A ``requests`` adapter whose connections go to global addresses only: each one is
    checked once connected, so what is sent goes where the check looked."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _GlobalHTTPPool,
            "https": _GlobalHTTPSPool,
        }


class NoRedirects(requests.Session):
    """A session that follows no redirect: a push service answers a push itself (RFC 8030),
    and a redirect would send the push to an address nobody checked (a review: a 307 to
    ``http://127.0.0.1/...`` took the POST and its body to a loopback-only service)."""

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs["allow_redirects"] = False
        return super().request(*args, **kwargs)


def session(*, private_ok: bool) -> NoRedirects:
    """A session for one send; unless ``private_ok``, where it connects is checked again."""
    made = NoRedirects()
    if not private_ok:
        made.mount("https://", GlobalOnly())
        made.mount("http://", GlobalOnly())
    return made


def send(
    endpoint: str,
    keys: dict[str, str],
    payload: str,
    *,
    vapid: Vapid02,
    subject: str,
    ttl: int,
    private_ok: bool,
) -> None:
    """Post one push message; :class:`WebPushException` if the push service refuses it."""
    with session(private_ok=private_ok) as made:
        webpush(
            {"endpoint": endpoint, "keys": keys},
            data=payload,
            vapid_private_key=vapid,
            vapid_claims={"sub": subject},
            ttl=ttl,
            timeout=10,
            requests_session=made,
        )


__all__ = ["GlobalOnly", "NoRedirects", "WebPushException", "send", "session"]
