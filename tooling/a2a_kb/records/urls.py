"""The URL policy: which addresses a record may name and a2a-kb may fetch.

A source URL comes from a record anyone may propose, and `a2a-kb fetch` (in CI, on a
developer's machine) connects to it. So an address must be https, carry no user name or
password, and name a public host: not loopback, not a private, link-local (cloud metadata
at 169.254.169.254), shared, multicast or reserved address, and not a name that only means
something on a local network (`localhost`, `*.local`, `*.internal`, `*.localhost`).

This module judges what can be judged from the text of a URL; validation uses it for every
URL in the records. `a2a_kb.sources.http` applies the same rules to what a host name
resolves to and to the address it actually connects to, so a public name that resolves to
a private address is refused as well.

The one exception is loopback, and only when asked for explicitly (`allow_loopback`, set
by `a2a_kb.sources.http.HttpPolicy`): tests serve copies from 127.0.0.1. Private
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


# IPv6 prefixes whose last 32 bits are an IPv4 address that a translator or a dual stack
# connects to: NAT64's well-known and local-use prefixes (RFC 6052, RFC 8215) and the
# deprecated IPv4-compatible form (::a.b.c.d). 6to4, Teredo and IPv4-mapped addresses have
# their own properties in the standard library.
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")
_EMBEDDING = tuple(ipaddress.IPv6Network(n) for n in ("64:ff9b::/96", "64:ff9b:1::/48", "::/96"))


def _embedded_ipv4(found: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for, or carries, on the way to its host."""
    embedded: list[ipaddress.IPv4Address] = []
    if found.ipv4_mapped is not None:
        embedded.append(found.ipv4_mapped)
    if found.sixtofour is not None:
        embedded.append(found.sixtofour)
    if found.teredo is not None:
        embedded.extend(found.teredo)
    if any(found in net for net in _EMBEDDING) and int(found) & 0xFFFFFFFF > 1:
        embedded.append(ipaddress.IPv4Address(int(found) & 0xFFFFFFFF))  # not :: or ::1
    return embedded


def _single_problem(address: str, found: ipaddress.IPv4Address | ipaddress.IPv6Address,
                    allow_loopback: bool) -> str:
    if found.is_loopback:
        return "" if allow_loopback else f"{address} is a loopback address"
    if found.is_global and not found.is_multicast:
        return ""
    kind = ("a link-local" if found.is_link_local else "a private" if found.is_private
            else "a multicast" if found.is_multicast else "a reserved or non-public")
    return f"{address} is {kind} address"


def address_problem(address: str, *, allow_loopback: bool = False) -> str:
    """Why a2a-kb must not connect to this IP address ('' when it may).

    An IPv6 address that carries an IPv4 address (mapped, NAT64, 6to4, Teredo, IPv4-compatible)
    is judged as that IPv4 address too: `64:ff9b::7f00:1` reaches 127.0.0.1 through a NAT64
    gateway. Loopback is allowed only as itself, never through a translation."""
    found = _ip(address)
    if found is None:
        return f"{address} is not an IP address"
    if isinstance(found, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(found)
        if found.ipv4_mapped is not None:  # ::ffff:127.0.0.1 is 127.0.0.1 on a dual stack
            return _single_problem(address, found.ipv4_mapped, allow_loopback)
        if found in _LOCAL_NAT64:
            return f"{address} is a local-use NAT64 address (64:ff9b:1::/48), not a public one"
        for inner in embedded:
            if problem := _single_problem(str(inner), inner, allow_loopback=False):
                return f"{address} carries {problem}"
    return _single_problem(address, found, allow_loopback)


def url_problem(url: str, *, allow_loopback: bool = False) -> str:
    """Why `url` is outside the policy ('' when it is inside), judged from its text alone."""
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
