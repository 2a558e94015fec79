"""What the site reports about the project itself: the reliability figures of the last test
run, the site audit's scores (Lighthouse, axe-core, the link check) and the benchmark's
results.

The tests (`record_reliability` and `record_site_quality` in tests/conftest.py) and
`make bench` write these files; the site only reads them. A missing file is worth saying
on its page (nothing has been measured yet), and a file that cannot be read is a problem to
show, never a reason to guess a number.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RELIABILITY_DIR = Path("test-artifacts") / "reliability"
BENCH_RESULTS = Path("bench") / "results.json"
SITE_QUALITY = Path("test-artifacts") / "site-quality" / "last-run.json"
LIGHTHOUSE_CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
RECORDED_AT = "recorded_at"  # figure name → when a test recorded it (ISO 8601, UTC)


@dataclass(frozen=True)
class Reliability:
    """The figures the tests recorded, merged across the figure files."""

    files: list[str] = field(default_factory=list)  # read, relative to the project
    figures: dict[str, Any] = field(default_factory=dict)
    recorded_at: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Benchmark:
    """One run of `make bench`: the machine it ran on and a row per measured ratio."""

    file: str
    machine: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float | None = None
    problems: list[str] = field(default_factory=list)


def _json_object(path: Path, shown: str) -> tuple[dict[str, Any] | None, str]:
    """The JSON object in `path`, or None and the reason it cannot be used."""
    try:
        value = json.loads(path.read_text("utf-8"))
    except OSError as e:
        return None, f"{shown}: cannot be read: {e.strerror}"
    except UnicodeDecodeError:
        return None, f"{shown}: not UTF-8 text"
    except ValueError as e:
        return None, f"{shown}: not JSON ({e})"
    if not isinstance(value, dict):
        return None, f"{shown}: holds a JSON {type(value).__name__}, not an object of figures"
    return value, ""


def read_reliability(root: Path) -> Reliability:
    """Every `*.json` under test-artifacts/reliability/, in name order (a later file's
    figure replaces an earlier one of the same name)."""
    folder = root / RELIABILITY_DIR
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    read: list[str] = []
    figures: dict[str, Any] = {}
    recorded: dict[str, str] = {}
    problems: list[str] = []
    for path in files:
        shown = str(RELIABILITY_DIR / path.name)
        found, problem = _json_object(path, shown)
        if found is None:
            problems.append(problem)
            continue
        read.append(shown)
        stamps = found.pop(RECORDED_AT, {})
        if isinstance(stamps, dict):
            recorded.update({str(k): str(v) for k, v in stamps.items()})
        else:
            problems.append(f"{shown}: `{RECORDED_AT}` is not an object of figure → time")
        figures.update(found)
    return Reliability(read, figures, recorded, problems)


def _row(value: Any, index: int, shown: str) -> tuple[dict[str, Any] | None, str]:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not value["name"]:
        return None, f"{shown}: row {index} has no name"
    ratio = value.get("ratio")
    if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, int | float)
                              or not math.isfinite(ratio)):
        return None, f"{shown}: row {index} ({value['name']}) has a ratio that is not a number"
    return value, ""


@dataclass(frozen=True)
class PagePerformance:
    """Lighthouse's performance score of one page, as `make bench` measured it (row 12)."""

    page: str
    path: str
    median: float
    runs: list[int]


@dataclass(frozen=True)
class Performance:
    """Row 12 of the benchmark: every audited page's performance, five runs, the median."""

    measured: str  # when (UTC), or "" when the file does not say
    tool: str
    cpu_slowdown: float | None
    benchmark_index: float | None
    pages: list[PagePerformance]


def performance_of(benchmark: Benchmark | None) -> Performance | None:
    """The Lighthouse performance row of the benchmark's results, or None where it was not
    measured (or its figures cannot be read: the row's own problems are the benchmark's)."""
    for row in benchmark.rows if benchmark else []:
        numbers = row.get("numbers")
        found = numbers.get("lighthouse") if isinstance(numbers, dict) else None
        if not isinstance(found, dict) or not isinstance(found.get("pages"), list):
            continue
        pages = []
        for raw in found["pages"]:
            if not isinstance(raw, dict) or _number(raw.get("performance")) is None:
                continue
            runs = [int(r) for r in raw.get("runs", []) if _integer(r) is not None]
            pages.append(PagePerformance(str(raw.get("page", "")), str(raw.get("path", "")),
                                         float(raw["performance"]), runs))
        return Performance(str(row.get("measured") or ""), str(found.get("tool", "")),
                           _number(found.get("cpu_slowdown")), _number(found.get("benchmark_index")),
                           pages)
    return None


def read_benchmark(root: Path) -> Benchmark | None:
    """bench/results.json, or None when no benchmark has been run."""
    path = root / BENCH_RESULTS
    if not path.exists():
        return None
    shown = str(BENCH_RESULTS)
    found, problem = _json_object(path, shown)
    if found is None:
        return Benchmark(shown, problems=[problem])
    problems: list[str] = []
    machine = found.get("machine")
    if not isinstance(machine, dict):
        problems.append(f"{shown}: `machine` is not an object")
        machine = {}
    raw_rows = found.get("rows")
    rows: list[dict[str, Any]] = []
    if not isinstance(raw_rows, list):
        problems.append(f"{shown}: `rows` is not a list")
        raw_rows = []
    for i, raw in enumerate(raw_rows, 1):
        row, problem = _row(raw, i, shown)
        if row is None:
            problems.append(problem)
        else:
            rows.append(row)
    seconds = found.get("seconds")
    return Benchmark(shown, machine, rows,
                     float(seconds) if isinstance(seconds, int | float) and not isinstance(seconds, bool)
                     else None, problems)


