"""Diagnostics: problems in the data, as values that name a place and a fix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Mark:
    """A place in a file: 1-based line and column, as editors count them."""

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.column, 1)}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem: where it is, which rule found it, what is wrong, how to fix it."""

    mark: Mark
    rule: str
    message: str
    tip: str = ""
    severity: Severity = Severity.ERROR
    record_id: str = field(default="", compare=False)

    def format(self) -> str:
        text = f"{self.mark}: {self.severity.value}[{self.rule}]: {self.message}"
        if self.tip:
            text += f" (tip: {self.tip})"
        return text

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.mark.path,
            "line": self.mark.line,
            "column": self.mark.column,
            "severity": self.severity.value,
            "rule": self.rule,
            "message": self.message,
            "tip": self.tip,
            "record": self.record_id,
        }


def errors(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def sort_key(d: Diagnostic) -> tuple[str, int, int, str]:
    return (d.mark.path, d.mark.line, d.mark.column, d.rule)


# How many problems a file may add before the rest of it is left unchecked, and how many one
# run prints. A claims file of 85,000 empty records used to give 430,000 diagnostics (47 MB
# of output, 13 s, 250 MB); nobody reads past the first screens, and the fix for the first
# hundred is usually the fix for all.
MAX_PER_FILE = 100
MAX_SHOWN = 1000


def too_many(path: str, shown: int, unchecked: int) -> Diagnostic:
    """The diagnostic that stands for what a file's cap left out."""
    return Diagnostic(Mark(path, 1, 1), "too-many-problems",
                      f"stopped after {shown} problems in this file; {unchecked:,} more "
                      f"record(s) were not checked",
                      "fix these first and run again; each run reports the first "
                      f"{MAX_PER_FILE} of a file")


def shown(diagnostics: list[Diagnostic], limit: int = MAX_SHOWN) -> tuple[list[Diagnostic], int]:
    """What a printout shows of `diagnostics`: at most `MAX_PER_FILE` per file and
    `limit` in all, the errors first, in file order; and how many it leaves out."""
    ordered = sorted(diagnostics, key=lambda d: (d.severity is not Severity.ERROR, *sort_key(d)))
    kept: list[Diagnostic] = []
    per_file: dict[str, int] = {}
    for d in ordered:
        if len(kept) >= limit:
            break
        if per_file.get(d.mark.path, 0) >= MAX_PER_FILE and d.rule != "too-many-problems":
            continue
        per_file[d.mark.path] = per_file.get(d.mark.path, 0) + 1
        kept.append(d)
    return sorted(kept, key=sort_key), len(diagnostics) - len(kept)


def not_shown(count: int) -> str:
    return (f"{count:,} more problem(s) not shown: at most {MAX_PER_FILE} per file and "
            f"{MAX_SHOWN} per run are (tip: fix these and run again)")
