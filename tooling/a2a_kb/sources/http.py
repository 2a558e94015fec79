"""The one door to the network: every HTTP request a2a-kb makes goes through here.

Nothing else in the package imports requests. The client is deliberately suspicious: it
speaks https only, to public hosts only, verifies certificates, follows redirects only
within the same host, streams bodies under a size cap and a deadline, notices a body cut
short, and retries what is worth retrying (timeouts, dropped connections, 5xx, 429) a
bounded number of times with exponential backoff, honouring a server's Retry-After up to a
limit.

The URL policy (`a2a_kb.records.urls`) is applied three times to every request and
every redirect: to the URL's text, to every address its host name resolves to, and to the
address the socket actually connected to (so a name that resolves to a public address for
the check and to a private one for the connection is refused too). Loopback is allowed only
with `HttpPolicy.allow_loopback`, the explicit escape hatch for tests that serve
copies from 127.0.0.1 (plain http is allowed there too); private, link-local and reserved
ranges never are. Outside Python, `A2A_KB_ALLOW_LOOPBACK=1` turns it on
(`HttpPolicy.from_environment`), for a test that runs the command line.

Every failure ends as a `FetchError` whose `reason` is a short
sentence a person can act on ("HTTP 404 Not Found", "body truncated: got 100 of 400
bytes"); the fetch stage files it under the source that asked.

Why it is long: it is the one door to the network, on purpose (see above): the URL policy,
the guarded connections, redirects, size and time limits, retries and the plain-language
reasons for each failure belong together, so that no request can go out by a path that skips
one of them.
"""

from __future__ import annotations

import email.utils
import http
import http.client
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from ..errors import FetchError
from ..records.urls import address_problem, is_loopback_host, url_problem
from ..version import __version__

KiB = 1024
MiB = 1024 * KiB
USER_AGENT = f"a2a-kb/{__version__} (+https://github.com/a2aproject/A2A)"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Statuses that say "try again later" rather than "this will never work".
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
CHUNK_BYTES = 64 * KiB


@dataclass(frozen=True)
class HttpPolicy:
    """How patient and how trusting the client is. Tests shrink the numbers."""

    connect_timeout: float = 10.0
    read_timeout: float = 30.0  # the longest silence allowed between two reads
    deadline: float = 120.0  # one attempt, redirects and body included, ends by then
    attempts: int = 3
    backoff: float = 1.0  # the wait before the second try; doubled before each later one
    max_wait: float = 30.0  # the longest wait, from backoff or from a server's Retry-After
    max_bytes: int = 20 * MiB  # the largest pinned file is about 160 KB
    max_redirects: int = 5
    user_agent: str = USER_AGENT
    ca_bundle: str = ""  # a PEM file of trusted CAs; empty means the system's store
    # The escape hatch of the URL policy, for tests: loopback hosts (127.0.0.0/8, ::1,
    # localhost) may be reached, over plain http too. Private ranges stay refused.
    allow_loopback: bool = False

    @classmethod
    def from_environment(cls) -> HttpPolicy:
        """The default policy, with loopback allowed when `A2A_KB_ALLOW_LOOPBACK=1`."""
        return cls(allow_loopback=os.environ.get("A2A_KB_ALLOW_LOOPBACK") == "1")


@dataclass(frozen=True)
class Download:
    """The answer to one GET: a whole, size-checked body, or "not modified"."""

    url: str
    final_url: str
    body: bytes
    etag: str
    last_modified: str
    not_modified: bool
    attempts: int


