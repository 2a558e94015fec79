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