# --- the site audit (tests/test_site_quality.py) -------------------------------------------


@dataclass(frozen=True)
class PageScores:
    """Lighthouse's four category scores (0-100; None where it gave none) for one page."""

    page: str
    path: str
    scores: dict[str, int | None]
    failing: list[str]  # the ids of the scored audits that did not pass


@dataclass(frozen=True)
class AxeRun:
    """axe-core's violations on one page in one colour scheme at one width."""

    page: str
    path: str
    scheme: str
    width: int
    violations: int  # rules violated
    nodes: int  # elements in violation, over every rule
    rules: list[str]


@dataclass(frozen=True)
class LinkCheck:
    """The link checker's totals over the whole built site."""

    files: int
    links: int
    unique: int
    ok: int
    excluded: int
    broken: int
    examples: list[str]  # a few broken links, "page: link (reason)"


@dataclass(frozen=True)
class SiteQuality:
    """The last run of the site audit; each part is missing when that oracle did not run."""

    file: str
    tools: dict[str, str] = field(default_factory=dict)  # part → "lighthouse 12.2.3"
    recorded_at: dict[str, str] = field(default_factory=dict)  # part → ISO 8601
    seconds: dict[str, float] = field(default_factory=dict)
    lighthouse: list[PageScores] = field(default_factory=list)
    targets: dict[str, int] = field(default_factory=dict)
    axe: list[AxeRun] = field(default_factory=list)
    links: LinkCheck | None = None
    problems: list[str] = field(default_factory=list)
    # Lighthouse's CPU slowdown, the host's BenchmarkIndex, and the slowdown Lighthouse's
    # calibration curve gives for that host (audit.mjs)
    cpu_slowdown: float | None = None
    benchmark_index: float | None = None
    calibrated_slowdown: float | None = None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _lighthouse_page(raw: Any) -> PageScores | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("page"), str):
        return None
    found = raw.get("scores")
    scores: dict[str, Any] = found if isinstance(found, dict) else {}
    return PageScores(raw["page"], str(raw.get("path", "")),
                      {c: _integer(scores.get(c)) for c in LIGHTHOUSE_CATEGORIES},
                      _strings(raw.get("failing")))


def _axe_run(raw: Any) -> AxeRun | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("page"), str):
        return None
    width, violations, nodes = (_integer(raw.get(k)) for k in ("width", "violations", "nodes"))
    if width is None or violations is None or nodes is None:
        return None
    return AxeRun(raw["page"], str(raw.get("path", "")), str(raw.get("scheme", "")), width,
                  violations, nodes, _strings(raw.get("rules")))


def _link_check(raw: Any) -> LinkCheck | None:
    if not isinstance(raw, dict):
        return None
    counts = {k: _integer(raw.get(k)) for k in ("files", "links", "unique", "ok", "excluded", "broken")}
    if any(v is None for v in counts.values()):
        return None
    return LinkCheck(**{k: int(v or 0) for k, v in counts.items()}, examples=_strings(raw.get("examples")))


def read_site_quality(root: Path) -> SiteQuality | None:
    """test-artifacts/site-quality/last-run.json, or None when the audit never ran here."""
    path = root / SITE_QUALITY
    if not path.exists():
        return None
    shown = str(SITE_QUALITY)
    found, problem = _json_object(path, shown)
    if found is None:
        return SiteQuality(shown, problems=[problem])
    problems: list[str] = []
    tools: dict[str, str] = {}
    recorded: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for part in ("lighthouse", "axe", "links"):
        section = found.get(part)
        if section is None:
            continue
        if not isinstance(section, dict):
            problems.append(f"{shown}: `{part}` is not an object")
            continue
        tools[part] = str(section.get("tool", ""))
        if isinstance(section.get("recorded_at"), str):
            recorded[part] = section["recorded_at"]
        if (took := _number(section.get("seconds"))) is not None:
            seconds[part] = took

    def rows(part: str, key: str, read: Any) -> list[Any]:
        section = found.get(part)
        raw = section.get(key) if isinstance(section, dict) else None
        if section is None or raw is None:
            return []
        if not isinstance(raw, list):
            problems.append(f"{shown}: `{part}.{key}` is not a list")
            return []
        kept = []
        for i, item in enumerate(raw, 1):
            row = read(item)
            if row is None:
                problems.append(f"{shown}: `{part}.{key}` entry {i} lacks a page or a count")
            else:
                kept.append(row)
        return kept

    lighthouse = rows("lighthouse", "pages", _lighthouse_page)
    axe = rows("axe", "runs", _axe_run)
    section = found.get("lighthouse")
    raw_targets = section.get("targets") if isinstance(section, dict) else None
    targets = {c: t for c in LIGHTHOUSE_CATEGORIES
               if isinstance(raw_targets, dict) and (t := _integer(raw_targets.get(c))) is not None}
    raw_host = section.get("host") if isinstance(section, dict) else None
    host = raw_host if isinstance(raw_host, dict) else {}
    links = None
    if isinstance(found.get("links"), dict):
        links = _link_check(found["links"])
        if links is None:
            problems.append(f"{shown}: `links` lacks one of its counts (files, links, unique, ok, "
                            "excluded, broken)")
    return SiteQuality(shown, tools, recorded, seconds, lighthouse, targets, axe, links, problems,
                       *(_number(host.get(k))
                         for k in ("cpu_slowdown", "benchmark_index", "calibrated_slowdown")))
