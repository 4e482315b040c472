"""Where the server may send a push: a browser's push service on the internet, never this
machine or its private network.

A subscription's endpoint comes from the browser, so anyone holding a seat could give any
address: without this check one move made the server post to anything on its loopback or
private network, once for every subscription. An endpoint must be ``https`` with a host
whose addresses are all global ones; the host is checked when the subscription is made and
again, resolved, just before each send; and the address a send actually connects to is
checked once connected, before a byte is sent (a name can resolve to a global address for
the check and to a private one a moment later, for the connection: DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


class EndpointRefused(ValueError):
    """The endpoint is not one the server sends to."""


class Unresolved(EndpointRefused):
    """The endpoint's host name does not resolve (now, from here)."""


def global_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone is not part of it
    return ip.is_global and not ip.is_multicast


def host_and_port(endpoint: str, *, private_ok: bool = False) -> tuple[str, int]:
    """The endpoint's host and port; raises :class:`EndpointRefused` unless it is an
    ``https`` address without credentials whose host, if written as an address, is global.

    ``private_ok`` also allows ``http`` and private addresses (a site whose push service
    runs on its own network, and the tests' stand-in for one)."""
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as error:
        raise EndpointRefused(str(error)) from None
    if parts.scheme != "https" and not (private_ok and parts.scheme == "http"):
        raise EndpointRefused("a push endpoint must be an https address")
    host = parts.hostname
    if not host or parts.username is not None or parts.password is not None:
        raise EndpointRefused("a push endpoint needs a host and no credentials")
    if not private_ok:
        try:
            literal = not global_address(host)
        except ValueError:  # a name, not an address: checked when resolved
            literal = False
        if literal:
            raise EndpointRefused("a push endpoint must be on the internet")
    return host, port or (443 if parts.scheme == "https" else 80)


def check_resolved(endpoint: str, *, private_ok: bool = False) -> None:
    """Raise :class:`EndpointRefused` unless every address the endpoint's host resolves to
    is global (blocking: run it in a thread). A name that does not resolve is refused."""
    host, port = host_and_port(endpoint, private_ok=private_ok)
    if private_ok:
        return
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise Unresolved(f"the push endpoint's host does not resolve ({error})") from None
    for *_, address in found:
        if not global_address(str(address[0])):
            raise EndpointRefused("a push endpoint must be on the internet")


__all__ = ["EndpointRefused", "Unresolved", "check_resolved", "global_address", "host_and_port"]
