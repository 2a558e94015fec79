"""The Performance page: bench/results.json, written by `make bench`, as a table of ratios
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
    measured: str = ""  # the row's own date (a partial run keeps the others' dates)


def _amount(value: Any, unit: str) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return ""
    if unit == "score":
        return f"{value:g}"
    return f"{value:.0f} MB" if unit == "MB" else f"{value:.2f}×"


def _target(value: Any, unit: str, at_least: bool = False) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return str(value or "")
    sign = "≥" if at_least else "≤"
    if unit == "score":
        return f"{sign} {value:g}"
    return f"{sign} {value:.0f} MB" if unit == "MB" else f"{sign} {value:g}×"


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
        number = row.get("number")
        rows.append(RatioRow(number if isinstance(number, int) and not isinstance(number, bool) else i,
                             str(row["name"]), _amount(row.get("ratio"), unit),
                             _target(row.get("target"), unit, row.get("at_least") is True),
                             row.get("met") is True, str(row.get("detail") or ""),
                             str(row.get("measured") or "")[:10]))
    return render("site/performance.md.j2", bench=bench, rows=rows,
                  machine=_machine(bench.machine) if bench else [],
                  met=sum(r.met for r in rows), file=str(BENCH_RESULTS), link=link, paths=paths)
