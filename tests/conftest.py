"""Fixtures shared by the test suite: real servers on 127.0.0.1, never the internet."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from a2a_kb.project import Project
from a2a_kb.site.data import SiteData, collect
from a2a_kb.site.pages import generate

REPO = Path(__file__).resolve().parent.parent
MIRROR = Path(os.environ.get("A2A_KB_MIRROR", str(REPO.parent / "shared" / "mirror")))


@pytest.fixture(scope="session")
def _threaded_httpserver_session() -> Iterator[HTTPServer]:
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    try:
        yield server
    finally:
        server.clear()
        server.stop()


@pytest.fixture
def threaded_httpserver(_threaded_httpserver_session: HTTPServer) -> HTTPServer:
    """A pytest-httpserver on 127.0.0.1 that answers requests concurrently, fresh per test.

    The plugin's own ``httpserver`` handles one request at a time, which hides any
    concurrency in the client and lets one slow handler stall the next test.
    """
    _threaded_httpserver_session.clear()
    return _threaded_httpserver_session


Script = Callable[[socket.socket, bytes], None]


class ScriptedServer:
    """A TCP server on 127.0.0.1 that answers every connection with a test's script.

    For faults that a well-behaved HTTP server cannot produce: a reset, a body shorter
    than its Content-Length, bytes dripped slowly, a response that never comes. The script
    receives the socket and the request head, and may do anything with the socket.
    """

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.05)  # so that close() is noticed promptly
        self.port: int = self.listener.getsockname()[1]
        self.script: Script = answer(200, b"")
        self.requests: list[bytes] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=2)
        self.listener.close()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.settimeout(5)
            head = b""
            while b"\r\n\r\n" not in head:
                piece = conn.recv(4096)
                if not piece:
                    return
                head += piece
            self.requests.append(head)
            self.script(conn, head)


def answer(status: int, body: bytes, headers: dict[str, str] | None = None) -> Script:
    """A script that sends one plain response and closes the connection."""

    def script(conn: socket.socket, head: bytes) -> None:
        fields = {"Content-Length": str(len(body)), "Connection": "close", **(headers or {})}
        lines = [f"HTTP/1.1 {status} X"] + [f"{k}: {v}" for k, v in fields.items() if v]
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    return script


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    try:
        yield server
    finally:
        server.close()


# --- a minimal valid knowledge base (tests/fixtures/kb) with its dossier in a tmp cache ---

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_KB = FIXTURES / "kb"
FIXTURE_DOSSIER = FIXTURES / "dossier.txt"


def make_fixture_kb(dest: Path) -> tuple[Path, Path]:
    """Copy the fixture knowledge base to ``dest/kb`` and fill ``dest/cache`` with its
    dossier, as `a2a-kb fetch` would. Returns (root, cache); point A2A_KB_CACHE at cache."""
    import shutil

    from a2a_kb.cache import Cache, CacheEntry

    root, cache_dir = dest / "kb", dest / "cache"
    shutil.copytree(FIXTURE_KB, root)
    text = FIXTURE_DOSSIER.read_bytes()
    cache = Cache(cache_dir)
    sha = cache.put_blob(text)
    url = "https://llms-explorer.com/tree/7-state-task-lifecycle/"
    entry = CacheEntry(sha256=sha, url=url, size=len(text), fetched_at="2025-06-01T00:00:00Z")
    cache.record({"dossier": entry})
    return root, cache_dir


RELIABILITY_FIGURES = REPO / "test-artifacts" / "reliability" / "validate.json"


def _merge_figures(path: Path, update: Callable[[dict[str, object]], None]) -> None:
    """Apply ``update`` to the JSON figures in ``path``. Two test runs may finish modules at
    once (and a site build may read meanwhile): merge under a lock, replace the file whole."""
    import fcntl
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        current: dict[str, object] = {}
        with contextlib.suppress(OSError, ValueError):
            current = json.loads(path.read_text("utf-8"))
        update(current)
        staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        staging.write_text(json.dumps(current, indent=2, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
        os.replace(staging, path)


def _utc_now() -> str:
    import datetime as dt

    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def record_reliability(figures: dict[str, object]) -> None:
    """Merge one test module's figures into test-artifacts/reliability/validate.json, which
    the site's Reliability page reads. ``failures`` is the sum of every module's failures;
    ``recorded_at`` says when each figure was last recorded (UTC), since a run of part of
    the suite leaves the other modules' figures from an earlier run."""
    def update(current: dict[str, object]) -> None:
        current.update(figures)
        stamps = current.get("recorded_at")
        recorded = dict(stamps) if isinstance(stamps, dict) else {}
        now = _utc_now()
        recorded.update({name: now for name in figures})
        current["recorded_at"] = dict(sorted(recorded.items()))
        parts = [v for k, v in current.items() if k.endswith("_failures") and isinstance(v, int)]
        current["failures"] = sum(parts)

    _merge_figures(RELIABILITY_FIGURES, update)


SITE_QUALITY = REPO / "test-artifacts" / "site-quality" / "last-run.json"


