"""Row 11: `watch` over the whole mirror, reading upstream in parallel and one request at
a time.

The mirror is served by a local upstream on 127.0.0.1 (GitHub's API and raw files, PyPI,
npm and a page for every dated source) that answers each request after a fixed delay, as a
distant host does; watch's reading of upstream runs with the default concurrency and with
one request at a time, and both runs must then find nothing. Also timed: the whole watch
(reading and the flips) straight from the mirror directory, after a check as `make` runs
one, the everyday offline run.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from a2a_kb.cache import Cache
from a2a_kb.knowledge.check import check
from a2a_kb.knowledge.flips import predict
from a2a_kb.project import Project
from a2a_kb.records.validate import validate
from a2a_kb.sources.fetch import DEFAULT_CONCURRENCY, fetch
from a2a_kb.sources.upstream import Reader
from a2a_kb.sources.watch import observe

DELAY = 0.1


def measure(root: Path, mirror: Path) -> dict[str, Any]:
    sys.path.insert(0, str(root / "tests"))
    from local_upstream import LocalUpstream  # the tests' upstream, with a delay added

    # The local upstream is plain http on 127.0.0.1, which the URL policy refuses unless
    # asked (as the tests ask): its escape hatch is on for this row only.
    saved = {name: os.environ.get(name) for name in ("A2A_KB_CACHE", "A2A_KB_ALLOW_LOOPBACK")}
    os.environ["A2A_KB_ALLOW_LOOPBACK"] = "1"
    try:
        with tempfile.TemporaryDirectory(prefix="a2a-kb-bench-watch-") as tmp:
            return _measure(root, mirror, Path(tmp), LocalUpstream)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _measure(root: Path, mirror: Path, tmp: Path, upstream_class: Any) -> dict[str, Any]:
    os.environ["A2A_KB_CACHE"] = str(tmp / "cache")  # a cache of its own, filled here
    kb = validate(Project.at(root))
    filled = fetch(list(kb.sources.values()), Cache(tmp / "cache"), mirror=mirror)
    if not filled.ok:
        raise RuntimeError(f"filling the cache failed: {filled.counts}")
    check(kb)  # as `make check` has before a watch: the pinned sources' facts are cached
    started = time.perf_counter()
    with Reader(mirror=mirror) as reader:
        offline = observe(kb, reader)
    read_mirror = time.perf_counter() - started
    offline.flips = predict(kb, offline)
    from_mirror = time.perf_counter() - started
    upstream = upstream_class(mirror, delay=DELAY)
    upstream.serve_known(kb)
    upstream.start()
    timings: dict[str, float] = {}
    requests: dict[str, int] = {}
    try:
        for label, concurrency in (("serial", 1), ("parallel", DEFAULT_CONCURRENCY)):
            upstream.requests.clear()
            started = time.perf_counter()
            with Reader(upstream.endpoints, concurrency=concurrency) as reader:
                report = observe(kb, reader)  # the reading of upstream, which is what waits
            timings[label] = time.perf_counter() - started
            requests[label] = len(upstream.requests)
            report.flips = predict(kb, report)
            if not report.ok:
                raise RuntimeError(f"watch with concurrency {concurrency} found "
                                   f"{report.findings} finding(s) upstream of a quiet mirror")
    finally:
        upstream.stop()
    return {"serial": timings["serial"], "parallel": timings["parallel"],
            "concurrency": DEFAULT_CONCURRENCY, "requests": requests["parallel"],
            "delay": DELAY, "mirror_seconds": from_mirror, "mirror_read_seconds": read_mirror,
            "mirror_findings": offline.findings, "upstream_items": len(offline.upstream)}
