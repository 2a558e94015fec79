"""The fetch stage: fill the cache with verified copies of the pinned sources.

A copy comes from one of three places: the network (through `a2a_kb.sources.http`), a mirror
directory laid out as `<host>/<path>` of each URL, or — offline — the cache itself. Every
copy is checked against its pinned sha256 before it is stored, so the cache holds only good
copies; a failure of any kind is reported for its source and leaves the last good copy
alone.

A pinned source already in the cache is not fetched again. `refresh` re-fetches the
sources that move (a branch, a web page), with a conditional request where the cache knows
an ETag or Last-Modified, and reports those whose content no longer matches the pin: they
have *drifted*, which needs a person to review the change and update the pin.

Nothing here prints: `FetchReport` formats itself, and the CLI decides where it goes.
The only output is the optional progress bar, drawn on a terminal and nowhere else.

Why it is long: the fetch stage is one run over the pinned sources, from a mirror, the
network or the cache, with its progress bar and report; every copy passes the same sha256
check before it is stored, and that check, the fallbacks and the report are kept in one
place so that no path can store an unchecked copy.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import unquote, urlsplit

from ..cache import Cache, CacheEntry, sha256_of
from ..diagnostics import Diagnostic, Mark
from ..errors import ConfigurationError, FetchError, disk_error
from ..records.model import Source
from .http import Download, HttpClient, HttpPolicy

SCHEMA_VERSION = 1
DEFAULT_CONCURRENCY = 16  # 100 sources at 200 ms each finish in about 1.3 s, not 20 s
INDEX_FLUSH_SECONDS = 1.0  # how often finished entries are written to the index mid-run


class Outcome(StrEnum):
    """What happened to one source in one fetch."""

    FETCHED = "fetched"  # a copy was transferred, matched its pin and is stored
    CACHED = "cached"  # the cache already held the pinned copy; nothing was transferred
    NOT_MODIFIED = "not-modified"  # refresh: the server says the cached copy is current
    DRIFTED = "drifted"  # the URL now serves content that does not match the pin
    ERROR = "error"  # no verified copy could be had this time


PROBLEMS = frozenset({Outcome.DRIFTED, Outcome.ERROR})


@dataclass(frozen=True)
class SourceResult:
    """One source's outcome, with what a person needs to act on it."""

    source_id: str
    outcome: Outcome
    url: str
    mark: Mark
    via: str  # "network", "mirror" or "cache"
    sha256: str = ""  # the good copy the cache holds for this source after the run
    upstream_sha256: str = ""  # drift: what the URL serves now instead
    size: int = 0  # bytes transferred
    seconds: float = 0.0
    rule: str = ""  # for problems: fetch-failed, sha256-mismatch, not-cached, drifted
    message: str = ""
    tip: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome not in PROBLEMS

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(self.mark, self.rule, f"{self.source_id}: {self.message}", self.tip,
                          record_id=self.source_id)

    def line(self) -> str:
        if not self.ok:
            return self.diagnostic().format()
        detail = f" ({self.message})" if self.message else ""
        return f"{self.source_id}: {self.outcome.value} via {self.via}{detail}"

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.source_id,
            "outcome": self.outcome.value,
            "url": self.url,
            "via": self.via,
            "sha256": self.sha256,
            "upstream_sha256": self.upstream_sha256,
            "bytes": self.size,
            "seconds": round(self.seconds, 3),
            "rule": self.rule,
            "message": self.message,
            "tip": self.tip,
        }


@dataclass
class FetchReport:
    """Every pinned source's outcome from one run, in registry order."""

    results: list[SourceResult]
    mode: str  # "network", "mirror" or "offline"
    refresh: bool
    seconds: float
    mirror: Path | None = None
    generated_at: str = field(default_factory=lambda: _now())
    # Derived data (facts, query index, page reuse) found damaged and removed; see
    # a2a_kb.knowledge.derived. Filled in by the caller, which knows the project.
    derived_removed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def counts(self) -> dict[str, int]:
        counts = {outcome.value: 0 for outcome in Outcome}
        for r in self.results:
            counts[r.outcome.value] += 1
        return counts

    @property
    def problems(self) -> list[SourceResult]:
        return [r for r in self.results if not r.ok]

    def diagnostics(self) -> list[Diagnostic]:
        return [r.diagnostic() for r in self.problems]

    def lines(self, *, verbose: bool = False) -> list[str]:
        """Problems (or, verbose, every source) and a closing summary line."""
        shown = self.results if verbose else self.problems
        where = {"network": "from the network", "offline": "from the cache only",
                 "mirror": f"from the mirror {self.mirror}"}[self.mode]
        tally = ", ".join(f"{n} {'errors' if name == 'error' and n != 1 else name}"
                          for name, n in self.counts.items())
        summary = (f"{len(self.results)} pinned sources {where}"
                   f"{' (refresh)' if self.refresh else ''}: {tally} in {self.seconds:.1f}s")
        derived = [f"warning[derived-damaged]: {line}" for line in self.derived_removed]
        return [r.line() for r in shown] + derived + [summary]

    def format_text(self, *, verbose: bool = False) -> str:
        return "\n".join(self.lines(verbose=verbose)) + "\n"

    def as_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "generated_at": self.generated_at,
            "mode": self.mode,
            "mirror": str(self.mirror) if self.mirror else None,
            "refresh": self.refresh,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "summary": self.counts,
            "sources": [r.as_json() for r in self.results],
            "derived_removed": self.derived_removed,
        }


