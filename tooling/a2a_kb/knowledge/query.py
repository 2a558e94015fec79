"""query: claims as data, filtered, in the formats tools want.

The query path is kept light (no YAML, no JSON Schema, no extractors, when the index is
current): it reads the claim files with the strict YAML reader once, and keeps an index
in the cache that is reused while the files are unchanged.

The index is one file, `query-index.jsonl`: a first line with the stamp of the record
files and where each of its buckets starts, then one line per bucket holding the claims
whose id hashes to it, each with its position in the KB. `--id X` reads the first line
and one bucket (a few dozen claims), not the whole KB; other filters read every bucket.

Nothing in it is believed unchecked, since a wrong answer here is a wrong verdict shown
to someone:

* the first line carries the checksum of the rest of that line, and lists the checksum of
  every bucket; a bucket is used only while its bytes still match it;
* the record files it was built from are named with their size, modification and change
  times, inode and the checksum of their bytes. A file whose status differs in any way
  means a rebuild; a file modified within `RACY_SECONDS` of the index being written
  (when an edit could leave its times unchanged) is read and its checksum compared, and
  once the index is older than that, the index is written again with the time it was
  found current (`_restamp`), so a file is read this way a few times, not on every query.

The buckets' and files' checksums are BLAKE2b, and the header is sealed with a key of this
user's (`a2a_kb.seal`), so a forged bucket fails as a damaged one does. BLAKE2b comes
from the interpreter's builtin module, not through `hashlib`, whose import also loads
OpenSSL: two milliseconds of a warm query that reads no other digest.
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: see a2a_kb.cli on start-up
if TYPE_CHECKING:  # imported only when the index cannot answer (see from_index)
    from collections.abc import Sequence
    from os import PathLike
    from pathlib import Path
    from typing import IO, Any

    Files = Sequence[str | PathLike[str]]  # record files: path strings (the warm path) or Paths

    from ..project import Project

INDEX_VERSION = 4  # 4: the header sealed by a2a_kb.seal, the buckets and files by BLAKE2b
INDEX_NAME = "query-index.jsonl"
BUCKETS = 256
RACY_SECONDS = 3  # coarser than any file system's timestamps


class Filters:
    """What a query keeps. A plain class: the dataclasses module costs a warm query a
    tenth of its time to import."""

    def __init__(
        self,
        ids: list[str],
        subject: str | None = None,
        version: str | None = None,
        conflict: str | None = None,
        verdict: str | None = None,
        authority: str | None = None,
        source: str | None = None,
        origin: str | None = None,
        text: str | None = None,
    ) -> None:
        self.ids = ids
        self.subject = subject
        self.version = version
        self.conflict = conflict
        self.verdict = verdict
        self.authority = authority
        self.source = source
        self.origin = origin
        self.text = text

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


def _read(file: str | PathLike[str]) -> bytes:
    with open(file, "rb") as handle:
        return handle.read()


def _stamp(files: Files) -> list[list[Any]]:
    """What a file's status says of it: path, size, modification and change times, inode.
    The change time cannot be set back by a program, so an edit always changes the stamp."""
    result = []
    for f in files:
        st = os.stat(f)
        result.append([str(f), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino])
    return result


def _checksum(data: bytes) -> str:
    """A bucket's or a record file's digest; the header that lists them is sealed with the
    key (`_seal`), so none of them can be replaced without the seal failing."""
    from ..seal import blake2b

    return blake2b(data, digest_size=16).hexdigest()


def _seal(header: bytes) -> str:
    from ..seal import mac

    return mac(header)


def _file_checksums(files: list[Path]) -> list[str]:
    return [_checksum(_read(f)) for f in files]


def _rows_from_files(project: Project, files: list[Path]) -> list[dict[str, Any]]:
    from ..records.loader import load

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
    return rows


def _bucket(claim_id: Any) -> int:
    return zlib.crc32(str(claim_id).encode("utf-8")) % BUCKETS


def _write_index(path: Path, files: list[Path], stamp: list[list[Any]], rows: list[dict[str, Any]]) -> None:
    buckets: list[list[list[Any]]] = [[] for _ in range(BUCKETS)]
    for position, row in enumerate(rows):
        buckets[_bucket(row.get("id"))].append([position, row])
    lines = [json.dumps(b, ensure_ascii=False).encode("utf-8") + b"\n" for b in buckets]
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line)
    import time

    header = json.dumps({"version": INDEX_VERSION, "stamp": stamp, "inputs": _file_checksums(files),
                         "written_ns": time.time_ns(), "buckets": starts,
                         "checksums": [_checksum(line) for line in lines]}).encode("utf-8")
    from ..cache import atomic_write

    atomic_write(path, _seal(header).encode("ascii") + b" " + header + b"\n" + b"".join(lines))


def _header(line: bytes) -> dict[str, Any] | None:
    """The first line's fields, or None when its seal does not match."""
    seal, _, body = line.rstrip(b"\n").partition(b" ")
    if seal != _seal(body).encode("ascii"):  # a local file: no timing to hide
        return None
    header = json.loads(body)
    return header if isinstance(header, dict) and header.get("version") == INDEX_VERSION else None


