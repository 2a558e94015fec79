"""The Site quality page: what the site audit's oracles said about the built site in the last
run — Lighthouse's scores per page (mobile preset), axe-core's violations in both colour
schemes at two widths, and the link checker's totals — and Lighthouse's performance scores
as the benchmark measured them.

Numbers come only from test-artifacts/site-quality/last-run.json (see
`a2a_kb.site.measurements.read_site_quality`) and, for performance, from row 12 of
bench/results.json (`a2a_kb.site.measurements.performance_of`): performance is a
timing, measured by `make bench` (five runs a page, the median) and never a gate of
`make test`. Without a run the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import paths
from ..data import SiteData
from ..links import Linker, page_url
from ..measurements import LIGHTHOUSE_CATEGORIES, SITE_QUALITY, AxeRun, performance_of
from ..templating import render

CATEGORY_LABELS = {"performance": "Performance", "accessibility": "Accessibility",
                   "best-practices": "Best practices", "seo": "SEO"}
# What the audit requires (tests/test_site_quality.py), shown when the run did not say.
DEFAULT_TARGETS = {"performance": 90, "accessibility": 100, "best-practices": 100, "seo": 100}
SETTINGS = (("light", 1280), ("light", 390), ("dark", 1280), ("dark", 390))


@dataclass
class ScoreCell:
    score: int | None
    target: int
    met: bool


@dataclass
class ScoreRow:
    page: str
    href: str  # "" for a page this build does not know
    cells: list[ScoreCell]
    failing: list[str]


@dataclass
class AxeRow:
    page: str
    href: str
    runs: list[AxeRun | None]  # in SETTINGS order; None where the run did not cover it


def _cell(score: float | None, target: int) -> ScoreCell:
    return ScoreCell(None if score is None else round(score), target, (score or 0) >= target)


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.SITE_QUALITY, use_directory_urls)
    known = {page_url(src, use_directory_urls): link.page(src) for _, src in paths.AUDITED_PAGES}
    found = data.site_quality
    performance = performance_of(data.benchmark)
    measured = {p.path: p.median for p in performance.pages} if performance else {}
    targets = {**DEFAULT_TARGETS, **(found.targets if found else {})}
    scores: list[ScoreRow] = []
    axe: list[AxeRow] = []
    if found is not None:
        for p in found.lighthouse:
            shown: dict[str, float | None] = {**p.scores, "performance": measured.get(
                p.path, p.scores.get("performance"))}  # a run from before make bench measured it
            cells = [_cell(shown.get(c), targets[c]) for c in LIGHTHOUSE_CATEGORIES]
            scores.append(ScoreRow(p.page, known.get(p.path, ""), cells, p.failing))
        by_page: dict[tuple[str, str], dict[tuple[str, int], AxeRun]] = {}
        for run in found.axe:
            by_page.setdefault((run.page, run.path), {})[(run.scheme, run.width)] = run
        for (name, path), runs in by_page.items():
            axe.append(AxeRow(name, known.get(path, ""), [runs.get(s) for s in SETTINGS]))
    return render(
        "site/site-quality.md.j2",
        q=found,
        performance=performance,
        scores=scores,
        met=sum(all(c.met for c in row.cells) for row in scores),
        axe=axe,
        axe_total=sum(r.violations for r in found.axe) if found else 0,
        categories=[CATEGORY_LABELS[c] for c in LIGHTHOUSE_CATEGORIES],
        targets=[(CATEGORY_LABELS[c], targets[c]) for c in LIGHTHOUSE_CATEGORIES],
        settings=SETTINGS,
        audited=[(name, link.page(src)) for name, src in paths.AUDITED_PAGES],
        file=str(SITE_QUALITY),
        link=link,
        paths=paths,
    )
