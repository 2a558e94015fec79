"""What the site reports about the project itself: the reliability figures of the last test
run and the benchmark's results.

The tests (``record_reliability`` in tests/conftest.py) and ``make bench`` write these
files; the site only reads them. A missing file is worth saying on its page (nothing has
been measured yet), and a file that cannot be read is a problem to show, never a reason to
guess a number.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RELIABILITY_DIR = Path("test-artifacts") / "reliability"
BENCH_RESULTS = Path("bench") / "results.json"
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
    """One run of ``make bench``: the machine it ran on and a row per measured ratio."""

    file: str
    machine: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float | None = None
    problems: list[str] = field(default_factory=list)


def _json_object(path: Path, shown: str) -> tuple[dict[str, Any] | None, str]:
    """The JSON object in ``path``, or None and the reason it cannot be used."""
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
    """Every ``*.json`` under test-artifacts/reliability/, in name order (a later file's
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
