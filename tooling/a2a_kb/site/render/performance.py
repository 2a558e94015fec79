"""The Performance page: bench/results.json, written by ``make bench``, as a table of ratios
measured side by side in one run, with the machine they were measured on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import paths
from ..data import SiteData
from ..links import Linker
from ..measurements import BENCH_RESULTS
from ..templating import render


@dataclass
class RatioRow:
    number: int
    name: str
    ratio: str  # "" when the run could not measure it
    target: str
    met: bool
    detail: str


def _amount(value: Any, unit: str) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return ""
    return f"{value:.0f} MB" if unit == "MB" else f"{value:.2f}×"


def _target(value: Any, unit: str) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return str(value or "")
    return f"≤ {value:.0f} MB" if unit == "MB" else f"≤ {value:g}×"


def _machine(machine: dict[str, Any]) -> list[tuple[str, str]]:
    def shown(value: Any) -> str:
        if isinstance(value, list):
            return ", ".join(str(v) for v in value)
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)

    return [(str(k).replace("_", " "), shown(v)) for k, v in machine.items() if v not in (None, "")]


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.PERFORMANCE, use_directory_urls)
    bench = data.benchmark
    rows = []
    for i, row in enumerate(bench.rows if bench else [], 1):
        unit = str(row.get("unit") or "×")
        rows.append(RatioRow(i, str(row["name"]), _amount(row.get("ratio"), unit),
                             _target(row.get("target"), unit), row.get("met") is True,
                             str(row.get("detail") or "")))
    return render("site/performance.md.j2", bench=bench, rows=rows,
                  machine=_machine(bench.machine) if bench else [],
                  met=sum(r.met for r in rows), file=str(BENCH_RESULTS), link=link, paths=paths)
