"""pin: take upstream's current copy of a source as its new pin, in the record files.

Three kinds of source can be re-pinned:

- a *moving* source pinned by sha256 at a fixed URL (the tag list, the dossier): its URL's
  bytes now give the new `sha256` and `size`, and `retrieved` becomes today;
- a file pinned at a tracked branch's head (`proto@main`): the branch's files move
  together, so the whole snapshot is re-pinned at the head's commit — each file's `url`,
  `commit`, `sha256` and `size`, and the branch's pinned commit (the version's in
  sources/versions.yaml, or the branch's own in sources/upstream.yaml);
- a page known only by the date it was read (`retrieved`): that date becomes today.

A file pinned to a tag's commit never changes and is not re-pinned. Nothing is written
unless every requested source could be pinned; each copy pinned is verified and stored in
the cache, so `check` can use it at once. The record files keep their comments and layout
(`a2a_kb.sources.yamledit`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..cache import Cache, CacheEntry, sha256_of
from ..diagnostics import Diagnostic
from ..errors import ConfigurationError
from ..records.kb import KnowledgeBase
from ..records.model import Source
from .upstream import Endpoints, Reader, Snapshot, heads_url, raw_parts, ref_facts, snapshots
from .yamledit import RecordFile, commit_files

SCHEMA_VERSION = 1


@dataclass
class Change:
    """The new values of one record's fields (old → new), and the bytes that justify them."""

    record_id: str
    file: str  # the record file, relative to the project
    fields: dict[str, tuple[Any, Any]]
    kind: str = "source"  # source, version or upstream
    body: bytes = b""  # the copy pinned (sources only)

    def line(self) -> str:
        def short(value: Any) -> str:
            text = str(value)
            return f"{text[:12]}…" if len(text) == 64 or len(text) == 40 else text

        parts = [f"{k} {short(old)} → {short(new)}" for k, (old, new) in self.fields.items()]
        return f"{self.record_id}: {', '.join(parts)} ({self.file})"

    def as_json(self) -> dict[str, Any]:
        return {"id": self.record_id, "kind": self.kind, "file": self.file,
                "fields": {k: {"old": old, "new": new} for k, (old, new) in self.fields.items()}}


@dataclass
class PinReport:
    changes: list[Change] = field(default_factory=list)
    current: list[str] = field(default_factory=list)  # already pinned to upstream's copy
    notes: list[str] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    written: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def format_text(self) -> str:
        lines = [d.format() for d in self.problems]
        lines += [c.line() for c in self.changes]
        lines += self.notes
        if self.current:
            lines.append(f"already pinned to upstream's copy: {', '.join(self.current)}")
        if self.problems:
            lines.append(f"nothing written: {len(self.problems)} source(s) could not be pinned")
        elif self.changes:
            files = sorted({c.file for c in self.changes})
            lines.append(f"pinned {len(self.changes)} record(s) in {', '.join(files)}; "
                         "run `a2a-kb check` to see what the new copies change")
        else:
            lines.append("nothing to pin")
        return "\n".join(lines) + "\n"

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "written": self.written,
                "changes": [c.as_json() for c in self.changes], "current": self.current,
                "notes": self.notes, "problems": [d.as_json() for d in self.problems]}


