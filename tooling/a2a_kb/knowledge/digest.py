"""Digests of what a derived result was made from, and the sealed store that keeps the results.

Caches that skip work between runs (remembered verdicts, the site's generated pages) key
each result by a digest of exactly its inputs. `canonical` writes a value (records,
results, plain data) the same way in every process, so that equal inputs give equal
digests whatever the hash seed; a record's place in its file (its [`Mark`][a2a_kb.diagnostics.Mark]) can be
left out for results that do not depend on it, so that an edit above a record does not
make everything below it look changed.

`SealedJson` keeps one JSON document per name in a folder, each written atomically
and sealed (`a2a_kb.cache.write_sealed`): a damaged, truncated or foreign
file reads as missing, and the result is computed again instead of being believed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import enum
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..cache import read_sealed, write_sealed
from ..diagnostics import Mark

PACKAGE = Path(__file__).resolve().parent.parent


def digest(*parts: str | bytes) -> str:
    """The sha256 of `parts`, each length-prefixed, so that no two lists of parts collide
    by concatenation."""
    hashed = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        hashed.update(len(data).to_bytes(8, "little"))
        hashed.update(data)
    return hashed.hexdigest()


def canonical(value: Any, *, places: bool = True) -> str:
    """`value` as JSON text that two processes write alike: dataclasses by their fields
    (with their type's name), sets sorted, dates in ISO form; without `places`, every
    [`Mark`][a2a_kb.diagnostics.Mark] is written as null. A value of another type is a TypeError, never its
    `repr` (which could hold a memory address)."""

    def plain(o: Any) -> Any:
        if isinstance(o, Mark):
            return [o.path, o.line, o.column] if places else None
        if dataclasses.is_dataclass(o) and not isinstance(o, type):
            return {"@": type(o).__name__, **{f.name: getattr(o, f.name) for f in dataclasses.fields(o)}}
        if isinstance(o, set | frozenset):
            return {"@set": sorted(canonical(v, places=places) for v in o)}
        if isinstance(o, tuple):
            return list(o)
        if isinstance(o, enum.Enum):
            return o.value
        if isinstance(o, dt.date | dt.datetime | dt.time):
            return o.isoformat()
        if isinstance(o, Path):
            return str(o)
        raise TypeError(f"no canonical form for {type(o).__name__}")

    try:
        return json.dumps(value, default=plain, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=True)
    except TypeError:
        # A dict with keys json cannot write (tuples, records): its items as pairs.
        return json.dumps(_pairs(value), default=plain, ensure_ascii=False, separators=(",", ":"))


def _pairs(value: Any) -> Any:
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: _pairs(v) for k, v in value.items()}
        return {"@items": [[_pairs(k), _pairs(v)] for k, v in value.items()]}
    if isinstance(value, list | tuple):
        return [_pairs(v) for v in value]
    return value


def tree_digest(roots: Iterable[Path]) -> str:
    """The digest of every file under `roots` (relative path and bytes), bytecode left out."""
    parts: list[str | bytes] = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            parts += [str(path.relative_to(root)), path.read_bytes()]
    return digest(*parts)


def library_versions(names: Iterable[str]) -> str:
    """`name==version` of each distribution (`name absent` for one not installed)."""
    from importlib import metadata

    found = []
    for name in names:
        try:
            found.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} absent")
    return ";".join(found)


# Distributions whose code decides a verdict besides a2a_kb's own: the YAML reader, the
# pattern engine, the parsers of the extractors.
_CHECKERS = ("pyyaml", "google-re2", "markdown-it-py", "markdown", "proto-schema-parser",
             "antlr4-python3-runtime", "jsonschema")


def code_version() -> str:
    """What the results of the pipeline's code depend on besides its data: the a2a_kb
    package (code, templates, schemas), the Python that runs it and the libraries above."""
    return digest(sys.version, library_versions(_CHECKERS), tree_digest([PACKAGE]))


class SealedJson:
    """JSON documents by name in one folder, each sealed; see the module docstring.

    Writes that fail (a read-only or full disk) cost speed, not correctness: the result is
    used all the same, and `unwritable` says why it was not kept.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.unwritable = ""

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.json"

    def read(self, name: str) -> Any:
        """The document `name`, or None when it is missing, damaged or not JSON."""
        payload = read_sealed(self.path(name))
        if payload is None:
            return None
        try:
            return json.loads(payload)
        except ValueError:
            return None

    def write(self, name: str, document: Any) -> None:
        try:
            write_sealed(self.path(name), json.dumps(document, ensure_ascii=False,
                                                     separators=(",", ":")).encode("utf-8"))
        except OSError as e:
            self.unwritable = f"{self.folder}: {e.strerror or e}"

    def keep_only(self, names: Iterable[str]) -> None:
        """Remove every document not named in `names` (what no current input needs)."""
        wanted = {f"{n}.json" for n in names}
        if not self.folder.is_dir():
            return
        for path in self.folder.glob("*.json"):
            if path.name not in wanted:
                with contextlib.suppress(OSError):
                    path.unlink()
