"""Row 6: ``fetch --refresh`` of 100 moving sources from a slow local server.

The cache is filled first (a normal fetch records each source's ETag and Last-Modified);
then the same refresh runs one source at a time and with the default concurrency. Every
source must come back ``not-modified``: the refresh asked conditionally and the server
agreed that nothing moved.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path
from typing import Any

from slow_server import body_of, serving

from a2a_kb.cache import Cache
from a2a_kb.diagnostics import Mark
from a2a_kb.records.model import Source
from a2a_kb.sources.fetch import DEFAULT_CONCURRENCY, fetch
from a2a_kb.sources.http import HttpPolicy

COUNT = 100
DELAY = 0.2


def _sources(base: str) -> list[Source]:
    return [
        Source(id=f"moving-{n}", kind="web", authority="secondary", url=f"{base}/source/{n}",
               title=f"Moving page {n}", versions=[], mark=Mark("sources/secondary.yaml", n + 1, 5),
               sha256=hashlib.sha256(body_of(n)).hexdigest(), retrieved="2026-11-29", moving=True)
        for n in range(COUNT)
    ]


def measure() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="a2a-kb-bench-fetch-") as tmp, serving(DELAY) as base:
        sources, cache = _sources(base), Cache(Path(tmp) / "cache")
        local = HttpPolicy(allow_loopback=True)  # the slow server is on 127.0.0.1
        filled = fetch(sources, cache, policy=local)
        if filled.counts["fetched"] != COUNT:
            raise RuntimeError(f"filling the cache failed: {filled.counts}")
        timings = {}
        for label, concurrency in (("serial", 1), ("concurrent", DEFAULT_CONCURRENCY)):
            started = time.perf_counter()
            report = fetch(sources, cache, refresh=True, concurrency=concurrency, policy=local)
            timings[label] = time.perf_counter() - started
            if report.counts["not-modified"] != COUNT:
                raise RuntimeError(f"refresh with concurrency {concurrency}: {report.counts}")
    return {"serial": timings["serial"], "concurrent": timings["concurrent"],
            "concurrency": DEFAULT_CONCURRENCY, "sources": COUNT, "delay": DELAY}