class _Failure(Exception):
    """Why one attempt failed, and whether another attempt might succeed."""

    def __init__(self, reason: str, *, retry: bool, retry_after: float | None = None,
                 status: int | None = None, refused: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.retry_after = retry_after
        self.status = status
        self.refused = refused  # an answer came, and the policy would not take it


def new_session(policy: HttpPolicy) -> requests.Session:
    """A session that sends a2a-kb's User-Agent and asks for bodies as stored.

    `Accept-Encoding: identity` keeps the bytes on the wire equal to the file, so the
    Content-Length check compares like with like. requests' own retries stay off: the
    client counts its attempts itself, so the message can say how many there were.
    """
    session = requests.Session()
    session.headers.update({"User-Agent": policy.user_agent, "Accept-Encoding": "identity"})
    adapter = _PolicyAdapter(policy.allow_loopback)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


class AddressRefused(OSError):
    """The socket connected to an address outside the URL policy; it was closed unused."""


def _guarded(base: type[HTTPConnection], allow_loopback: bool) -> type[HTTPConnection]:
    """`base` that refuses a connection whose peer is outside the URL policy, before a
    byte of the request is sent. Through a proxy, the peer is the proxy: the host was
    judged by its resolved addresses before (see `_require_allowed`)."""

    class Guarded(base):  # type: ignore[valid-type, misc]
        def _new_conn(self) -> socket.socket:
            sock = super()._new_conn()
            if getattr(self, "proxy", None) is None:
                peer = str(sock.getpeername()[0])
                problem = address_problem(peer, allow_loopback=allow_loopback)
                if problem:
                    sock.close()
                    raise AddressRefused(f"refused {self.host}: it connected to {problem}")
            return sock

    return Guarded


class _PolicyAdapter(HTTPAdapter):
    """requests' adapter, with connection pools whose connections are guarded."""

    def __init__(self, allow_loopback: bool) -> None:
        self.allow_loopback = allow_loopback
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("GuardedPool", (HTTPConnectionPool,),
                         {"ConnectionCls": _guarded(HTTPConnection, self.allow_loopback)}),
            "https": type("GuardedTlsPool", (HTTPSConnectionPool,),
                          {"ConnectionCls": _guarded(HTTPSConnection, self.allow_loopback)}),
        }


