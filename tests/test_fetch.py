"""The fetch stage against real local servers and the real mirror.

Every fault test seeds a good copy first, injects the fault on a refresh, and then checks
what matters to a user: the fault is reported for its source in words, the cache still
verifies, the last good copy is still served, and no temporary file is left behind.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from a2a_kb.cache import Cache, sha256_of
from a2a_kb.diagnostics import Mark
from a2a_kb.errors import ConfigurationError
from a2a_kb.records.model import Source
from a2a_kb.sources.fetch import (
    FetchReport,
    Outcome,
    SourceResult,
    TerminalProgress,
    fetch,
    mirror_path,
)
from a2a_kb.sources.http import HttpPolicy
from conftest import MIRROR, REPO, ScriptedServer, answer, record_reliability

FAST = HttpPolicy(connect_timeout=1, read_timeout=0.3, deadline=0.5, attempts=2, backoff=0.01,
                  max_wait=1, max_bytes=4096, allow_loopback=True)
GOOD = b'{"enum": ["submitted", "working", "completed"]}\n'
OTHER = b'{"enum": ["submitted", "working", "done"]}\n'
BLOB_NAME = re.compile(r"[0-9a-f]{64}")


def make_source(source_id: str, url: str, body: bytes = GOOD, *, moving: bool = False) -> Source:
    return Source(id=source_id, kind="json-schema", authority="primary", url=url,
                  title=source_id, versions=["1.0.0"], mark=Mark("sources/test.yaml", 7, 5),
                  sha256=sha256_of(body), size=len(body), moving=moving)


def assert_cache_sound(cache: Cache, keeps: dict[str, bytes]) -> None:
    """The cache verifies, serves each last good copy, and shows no temporary file."""
    assert cache.verify() == []
    for source_id, body in keeps.items():
        assert cache.content(source_id, sha256_of(body)) == body
        assert cache.content(source_id) == body
    for path in cache.root.rglob("*"):
        if path.is_dir():
            continue
        relative = path.relative_to(cache.root).as_posix()
        assert relative in ("index.json", "lock") or (
            relative.startswith("blobs/") and BLOB_NAME.fullmatch(path.name)
        ), f"unexpected file in the cache: {relative}"


@dataclass
class Tally:
    """The faults this module injected and the fetches it killed, and how many of them the
    fetch stage did not survive, for the site's Reliability page."""

    faults: dict[str, int] = field(default_factory=dict)  # fault → times injected
    fault_failures: int = 0
    kills: int = 0
    kill_failures: int = 0


TALLY = Tally()


@pytest.fixture(scope="module", autouse=True)
def figures() -> Iterator[None]:
    yield
    if TALLY.faults:
        record_reliability({"fetch_faults": dict(sorted(TALLY.faults.items())),
                            "fetch_fault_failures": TALLY.fault_failures})
    if TALLY.kills:
        record_reliability({"fetch_kills": TALLY.kills, "fetch_kill_failures": TALLY.kill_failures})


@contextlib.contextmanager
def injecting(fault: str) -> Iterator[None]:
    """Count one injection of ``fault``, and a failure if what follows does not hold."""
    TALLY.faults[fault] = TALLY.faults.get(fault, 0) + 1
    try:
        yield
    except BaseException:
        TALLY.fault_failures += 1
        raise


def only(report: FetchReport) -> SourceResult:
    assert len(report.results) == 1
    return report.results[0]


# the ordinary path ---------------------------------------------------------------------------