def _unchanged(header: dict[str, Any], files: Files, stamp: list[list[Any]]) -> bool:
    """Whether the record files are those the index was built from (see the module)."""
    if header["stamp"] != stamp:
        return False
    racy_after = _racy_after(header)
    for file, status, checksum in zip(files, stamp, header["inputs"], strict=True):
        if status[2] >= racy_after and _checksum(_read(file)) != checksum:
            return False
    return True


def _read_buckets(index: IO[bytes], header: dict[str, Any], wanted: list[int] | None) -> list[
    dict[str, Any]
] | None:
    """The rows of the `wanted` buckets (all of them for None), in KB order, or None when a
    bucket does not match its checksum. `index` is positioned just after its first line."""
    starts, checksums = header["buckets"], header["checksums"]
    found: list[list[Any]] = []
    base = index.tell()
    for b in range(BUCKETS) if wanted is None else sorted(set(wanted)):
        index.seek(base + starts[b])
        line = index.readline()
        if _checksum(line) != checksums[b]:
            return None
        found += json.loads(line)
    found.sort(key=lambda item: item[0])
    return [row for _, row in found]


def _cached_rows(path: str | Path, files: Files, ids: list[str]) -> list[dict[str, Any]] | None:
    """The rows for `ids` (every row when empty) from the index, or None when the index is
    missing, damaged, or describes other files than `files`."""
    try:
        stamp = _stamp(files)
        with open(path, "rb") as index:
            header = _header(index.readline())
            if header is None or not _unchanged(header, files, stamp):
                return None
            wanted = [_bucket(i) for i in ids] if ids else None
            base = index.tell()
            rows = _read_buckets(index, header, wanted)
            if rows is not None and _stale_racy(header, stamp):
                index.seek(base)
                _restamp(path, header, index.read())
            return rows
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None  # a damaged index is rebuilt, never trusted


def _stale_racy(header: dict[str, Any], stamp: list[list[Any]]) -> bool:
    """Whether some record file is racy for this index (its bytes had to be read) although
    the index was written more than `RACY_SECONDS` ago. Files written just before the
    index (a fresh clone, the benchmark's knowledge base) stay racy for as long as the
    index lives, and each query read every one of them: 400 files, 17 ms at 10k claims."""
    import time

    if time.time_ns() - header["written_ns"] <= RACY_SECONDS * 1_000_000_000:
        return False
    racy_after = _racy_after(header)
    return any(status[2] >= racy_after for status in stamp)


def _racy_after(header: dict[str, Any]) -> int:
    """The modification time from which a record file is racy for this index: within
    `RACY_SECONDS` of its writing, or after it."""
    return int(header["written_ns"]) - RACY_SECONDS * 1_000_000_000


