"""The URL policy: which addresses a record may name and a2a-kb may fetch.

A source URL comes from a record anyone may propose, and ``a2a-kb fetch`` (in CI, on a
developer's machine) connects to it. So an address must be https, carry no user name or
password, and name a public host: not loopback, not a private, link-local (cloud metadata
at 169.254.169.254), shared, multicast or reserved address, and not a name that only means
something on a local network (``localhost``, ``*.local``, ``*.internal``, ``*.localhost``).

This module judges what can be judged from the text of a URL; validation uses it for every
URL in the records. :mod:`a2a_kb.sources.http` applies the same rules to what a host name
resolves to and to the address it actually connects to, so a public name that resolves to
a private address is refused as well.

The one exception is loopback, and only when asked for explicitly (``allow_loopback``, set
by :class:`a2a_kb.sources.http.HttpPolicy`): tests serve copies from 127.0.0.1. Private
ranges are never allowed.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

LOCAL_NAMES = ("localhost",)
LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa", ".lan")


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def is_loopback_host(host: str) -> bool:
    """127.0.0.0/8, ::1 or the name localhost."""
    found = _ip(host)
    return host.lower().rstrip(".") in LOCAL_NAMES if found is None else found.is_loopback


def address_problem(address: str, *, allow_loopback: bool = False) -> str:
    """Why a2a-kb must not connect to this IP address ('' when it may)."""
    found = _ip(address)
    if found is None:
        return f"{address} is not an IP address"
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        found = found.ipv4_mapped
    if found.is_loopback:
        return "" if allow_loopback else f"{address} is a loopback address"
    if found.is_global and not found.is_multicast:
        return ""
    kind = ("a link-local" if found.is_link_local else "a private" if found.is_private
            else "a multicast" if found.is_multicast else "a reserved or non-public")
    return f"{address} is {kind} address"


def url_problem(url: str, *, allow_loopback: bool = False) -> str:
    """Why ``url`` is outside the policy ('' when it is inside), judged from its text alone."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as e:
        return f"it is not a valid URL ({e})"
    loopback = bool(host) and is_loopback_host(host)
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback and allow_loopback):
        return "only https URLs are allowed"
    if not host:
        return "it names no host"
    if parts.username is not None or parts.password is not None:
        return "it carries a user name or password"
    if loopback:
        return "" if allow_loopback else f"{host} is this machine (loopback)"
    if _ip(host) is not None:
        return address_problem(host, allow_loopback=allow_loopback)
    name = host.lower().rstrip(".")
    if "." not in name or name.endswith(LOCAL_SUFFIXES):
        return f"{host} is a name of the local network, not a public host"
    return ""