def test_fetch_stores_verified_copies_and_does_not_fetch_them_again(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    threaded_httpserver.expect_request("/a.json").respond_with_data(GOOD)
    threaded_httpserver.expect_request("/b.json").respond_with_data(OTHER)
    sources = [make_source("a", threaded_httpserver.url_for("/a.json")),
               make_source("b", threaded_httpserver.url_for("/b.json"), OTHER)]
    cache = Cache(tmp_path / "cache")

    first = fetch(sources, cache, policy=FAST)
    assert first.ok and first.mode == "network"
    assert [r.outcome for r in first.results] == [Outcome.FETCHED, Outcome.FETCHED]
    assert_cache_sound(cache, {"a": GOOD, "b": OTHER})

    second = fetch(sources, cache, policy=FAST)
    assert [r.outcome for r in second.results] == [Outcome.CACHED, Outcome.CACHED]
    assert len(threaded_httpserver.log) == 2  # nothing was asked for twice

    # --refresh leaves pinned commits alone: only moving sources are fetched again.
    third = fetch(sources, cache, refresh=True, policy=FAST)
    assert third.counts["cached"] == 2 and len(threaded_httpserver.log) == 2


def test_unpinned_sources_are_not_fetched(tmp_path: Path) -> None:
    page = make_source("page", "https://example.com/page/")
    page.sha256 = ""
    report = fetch([page], Cache(tmp_path / "cache"), policy=FAST)
    assert report.results == [] and report.ok


def test_refresh_uses_the_etag_and_learns_not_modified(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    threaded_httpserver.expect_oneshot_request("/page").respond_with_data(
        GOOD, headers={"ETag": '"v1"', "Last-Modified": "Sun, 29 Nov 2026 10:00:00 GMT"})
    threaded_httpserver.expect_request("/page", headers={"If-None-Match": '"v1"'}) \
        .respond_with_data(b"", status=304, headers={"ETag": '"v1"'})
    page = make_source("page", threaded_httpserver.url_for("/page"), moving=True)
    cache = Cache(tmp_path / "cache")
    assert only(fetch([page], cache, policy=FAST)).outcome is Outcome.FETCHED
    entry = cache.entry("page")
    assert entry is not None and entry.etag == '"v1"'

    again = only(fetch([page], cache, refresh=True, policy=FAST))
    assert again.outcome is Outcome.NOT_MODIFIED and again.ok
    sent = threaded_httpserver.log[-1][0].headers
    assert sent["If-Modified-Since"] == "Sun, 29 Nov 2026 10:00:00 GMT"
    assert_cache_sound(cache, {"page": GOOD})


def test_refresh_of_an_unchanged_page_without_validators_fetches_it_again(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    threaded_httpserver.expect_request("/page").respond_with_data(GOOD)
    page = make_source("page", threaded_httpserver.url_for("/page"), moving=True)
    cache = Cache(tmp_path / "cache")
    fetch([page], cache, policy=FAST)
    again = only(fetch([page], cache, refresh=True, policy=FAST))
    assert again.outcome is Outcome.FETCHED and again.sha256 == page.sha256
    assert "If-None-Match" not in threaded_httpserver.log[-1][0].headers


# the real mirror ------------------------------------------------------------------------------


def registry_sources() -> list[Source]:
    """The project's source registry, read plainly (the loader is tested elsewhere)."""
    sources: list[Source] = []
    for name in ("primary.yaml", "secondary.yaml"):
        path = REPO / "sources" / name
        for i, item in enumerate(yaml.safe_load(path.read_text("utf-8"))["sources"]):
            fields = {k: v for k, v in item.items() if k in Source.__dataclass_fields__}
            fields.setdefault("title", item["id"])
            fields.setdefault("versions", [])
            sources.append(Source(**fields, mark=Mark(f"sources/{name}", i + 1)))
    return sources


@pytest.mark.skipif(not MIRROR.is_dir(), reason="the shared mirror is not beside the checkout")
def test_every_pinned_source_is_fetched_from_the_real_mirror(tmp_path: Path) -> None:
    sources = registry_sources()
    pinned = [s for s in sources if s.fetched]
    assert len(pinned) >= 80
    cache = Cache(tmp_path / "cache")

    report = fetch(sources, cache, mirror=MIRROR)
    assert report.ok, report.format_text()
    assert report.counts["fetched"] == len(pinned) and report.mode == "mirror"
    assert_cache_sound(cache, {})
    for source in pinned:
        data = cache.content(source.id, source.sha256)
        assert data is not None and len(data) == source.size

    offline = fetch(sources, cache, offline=True)
    assert offline.ok and offline.counts["cached"] == len(pinned)
    refreshed = fetch(sources, cache, mirror=MIRROR, refresh=True)
    moving = sum(s.moving for s in pinned)
    assert refreshed.ok and refreshed.counts["fetched"] == moving >= 1


def test_a_source_missing_from_the_mirror_is_reported(tmp_path: Path) -> None:
    (tmp_path / "mirror" / "example.org").mkdir(parents=True)
    source = make_source("gone", "https://example.org/a/b.json")
    result = only(fetch([source], Cache(tmp_path / "cache"), mirror=tmp_path / "mirror"))
    assert result.outcome is Outcome.ERROR and result.rule == "fetch-failed"
    assert result.message.startswith("not in the mirror (looked for ")
    assert "example.org/a/b.json" in result.message


def test_a_moving_page_that_changed_in_the_mirror_has_drifted(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    page_file = mirror_path(mirror, "https://example.org/page/")
    page_file.parent.mkdir(parents=True)
    page_file.write_bytes(GOOD)
    page = make_source("page", "https://example.org/page/", moving=True)
    cache = Cache(tmp_path / "cache")
    assert only(fetch([page], cache, mirror=mirror)).outcome is Outcome.FETCHED

    page_file.write_bytes(OTHER)
    result = only(fetch([page], cache, mirror=mirror, refresh=True))
    assert result.outcome is Outcome.DRIFTED and not result.ok
    assert result.upstream_sha256 == sha256_of(OTHER)
    entry = cache.entry("page")
    assert entry is not None and entry.upstream_sha256 == sha256_of(OTHER)
    assert_cache_sound(cache, {"page": GOOD})

    page_file.write_bytes(GOOD)  # the page came back: drift is cleared
    assert only(fetch([page], cache, mirror=mirror, refresh=True)).outcome is Outcome.FETCHED
    entry = cache.entry("page")
    assert entry is not None and entry.upstream_sha256 == ""


@pytest.mark.parametrize(("url", "expected"), [
    ("https://h.example/a/b.json", "h.example/a/b.json"),
    ("https://h.example/tree/x/", "h.example/tree/x/index.html"),
    ("https://h.example/", "h.example/index.html"),
    ("https://h.example", "h.example/index.html"),
    ("https://h.example/a%20b.md", "h.example/a b.md"),
    ("https://h.example/search?q=1", "h.example/search?q=1"),
])
def test_mirror_paths_follow_the_wget_layout(url: str, expected: str) -> None:
    assert mirror_path(Path("/m"), url) == Path("/m") / expected


@pytest.mark.parametrize("url", ["https://h.example/a/../../etc/passwd",
                                 "https://h.example/a/%2e%2e/secret", "file:///etc/passwd",
                                 "https://h.example/s?q=/../../../etc/passwd"])
def test_mirror_paths_never_escape_the_mirror(url: str) -> None:
    with pytest.raises(ValueError, match="does not map to a file in a mirror"):
        mirror_path(Path("/m"), url)


# faults ------------------------------------------------------------------------------------------


def silent(conn: socket.socket, head: bytes) -> None:
    conn.recv(1)


def reset(conn: socket.socket, head: bytes) -> None:
    import struct
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def drip(conn: socket.socket, head: bytes) -> None:
    conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {len(GOOD)}\r\n\r\n".encode())
    for byte in GOOD:
        conn.sendall(bytes([byte]))
        time.sleep(0.05)


def loop(conn: socket.socket, head: bytes) -> None:
    target = "/b" if head.startswith(b"GET /a ") else "/a"
    answer(302, b"", {"Location": target})(conn, head)


Fault = Callable[[socket.socket, bytes], None]
FAULTS: dict[str, tuple[Fault, str]] = {
    "wrong content": (answer(200, OTHER), "changed upstream: pinned "),
    "not found": (answer(404, b"missing"), "HTTP 404 Not Found"),
    "server error": (answer(500, b"oops"), "HTTP 500 Internal Server Error (2 tries)"),
    "rate limited": (answer(429, b"", {"Retry-After": "120"}),
                     "HTTP 429 Too Many Requests; the server asked to retry after 120s"),
    "timeout": (silent, "timed out after 0.3s (2 tries)"),
    "reset": (reset, "connection reset by 127.0.0.1 (2 tries)"),
    "truncated": (answer(200, GOOD[:10], {"Content-Length": str(len(GOOD))}),
                  f"body truncated: got 10 of {len(GOOD)} bytes (2 tries)"),
    "oversized": (answer(200, b"x" * 5000), "body over the 4 KiB size cap"),
    "slow drip": (drip, "timed out after 0.5s (2 tries)"),
    "redirect loop": (loop, "redirect loop: "),
    "redirect to another host": (answer(302, b"", {"Location": "https://evil.example/a"}),
                                 "redirected to another host (evil.example) — refused"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_fault_is_reported_and_the_last_good_copy_survives(
    tmp_path: Path, scripted_server: ScriptedServer, fault: str
) -> None:
    script, expected = FAULTS[fault]
    page = make_source("page", scripted_server.url("/a"), moving=True)
    neighbour = make_source("neighbour", scripted_server.url("/n"), OTHER)
    cache = Cache(tmp_path / "cache")
    scripted_server.script = lambda conn, head: answer(
        200, OTHER if head.startswith(b"GET /n ") else GOOD)(conn, head)
    seeded = fetch([page, neighbour], cache, policy=FAST)
    assert seeded.ok, seeded.format_text()

    with injecting(fault):
        scripted_server.script = script
        report = fetch([page, neighbour], cache, refresh=True, policy=FAST)

        result = report.results[0]
        assert not report.ok and report.problems == [result]
        assert result.outcome in (Outcome.ERROR, Outcome.DRIFTED)
        assert result.message.startswith(expected), result.message
        assert result.sha256 == page.sha256  # the copy the cache still holds
        assert report.results[1].outcome is Outcome.CACHED
        line = report.format_text().splitlines()[0]
        assert line.startswith(f"sources/test.yaml:7:5: error[{result.rule}]: page: {expected}")
        assert_cache_sound(cache, {"page": GOOD, "neighbour": OTHER})


def test_a_pinned_commit_file_with_the_wrong_hash_is_refused(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    threaded_httpserver.expect_request("/good").respond_with_data(GOOD)
    threaded_httpserver.expect_request("/tampered").respond_with_data(OTHER)
    good = make_source("good", threaded_httpserver.url_for("/good"))
    # Pinned to bytes the server no longer sends: a mirror or proxy swapped the file.
    tampered = make_source("tampered", threaded_httpserver.url_for("/tampered"), b"original")
    cache = Cache(tmp_path / "cache")
    fetch([good], cache, policy=FAST)

    with injecting("wrong hash of a pinned file"):
        report = fetch([good, tampered], cache, policy=FAST)
        result = report.results[1]
        assert result.outcome is Outcome.ERROR and result.rule == "sha256-mismatch"
        assert result.message == (f"sha256 mismatch: expected {sha256_of(b'original')[:12]}…, "
                                  f"got {sha256_of(OTHER)[:12]}…")
        assert cache.entry("tampered") is None and not cache.has_blob(sha256_of(OTHER))
        assert_cache_sound(cache, {"good": GOOD})


def test_offline_with_an_empty_cache_reports_every_source(tmp_path: Path) -> None:
    sources = [make_source("a", "https://example.org/a"), make_source("b", "https://example.org/b",
                                                                      OTHER)]
    cache = Cache(tmp_path / "cache")
    report = fetch(sources, cache, offline=True, mirror=tmp_path / "ignored")
    assert report.mode == "offline" and not report.ok
    assert [r.rule for r in report.results] == ["not-cached", "not-cached"]
    assert report.results[0].message == "not in the cache, and --offline forbids fetching it"
    assert_cache_sound(cache, {})


def test_contradictory_settings_are_configuration_errors(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache")
    with pytest.raises(ConfigurationError, match="--refresh needs the network or a mirror"):
        fetch([], cache, offline=True, refresh=True)
    with pytest.raises(ConfigurationError, match="is not a directory"):
        fetch([], cache, mirror=tmp_path / "missing")
    with pytest.raises(ConfigurationError, match="concurrency must be at least 1"):
        fetch([], cache, concurrency=0)


# speed -------------------------------------------------------------------------------------------


@pytest.mark.serial  # a wall-clock figure: measured with the machine to itself
def test_a_hundred_slow_sources_are_fetched_concurrently(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    delay, count, concurrency = 0.2, 100, 16
    lock = threading.Lock()
    in_flight = [0, 0]  # now, most at once

    def slow(request: Request) -> Response:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
        time.sleep(delay)
        with lock:
            in_flight[0] -= 1
        return Response(request.path.encode())

    sources = []
    for i in range(count):
        threaded_httpserver.expect_request(f"/s/{i}").respond_with_handler(slow)
        sources.append(make_source(f"s{i}", threaded_httpserver.url_for(f"/s/{i}"),
                                   f"/s/{i}".encode()))
    cache = Cache(tmp_path / "cache")
    started = time.monotonic()
    # Generous timeouts: under load a retry after a slow answer would add a request in flight.
    patient = HttpPolicy(connect_timeout=5, read_timeout=5, deadline=10, attempts=1, max_bytes=4096,
                         allow_loopback=True)
    report = fetch(sources, cache, concurrency=concurrency, policy=patient)
    elapsed = time.monotonic() - started
    assert report.ok and report.counts["fetched"] == count
    serial = count * delay
    # What concurrency is: many requests in flight at once, never more than allowed. The time
    # it saves is a timing (bench row 6); here only a run as slow as one at a time fails.
    assert concurrency // 2 <= in_flight[1] <= concurrency, in_flight
    assert elapsed < serial, f"{elapsed:.2f}s: as slow as one request at a time ({serial:.0f}s)"
    assert len(cache.entries()) == count
    assert_cache_sound(cache, {})


# reporting ---------------------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_and_nowhere_else(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    threaded_httpserver.expect_request("/a").respond_with_data(GOOD)
    sources = [make_source("a", threaded_httpserver.url_for("/a"))]
    terminal, pipe = FakeTerminal(), io.StringIO()
    seen: list[tuple[int, int, str]] = []

    fetch(sources, Cache(tmp_path / "one"), progress=TerminalProgress(terminal), policy=FAST)
    fetch(sources, Cache(tmp_path / "two"), progress=TerminalProgress(pipe), policy=FAST)
    fetch(sources, Cache(tmp_path / "three"), policy=FAST,
          progress=lambda done, total, result: seen.append((done, total, result.source_id)))

    assert "\rfetch [" in terminal.getvalue() and "1/1 a" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r")  # the line is cleared for the report
    assert pipe.getvalue() == ""
    assert seen == [(1, 1, "a")]


def test_the_report_as_text_and_json(tmp_path: Path, threaded_httpserver: HTTPServer) -> None:
    threaded_httpserver.expect_request("/a").respond_with_data(GOOD)
    threaded_httpserver.expect_request("/b").respond_with_data(b"", status=404)
    sources = [make_source("a", threaded_httpserver.url_for("/a")),
               make_source("b", threaded_httpserver.url_for("/b"))]
    report = fetch(sources, Cache(tmp_path / "cache"), policy=FAST)

    lines = report.lines()
    assert lines[0] == ("sources/test.yaml:7:5: error[fetch-failed]: b: HTTP 404 Not Found "
                        "(tip: try again later, or fetch from a mirror with --mirror DIR "
                        "(or A2A_KB_MIRROR))")
    assert lines[-1].startswith("2 pinned sources from the network: 1 fetched, 0 cached, "
                                "0 not-modified, 0 drifted, 1 error in ")
    assert report.lines(verbose=True)[0] == "a: fetched via network"
    assert [d.rule for d in report.diagnostics()] == ["fetch-failed"]

    data = report.as_json()
    assert data["schema_version"] == 1 and data["ok"] is False
    assert data["summary"] == {"fetched": 1, "cached": 0, "not-modified": 0, "drifted": 0,
                               "error": 1}
    assert [s["id"] for s in data["sources"]] == ["a", "b"]
    assert data["sources"][1]["message"] == "HTTP 404 Not Found"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["generated_at"])


# crashes and company -----------------------------------------------------------------------------

# A fetch in its own process, so that it can be killed: it says "ready" once its imports are
# done, so that the kills land while sources are being fetched, not while Python starts.
DRIVER = """
import json, sys, time
from pathlib import Path
from a2a_kb.cache import Cache
from a2a_kb.diagnostics import Mark
from a2a_kb.sources.fetch import fetch
from a2a_kb.sources.http import HttpPolicy
from a2a_kb.records.model import Source

spec = json.loads(Path(sys.argv[1]).read_text())
sources = [Source(**s, mark=Mark("sources/test.yaml")) for s in spec["sources"]]
print("ready", flush=True)
started = time.monotonic()
report = fetch(sources, Cache(Path(sys.argv[2])), concurrency=4,
               policy=HttpPolicy(allow_loopback=True, attempts=1))
print(f"{time.monotonic() - started:.3f}", flush=True)
sys.exit(0 if report.ok else 1)
"""


def crash_sources(server: HTTPServer, count: int, delay: float) -> list[Source]:
    def slow(request: Request) -> Response:
        time.sleep(delay)
        return Response(body_of(request.path))

    sources = []
    for i in range(count):
        path = f"/crash/{i}"
        server.expect_request(path).respond_with_handler(slow)
        sources.append(make_source(f"c{i}", server.url_for(path), body_of(path)))
    return sources


def body_of(path: str) -> bytes:
    return (path.encode() + b"\n") * 2000  # about 20 KB: long enough to be cut mid-write


def start_fetch(spec: Path, cache: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", DRIVER, str(spec), str(cache)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def write_spec(folder: Path, sources: list[Source]) -> Path:
    spec = folder / "spec.json"
    keys = ("id", "kind", "authority", "url", "title", "versions", "sha256", "size", "moving")
    spec.write_text(json.dumps({"sources": [{k: getattr(s, k) for k in keys} for s in sources]}))
    return spec


def test_kill_9_at_random_moments_never_corrupts_the_cache(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    sources = crash_sources(threaded_httpserver, count=48, delay=0.03)
    spec = write_spec(tmp_path, sources)

    control = start_fetch(spec, tmp_path / "control")
    out, _ = control.communicate(timeout=30)
    assert control.returncode == 0
    fetch_seconds = float(out.strip())

    seed = random.randrange(1 << 30)
    moments = random.Random(seed).sample(range(1, 1000), 20)
    killed_mid_run = []

    def kill_at(moment: int) -> None:
        cache = tmp_path / f"kill-{moment}"
        process = start_fetch(spec, cache)
        time.sleep(fetch_seconds * moment / 1000)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
        if process.returncode == -signal.SIGKILL:
            killed_mid_run.append(moment)

    with ThreadPoolExecutor(max_workers=4) as lanes:
        list(lanes.map(kill_at, moments))

    survived = 0
    try:
        for moment in moments:
            cache = Cache(tmp_path / f"kill-{moment}")
            assert cache.verify() == [], f"seed {seed}, moment {moment}"
            if cache.index_path.exists():
                json.loads(cache.index_path.read_text())  # whole, never half-written
            visible = [p for p in cache.root.rglob("*") if p.is_file() and not p.name.startswith(".")]
            for path in visible:  # a temporary file may survive a kill, but only hidden
                assert path.name in ("index.json", "lock") or BLOB_NAME.fullmatch(path.name), path
                if BLOB_NAME.fullmatch(path.name):
                    assert sha256_of(path.read_bytes()) == path.name
            # The next run finishes the job from whatever the kill left.
            report = fetch(sources, cache, policy=HttpPolicy(allow_loopback=True, attempts=1),
                           concurrency=8)
            assert report.ok, f"seed {seed}, moment {moment}: {report.format_text()}"
            assert_cache_sound(cache, {s.id: body_of(f"/crash/{s.id[1:]}") for s in sources})
            survived += 1
    finally:
        # Only kills that landed while the fetch ran count; the others hit a finished process.
        TALLY.kills += len(killed_mid_run)
        TALLY.kill_failures += sum(1 for m in killed_mid_run if moments.index(m) >= survived)
    assert len(killed_mid_run) >= 15, f"seed {seed}: most kills should land mid-run"


def test_two_fetches_at_once_leave_a_consistent_cache(
    tmp_path: Path, threaded_httpserver: HTTPServer
) -> None:
    sources = crash_sources(threaded_httpserver, count=40, delay=0.01)
    spec = write_spec(tmp_path, sources)
    runs = [start_fetch(spec, tmp_path / "cache") for _ in range(2)]
    for run in runs:
        run.communicate(timeout=30)
        assert run.returncode == 0
    cache = Cache(tmp_path / "cache")
    assert sorted(cache.entries()) == sorted(s.id for s in sources)
    assert_cache_sound(cache, {s.id: body_of(f"/crash/{s.id[1:]}") for s in sources})


def test_fetch_sweeps_only_the_temporaries_of_dead_writers(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache")
    folder = cache.root / "blobs" / "ab"
    folder.mkdir(parents=True)
    dead_pid = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_pid.wait()
    orphan = folder / f".ab12.{dead_pid.pid}.x1y2z3.tmp"
    in_progress = folder / f".ab34.{os.getpid()}.q7r8s9.tmp"
    orphan.write_bytes(b"half a blo")
    in_progress.write_bytes(b"being writ")

    fetch([], cache)
    assert not orphan.exists() and in_progress.exists()
    assert cache.verify() == []
