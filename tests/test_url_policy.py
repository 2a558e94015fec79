"""The URL policy: https to public hosts only, checked on the URL's text, on what its host
resolves to and on the address actually connected to; loopback only through the explicit
escape hatch (``HttpPolicy.allow_loopback`` / ``A2A_KB_ALLOW_LOOPBACK=1``).

Every connection these tests let happen goes to 127.0.0.1. Private and link-local addresses
are judged by the policy's text rules alone: no test sends a packet toward them.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from a2a_kb.cache import Cache
from a2a_kb.diagnostics import Mark
from a2a_kb.errors import FetchError
from a2a_kb.records.model import Source
from a2a_kb.sources.fetch import fetch
from a2a_kb.sources.http import HttpClient, HttpPolicy
from conftest import ScriptedServer, answer

ONCE = dict(attempts=1, connect_timeout=2, read_timeout=2, deadline=4)


def _failure(url: str, policy: HttpPolicy) -> str:
    with HttpClient(policy) as client, pytest.raises(FetchError) as caught:
        client.get(url)
    return caught.value.reason


def test_loopback_is_refused_by_default_before_any_connection(scripted_server: ScriptedServer) -> None:
    scripted_server.script = answer(200, b"secret")
    for url in (scripted_server.url("/admin"), f"https://127.0.0.1:{scripted_server.port}/admin",
                f"https://localhost:{scripted_server.port}/admin"):
        reason = _failure(url, HttpPolicy(**ONCE))
        assert "loopback" in reason, reason
    assert scripted_server.requests == []


def test_fetch_does_not_connect_to_a_loopback_source(scripted_server: ScriptedServer, tmp_path: Any) -> None:
    scripted_server.script = answer(200, b"secret")
    source = Source(id="local", kind="web", authority="secondary", url=scripted_server.url("/a.json"),
                    title="A page on this machine", versions=["1.0.0"], sha256="0" * 64,
                    mark=Mark("sources/secondary.yaml", 1, 1))
    report = fetch([source], Cache(tmp_path / "cache"), policy=HttpPolicy(**ONCE))
    [result] = report.results
    assert not result.ok and "loopback" in result.message, result.message
    assert scripted_server.requests == []


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[str]]]:
    """Answers for made-up host names (each lookup takes the next answer; the last repeats),
    so that no test asks a real DNS server anything."""
    answers: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def lookup(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and host in answers:
            queue = answers[host]
            address = queue.pop(0) if len(queue) > 1 else queue[0]
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port or 443)))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    yield answers


def test_a_name_that_resolves_to_loopback_is_refused(dns: dict[str, list[str]],
                                                     scripted_server: ScriptedServer) -> None:
    dns["kb-mirror.example.org"] = ["127.0.0.1"]
    reason = _failure(f"https://kb-mirror.example.org:{scripted_server.port}/a.json", HttpPolicy(**ONCE))
    assert reason.endswith("kb-mirror.example.org resolves to 127.0.0.1 is a loopback address"), reason
    assert scripted_server.requests == []


def test_a_name_rebound_to_loopback_between_check_and_connect_is_refused(
        dns: dict[str, list[str]], scripted_server: ScriptedServer) -> None:
    """The check sees a public address; the connection then lands on this machine."""
    dns["rebind.example.org"] = ["93.184.215.14", "127.0.0.1"]
    reason = _failure(f"https://rebind.example.org:{scripted_server.port}/a.json", HttpPolicy(**ONCE))
    assert "it connected to 127.0.0.1 is a loopback address" in reason, reason
    assert scripted_server.requests == []


def test_the_escape_hatch_opens_loopback_and_nothing_else(scripted_server: ScriptedServer,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    scripted_server.script = answer(200, b"served")
    with HttpClient(HttpPolicy(allow_loopback=True, **ONCE)) as client:  # type: ignore[arg-type]
        assert client.get(scripted_server.url("/a.json")).body == b"served"
    monkeypatch.setenv("A2A_KB_ALLOW_LOOPBACK", "1")
    assert HttpPolicy.from_environment().allow_loopback
    with HttpClient() as client:
        assert client.get(scripted_server.url("/b.json")).body == b"served"
    monkeypatch.setenv("A2A_KB_ALLOW_LOOPBACK", "yes please")
    assert not HttpPolicy.from_environment().allow_loopback  # only the documented value


@pytest.mark.parametrize(("url", "words"), [
    ("https://10.1.2.3/x", "private"),
    ("https://192.168.0.10/x", "private"),
    ("https://172.16.5.4/x", "private"),
    ("https://169.254.169.254/latest/meta-data/", "link-local"),
    ("https://[fe80::1]/x", "link-local"),
    ("https://[::ffff:10.0.0.1]/x", "private"),
    ("https://[fd00::1]/x", "private"),
    ("https://100.64.0.1/x", "non-public"),
    ("https://0.0.0.0/x", "private"),
    ("https://224.0.0.1/x", "multicast"),
    ("https://printer.local/x", "local network"),
    ("https://wiki.corp.internal/x", "local network"),
    ("https://intranet/x", "local network"),
    ("https://user:pw@example.org/x", "user name or password"),
    ("http://example.org/x", "only https"),
    ("ftp://example.org/x", "only https"),
    ("https://127.0.0.2/x", "loopback"),
    ("https://[::1]/x", "loopback"),
    # IPv6 forms that carry an IPv4 address: judged as that address as well (issue 26)
    ("https://[64:ff9b::a9fe:a9fe]/x", "link-local"),      # NAT64 to the metadata service
    ("https://[64:ff9b::7f00:1]/x", "carries 127.0.0.1"),  # NAT64 to loopback
    ("https://[64:ff9b:1::a00:1]/x", "local-use NAT64"),
    ("https://[2002:a9fe:a9fe::]/x", "link-local"),        # 6to4
    ("https://[2002:c0a8:1::1]/x", "private"),             # 6to4 of 192.168.0.1
    ("https://[::127.0.0.1]/x", "carries 127.0.0.1"),      # IPv4-compatible
    ("https://[::10.0.0.1]/x", "private"),
    ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x", "private"),  # Teredo
])
def test_the_policy_refuses_what_is_not_a_public_https_host(url: str, words: str) -> None:
    from a2a_kb.records.urls import url_problem

    assert words in url_problem(url), url_problem(url)
    if words != "loopback":  # the escape hatch opens loopback only, never through a translation
        assert words in url_problem(url, allow_loopback=True)


@pytest.mark.parametrize("url", ["https://raw.githubusercontent.com/a2aproject/A2A/abc/docs/x.md",
                                 "https://a2a-protocol.org/latest/specification/", "https://8.8.8.8/x",
                                 "https://[2606:4700::1111]/x", "https://[64:ff9b::808:808]/x",
                                 "https://[2002:808:808::1]/x"])
def test_the_policy_lets_public_https_hosts_through(url: str) -> None:
    from a2a_kb.records.urls import url_problem

    assert url_problem(url) == ""
