"""The HTTP client against real servers on 127.0.0.1: every fault it must name."""

from __future__ import annotations

import datetime as dt
import email.utils
import ipaddress
import socket
import ssl
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from a2a_kb.errors import FetchError
from a2a_kb.sources.http import USER_AGENT, HttpClient, HttpPolicy
from conftest import CALL_FAILED, ScriptedServer, answer, record_reliability

# Small numbers so that every fault resolves in a fraction of a second.
FAST = HttpPolicy(connect_timeout=1, read_timeout=0.3, deadline=2, attempts=2, backoff=0.01,
                  max_wait=2, max_bytes=1024, allow_loopback=True)


def client(policy: HttpPolicy = FAST, waits: list[float] | None = None) -> HttpClient:
    return HttpClient(policy, sleep=waits.append if waits is not None else time.sleep)


def failure(url: str, policy: HttpPolicy = FAST) -> str:
    with client(policy) as c, pytest.raises(FetchError) as caught:
        c.get(url)
    assert caught.value.source_id == url
    return caught.value.reason


# answers ----------------------------------------------------------------------------------



# Faults the HTTP client meets head-on, by the test that plays each; the site's Reliability
# page shows how many were injected and how many the client did not survive.
FAULT_OF = {
    "test_a_server_error_then_success_is_retried": "server error, then success",
    "test_retry_after_is_honoured": "429 with Retry-After",
    "test_retry_after_over_the_limit_gives_up_at_once": "Retry-After over the limit",
    "test_a_silent_server_times_out": "timeout",
    "test_a_reset_connection_is_named": "connection reset",
    "test_a_refused_connection_is_named": "connection refused",
    "test_a_body_shorter_than_its_length_is_truncated": "truncated body",
    "test_a_body_announced_over_the_cap_is_refused_unread": "oversized body (announced)",
    "test_an_unannounced_endless_body_is_cut_at_the_cap": "endless body",
    "test_a_slow_drip_hits_the_deadline": "slow drip",
    "test_a_redirect_loop_is_detected": "redirect loop",
    "test_an_endless_chain_of_redirects_stops": "endless redirects",
    "test_a_redirect_to_another_host_is_refused": "redirect to another host",
    "test_plain_http_is_refused_except_on_loopback": "plain http to a remote host",
    "test_an_untrusted_certificate_is_refused": "invalid TLS certificate",
}
INJECTED: dict[str, int] = {}
SURVIVED_NOT: list[str] = []


@pytest.fixture(autouse=True)
def _count_fault(request: pytest.FixtureRequest) -> Iterator[None]:
    fault = FAULT_OF.get(request.node.originalname)
    yield
    if fault is not None:
        INJECTED[fault] = INJECTED.get(fault, 0) + 1
        if request.node.stash.get(CALL_FAILED, False):
            SURVIVED_NOT.append(fault)


@pytest.fixture(scope="module", autouse=True)
def _figures() -> Iterator[None]:
    yield
    if INJECTED:
        record_reliability({"http_faults": dict(sorted(INJECTED.items())),
                            "http_fault_failures": len(SURVIVED_NOT)})

def test_a_body_arrives_whole_with_validators_and_our_user_agent(
    threaded_httpserver: HTTPServer,
) -> None:
    threaded_httpserver.expect_request("/a.json").respond_with_data(
        b'{"ok": true}', headers={"ETag": '"v1"', "Last-Modified": "Sun, 29 Nov 2026 10:00:00 GMT"}
    )
    with client() as c:
        got = c.get(threaded_httpserver.url_for("/a.json"))
    assert got.body == b'{"ok": true}'
    assert (got.etag, got.last_modified) == ('"v1"', "Sun, 29 Nov 2026 10:00:00 GMT")
    assert not got.not_modified and got.attempts == 1
    request = threaded_httpserver.log[0][0]
    assert request.headers["User-Agent"] == USER_AGENT
    assert USER_AGENT.startswith("a2a-kb/")