Progress = Callable[[int, int, SourceResult], None]
"""Called after each source with (sources done, sources in all, its result)."""


class TerminalProgress:
    """A one-line progress bar redrawn with `\\r`; silent unless the stream is a terminal.

    Called with anything that has a `source_id` (a fetch's results) or with a label.
    """

    def __init__(self, stream: TextIO | None = None, width: int = 28, title: str = "fetch") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.title = title
        try:
            self.enabled = self.stream.isatty()
        except (AttributeError, ValueError):
            self.enabled = False
        self._drawn = 0

    def __call__(self, done: int, total: int, result: SourceResult | str) -> None:
        if not self.enabled or total <= 0:
            return
        filled = self.width * done // total
        bar = "#" * filled + "-" * (self.width - filled)
        label = result if isinstance(result, str) else result.source_id
        line = f"{self.title} [{bar}] {done}/{total} {label}"[:100]
        self.stream.write("\r" + line.ljust(self._drawn))
        self._drawn = len(line)
        if done == total:  # leave a clean line for the report that follows
            self.stream.write("\r" + " " * self._drawn + "\r")
        self.stream.flush()


def fetch(
    sources: Iterable[Source],
    cache: Cache,
    *,
    mirror: Path | None = None,
    refresh: bool = False,
    offline: bool = False,
    progress: bool | Progress = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    policy: HttpPolicy | None = None,
) -> FetchReport:
    """Make the cache hold a verified copy of every pinned source, and say how it went.

    `mirror` replaces the network by a directory; `offline` allows neither and only
    checks the cache. `progress` is True for a bar on a terminal, or a callback.
    Per-source problems are in the report; only a contradictory set-up raises
    (`ConfigurationError`).
    """
    if offline and refresh:
        raise ConfigurationError(
            "--refresh needs the network or a mirror, and --offline allows neither"
        )
    if mirror is not None and not offline and not mirror.is_dir():
        raise ConfigurationError(
            f"mirror {mirror} is not a directory (tip: check --mirror or A2A_KB_MIRROR)"
        )
    # Absolute from here on: a copy's address is a file: URI, which a relative path has not
    # (the README's own `A2A_KB_MIRROR=../shared/mirror make site` ended in a ValueError).
    mirror = mirror.resolve() if mirror is not None else None
    if concurrency < 1:
        raise ConfigurationError(f"concurrency must be at least 1, not {concurrency}")
    report_progress: Progress | None = (
        TerminalProgress() if progress is True else progress or None
    )
    pinned = [s for s in sources if s.fetched]
    mode = "offline" if offline else "mirror" if mirror is not None else "network"
    started = time.monotonic()
    try:
        cache.sweep()  # the leftovers of a fetch that was killed
        with HttpClient(policy) as client:
            run = _Run(cache, client, None if offline else mirror, refresh, offline, policy)
            results = run.all(pinned, concurrency, report_progress)
    except OSError as e:  # the index could not be written: the disk, not a source, is at fault
        problem = disk_error(e)
        if problem is None:
            raise
        raise problem from e
    return FetchReport(results, mode, refresh, time.monotonic() - started,
                       mirror if mode == "mirror" else None)


