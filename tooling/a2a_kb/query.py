"""query: claims as data, filtered, in the formats tools want.

The query path is kept light (no JSON Schema, no extractors): it reads the claim files
with the strict YAML reader, and keeps an index in the cache that is reused while the
files are unchanged (same paths, sizes and modification times).
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .project import Project

INDEX_VERSION = 1


@dataclass
class Filters:
    ids: list[str]
    subject: str | None = None
    version: str | None = None
    conflict: str | None = None
    verdict: str | None = None
    authority: str | None = None
    source: str | None = None
    origin: str | None = None
    text: str | None = None

    def keep(self, row: dict[str, Any]) -> bool:
        if self.ids and row.get("id") not in self.ids:
            return False
        if self.subject and self.subject.lower() not in str(row.get("subject", "")).lower():
            return False
        if self.version:
            wanted = self.version.removeprefix("v")
            if wanted not in [str(v).removeprefix("v") for v in row.get("versions", [])]:
                return False
        if self.conflict and self.conflict not in row.get("conflicts", []):
            return False
        if self.verdict and row.get("verdict") != self.verdict:
            return False
        if self.authority and row.get("authority") != self.authority:
            return False
        if self.source and row.get("source") != self.source:
            return False
        if self.origin and not str(row.get("origin", "")).startswith(self.origin):
            return False
        return not (self.text and self.text.lower() not in str(row.get("statement", "")).lower())


def _stamp(files: list[Path]) -> list[list[Any]]:
    result = []
    for f in files:
        st = f.stat()
        result.append([str(f), st.st_size, st.st_mtime_ns])
    return result


def _rows_from_files(project: Project, files: list[Path]) -> list[dict[str, Any]]:
    from . import yamldoc
    from .loader import load

    loaded = load(project, files)
    authority = {str(r.data.get("id")): r.data.get("authority") for r in loaded.records["source"]}
    rows = []
    for r in loaded.records["claim"]:
        row = dict(r.data)
        row["verdict"] = row.get("verdict")
        row["authority"] = authority.get(
            str(row.get("source")),
            "secondary" if str(row.get("source", "")).startswith("https://") else None,
        )
        mark = r.mark()
        row["file"], row["line"] = mark.path, mark.line
        rows.append(row)
    del yamldoc
    return rows


def all_rows(project: Project) -> list[dict[str, Any]]:
    """Every claim as stored, plus its authority, file and line; indexed in the cache."""
    from .loader import record_files

    files = record_files(project)
    stamp = _stamp(files)
    index = project.cache_dir / "query-index.json"
    try:
        cached = json.loads(index.read_text("utf-8"))
        if cached.get("version") == INDEX_VERSION and cached.get("stamp") == stamp:
            rows: list[dict[str, Any]] = cached["rows"]
            return rows
    except (OSError, ValueError):
        pass
    rows = _rows_from_files(project, files)
    try:
        from .cache import atomic_write

        atomic_write(
            index, json.dumps({"version": INDEX_VERSION, "stamp": stamp, "rows": rows}).encode()
        )
    except OSError:
        pass  # a read-only checkout still answers queries, just without the index
    return rows


def run(project: Project, filters: Filters, *, computed: bool = False) -> list[dict[str, Any]]:
    """The claims that pass ``filters``; with ``computed``, verdicts come from a fresh check."""
    rows = all_rows(project)
    if computed:
        from .check import check
        from .validate import validate

        result = check(validate(project))
        verdicts = {r.claim.id: r.verdict for r in result.results}
        rows = [dict(r, verdict=verdicts.get(str(r.get("id")), r.get("verdict"))) for r in rows]
    return [r for r in rows if filters.keep(r)]


def render(rows: list[dict[str, Any]], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    if fmt == "yaml":
        import yaml

        return yaml.safe_dump(rows, sort_keys=False, allow_unicode=True)
    columns = ["id", "verdict", "versions", "source", "subject", "statement"]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator=os.linesep)
        writer.writerow(columns)
        for r in rows:
            writer.writerow([_cell(r.get(c)) for c in columns])
        return buf.getvalue()
    from .output import table

    short = [[_cell(r.get(c))[:70] for c in columns] for r in rows]
    return table(columns, short) + f"\n{len(rows)} claim(s)"


def _cell(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)