def _restamp(path: str | Path, header: dict[str, Any], rest: bytes) -> None:
    """Write the index again as it is, with `now` as the time it was written: its files
    were just found unchanged, their bytes included, so only those modified within
    `RACY_SECONDS` of now are racy for it. The buckets are copied, still checked against
    their checksums on every read. A read-only cache keeps the index as it was."""
    import time
    from pathlib import Path

    from ..cache import atomic_write

    body = json.dumps({**header, "written_ns": time.time_ns()}).encode("utf-8")
    with contextlib.suppress(OSError):
        atomic_write(Path(path), _seal(body).encode("ascii") + b" " + body + b"\n" + rest)


def verify_index(path: Path) -> str:
    """Why the index at `path` is damaged ('' when it is sound or absent); a damaged one
    is removed, to be rebuilt by the next query."""
    try:
        with open(path, "rb") as index:
            header = _header(index.readline())
            problem = "its first line does not match its checksum" if header is None else ""
            if header is not None and _read_buckets(index, header, None) is None:
                problem = "a bucket does not match its checksum"
    except FileNotFoundError:
        return ""
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
        problem = f"it cannot be read ({e})"
    if problem:
        with contextlib.suppress(OSError):
            path.unlink()
    return problem


def select(project: Project, filters: Filters) -> list[dict[str, Any]]:
    """The claims that pass `filters` (with their authority, file and line), from the
    index while the record files are unchanged, else read afresh and indexed."""
    from ..records.loader import record_files

    files = record_files(project)
    path = project.cache_dir / INDEX_NAME
    rows = _cached_rows(path, files, filters.ids)
    if rows is None:
        stamp = _stamp(files)
        rows = _rows_from_files(project, files)
        with contextlib.suppress(OSError):  # a read-only checkout still answers queries
            _write_index(path, files, stamp, rows)
    return [r for r in rows if filters.keep(r)]


def from_index(root: str | None, filters: Filters) -> list[dict[str, Any]] | None:
    """The answer from a current index alone, or None when the index cannot give it (no
    project here, no index, files changed): then [`run`][a2a_kb.knowledge.query.run] takes the full path.

    This is the warm path of `a2a-kb query`, so it imports neither the project settings
    (TOML, dataclasses) nor the YAML reader; `a2a_kb.layout` gives it the same folders
    as Project."""
    from ..layout import cache_dir_name, find_root_name, record_file_names

    found = find_root_name(root)
    if found is None:
        return None
    files = record_file_names(os.path.join(found, "sources"), os.path.join(found, "claims"))
    rows = _cached_rows(os.path.join(cache_dir_name(found), INDEX_NAME), files, filters.ids)
    return None if rows is None else [r for r in rows if filters.keep(r)]


def all_rows(project: Project) -> list[dict[str, Any]]:
    """Every claim as stored, plus its authority, file and line; indexed in the cache."""
    return select(project, Filters(ids=[]))


def run(project: Project, filters: Filters, *, computed: bool = False) -> list[dict[str, Any]]:
    """The claims that pass `filters`; with `computed`, verdicts come from a fresh check."""
    if not computed:
        return select(project, filters)
    from ..records.validate import validate
    from .check import check

    result = check(validate(project))
    verdicts = {r.claim.id: r.verdict for r in result.results}
    rows = [dict(r, verdict=verdicts.get(str(r.get("id")), r.get("verdict")))
            for r in all_rows(project)]
    return [r for r in rows if filters.keep(r)]


def render(rows: list[dict[str, Any]], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    if fmt == "yaml":
        import yaml

        return yaml.safe_dump(rows, sort_keys=False, allow_unicode=True)
    columns = ["id", "verdict", "versions", "source", "subject", "statement"]
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator=os.linesep)
        writer.writerow(columns)
        for r in rows:
            writer.writerow([_cell(r.get(c)) for c in columns])
        return buf.getvalue()
    from ..output import table

    short = [[_cell(r.get(c))[:70] for c in columns] for r in rows]
    return table(columns, short) + f"\n{len(rows)} claim(s)"


def _cell(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)