def mirror_path(mirror: Path, url: str) -> Path:
    """Where a mirror laid out as `<host>/<path>` keeps `url` (`wget -x` layout).

    A path ending in `/` is stored as `index.html` in that folder. Raises ValueError for
    a URL that would escape the mirror (`..` segments, an empty host).
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    relative = "/".join(s for s in unquote(parts.path).split("/") if s)
    if not relative or parts.path.endswith("/"):
        relative = f"{relative}/index.html".lstrip("/")
    if parts.query:
        relative += f"?{parts.query}"
    if (not host or host.startswith(".") or "\x00" in relative
            or any(p in (".", "..") for p in relative.split("/"))):
        raise ValueError(f"{url} does not map to a file in a mirror")
    return mirror / host / relative


# the work of one run ------------------------------------------------------------------------


class _Run:
    """The settings of one fetch, shared by the worker threads (which only read them)."""

    def __init__(self, cache: Cache, client: HttpClient, mirror: Path | None, refresh: bool,
                 offline: bool, policy: HttpPolicy | None) -> None:
        self.cache = cache
        self.client = client
        self.mirror = mirror
        self.refresh = refresh
        self.offline = offline
        self.max_bytes = (policy or HttpPolicy()).max_bytes
        self.entries = cache.entries()
        # What the cache held when the run began: two sources with the same bytes must not
        # make each other's outcome depend on which thread finished first.
        self.blobs_at_start = cache.blob_names()
        self.via = "mirror" if mirror is not None else "network"

    def all(self, sources: list[Source], concurrency: int,
            progress: Progress | None) -> list[SourceResult]:
        """Fetch every source with at most `concurrency` at once; write the index as we go."""
        results: dict[int, SourceResult] = {}
        pending: dict[str, CacheEntry] = {}
        last_flush = time.monotonic()
        pool = ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(sources))),
                                  thread_name_prefix="a2a-kb-fetch")
        try:
            running: dict[Future[tuple[SourceResult, CacheEntry | None]], int] = {
                pool.submit(self.one, source): i for i, source in enumerate(sources)
            }
            while running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    result, entry = future.result()
                    results[running.pop(future)] = result
                    if entry is not None:
                        pending[result.source_id] = entry
                    if progress is not None:
                        progress(len(results), len(sources), result)
                if time.monotonic() - last_flush > INDEX_FLUSH_SECONDS:
                    self.cache.record(pending)
                    pending, last_flush = {}, time.monotonic()
        finally:
            # On an interrupt, queued sources are dropped; what finished is still recorded.
            pool.shutdown(wait=False, cancel_futures=True)
            self.cache.record(pending)
        return [results[i] for i in range(len(sources))]

    def one(self, source: Source) -> tuple[SourceResult, CacheEntry | None]:
        """One source's outcome, and the index entry to record for it (if any)."""
        started = time.monotonic()
        result, entry = self._decide(source)
        return replace(result, seconds=time.monotonic() - started), entry

    def _decide(self, source: Source) -> tuple[SourceResult, CacheEntry | None]:
        pin = source.sha256
        have_pinned = pin in self.blobs_at_start and self.cache.read_blob(pin) is not None
        damaged = pin in self.blobs_at_start and not have_pinned
        known = self._pinned_entry(source) if have_pinned else None
        if known is not None and not (self.refresh and source.moving):
            changed = known is not self.entries.get(source.id)
            return self._result(source, Outcome.CACHED, "cache", sha256=pin), \
                known if changed else None
        if self.offline and damaged:
            return self._result(
                source, Outcome.ERROR, "cache", rule="cache-damaged",
                message=f"the cached copy is damaged: its bytes no longer hash to {_short(pin)}",
                tip="run `a2a-kb fetch` with the network, or with --mirror DIR, to replace it",
            ), None
        if self.offline:
            return self._result(
                source, Outcome.ERROR, "cache", rule="not-cached",
                message="not in the cache, and --offline forbids fetching it",
                tip="run `a2a-kb fetch` with the network, or with --mirror DIR",
            ), None
        last_good = pin if have_pinned else ""
        try:
            download = self._transfer(source, known)
        except FetchError as e:
            return self._result(source, Outcome.ERROR, self.via, sha256=last_good,
                                rule="fetch-failed", message=e.reason,
                                tip=_tip_for_failure(self.via)), None
        if download.not_modified:
            if known is None or not (known.etag or known.last_modified):
                return self._result(source, Outcome.ERROR, self.via, sha256=last_good,
                                    rule="fetch-failed", message="HTTP 304 Not Modified to a "
                                    "request that was not conditional"), None
            return self._result(source, Outcome.NOT_MODIFIED, self.via, sha256=pin), \
                replace(known, upstream_sha256="")
        got = sha256_of(download.body)
        if got == pin:
            stored, entry = self._store(source, download, last_good)
            if damaged and stored.ok:
                stored = replace(stored, message="replaced a damaged cached copy")
            return stored, entry
        if source.moving:
            return self._drifted(source, got, len(download.body), known)
        return self._result(
            source, Outcome.ERROR, self.via, sha256=last_good, upstream_sha256=got,
            size=len(download.body), rule="sha256-mismatch",
            message=f"sha256 mismatch: expected {_short(pin)}, got {_short(got)}",
            tip="a pinned commit's file never changes: suspect the mirror, a proxy or the URL",
        ), None

    def _store(self, source: Source, download: Download,
               last_good: str) -> tuple[SourceResult, CacheEntry | None]:
        """Keep a copy that matched its pin; its validators make the next refresh cheap."""
        try:
            self.cache.put_blob(download.body)
        except OSError as e:
            return self._result(source, Outcome.ERROR, self.via, sha256=last_good,
                                rule="cache-write", message=f"could not store the copy: {e}",
                                tip="check the cache directory's space and permissions"), None
        size = len(download.body)
        return self._result(source, Outcome.FETCHED, self.via, sha256=source.sha256, size=size), \
            CacheEntry(source.sha256, source.url, size, _now(), download.etag,
                       download.last_modified)

    def _drifted(self, source: Source, got: str, size: int,
                 known: CacheEntry | None) -> tuple[SourceResult, CacheEntry | None]:
        """A moving source no longer serves its pinned bytes: keep the pin, record the news.

        The new bytes are not stored (the cache holds only copies that match a pin), but
        their hash goes into the index so the check stage can call the source drifted.
        """
        kept = "the cache keeps the pinned copy" if known else "and the cache has no pinned copy"
        result = self._result(
            source, Outcome.DRIFTED, self.via, sha256=source.sha256 if known else "",
            upstream_sha256=got, size=size, rule="drifted",
            message=f"changed upstream: pinned {_short(source.sha256)}, now {_short(got)}; {kept}",
            tip=f"review the change, then `a2a-kb pin {source.id}` (it rewrites {source.mark.path})",
        )
        if known is None:
            # No good copy to keep, but the news is kept: `check` then says the source moved
            # (and which command re-pins it) instead of only that it is not in the cache.
            return result, CacheEntry("", source.url, 0, _now(), upstream_sha256=got)
        return result, replace(known, upstream_sha256=got)

    def _transfer(self, source: Source, known: CacheEntry | None) -> Download:
        """The source's bytes from the mirror, or from the network (conditionally if we can)."""
        if self.mirror is not None:
            return self._read_mirror(source)
        etag = known.etag if known else ""
        last_modified = known.last_modified if known else ""
        return self.client.get(source.url, etag=etag, last_modified=last_modified)

    def _pinned_entry(self, source: Source) -> CacheEntry:
        """The index entry for the pinned copy the cache holds, made anew if the index lacks it.

        A new entry carries no validators: they belonged to whatever copy the old entry
        described, so a conditional request with them could wrongly answer "not modified".
        """
        entry = self.entries.get(source.id)
        if entry is not None and entry.sha256 == source.sha256 and entry.url == source.url:
            return entry
        size = self.cache.blob_path(source.sha256).stat().st_size
        return CacheEntry(source.sha256, source.url, size, _now())

    def _read_mirror(self, source: Source) -> Download:
        assert self.mirror is not None
        try:
            path = mirror_path(self.mirror, source.url)
        except ValueError as e:
            raise FetchError(source.id, str(e)) from e
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                raise FetchError(source.id, f"{path} is over the {self.max_bytes}-byte size cap")
            body = path.read_bytes()
        except FileNotFoundError as e:
            raise FetchError(source.id, f"not in the mirror (looked for {path})") from e
        except OSError as e:
            raise FetchError(source.id, f"could not read {path}: {e.strerror or e}") from e
        return Download(source.url, path.as_uri(), body, "", "", False, 1)

    @staticmethod
    def _result(source: Source, outcome: Outcome, via: str, **details: Any) -> SourceResult:
        return SourceResult(source.id, outcome, source.url, source.mark, via, **details)


def _tip_for_failure(via: str) -> str:
    if via == "mirror":
        return "check that the mirror holds this URL at <host>/<path>"
    return "try again later, or fetch from a mirror with --mirror DIR (or A2A_KB_MIRROR)"


def _short(sha256: str) -> str:
    return f"{sha256[:12]}…"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def default_mirror() -> Path | None:
    """The mirror named by `A2A_KB_MIRROR`, if any (the CLI's --mirror overrides it)."""
    value = os.environ.get("A2A_KB_MIRROR", "").strip()
    return Path(value) if value else None
