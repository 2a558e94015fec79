"""load: record files on disk → parsed documents with marks, sorted by kind.

Reads sources/*.yaml and claims/*.yaml (never the cache). Each file's single top-level key
says what it holds: ``versions``, ``sources``, ``claims`` or ``conflicts``.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..layout import record_files_in
from ..project import Project

# The YAML reader, the schemas and the diagnostics are imported where records are read,
# not here: `a2a-kb query` lists the record files through this module and, while its
# index is current, reads no YAML and reports nothing.
if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from . import yamldoc


@dataclass
class RawRecord:
    """One record as read: its dict, its file's document, and its JSON pointer there."""

    kind: str
    data: dict[str, Any]
    doc: yamldoc.Document
    pointer: str

    def mark(self, key: str = "") -> Any:
        return self.doc.mark(f"{self.pointer}/{key}" if key else self.pointer)


# What one run may read in all. Each file has its own limits (yamldoc.MAX_BYTES and
# MAX_NODES); these bound the sum, so that many files at their limit cannot add up to
# gigabytes either. A 10,000-claim knowledge base is about 7 MB and half a million values,
# and takes some 170 MB to load and check; the limits leave room for twice that.
MAX_RUN_BYTES = 16 * 1024 * 1024
MAX_RUN_NODES = 1_500_000


@dataclass
class Budget:
    """What is left of the run's limits while files are read, one after another."""

    bytes_left: int = MAX_RUN_BYTES
    nodes_left: int = MAX_RUN_NODES

    def spend(self, size: int, nodes: int) -> None:
        self.bytes_left -= size
        self.nodes_left -= nodes


@dataclass
class LoadResult:
    files: list[yamldoc.Document] = field(default_factory=list)
    records: dict[str, list[RawRecord]] = field(
        default_factory=lambda: {kind: [] for kind in _file_keys().values()}
    )
    problems: list[Diagnostic] = field(default_factory=list)


def _file_keys() -> dict[str, str]:
    from ..schemas import FILE_KEYS

    return FILE_KEYS


def record_files(project: Project) -> list[Path]:
    """Every record file of the project, in a stable order (sources/, then claims/; in
    each, the *.yaml files by name, then the *.yml files)."""
    return record_files_in(project.sources_dir, project.claims_dir)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a large structure that stays alive is built.

    Loading, validating and checking a big KB allocates millions of dicts, lists and
    records, all kept; every automatic collection walks them all again, which made the
    10,000-claim benchmark about 40% slower. The records hold no reference cycles, and
    reference counting frees everything as usual; the collector resumes on the way out
    (unless it was already off). Usable as a decorator.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # Everything built is long-lived: freeze + unfreeze moves it straight to the
            # oldest generation, so the first collections after this do not walk it twice
            # on its way there (that walk cost as much as the pause saved).
            gc.freeze()
            gc.unfreeze()
            gc.enable()


@collector_paused()
def load(project: Project, files: list[Path] | None = None, budget: Budget | None = None) -> LoadResult:
    """Parse every record file; collect problems, never stop at the first.

    Every file is held to its own limits and to what is left of the run's ``budget``; a
    file past either is refused with a diagnostic that says which limit it met, and the
    files after it are still read (each may fit what is left)."""
    from .yamldoc import MAX_BYTES, MAX_NODES, read

    result = LoadResult()
    budget = budget or Budget()
    for path in files if files is not None else record_files(project):
        shown = project.relative(path)
        if budget.bytes_left <= 0 or budget.nodes_left <= 0:
            result.problems.append(_over_budget(shown))
            continue
        doc = read(path, shown, max_bytes=min(MAX_BYTES, budget.bytes_left),
                   max_nodes=min(MAX_NODES, budget.nodes_left))
        if doc.value is not None:
            budget.spend(_size(path), doc.nodes)
        elif any(p.rule in ("file-too-large", "too-many-values") for p in doc.problems):
            _explain_budget(doc, budget)
        result.files.append(doc)
        result.problems += doc.problems
        if doc.value is None and doc.problems:
            continue  # the file could not be read; its problems say why
        _split(doc, result)
    return result


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _over_budget(shown: str) -> Diagnostic:
    from ..diagnostics import Diagnostic, Mark

    return Diagnostic(
        Mark(shown, 1, 1), "run-too-large",
        f"not read: the record files before it already use the run's limit of "
        f"{MAX_RUN_BYTES:,} bytes or {MAX_RUN_NODES:,} YAML values",
        "a knowledge base this large is not expected; look for generated or duplicated files",
    )


def _explain_budget(doc: yamldoc.Document, budget: Budget) -> None:
    """Say so when a file was refused for the run's limit rather than its own."""
    from dataclasses import replace

    from .yamldoc import MAX_BYTES, MAX_NODES

    if budget.bytes_left >= MAX_BYTES and budget.nodes_left >= MAX_NODES:
        return
    doc.problems[:] = [
        replace(p, message=f"{p.message} (what was left of the run's limit of "
                f"{MAX_RUN_BYTES:,} bytes and {MAX_RUN_NODES:,} values)")
        if p.rule in ("file-too-large", "too-many-values") else p
        for p in doc.problems
    ]


def _kind_of(value: Any) -> str:
    """What a YAML value is, in words a record author uses."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "a mapping"
    return "a list" if isinstance(value, list) else "a string"


def _split(doc: yamldoc.Document, result: LoadResult) -> None:
    import difflib

    from ..diagnostics import Diagnostic, Mark
    from . import yamldoc

    file_keys = _file_keys()

    value = doc.value
    keys = ", ".join(f"'{k}'" for k in file_keys)
    if not isinstance(value, dict):
        result.problems.append(
            Diagnostic(
                doc.mark(""),
                "top-level-type",
                f"the file holds {_kind_of(value)} at the top; a record file holds a mapping",
                f"start the file with one of {keys}, e.g. 'claims:' followed by a list",
            )
        )
        return
    found = [k for k in value if k in file_keys]
    unknown = [k for k in value if k not in file_keys]
    for key in unknown:
        close = difflib.get_close_matches(key, list(file_keys), n=1)
        result.problems.append(
            Diagnostic(
                doc.mark(f"/{yamldoc.pointer_escape(key)}"),
                "unknown-section",
                f"unknown top-level key '{yamldoc.excerpt(key)}'",
                f"did you mean '{close[0]}'?"
                if close
                else f"a record file has exactly one of {keys}",
            )
        )
    if len(found) != 1:
        if not unknown:
            result.problems.append(
                Diagnostic(
                    doc.marks.get("", Mark(doc.path, 1, 1)),
                    "top-level-type",
                    f"the file has {len(found)} of the keys {keys}; it must have exactly one",
                    "put each kind of record in its own file",
                )
            )
        return
    key = found[0]
    items = value[key]
    if not isinstance(items, list):
        result.problems.append(
            Diagnostic(
                doc.mark(f"/{key}"),
                "top-level-type",
                f"'{key}' must be a list of records, not {_kind_of(items)}",
                f"write each record as a list item: '{key}:' then '  - id: …'"
                + (f", or '{key}: []' when there are none" if items is None else ""),
            )
        )
        return
    kind = file_keys[key]
    for i, item in enumerate(items):
        pointer = f"/{key}/{i}"
        if not isinstance(item, dict):
            result.problems.append(
                Diagnostic(
                    doc.mark(pointer),
                    "record-type",
                    f"item {i + 1} of '{key}' is {_kind_of(item)}, not a record",
                    "each item is a mapping of fields, starting with '- id: …'",
                )
            )
            continue
        result.records[kind].append(RawRecord(kind, item, doc, pointer))
