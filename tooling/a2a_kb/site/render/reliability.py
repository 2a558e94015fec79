"""The Reliability page: the figures the last test run recorded (inputs tried, faults
injected, processes killed, hostile content checked) and how many of them failed.

Numbers come only from test-artifacts/reliability/ (see
`a2a_kb.site.measurements`); without a test run the page says so and shows none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...knowledge import strength
from .. import paths
from ..data import SiteData
from ..links import Linker
from ..measurements import RELIABILITY_DIR
from ..templating import render


@dataclass(frozen=True)
class Figure:
    """What one recorded figure means, and the test that records it."""

    key: str
    failures: str  # the key of its count of failures
    label: str
    test: str
    what: str
    total: bool = True  # whether the breakdown's numbers add up to one count worth showing


FIGURES = (
    Figure("negative_inputs", "negative_failures", "Malformed records tried", "tests/test_negative.py",
           "Broken claim, source and conflict files; each must give its diagnostic with a line, "
           "exit 1 and no traceback, within a second."),
    Figure("fuzz_examples", "fuzz_failures", "Generated records, per record kind", "tests/test_fuzz.py",
           "Hypothesis examples; the loader and validator must never raise, and a record that "
           "validates must render and round-trip through the JSON API."),
    Figure("fetch_faults", "fetch_fault_failures", "Fetch faults injected", "tests/test_fetch.py",
           "Faults a local server plays on a refresh; each must be reported for its source while "
           "the cache still verifies and keeps the last good copy."),
    Figure("http_faults", "http_fault_failures", "HTTP faults met head-on", "tests/test_http.py",
           "Faults the one HTTP client meets directly, from a server error followed by success "
           "to an untrusted TLS certificate; each must end in a clear message or a retried success."),
    Figure("fetch_kills", "fetch_kill_failures", "kill -9 of a running fetch", "tests/test_fetch.py",
           "After each kill the cache must verify, show no partial file, and let the next fetch "
           "finish the job."),
    Figure("publish_kills", "publish_kill_failures", "kill -9 while a build is swapped in",
           "tests/test_site_kill.py",
           "A process that publishes staged builds over and over, killed at random moments; "
           "after each kill site/ must hold every file of one build and nothing of another."),
    Figure("build_kills", "build_kill_failures", "kill -9 of a running build", "tests/test_site_kill.py",
           "After each kill site/ must be exactly the previous build or the new one, never a mix; "
           "most kills fall late in the build, when publishing is under way."),
    Figure("hostile_checks", "hostile_check_failures", "Hostile-content checks in Chromium",
           "tests/test_browser_site.py",
           "Pages built from records carrying scripts, event handlers, javascript: links, Mermaid "
           "directives and Markdown tricks; each check must find them inert."),
    Figure("site_fuzz", "site_fuzz_failures", "Hostile text in every record field, site-wide",
           "tests/test_site_fuzz.py",
           "Every free-text field of claims, sources, versions, conflicts and captures' metadata "
           "carries a random mix of ways into a page; every page of the built site is opened in "
           "Chromium and searched. Script executions and live javascript: links must be 0, and "
           "every field must show somewhere.", total=False),
    Figure("budget_inputs", "budget_failures", "Hostile inputs against the time and memory budget",
           "tests/test_budgets.py",
           "Each input (megabytes of claims, files of nested lists, deep nesting, a YAML bomb, a "
           "catastrophic pattern, a 120 KB argument) must finish within the budget, or fail fast "
           "with a clear error: wall time, peak memory and exit code of the last run.", total=False),
)
# Keys that are bookkeeping, not figures of their own.
_TOTAL = "failures"


@dataclass
class FigureRow:
    figure: Figure
    value: str  # "" when the last run recorded nothing for it
    breakdown: list[tuple[str, str]]
    failures: int | None
    recorded_at: str


def _count(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _row(figure: Figure, figures: dict[str, Any], recorded: dict[str, str]) -> FigureRow:
    value = figures.get(figure.key)
    failures = figures.get(figure.failures)
    breakdown: list[tuple[str, str]] = []
    if isinstance(value, dict):
        breakdown = [(str(k), _count(v)) for k, v in sorted(value.items())]
        counts = [v for v in value.values() if isinstance(v, int) and not isinstance(v, bool)]
        shown = _count(sum(counts)) if figure.total and len(counts) == len(value) else ""
    else:
        shown = "" if value is None else _count(value)
    return FigureRow(figure, shown, breakdown,
                     failures if isinstance(failures, int) and not isinstance(failures, bool) else None,
                     recorded.get(figure.key, ""))


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.RELIABILITY, use_directory_urls)
    found = data.reliability
    known = {k for f in FIGURES for k in (f.key, f.failures)} | {_TOTAL}
    rows = [_row(f, found.figures, found.recorded_at) for f in FIGURES]
    others = [(k, _count(v)) for k, v in sorted(found.figures.items()) if k not in known]
    failure_counts = [v for k, v in found.figures.items()
                      if k.endswith("_failures") and isinstance(v, int) and not isinstance(v, bool)]
    times = sorted(found.recorded_at.values())
    results = list(data.results.values())
    outrun = [(o, link.page(paths.CLAIMS, paths.claim_anchor(o.claim))) for o in strength.outrunning(results)]
    return render(
        "site/reliability.md.j2",
        r=found,
        rows=rows,
        others=others,
        failures=sum(failure_counts) if failure_counts else None,
        first=times[0] if times else "",
        last=times[-1] if times else "",
        folder=str(RELIABILITY_DIR),
        verified=sum(r.verdict == "verified" for r in results),
        outrun=outrun,
        link=link,
        paths=paths,
    )
