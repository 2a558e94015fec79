"""Facts cached on disk by the sha256 of the bytes they were read from.

An unchanged source is never parsed twice. One file per content, `<sha256>.json` in the
facts directory (`<cache_dir>/facts/`), holds the facts of each kind that has read those
bytes, each with the version of its extractor; a new extractor version, a missing or
unreadable file, or a file from another format simply means the bytes are read again.
Files are replaced atomically and sealed (`a2a_kb.cache.write_sealed`): a file
is believed only while its payload hashes to its seal and names the sha256 it is filed
under, so a flipped byte, a truncated write or a file copied to the wrong name makes the
bytes be read again, never a wrong fact. A cache that cannot be written (a read-only or
full disk) costs speed, not correctness: the facts are extracted and used all the same,
and `FactStore.unwritable` says why they were not kept.

The cached facts carry no source identity: two sources can have the same bytes (the
v0.1.0 schema is byte for byte the one at 8a44cff), so the identity of the source asking
is stamped on the facts as they are handed out.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import orjson

from ..cache import read_sealed, sha256_of, write_sealed
from ..facts import Fact
from ..records.model import Source
from . import EXTRACTOR_VERSIONS, extract

STORE_FORMAT = 2  # 2: sealed

# Facts already read in this process, by (facts directory, sha256, kind, extractor
# version). What such a key names never changes (the bytes are content-addressed and the
# extractor is versioned), so a process reads each facts file once, however many readers
# ask: check, states, diff and the site each keep their own FactBook. Bounded, so that a
# long `mkdocs serve` does not grow without end.
_Row = tuple[str, str, Any, int, int]
_READ: dict[tuple[str, str, str, str], list[_Row]] = {}
_READ_LIMIT = 1024


class FactStore:
    """The facts directory: `<sha256>.json` → {kind → (extractor version, facts)}."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.unwritable = ""  # why facts could not be kept, when a write failed

    @classmethod
    def in_cache(cls, cache_dir: Path) -> FactStore:
        return cls(cache_dir / "facts")

    def path(self, sha256: str) -> Path:
        return self.directory / f"{sha256}.json"

    def _entries(self, sha256: str) -> dict[str, Any]:
        payload = read_sealed(self.path(sha256))
        if payload is None:
            return {}  # missing, or damaged: read the bytes again
        try:
            # orjson: a third of json's time, and the facts files are most of what a
            # check reads (35 MB for a 10,000-claim KB). Anything it refuses is read again.
            stored = orjson.loads(payload)
        except orjson.JSONDecodeError:
            return {}
        if (not isinstance(stored, dict) or stored.get("format") != STORE_FORMAT
                or stored.get("sha256") != sha256):
            return {}
        entries = stored.get("kinds")
        return entries if isinstance(entries, dict) else {}

    def load(self, sha256: str, kind: str) -> list[Fact] | None:
        """The cached facts of these bytes read as `kind`, or None if there are none
        from the current extractor."""
        rows = self.rows(sha256, kind)
        return None if rows is None else [Fact(k, s, v, "", "", "", a, b) for k, s, v, a, b in rows]

    def rows(self, sha256: str, kind: str) -> list[_Row] | None:
        """The cached facts as (kind, subject, value, first line, last line): each fact is
        built once, already stamped with the source that asks (see `facts_for`), not
        built anonymous and then again stamped."""
        key = (str(self.directory), sha256, kind, EXTRACTOR_VERSIONS.get(kind, ""))
        known = _READ.get(key)
        if known is not None:
            return known
        entry = self._entries(sha256).get(kind)
        if not isinstance(entry, dict) or entry.get("extractor") != EXTRACTOR_VERSIONS.get(kind):
            return None
        try:
            rows: list[_Row] = []
            for item in entry["facts"]:
                start, end = item.get("lines", (0, 0))
                rows.append((item["kind"], item["subject"], item["value"], int(start), int(end)))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None  # a damaged entry is read again, never trusted
        if len(_READ) < _READ_LIMIT:
            _READ[key] = rows
        return rows

    def save(self, sha256: str, kind: str, facts: list[Fact]) -> None:
        entries = self._entries(sha256)
        entries[kind] = {
            "extractor": EXTRACTOR_VERSIONS.get(kind, ""),
            "facts": [_anonymous(f).as_json() for f in facts],
        }
        payload = {"format": STORE_FORMAT, "sha256": sha256, "kinds": entries}
        try:
            write_sealed(self.path(sha256), json.dumps(payload, ensure_ascii=False).encode("utf-8"))
        except OSError as e:
            self.unwritable = f"{self.directory}: {e.strerror or e}"


def _anonymous(fact: Fact) -> Fact:
    return dataclasses.replace(fact, source="", path="", commit="")


def facts_for(source: Source, data: bytes, store: FactStore) -> list[Fact]:
    """The facts of `data` (the bytes of `source`): from the store when these bytes
    were read before by the same extractor version, else extracted and stored."""
    sha256 = sha256_of(data)
    rows = store.rows(sha256, source.kind)
    if rows is None:
        facts = extract(source, data)
        store.save(sha256, source.kind, facts)
        return facts
    sid, path, commit = source.id, source.path, source.commit
    return [Fact(kind, subject, value, sid, path, commit, start, end)
            for kind, subject, value, start, end in rows]