class HttpClient:
    """GET with timeouts, bounded retries, a size cap and same-host redirects.

    Safe to share between threads: each thread gets its own session (requests does not
    promise that one session may be used from several threads at once).
    """

    def __init__(
        self, policy: HttpPolicy | None = None, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.policy = policy or HttpPolicy.from_environment()
        self._sleep = sleep
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._lock = threading.Lock()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()

    def get(self, url: str, *, etag: str = "", last_modified: str = "") -> Download:
        """Fetch `url` whole, or learn that it has not changed since `etag`/`last_modified`.

        Raises `FetchError` (its `source_id` is the URL) when every attempt fails.
        """
        headers: dict[str, str] = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        tries = 0
        while True:
            tries += 1
            try:
                return self._attempt(url, headers, tries)
            except _Failure as failure:
                if not failure.retry or tries >= self.policy.attempts:
                    raise FetchError(url, _with_tries(failure.reason, tries),
                                     failure.status, refused=failure.refused) from failure
                wait = self._wait_before(tries + 1, failure)
                if wait is None:
                    assert failure.retry_after is not None
                    asked, limit = _seconds(failure.retry_after), _seconds(self.policy.max_wait)
                    reason = (
                        f"{failure.reason}; the server asked to retry after {asked}, "
                        f"over the {limit} limit"
                    )
                    raise FetchError(url, _with_tries(reason, tries), failure.status) from failure
                self._sleep(wait)

    # one attempt ----------------------------------------------------------------------

    def _attempt(self, url: str, headers: dict[str, str], tries: int) -> Download:
        policy = self.policy
        deadline = time.monotonic() + policy.deadline
        visited = [url]
        current = url
        while True:
            _require_allowed(current, policy.allow_loopback)
            response = self._send(current, headers, deadline)
            with response:
                if response.status_code in REDIRECT_STATUSES:
                    current = _redirect_target(response, current, visited, policy.max_redirects)
                    visited.append(current)
                    continue
                if response.status_code == 304:
                    return Download(url, current, b"", _header(response, "ETag"),
                                    _header(response, "Last-Modified"), True, tries)
                if response.status_code >= 400:
                    raise _Failure(
                        _status_text(response.status_code),
                        retry=response.status_code in RETRY_STATUSES,
                        retry_after=_retry_after(response.headers.get("Retry-After", "")),
                        status=response.status_code,
                    )
                if response.status_code not in (200, 203):
                    raise _Failure(
                        f"unexpected {_status_text(response.status_code)}", retry=False
                    )
                body = self._read_body(response, deadline)
                return Download(url, current, body, _header(response, "ETag"),
                                _header(response, "Last-Modified"), False, tries)

    def _send(self, url: str, headers: dict[str, str], deadline: float) -> requests.Response:
        policy = self.policy
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Failure(f"timed out after {_seconds(policy.deadline)}", retry=True)
        # The read timeout also bounds the wait for the status line and each later read,
        # so a silent server can never hold an attempt past its deadline.
        read_timeout = min(policy.read_timeout, remaining)
        host = urlsplit(url).hostname or ""
        # A proxy set in the environment must not intercept a test's loopback server.
        proxies = {"http": None, "https": None} if is_loopback_host(host) else None
        try:
            return self._session().get(
                url,
                headers=headers,
                timeout=(policy.connect_timeout, read_timeout),
                allow_redirects=False,
                stream=True,
                verify=policy.ca_bundle or True,
                proxies=proxies,  # type: ignore[arg-type]
            )
        except requests.exceptions.SSLError as e:
            raise _Failure(_tls_reason(e, host), retry=False) from e
        except requests.exceptions.ConnectTimeout as e:
            raise _Failure(
                f"timed out after {_seconds(policy.connect_timeout)} connecting to {host}",
                retry=True,
            ) from e
        except requests.exceptions.ReadTimeout as e:
            limit = policy.read_timeout if read_timeout == policy.read_timeout else policy.deadline
            raise _Failure(f"timed out after {_seconds(limit)}", retry=True) from e
        except requests.exceptions.ConnectionError as e:
            refused = next((c for c in _causes(e) if isinstance(c, AddressRefused)), None)
            if refused is not None:
                raise _Failure(str(refused), retry=False) from e
            raise _Failure(_connection_reason(e, host), retry=True) from e
        except requests.exceptions.RequestException as e:
            raise _Failure(f"request failed: {e}", retry=False) from e

    def _read_body(self, response: requests.Response, deadline: float) -> bytes:
        """The whole body, read in pieces so a cap and a deadline can stop it midway."""
        policy = self.policy
        cap = policy.max_bytes
        announced = _content_length(response)
        if announced is not None and announced > cap:
            raise _Failure(f"body over the {_size(cap)} size cap ({announced} bytes announced)",
                           retry=False, refused=True)
        raw = response.raw
        pieces: list[bytes] = []
        kept = 0
        while True:
            if time.monotonic() > deadline:
                raise _Failure(f"timed out after {_seconds(policy.deadline)}", retry=True)
            try:
                # read1 returns as soon as some bytes arrive, so the deadline is checked
                # between trickles of a slow server, not only once the body is complete.
                piece = raw.read1(CHUNK_BYTES, decode_content=True)
            except urllib3.exceptions.ReadTimeoutError as e:
                raise _Failure(f"timed out after {_seconds(policy.read_timeout)} without data",
                               retry=True) from e
            except urllib3.exceptions.SSLError as e:
                raise _Failure(f"TLS error during the transfer: {e}", retry=True) from e
            except (urllib3.exceptions.ProtocolError, OSError) as e:
                raise _Failure(_cut_short(raw.tell(), announced), retry=True) from e
            except urllib3.exceptions.HTTPError as e:
                raise _Failure(f"transfer failed: {e}", retry=True) from e
            if not piece:
                break
            kept += len(piece)
            if kept > cap:
                raise _Failure(f"body over the {_size(cap)} size cap", retry=False, refused=True)
            pieces.append(piece)
        if announced is not None and raw.tell() != announced:
            raise _Failure(_cut_short(raw.tell(), announced), retry=True)
        return b"".join(pieces)

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = new_session(self.policy)
            self._local.session = session
            with self._lock:
                self._sessions.append(session)
        return session

    def _wait_before(self, attempt: int, failure: _Failure) -> float | None:
        """Seconds to wait before `attempt`; None when the server asks for too long."""
        if failure.retry_after is not None:
            return failure.retry_after if failure.retry_after <= self.policy.max_wait else None
        return min(self.policy.backoff * 2 ** (attempt - 2), self.policy.max_wait)


# the rules -------------------------------------------------------------------------------


def is_loopback(url: str) -> bool:
    return is_loopback_host(urlsplit(url).hostname or "")


def _require_allowed(url: str, allow_loopback: bool) -> None:
    """Refuse `url` when its text or any address its host resolves to is outside the
    URL policy (see the module docstring)."""
    problem = url_problem(url, allow_loopback=allow_loopback)
    if problem:
        if problem == "only https URLs are allowed":
            problem = "only https URLs are fetched (plain http only for loopback, when allowed)"
        raise _Failure(f"refused {url}: {problem}", retry=False)
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        found = socket.getaddrinfo(host, parts.port or 443, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return  # the connection will say that the name does not resolve
    for *_, address in found:
        problem = address_problem(str(address[0]), allow_loopback=allow_loopback)
        if problem:
            raise _Failure(f"refused {url}: {host} resolves to {problem}", retry=False)


def _host_of(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host


def _redirect_target(
    response: requests.Response, current: str, visited: list[str], max_redirects: int
) -> str:
    location = response.headers.get("Location", "")
    if not location:
        raise _Failure(f"{_status_text(response.status_code)} without a Location", retry=False)
    target = urljoin(current, location)
    if urlsplit(target).hostname != urlsplit(current).hostname:
        raise _Failure(f"redirected to another host ({_host_of(target)}) — refused",
                       retry=False, refused=True)
    if _host_of(target) != _host_of(current):
        raise _Failure(f"redirected to another port ({_host_of(target)}) — refused",
                       retry=False, refused=True)
    if target in visited:
        raise _Failure(f"redirect loop: {' → '.join([*visited, target])}", retry=False, refused=True)
    if len(visited) > max_redirects:
        raise _Failure(f"more than {max_redirects} redirects (last to {target})", retry=False, refused=True)
    return target


# turning answers and exceptions into sentences ---------------------------------------------


def _status_text(status: int) -> str:
    try:
        return f"HTTP {status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def _header(response: requests.Response, name: str) -> str:
    return response.headers.get(name, "").strip()


def _content_length(response: requests.Response) -> int | None:
    value = response.headers.get("Content-Length", "").strip()
    return int(value) if value.isdigit() else None


def _retry_after(value: str) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date), None if absent or odd."""
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _cut_short(received: int, announced: int | None) -> str:
    if announced is not None:
        return f"body truncated: got {received} of {announced} bytes"
    return f"connection lost after {received} bytes of the body"


def _causes(error: BaseException) -> Iterator[BaseException]:
    """The error and everything it wraps (urllib3 and requests nest them several deep)."""
    seen: set[int] = set()
    stack: list[BaseException] = [error]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        nested = [current.__cause__, current.__context__, getattr(current, "reason", None)]
        nested += [arg for arg in current.args if isinstance(arg, BaseException)]
        stack.extend(n for n in nested if isinstance(n, BaseException))


def _tls_reason(error: BaseException, host: str) -> str:
    for cause in _causes(error):
        if isinstance(cause, ssl.SSLCertVerificationError):
            detail = cause.verify_message or "verification failed"
            return f"invalid TLS certificate for {host} ({detail})"
    return f"TLS handshake with {host} failed"


def _connection_reason(error: BaseException, host: str) -> str:
    for cause in _causes(error):
        if isinstance(cause, ConnectionRefusedError):
            return f"connection refused by {host}"
        if isinstance(cause, ConnectionResetError):
            return f"connection reset by {host}"
        if isinstance(cause, http.client.RemoteDisconnected):
            return f"{host} closed the connection without answering"
        if isinstance(cause, urllib3.exceptions.NameResolutionError):
            return f"could not resolve host {host}"
    return f"could not connect to {host}"


def _with_tries(reason: str, tries: int) -> str:
    return f"{reason} ({tries} tries)" if tries > 1 else reason


def _seconds(value: float) -> str:
    return f"{value:g}s"


def _size(value: int) -> str:
    if value >= MiB and value % MiB == 0:
        return f"{value // MiB} MiB"
    if value >= KiB and value % KiB == 0:
        return f"{value // KiB} KiB"
    return f"{value} bytes"