def record_site_quality(part: str, figures: dict[str, object]) -> None:
    """Write one oracle's figures (``lighthouse``, ``axe`` or ``links``) into
    test-artifacts/site-quality/last-run.json, which the Site quality page reads, keeping the
    other parts from their last run; ``recorded_at`` says when this one ran (UTC)."""
    def update(current: dict[str, object]) -> None:
        current[part] = {**figures, "recorded_at": _utc_now()}

    _merge_figures(SITE_QUALITY, update)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """Print the site audit's scores when this run recorded them (the workers of a parallel
    run cannot print; the controller reads what they wrote)."""
    import json

    started = getattr(config, "_a2a_kb_started", None)
    try:
        if started is None or SITE_QUALITY.stat().st_mtime < started:
            return
        figures = json.loads(SITE_QUALITY.read_text("utf-8"))
    except (OSError, ValueError):
        return
    lines = site_quality_lines(figures, since=started)
    if lines:
        terminalreporter.section("site quality")
        for line in lines:
            terminalreporter.write_line(line)


def site_quality_lines(figures: dict[str, Any], since: float = 0.0) -> list[str]:
    """The site audit's figures as lines of text: the parts recorded at or after ``since``."""
    import datetime as dt

    def fresh(part: str) -> dict[str, Any] | None:
        section = figures.get(part)
        if not isinstance(section, dict):
            return None
        try:
            at = dt.datetime.fromisoformat(str(section.get("recorded_at", "")).replace("Z", "+00:00"))
        except ValueError:
            return None
        return section if at.timestamp() >= since - 1 else None

    lines: list[str] = []
    if (lighthouse := fresh("lighthouse")) is not None:
        host = lighthouse.get("host") or {}
        cpu = (f", CPU {host['cpu_slowdown']}x on a host of BenchmarkIndex {host.get('benchmark_index')}, "
               f"calibrated {host.get('calibrated_slowdown')}x" if host.get("cpu_slowdown") else "")
        pages = lighthouse.get("pages", [])
        categories = [c for c in ("performance", "accessibility", "best-practices", "seo")
                      if any(c in (page.get("scores") or {}) for page in pages)]
        lines.append(f"{lighthouse.get('tool')} (mobile{cpu}), {lighthouse.get('seconds', 0):.0f} s: "
                     + " / ".join(c.replace("-", " ") for c in categories)
                     + ("" if "performance" in categories else " (performance: make bench)"))
        for page in pages:
            s = page.get("scores", {})
            shown = " / ".join(str(s.get(c)) for c in categories)
            lines.append(f"  {page.get('page', '?'):<26} {shown}")
    if (axe := fresh("axe")) is not None:
        runs = axe.get("runs", [])
        total = sum(r.get("violations", 0) for r in runs)
        lines.append(f"{axe.get('tool')}, {axe.get('seconds', 0):.0f} s: {total} violations in "
                     f"{len(runs)} runs (light and dark, 1280 and 390 px)")
        for run in runs:
            if run.get("violations"):
                lines.append(f"  {run.get('page')} {run.get('scheme')} {run.get('width')} px: "
                             f"{', '.join(run.get('rules', []))}")
    if (links := fresh("links")) is not None:
        lines.append(f"{links.get('tool')}, {links.get('seconds', 0):.1f} s: {links.get('broken')} broken "
                     f"of {links.get('links')} links ({links.get('unique')} distinct) in "
                     f"{links.get('files')} files; {links.get('excluded')} to other sites not followed")
    return lines


def pytest_configure(config: pytest.Config) -> None:
    import time

    config._a2a_kb_started = time.time()  # type: ignore[attr-defined]


# The modules that take minutes, longest first (seconds on one xdist worker of a two-core
# machine, 2026-12-03: 350 to 90). make test's parallel run hands each worker whole modules
# in collection order, which is alphabetical, and most of these sort late: the run used to
# end with three workers idle and one still in the site's tests. Started first, they run
# beside the short modules instead.
LONG_MODULES = ("test_browser_site", "test_site", "test_fuzz", "test_site_reuse", "test_site_fuzz",
                "test_site_quality", "test_serve", "test_add_version", "test_site_kill")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))  # stable: else as collected


@pytest.fixture
def fixture_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the fixture knowledge base, its cache set in A2A_KB_CACHE."""
    root, cache_dir = make_fixture_kb(tmp_path)
    monkeypatch.setenv("A2A_KB_CACHE", str(cache_dir))
    return root


# --- the real knowledge base, with its sources fetched from the mirror into a tmp cache ---


@pytest.fixture(scope="session")
def real_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding every pinned source of the real KB, fetched from the mirror once."""
    from a2a_kb.cache import Cache
    from a2a_kb.project import Project
    from a2a_kb.records.validate import validate
    from a2a_kb.sources.fetch import fetch

    if not MIRROR.is_dir():
        pytest.fail(f"the source mirror is missing at {MIRROR} (set A2A_KB_MIRROR)")
    cache_dir = tmp_path_factory.mktemp("real-cache")
    kb = validate(Project.at(REPO))
    report = fetch(list(kb.sources.values()), Cache(cache_dir), mirror=MIRROR)
    assert report.ok, report.format_text()
    return cache_dir