def test_a_conditional_request_learns_not_modified(threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_request("/a", headers={"If-None-Match": '"v1"'}).respond_with_data(
        b"", status=304, headers={"ETag": '"v1"'}
    )
    with client() as c:
        got = c.get(threaded_httpserver.url_for("/a"), etag='"v1"',
                    last_modified="Sun, 29 Nov 2026 10:00:00 GMT")
    assert got.not_modified and got.body == b""
    sent = threaded_httpserver.log[0][0].headers
    assert sent["If-Modified-Since"] == "Sun, 29 Nov 2026 10:00:00 GMT"


def test_a_client_error_is_named_and_not_retried(threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_request("/gone").respond_with_data(b"no", status=404)
    assert failure(threaded_httpserver.url_for("/gone")) == "HTTP 404 Not Found"
    assert len(threaded_httpserver.log) == 1


def test_a_server_error_then_success_is_retried(threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_oneshot_request("/flaky").respond_with_data(b"", status=503)
    threaded_httpserver.expect_request("/flaky").respond_with_data(b"finally")
    waits: list[float] = []
    with client(waits=waits) as c:
        got = c.get(threaded_httpserver.url_for("/flaky"))
    assert (got.body, got.attempts) == (b"finally", 2)
    assert waits == [FAST.backoff]


def test_backoff_doubles_between_tries_and_the_message_counts_them(
    threaded_httpserver: HTTPServer,
) -> None:
    threaded_httpserver.expect_request("/down").respond_with_data(b"", status=502)
    waits: list[float] = []
    policy = HttpPolicy(allow_loopback=True, attempts=4, backoff=0.5, max_wait=1.5)
    with client(policy, waits) as c, pytest.raises(FetchError) as caught:
        c.get(threaded_httpserver.url_for("/down"))
    assert caught.value.reason == "HTTP 502 Bad Gateway (4 tries)"
    assert waits == [0.5, 1.0, 1.5]  # doubled, then capped at max_wait


def test_retry_after_is_honoured(threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_oneshot_request("/busy").respond_with_data(
        b"", status=429, headers={"Retry-After": "1"})
    soon = email.utils.format_datetime(dt.datetime.now(dt.UTC) + dt.timedelta(seconds=2),
                                       usegmt=True)
    threaded_httpserver.expect_oneshot_request("/busy").respond_with_data(
        b"", status=503, headers={"Retry-After": soon})
    threaded_httpserver.expect_request("/busy").respond_with_data(b"served")
    waits: list[float] = []
    with client(HttpPolicy(allow_loopback=True, attempts=3, backoff=0.01, max_wait=5), waits) as c:
        assert c.get(threaded_httpserver.url_for("/busy")).body == b"served"
    assert waits[0] == 1.0
    assert 0.5 < waits[1] <= 2.0  # an HTTP date, counted from now


def test_retry_after_over_the_limit_gives_up_at_once(threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_request("/busy").respond_with_data(
        b"", status=429, headers={"Retry-After": "3600"})
    reason = failure(threaded_httpserver.url_for("/busy"))
    assert reason == ("HTTP 429 Too Many Requests; the server asked to retry after 3600s, "
                      "over the 2s limit")
    assert len(threaded_httpserver.log) == 1


# faults on the wire -----------------------------------------------------------------------


def silent(conn: socket.socket, head: bytes) -> None:
    conn.recv(1)  # wait until the client gives up and closes


def reset(conn: socket.socket, head: bytes) -> None:
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_a_silent_server_times_out(scripted_server: ScriptedServer) -> None:
    scripted_server.script = silent
    started = time.monotonic()
    assert failure(scripted_server.url("/x")) == "timed out after 0.3s (2 tries)"
    assert time.monotonic() - started < 1.5
    assert len(scripted_server.requests) == 2


def test_a_reset_connection_is_named(scripted_server: ScriptedServer) -> None:
    scripted_server.script = reset
    assert failure(scripted_server.url("/x")) == "connection reset by 127.0.0.1 (2 tries)"


def test_a_refused_connection_is_named() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    assert failure(f"http://127.0.0.1:{port}/") == "connection refused by 127.0.0.1 (2 tries)"


def test_a_body_shorter_than_its_length_is_truncated(scripted_server: ScriptedServer) -> None:
    scripted_server.script = answer(200, b"x" * 100, {"Content-Length": "400"})
    reason = failure(scripted_server.url("/short"))
    assert reason == "body truncated: got 100 of 400 bytes (2 tries)"


def test_a_body_announced_over_the_cap_is_refused_unread(
    threaded_httpserver: HTTPServer,
) -> None:
    threaded_httpserver.expect_request("/big").respond_with_data(b"y" * 2000)
    reason = failure(threaded_httpserver.url_for("/big"))
    assert reason == "body over the 1 KiB size cap (2000 bytes announced)"
    assert len(threaded_httpserver.log) == 1  # a size cap is not worth a retry


def endless(conn: socket.socket, head: bytes) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
    for _ in range(100_000):  # 1.6 GB if nobody stopped reading
        conn.sendall(b"z" * 16384)


def test_an_unannounced_endless_body_is_cut_at_the_cap(scripted_server: ScriptedServer) -> None:
    scripted_server.script = endless
    started = time.monotonic()
    assert failure(scripted_server.url("/endless")) == "body over the 1 KiB size cap"
    assert time.monotonic() - started < 2


def drip(conn: socket.socket, head: bytes) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
    for _ in range(1000):
        conn.sendall(b".")
        time.sleep(0.05)


def test_a_slow_drip_hits_the_deadline(scripted_server: ScriptedServer) -> None:
    scripted_server.script = drip
    policy = HttpPolicy(allow_loopback=True, read_timeout=1, deadline=0.5, attempts=1)
    started = time.monotonic()
    assert failure(scripted_server.url("/drip"), policy) == "timed out after 0.5s"
    # Each byte comes well within the read timeout; only the deadline can stop this.
    assert 0.45 < time.monotonic() - started < 1.5


# redirects and the https rule -------------------------------------------------------------


def test_a_redirect_on_the_same_host_is_followed(threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_request("/old").respond_with_data(
        b"", status=301, headers={"Location": "/new"})
    threaded_httpserver.expect_request("/new").respond_with_data(b"moved here")
    with client() as c:
        got = c.get(threaded_httpserver.url_for("/old"))
    assert (got.body, got.final_url) == (b"moved here", threaded_httpserver.url_for("/new"))


def test_a_redirect_loop_is_detected(threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_request("/a").respond_with_data(
        b"", status=302, headers={"Location": "/b"})
    threaded_httpserver.expect_request("/b").respond_with_data(
        b"", status=307, headers={"Location": "/a"})
    reason = failure(threaded_httpserver.url_for("/a"))
    a, b = threaded_httpserver.url_for("/a"), threaded_httpserver.url_for("/b")
    assert reason == f"redirect loop: {a} → {b} → {a}"


def test_an_endless_chain_of_redirects_stops(threaded_httpserver: HTTPServer) -> None:
    def onward(request: Request) -> Response:
        step = int(request.path.rsplit("/", 1)[1])
        return Response(status=302, headers={"Location": f"/r/{step + 1}"})

    threaded_httpserver.expect_request("/r/0").respond_with_handler(onward)
    for step in range(1, 10):
        threaded_httpserver.expect_request(f"/r/{step}").respond_with_handler(onward)
    reason = failure(threaded_httpserver.url_for("/r/0"))
    assert reason.startswith("more than 5 redirects (last to ")
    assert len(threaded_httpserver.log) == 6


@pytest.mark.parametrize(("location", "refusal"), [
    ("https://evil.example/a2a.json", "another host (evil.example)"),
    ("http://localhost:{port}/a2a.json", "another host (localhost:{port})"),
    ("http://127.0.0.1:9/a2a.json", "another port (127.0.0.1:9)"),
])
def test_a_redirect_to_another_host_is_refused(
    threaded_httpserver: HTTPServer, location: str, refusal: str
) -> None:
    port = threaded_httpserver.port
    threaded_httpserver.expect_request("/x").respond_with_data(
        b"", status=302, headers={"Location": location.format(port=port)})
    reason = failure(threaded_httpserver.url_for("/x"))
    assert reason == f"redirected to {refusal.format(port=port)} — refused"
    assert len(threaded_httpserver.log) == 1


def test_plain_http_is_refused_except_on_loopback() -> None:
    # Refused before any connection is attempted, so no request leaves this machine.
    assert failure("http://example.com/a2a.json") == (
        "refused http://example.com/a2a.json: only https URLs are fetched "
        "(plain http only for loopback, when allowed)")


# TLS -------------------------------------------------------------------------------------


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key, as (certificate, key) PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "a2a-kb test")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1)).not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


@pytest.fixture(scope="module")
def https_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HTTPServer, Path]]:
    cert_file, key_file = self_signed_certificate(tmp_path_factory.mktemp("tls"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=context, threaded=True)
    server.start()
    server.expect_request("/a.json").respond_with_data(b"secret-free")
    try:
        yield server, cert_file
    finally:
        server.clear()
        server.stop()


def test_an_untrusted_certificate_is_refused(https_server: tuple[HTTPServer, Path]) -> None:
    server, _ = https_server
    url = server.url_for("/a.json")
    assert url.startswith("https://127.0.0.1:")
    reason = failure(url)
    assert reason == "invalid TLS certificate for 127.0.0.1 (self-signed certificate)"


def test_the_same_certificate_passes_once_trusted(https_server: tuple[HTTPServer, Path]) -> None:
    # Proves the refusal above is about trust, not a server that cannot speak TLS.
    server, cert_file = https_server
    with client(HttpPolicy(allow_loopback=True, ca_bundle=str(cert_file), attempts=1)) as c:
        assert c.get(server.url_for("/a.json")).body == b"secret-free"
