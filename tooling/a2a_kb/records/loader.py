"""load: record files on disk → parsed documents with marks, sorted by kind.

Reads sources/*.yaml and claims/*.yaml (never the cache). Each file's single top-level key
says what it holds: `versions`, `sources`, `claims`, `conflicts`, `upstream` or
`sweep`, whatever its folder. A command that reads some kinds only (`a2a-kb diff` reads
versions and sources) loads only the files that may hold them, told by their lines at
column 0 before any YAML is parsed (`may_hold`).
"""

from __future__ import annotations

import contextlib
import gc
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import Mark
from ..layout import record_files_in
from ..project import Project

# The YAML reader and the schemas are imported where records are read, not here: `a2a-kb
# query` lists the record files through this module and, while its index is current, reads
# no YAML. (Mark is a small dataclass, and RawRecord.mark makes one per record.)
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
    place: yamldoc.Place | None = None  # the record's own place in doc, when known

    def mark(self, key: str = "") -> Any:
        place = self.place
        if place is not None:  # the record and its fields, without a walk from the top
            if not key:
                return Mark(self.doc.path, place[0], place[1])
            child = place[2].get(key) if "/" not in key and "~" not in key else None
            if child is not None:
                return Mark(self.doc.path, child[0], child[1])
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


# A line at column 0 that is a plain key and its colon: 'sources:', 'claims: []'.
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]|$)")
# Every line break YAML knows besides '\n', and a few more (a form feed) that an extra
# split makes harmless.
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK = re.compile(f"[{_OTHER_BREAKS}]")
# After a '\n' (a literal first: the engine then skips from one '\n' to the next): a line at
# column 0 that is not a comment, and the next line that is neither blank nor a comment.
_AT_COLUMN_0 = re.compile(r"\n([^ \n#][^\n]*)")
_CONTENT = re.compile(r"\n[ \t]*[^ \t\n#]")


def top_level_keys(text: str) -> set[str] | None:
    """The keys at the top of a record file, read from its lines without parsing the YAML,
    or None when the lines do not say for sure.

    In a record file as written (a block mapping at column 0), every line at column 0 that
    is not a comment, a directive or a document marker is a top-level key. Anything else
    there (a quoted or complex key, a flow mapping, a list, a tab, content on a '---' line,
    an indented document) is not read here: the answer is None, and the file is parsed.
    Lines are split at every line break YAML knows and at a few more (a form feed): an
    extra split can only make the answer None or add a key, never leave one out.

    Examples:
        >>> sorted(top_level_keys("# the sources\\nsources:\\n  - id: a\\n") or [])
        ['sources']
        >>> top_level_keys('"sources": []') is None, top_level_keys("  sources: []") is None
        (True, True)
    """
    if any(other in text for other in _OTHER_BREAKS):
        text = _BREAK.sub("\n", text)
    text = "\n" + text  # so that every line, the first too, follows a '\n'
    if _indented_from(text, 0):
        return None  # an indented document: its keys are not at column 0
    keys: set[str] = set()
    for found in _AT_COLUMN_0.finditer(text):  # a few lines a file, so this loop is short
        line = found.group(1)
        if not line.strip() or line.lstrip().startswith("#"):
            continue  # a blank line or a comment behind a tab
        if line.startswith(("---", "...")):
            rest = line[3:].strip()
            if (rest and not rest.startswith("#")) or _indented_from(text, found.end()):
                return None  # content on the marker's line, or an indented document after it
            continue
        if line.startswith("%"):  # a directive: %YAML 1.2
            continue
        key = _KEY_LINE.match(line)
        if key is None:
            return None
        keys.add(key[1])
    return keys or None


def _indented_from(text: str, at: int) -> bool:
    """Whether, from `at` on, the first line that is neither blank nor a comment is indented."""
    first = _CONTENT.search(text, at)
    return first is not None and first.group()[1] in " \t"


def may_hold(path: Path, keys: Collection[str]) -> bool:
    """Whether the record file at `path` may hold one of the top-level `keys`.

    False only when its lines show for sure that it holds other kinds of records. A file
    whose lines do not say (it is empty, too large, not UTF-8, written in a form
    `top_level_keys` does not read) or whose top-level key is none of the known ones
    (a misspelt 'source:') may hold anything, so it is read, and its problems reported."""
    from .yamldoc import MAX_BYTES

    try:
        if path.stat().st_size > MAX_BYTES:
            return True
        text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return True
    found = top_level_keys(text)
    if found is None or not found <= _file_keys().keys():
        return True
    return bool(found & set(keys))


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
def load(project: Project, files: list[Path] | None = None, budget: Budget | None = None,
         kinds: Collection[str] | None = None) -> LoadResult:
    """Parse every record file; collect problems, never stop at the first.

    Every file is held to its own limits and to what is left of the run's `budget`; a
    file past either is refused with a diagnostic that says which limit it met, and the
    files after it are still read (each may fit what is left).

    With `kinds` (record kinds: 'version', 'source', …), only the files that may hold
    records of those kinds are read (`may_hold`), and only records of those kinds
    are kept: a file read because its lines did not say what it holds, and that holds
    claims, adds the problems of its YAML and none of its claims."""
    from ..commit import recover
    from .yamldoc import MAX_BYTES, MAX_NODES, read

    recover(project.root)  # a change a killed writer left half done is finished first
    result = LoadResult()
    budget = budget or Budget()
    paths = files if files is not None else record_files(project)
    if kinds is not None:
        keys = [key for key, kind in _file_keys().items() if kind in kinds]
        paths = [path for path in paths if may_hold(path, keys)]
    for path in paths:
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
        _split(doc, result, kinds)
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


def _split(doc: yamldoc.Document, result: LoadResult, kinds: Collection[str] | None = None) -> None:
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
        import difflib  # for the tip of a broken file only

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
    kind = file_keys[key]
    if kinds is not None and kind not in kinds:
        return  # read because its lines did not say what it holds; not asked for
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
    places = doc.places[2][key][2] if doc.places is not None else None
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
        result.records[kind].append(RawRecord(kind, item, doc, pointer, places[i] if places else None))