@pytest.fixture(scope="session")
def real_data(real_cache: Path) -> Iterator[SiteData]:
    """The site's data from the real knowledge base and the session's fetched cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("A2A_KB_CACHE", str(real_cache))
        yield collect(Project.at(REPO))


@pytest.fixture(scope="session")
def real_pages(real_data: SiteData) -> dict[str, str]:
    """Every generated page and API file of the real knowledge base, by its path."""
    return generate(real_data)


def copy_records(dest: Path, parts: tuple[str, ...] = ("claims", "sources", "captures")) -> Path:
    """The project's records as a fresh clone has them (no cache, no site), in ``dest``: what
    a test edits without touching the real ones."""
    for name in parts:
        shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("cache"))
    shutil.copy(REPO / "pyproject.toml", dest / "pyproject.toml")
    return dest


@pytest.fixture
def real_kb_env(real_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point a2a-kb at the real KB and the session's fetched cache; returns the root."""
    monkeypatch.setenv("A2A_KB_CACHE", str(real_cache))
    return REPO


# --- one Chromium and one built site per session, shared by every browser test ---

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require_browser() -> None:
    """Skip without Chromium, except in CI (A2A_KB_REQUIRE_BROWSER=1), where it fails."""
    if CHROMIUM.exists():
        return
    message = f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("A2A_KB_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    """Headless Debian Chromium driven by Playwright; one per session, because Playwright's
    sync API keeps an event loop running and a second one could not start beside it."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                             headless=True)
        try:
            yield browser
        finally:
            browser.close()


def serve_directory(root: Path) -> str:
    """Serve ``root`` on 127.0.0.1 (a free port) for the rest of the session; its base URL."""
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {  # noqa: RUF012 - the base class declares it as a plain dict
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            ".js": "text/javascript",
            ".json": "application/json",
        }

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


# Where the test build says it is published: a sub-path, as on a project's GitHub Pages site,
# and not the default of mkdocs.yml, so that a build ignoring A2A_KB_SITE_URL is noticed.
SITE_URL = "https://a2a-kb.test/docs/kb/"


def shared_once(name: str, tmp_path_factory: pytest.TempPathFactory, make: Callable[[Path], object]) -> Path:
    """A folder ``make`` fills once for the whole test run, not once per xdist worker: under
    an flock in a folder every worker sees (``A2A_KB_TEST_SHARED``, which the Makefile sets
    for both of its pytest runs, or else the run's base temp folder). The first worker to
    get the lock makes it; the others wait and reuse it. ``make``'s JSON-able answer is kept
    beside it (see :func:`shared_answer`). A failed ``make`` leaves no mark, so the next
    worker tries again and fails with its own error."""
    import fcntl
    import json

    shared = os.environ.get("A2A_KB_TEST_SHARED")
    if shared:
        base = Path(shared)
    elif os.environ.get("PYTEST_XDIST_WORKER"):
        base = tmp_path_factory.getbasetemp().parent
    else:
        base = tmp_path_factory.getbasetemp()
    base.mkdir(parents=True, exist_ok=True)
    target, done = base / name, base / f"{name}.done.json"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            answer = make(target)
            done.write_text(json.dumps(answer), "utf-8")
    return target


def shared_answer(target: Path) -> Any:
    """What ``make`` answered when :func:`shared_once` made ``target``."""
    import json

    return json.loads((target.parent / f"{target.name}.done.json").read_text("utf-8"))


@pytest.fixture(scope="session")
def built_site(real_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once for the test run (strict, reproducible dates) into a temp
    folder, published (by its site_url) at :data:`SITE_URL`. The build's CPU seconds, with the
    sources' facts already in the cache as after `make check`, are its :func:`shared_answer`
    (tests/test_site.py holds them to a budget)."""
    import time

    from a2a_kb.project import Project
    from a2a_kb.site.build import build_into
    from a2a_kb.site.data import collect
    from a2a_kb.site.vendor import vendor_dir

    def build(folder: Path) -> dict[str, float]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("A2A_KB_CACHE", str(real_cache))
            mp.setenv("A2A_KB_VENDOR", str(vendor_dir(REPO)))
            mp.setenv("A2A_KB_SITE_URL", SITE_URL)
            mp.setenv("SOURCE_DATE_EPOCH", "1767225600")
            collect(Project.at(REPO))  # the facts into the fresh cache: the budget is a build's
            started = time.process_time()
            build_into(Project.at(REPO), folder / "site", strict=True, quiet=True)
            return {"cpu_seconds": time.process_time() - started}

    return shared_once("built-site", tmp_path_factory, build) / "site"


@pytest.fixture(scope="session")
def built_site_url(built_site: Path) -> str:
    return serve_directory(built_site)


# --- outcomes of tests, for figures that count failures ---

CALL_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    report = yield
    if call.when == "call":
        item.stash[CALL_FAILED] = bool(getattr(report, "failed", False))
    return report