def pin(kb: KnowledgeBase, reader: Reader, ids: list[str], *, all_drifted: bool = False,
        today: dt.date | None = None, write: bool = True) -> PinReport:
    """Re-pin the sources `ids` (and, with `all_drifted`, every pinned source upstream
    no longer serves as pinned); write the record files unless a source failed."""
    if not ids and not all_drifted:
        raise ConfigurationError("name a source to pin, or give --all-drifted")
    for sid in ids:
        if sid not in kb.sources:
            import difflib

            close = difflib.get_close_matches(sid, list(kb.sources), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "see sources/*.yaml for the ids"
            raise ConfigurationError(f"unknown source '{sid}' (tip: {hint})")
    date = (today or dt.date.today()).isoformat()
    report = PinReport()
    planner = _Planner(kb, reader, date, report, explicit=set(ids))
    planner.plan(ids, all_drifted)
    if write and report.ok and report.changes:
        _write(kb, report)
        report.written = True
    return report


class _Planner:
    def __init__(self, kb: KnowledgeBase, reader: Reader, date: str, report: PinReport,
                 explicit: set[str]) -> None:
        self.kb = kb
        self.reader = reader
        self.date = date
        self.report = report
        self.explicit = explicit
        self.by_source = {s.id: snap for snap in snapshots(kb) for s in snap.sources}

    def plan(self, ids: list[str], all_drifted: bool) -> None:
        moving = [self.kb.sources[i] for i in ids if self.kb.sources[i].moving
                  and self.kb.sources[i].pinned]
        dated = [self.kb.sources[i] for i in ids if not self.kb.sources[i].pinned]
        wanted_snaps = list({self.by_source[i].name: self.by_source[i] for i in ids
                             if i in self.by_source}.values())
        for sid in ids:
            source = self.kb.sources[sid]
            if source.pinned and not source.moving and sid not in self.by_source:
                self._problem(source, f"source '{sid}' is pinned to commit {source.commit[:7]}, "
                              "whose files never change: there is nothing to re-pin",
                              "re-pin a moving source or a file of a tracked branch")
        if all_drifted:
            moving += [s for s in self.kb.sources.values() if s.moving and s.pinned
                       and s not in moving]
            wanted_snaps += [snap for snap in snapshots(self.kb) if snap.sources
                             and snap.name not in {w.name for w in wanted_snaps}]
        answers = self.reader.get_all([s.url for s in moving]
                                      + [_head_url(snap) for snap in wanted_snaps])
        for source in moving:
            self._moving(source, answers[source.url])
        for source in dated:
            self._dated(source)
        for snap in wanted_snaps:
            self._snapshot(snap, answers[_head_url(snap)])

    def _problem(self, source: Source, message: str, tip: str) -> None:
        self.report.problems.append(Diagnostic(source.mark, "pin-failed", message, tip,
                                               record_id=source.id))

    def _moving(self, source: Source, answer: Any) -> None:
        if not answer.ok and source.id not in self.explicit and answer.status == "unreachable":
            # --all-drifted: what cannot be consulted is not known to have drifted
            self.report.notes.append(f"{source.id} not consulted: {answer.reason}")
            return
        if not answer.ok:
            self._problem(source, f"source '{source.id}': upstream is {answer.status} "
                          f"({answer.reason})", "try again later, or pin from --mirror DIR")
            return
        sha = sha256_of(answer.body)
        if sha == source.sha256:
            self.report.current.append(source.id)
            return
        fields: dict[str, tuple[Any, Any]] = {"sha256": (source.sha256, sha)}
        if "size" in source.raw or source.size:
            fields["size"] = (source.size, len(answer.body))
        if "retrieved" in source.raw and source.retrieved != self.date:
            fields["retrieved"] = (source.retrieved, self.date)
        self.report.changes.append(Change(source.id, source.mark.path, fields, body=answer.body))

    def _dated(self, source: Source) -> None:
        if source.retrieved == self.date:
            self.report.current.append(source.id)
            return
        self.report.changes.append(Change(source.id, source.mark.path,
                                          {"retrieved": (source.retrieved, self.date)}))

    def _snapshot(self, snap: Snapshot, head: Any) -> None:
        first = snap.sources[0]
        asked = any(s.id in self.explicit for s in snap.sources)
        if not head.ok and not asked and head.status == "unreachable":
            self.report.notes.append(f"the head of {snap.name} not consulted: {head.reason}")
            return
        if not head.ok:
            self._problem(first, f"the head of {snap.name} is {head.status} ({head.reason})",
                          "try again later, or pin from --mirror DIR")
            return
        commit = _branch_commit(head.body, snap.branch.name)
        if commit is None:
            self._problem(first, f"the answer for the head of {snap.name} names no commit",
                          "check the upstream endpoint (--upstream github-api=URL)")
            return
        if commit == snap.commit:
            self.report.current += [s.id for s in snap.sources]
            return
        urls = {s.id: _moved_url(s, commit) for s in snap.sources}
        files = self.reader.get_all(urls.values())
        missing = [s for s in snap.sources if not files[urls[s.id]].ok]
        if missing:
            for s in missing:
                answer = files[urls[s.id]]
                self._problem(s, f"source '{s.id}': {s.path} is {answer.status} at the head "
                              f"of {snap.name} ({commit[:7]}): {answer.reason}",
                              "if the file is gone for good, remove the source and the claims "
                              "on it; the branch's other files are not pinned either")
            return
        named = [s.id for s in snap.sources if s.id not in self.explicit]
        if named and self.explicit:
            self.report.notes.append(f"{snap.name} moves as one: its other files were pinned "
                                     f"too ({', '.join(named)})")
        for s in snap.sources:
            body = files[urls[s.id]].body
            fields: dict[str, tuple[Any, Any]] = {"url": (s.url, urls[s.id]),
                                                  "commit": (s.commit, commit),
                                                  "sha256": (s.sha256, sha256_of(body))}
            if "size" in s.raw or s.size:
                fields["size"] = (s.size, len(body))
            self.report.changes.append(Change(s.id, s.mark.path, fields, body=body))
        holder = snap.branch
        if holder.version:
            version = self.kb.versions[holder.version]
            self.report.changes.append(Change(version.id, version.mark.path,
                                              {"commit": (snap.commit, commit)}, kind="version"))
        else:
            self.report.changes.append(Change(f"{snap.upstream.id}:{holder.name}",
                                              snap.upstream.mark.path,
                                              {"commit": (snap.commit, commit)}, kind="upstream"))


def _head_url(snap: Snapshot) -> str:
    return heads_url(snap.upstream)


def _moved_url(source: Source, commit: str) -> str:
    parts = raw_parts(source.url)
    assert parts is not None
    return Endpoints.raw(parts[0], commit, parts[2])


def _branch_commit(body: bytes, branch: str) -> str | None:
    found = [f.value for f in ref_facts(body) if f.key == f"branch-commit:{branch}"]
    return str(found[0]) if found else None


def _write(kb: KnowledgeBase, report: PinReport) -> None:
    """Every change into its record file, and every pinned copy into the cache."""
    root = kb.project.root
    files: dict[str, RecordFile] = {}
    for change in report.changes:
        record_file = files.get(change.file)
        if record_file is None:
            record_file = files[change.file] = RecordFile(root / change.file, change.file)
        if change.kind == "upstream":
            upstream_id, branch = change.record_id.split(":", 1)
            entry = record_file.record(upstream_id)
            target = next(b for b in entry["branches"] if str(b["name"]) == branch)
        else:
            target = record_file.record(change.record_id)
        for key, (_, new) in change.fields.items():
            record_file.set(target, key, new)
    cache = Cache(kb.project.cache_dir)
    entries = {}
    for change in report.changes:
        if change.kind == "source" and change.body:
            sha = cache.put_blob(change.body)
            url = change.fields.get("url", (None, kb.sources[change.record_id].url))[1]
            entries[change.record_id] = CacheEntry(sha, str(url), len(change.body),
                                                   dt.datetime.now(dt.UTC).strftime(
                                                       "%Y-%m-%dT%H:%M:%SZ"))
    commit_files(root, list(files.values()))
    cache.record(entries)
