"""Row 12: Lighthouse performance (mobile preset) on every audited page of the real site.

Performance is a timing: on a shared two-core host one page's score spans ten points from
run to run, so it is measured here and never gated in `make test` (which holds the same
pages to accessibility, best practices and SEO 100). The real site is built once into a
temporary folder, served under its sub-path from 127.0.0.1 as a static host serves it
(:mod:`a2a_kb.site.static_host`), and every page is audited five times in one Chromium with
the CPU slowdown calibrated to the host (``--cpu-slowdown auto``, Lighthouse's calibration
curve); the median run counts. The row's figure is the lowest page median; the goal is ≥ 90
on every page. The per-page medians and runs go into results.json, which the Site quality
page shows beside the test's scores.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

RUNS = 5
GOAL = 90
CHROMIUM = Path("/usr/bin/chromium")
SITE_URL = "https://a2a-kb.invalid/a2a-kb/"


class NotReady(Exception):
    """Lighthouse or Chromium is not installed; the message says how to get it."""


def measure(real: Path, runs: int = RUNS) -> dict[str, Any]:
    from a2a_kb.project import Project
    from a2a_kb.site import paths
    from a2a_kb.site.build import build_into
    from a2a_kb.site.links import page_url
    from a2a_kb.site.static_host import published

    lighthouse = real / "tooling" / "npm" / "lighthouse"
    if not (lighthouse / "node_modules" / "lighthouse").is_dir():
        raise NotReady("Lighthouse is not installed (tip: make site-audit-tools)")
    if not CHROMIUM.exists():
        raise NotReady(f"{CHROMIUM} is missing (tip: apt-get install chromium)")
    pages = [(name, page_url(src)) for name, src in paths.AUDITED_PAGES]
    with tempfile.TemporaryDirectory(prefix="a2a-kb-bench-lighthouse-") as tmp:
        site = Path(tmp) / "site"
        os.environ.setdefault("A2A_KB_SITE_URL", SITE_URL)
        build_into(Project.at(real), site, strict=False, quiet=True)
        (Path(tmp) / "host").mkdir()
        with published(site, os.environ["A2A_KB_SITE_URL"], Path(tmp) / "host") as host:
            done = subprocess.run(
                ["node", str(lighthouse / "audit.mjs"), "--chrome", str(CHROMIUM),
                 "--categories", "performance", "--runs", str(runs), "--cpu-slowdown", "auto",
                 host.base, *[path for _, path in pages]],
                capture_output=True, text=True, timeout=3600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"audit.mjs exited {done.returncode}: {done.stderr.strip()[-500:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    by_path = {line["path"]: line for line in lines if "path" in line}
    machine = next((line["host"] for line in lines if "host" in line), {})
    found = []
    for name, path in pages:
        line = by_path.get(path, {})
        if "error" in line or not line.get("performance_runs"):
            raise RuntimeError(f"Lighthouse could not audit {name} ({path}): {line.get('error')}")
        scores = [int(s) for s in line["performance_runs"]]
        found.append({"page": name, "path": path, "performance": median(scores), "runs": scores,
                      "cpu_slowdown": line.get("cpu_slowdown"),
                      "failing": sorted({a["id"] for a in line.get("failing", [])})})
    slowdowns = sorted(p["cpu_slowdown"] for p in found if p["cpu_slowdown"] is not None)
    return {"pages": found, "runs": runs, "goal": GOAL,
            "lowest": min(p["performance"] for p in found),
            "tool": _version(lighthouse), "benchmark_index": machine.get("benchmark_index"),
            "calibrated_slowdown": machine.get("calibrated_slowdown"),
            "cpu_slowdown": slowdowns[len(slowdowns) // 2] if slowdowns else None}


def _version(folder: Path) -> str:
    lock = json.loads((folder / "package-lock.json").read_text("utf-8"))
    return f"lighthouse {lock['packages']['node_modules/lighthouse']['version']}"
