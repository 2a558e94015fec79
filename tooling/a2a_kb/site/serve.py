"""Serve the site for preview: the address checked before any build, a warning when the
preview can be reached from other machines, and the preview itself (`preview`).

Above `preview`, which builds with [`build`][a2a_kb.site.build]: the command line's `serve` enters
here.
"""

from __future__ import annotations

import errno
import ipaddress
import socket

from ..errors import ConfigurationError
from ..project import Project
from . import preview


def serve_address(address: str) -> tuple[str, int]:
    """The host and port of `HOST:PORT` (`[::1]:8000` for IPv6), checked before any build:
    the port is a number from 1 to 65535, the host resolves, and the address is free to bind.
    Raises `ConfigurationError` naming the problem and a fix."""
    host, sep, port_text = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ConfigurationError(
            f"--address {address!r} is not HOST:PORT with a port from 1 to 65535 "
            "(tip: --address 127.0.0.1:8000)"
        )
    port = int(port_text)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as e:
        raise ConfigurationError(f"--address {address!r}: the host {host!r} does not resolve "
                                 "(tip: use an IP address such as 127.0.0.1)") from e
    family, _, _, _, where = found[0]
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
            probe.bind(where)
    except OSError as e:
        raise ConfigurationError(_bind_problem(host, port, e)) from e
    return host, port


def _bind_problem(host: str, port: int, error: OSError) -> str:
    if error.errno == errno.EADDRINUSE:
        return (f"port {port} on {host} is already in use "
                f"(tip: --address {host}:{port + 1}, or stop the other server)")
    if error.errno == errno.EADDRNOTAVAIL:
        return (f"no network interface of this machine has the address {host} "
                f"(tip: --address 127.0.0.1:{port})")
    if error.errno == errno.EACCES:
        return f"port {port} needs privileges to bind (tip: a port above 1023, e.g. --address {host}:8000)"
    return f"cannot serve on {host}:{port}: {error.strerror or error}"


def exposure(host: str) -> str:
    """A warning when `host` makes the preview reachable from other machines ('' if not)."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:
        return ""
    every = " (every network interface)" if host in ("0.0.0.0", "::") else ""
    return (f"serving on {host}{every}: other machines that can reach this one can read the preview "
            "and trigger rebuilds (tip: --address 127.0.0.1:PORT keeps it on this machine)")


def serve(project: Project, address: str = "127.0.0.1:8000") -> None:
    """Preview the site: an edited claim is on its page about a second later (see `preview`).

    The address is checked (see `serve_address`) before the first build, so a busy or
    invalid port costs a second, not a build."""
    host, port = serve_address(address)
    try:
        preview.serve(project, host, port)
    except OSError as e:  # the port was taken between the check and the server's bind
        if e.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            raise ConfigurationError(_bind_problem(host, port, e)) from e
        raise
