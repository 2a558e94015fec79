"""The cross-record rules of validation, one function each, in one registry.

Each rule takes the whole knowledge base (a [`Context`][a2a_kb.records.rules.Context]) and yields
diagnostics, so one run reports every problem: unique ids, references that resolve, real dates, https
only, no path traversal, origins that name a block and an item of the fetched dossier,
conflict sides whose claims list the conflict, pinned sources that say where they live.

The registry, `RULES`, says which record kinds each rule reads: validating some
kinds only (`a2a-kb diff` reads versions and sources) runs the rules that read nothing
else, so that no rule takes a kind it was not given for one with no records.

Why it is long: it is a registry of thirteen rules, one function each (with their helpers),
that the docstring above lists; a rule is short, and keeping them side by side is how a
reader sees what validation covers. Splitting them by record kind would scatter the registry
the validator runs.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

from ..diagnostics import Diagnostic, Mark, Severity
from ..project import Project
from ..schemas import KINDS
from . import patterns
from .kb import KnowledgeBase, version_key
from .loader import LoadResult, RawRecord
from .model import Claim, Conflict
from .sweep_ledger import ledger_rules
from .urls import url_problem
from .yamldoc import excerpt


@dataclass
class Context:
    """What every rule sees: the project, the records as read and as typed, today, and
    the research dossier's text (read from the cache when a rule first asks)."""

    project: Project
    loaded: LoadResult
    kb: KnowledgeBase
    today: dt.date
    read_dossier: Callable[[], str | None]
    # The raw record a typed record was built from, by the identity of its data: rules look
    # places up here, once per record, so a file of many records stays linear.
    raw_records: dict[int, RawRecord] = dataclass_field(default_factory=dict)

    def __post_init__(self) -> None:
        for records in self.loaded.records.values():
            for record in records:
                self.raw_records[id(record.data)] = record

    @cached_property
    def dossier_text(self) -> str | None:
        return self.read_dossier()


def shown(value: Any, limit: int = 60) -> str:
    """A value quoted for a message, cut short so that one huge value cannot flood it."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]  # as YAML writes them
    if isinstance(value, str):
        return f"'{excerpt(value, limit - 2)}'"
    return excerpt(repr(value), limit)


# --- cross-record rules -------------------------------------------------------------------

Rule = Callable[[Context], Iterable[Diagnostic]]


_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _suggest(name: str, candidates: Iterable[str]) -> str:
    import difflib  # for a tip: most runs give none

    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def unique_ids(ctx: Context) -> Iterator[Diagnostic]:
    """Ids are unique within their kind, also after case folding."""
    for kind in KINDS:
        seen: dict[str, RawRecord] = {}
        for record in ctx.loaded.records[kind]:
            rid = record.data.get("id")
            if not isinstance(rid, str):
                continue
            key = rid.casefold().removeprefix("v") if kind == "version" else rid.casefold()
            first = seen.get(key)
            if first is None:
                seen[key] = record
                continue
            first_mark, first_id = first.mark("id"), str(first.data.get("id"))
            if first_id == rid:
                clash = f"has the same id as the {kind} at {first_mark}"
            elif kind == "version":
                clash = f"names the same version as {shown(first_id)} at {first_mark}"
            else:
                clash = f"differs only in case from {shown(first_id)} at {first_mark}"
            yield Diagnostic(
                record.mark("id"),
                "duplicate-id",
                f"{kind} {shown(rid)} {clash}",
                "give each record its own id; ids are compared ignoring case",
                record_id=rid,
            )


def claim_references(ctx: Context) -> Iterator[Diagnostic]:
    """Every source, conflict, version and related claim a claim names exists."""
    kb = ctx.kb
    by_url: dict[str, str] = {}
    for s in kb.sources.values():
        by_url.setdefault(s.url, s.id)  # the first registered, as the registry lists them
    # The lists of ids a claim names, each checked against the records of its kind.
    references: tuple[tuple[str, Collection[str], str, str, str], ...] = (
        ("conflicts", kb.conflicts, "unknown-conflict",
         "names conflict '{}', which is not in the register", "add it to claims/conflicts.yaml"),
        ("versions", kb.versions, "unknown-version", "is about version '{}', which does not exist",
         f"known versions: {', '.join(kb.versions)}"),
        ("related", kb.claims, "unknown-claim", "is related to '{}', which is not a claim",
         "check the id, or remove it from 'related'"),
    )
    for claim in kb.claims.values():
        raw = claim.raw
        rec_mark = _claim_marks(ctx, claim)
        # Source ids have no ':', so anything with a scheme (http:, javascript:) is a URL.
        if claim.source not in kb.sources and _URL_SCHEME.match(claim.source):
            if not claim.source.startswith("https://"):
                yield Diagnostic(
                    rec_mark("source"),
                    "https-only",
                    f"claim '{claim.id}': source URL {shown(claim.source)} is not https",
                    "cite the https address of the page, or a source id",
                    record_id=claim.id,
                )
            elif problem := url_problem(claim.source):
                yield Diagnostic(
                    rec_mark("source"), "url-policy",
                    f"claim '{claim.id}': source URL {shown(claim.source)} is refused: {problem}",
                    "cite the page at its public https address", record_id=claim.id,
                )
            registered = by_url.get(claim.source)
            if registered:
                yield Diagnostic(
                    rec_mark("source"),
                    "source-by-url",
                    f"claim '{claim.id}': source URL is registered as source '{registered}'",
                    f"write 'source: {registered}'",
                    Severity.WARNING,
                    claim.id,
                )
        elif claim.source not in kb.sources:
            yield Diagnostic(
                rec_mark("source"),
                "unknown-source",
                f"claim '{claim.id}' names source {shown(claim.source)}, which is not in sources/",
                _suggest(claim.source, kb.sources)
                or "add it to sources/secondary.yaml or cite its https URL",
                record_id=claim.id,
            )
        for field, known, rule, says, fallback in references:
            for i, ref in enumerate(getattr(claim, field)):
                if ref not in known:
                    yield Diagnostic(
                        rec_mark(f"{field}/{i}"),
                        rule,
                        f"claim '{claim.id}' " + says.format(raw[field][i]),
                        _suggest(ref, known) or fallback,
                        record_id=claim.id,
                    )
        for e in claim.expect:
            ref = e.source or claim.source
            if e.source and kb.resolve_source(e.source) is None:
                yield Diagnostic(
                    e.mark or claim.mark,
                    "unknown-source",
                    f"claim '{claim.id}': expect names source '{e.source}', which does not resolve",
                    _suggest(e.source, kb.sources) or "use a source id, or '<kind>@latest'",
                    record_id=claim.id,
                )
            elif not e.source and ref in kb.sources and not kb.sources[ref].checkable:
                yield Diagnostic(
                    e.mark or claim.mark,
                    "unpinned-source",
                    f"claim '{claim.id}': expect checks source '{ref}', which has no pinned copy",
                    "name a pinned primary source in the expect's 'source:'",
                    record_id=claim.id,
                )
            if e.op not in ("present", "absent") and e.value is None:
                yield Diagnostic(
                    e.mark or claim.mark,
                    "expect-value",
                    f"claim '{claim.id}': the '{e.op}' check needs a 'value'",
                    "add 'value:'",
                    record_id=claim.id,
                )
            if e.op == "count" and (isinstance(e.value, bool) or not isinstance(e.value, int)):
                yield Diagnostic(
                    e.mark or claim.mark,
                    "expect-value",
                    f"claim '{claim.id}': 'count' takes a whole number, not {shown(e.value)}",
                    "write e.g. 'value: 9'",
                    record_id=claim.id,
                )
            if e.op in ("matches", "not-matches") and isinstance(e.value, str):
                try:
                    patterns.compile_pattern(e.value)
                except patterns.PatternError as err:
                    yield Diagnostic(
                        e.mark or claim.mark,
                        "expect-value",
                        f"claim '{claim.id}': the regular expression cannot be used: {err}",
                        "patterns run on RE2 (linear time): drop look-around and "
                        "back-references; to require that text is absent, use op 'not-matches'",
                        record_id=claim.id,
                    )
        if not claim.verdict:
            yield Diagnostic(
                rec_mark("id"),
                "no-verdict",
                f"claim '{claim.id}' has no recorded verdict",
                "run `a2a-kb check` and record the verdict it computes after review",
                Severity.WARNING,
                claim.id,
            )


def _claim_marks(ctx: Context, claim: Claim) -> Callable[[str], Mark]:
    record = ctx.raw_records.get(id(claim.raw))
    if record is None:
        return lambda key: claim.mark
    return lambda key: record.mark(key)


def source_rules(ctx: Context) -> Iterator[Diagnostic]:
    """Sources use https, name real versions, and keep paths inside their repository."""
    for record in ctx.loaded.records["source"]:
        d = record.data
        sid = str(d.get("id", ""))
        url = d.get("url")
        if isinstance(url, str):
            try:
                parts = urlsplit(url)
            except ValueError as e:  # e.g. an unclosed '[' of an IPv6 host
                yield Diagnostic(
                    record.mark("url"),
                    "bad-url",
                    f"source {shown(sid)}: url {shown(url)} is not a valid URL ({e})",
                    "write the full https address",
                    record_id=sid,
                )
                parts = None
            if parts is not None and (parts.scheme != "https" or not parts.netloc):
                yield Diagnostic(
                    record.mark("url"),
                    "https-only",
                    f"source {shown(sid)}: url {shown(url)} is not an https URL",
                    "sources are fetched over https only",
                    record_id=sid,
                )
            elif parts is not None and (problem := url_problem(url)):
                yield Diagnostic(
                    record.mark("url"), "url-policy",
                    f"source {shown(sid)}: url {shown(url)} is refused: {problem}",
                    "sources are fetched from public https hosts only (see the URL policy in the README)",
                    record_id=sid,
                )
        path = d.get("path")
        if isinstance(path, str) and (
            path.startswith(("/", "\\")) or ".." in path.split("/") or "\\" in path
        ):
            yield Diagnostic(
                record.mark("path"),
                "path-traversal",
                f"source {shown(sid)}: path {shown(path)} leaves the repository",
                "give the path relative to the repository root, without '..'",
                record_id=sid,
            )
        if "/" in sid or "\\" in sid or ".." in sid:
            yield Diagnostic(
                record.mark("id"),
                "path-traversal",
                f"source id {shown(sid)} could name a file outside the cache",
                "use letters, digits, '-', '.' and one '@'",
                record_id=sid,
            )
        versions = d.get("versions")
        for i, v in enumerate(versions if isinstance(versions, list) else []):
            if isinstance(v, str) and v.removeprefix("v") not in ctx.kb.versions:
                yield Diagnostic(
                    record.mark(f"versions/{i}"),
                    "unknown-version",
                    f"source {shown(sid)} belongs to version {shown(v)}, which does not exist",
                    _suggest(v.removeprefix("v"), ctx.kb.versions)
                    or f"known versions: {', '.join(ctx.kb.versions)}",
                    record_id=sid,
                )


def claim_dates(ctx: Context) -> Iterator[Diagnostic]:
    """A claim's review date is a real calendar date and not in the future."""
    return _dates(ctx, "claim", "reviewed")


def source_dates(ctx: Context) -> Iterator[Diagnostic]:
    """A source's retrieval date is a real calendar date and not in the future."""
    return _dates(ctx, "source", "retrieved")


def _dates(ctx: Context, kind: str, key: str) -> Iterator[Diagnostic]:
    for record in ctx.loaded.records[kind]:
        value = record.data.get(key)
        if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            continue  # the schema reports the form
        rid = str(record.data.get("id", ""))
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            yield Diagnostic(
                record.mark(key),
                "bad-date",
                f"{kind} '{rid}': {key} {value} is not a date in the calendar",
                "check the day and month",
                record_id=rid,
            )
            continue
        if day > ctx.today:
            yield Diagnostic(
                record.mark(key),
                "future-date",
                f"{kind} '{rid}': {key} {value} is in the future",
                f"use a date on or before {ctx.today}",
                record_id=rid,
            )


def origins(ctx: Context) -> Iterator[Diagnostic]:
    """Each origin names a block and an item of the fetched research dossier."""
    with_origin = [c for c in ctx.kb.claims.values() if c.origin]
    with_origin_conflicts = [c for c in ctx.kb.conflicts.values() if c.origin]
    if not with_origin and not with_origin_conflicts:
        return
    if ctx.dossier_text is None:
        source = next((s for s in ctx.kb.sources.values() if s.kind == "dossier"), None)
        yield Diagnostic(
            source.mark if source else Mark("sources/secondary.yaml", 1, 1),
            "dossier-missing",
            "origins cannot be checked: the research dossier is not in the cache",
            "run `a2a-kb fetch`",
            Severity.WARNING,
        )
        return
    from . import dossier

    index = dossier.blocks(ctx.dossier_text)
    records: list[Claim | Conflict] = [*with_origin, *with_origin_conflicts]
    for rec in records:
        problem = dossier.check_origin(rec.origin, index)
        if problem:
            key = rec.origin.rsplit(":", 1)[0]
            close = dossier.closest(key, index)
            if key in index:
                tip = "use the number of an item of that section"
            elif close:
                tip = f"did you mean '{close}'?"
            else:
                tip = "copy the anchor from the dossier's '— source:' trailer"
            mark = rec.mark
            record = ctx.raw_records.get(id(rec.raw))
            if record is not None:
                mark = record.mark("origin")
            yield Diagnostic(
                mark,
                "unknown-origin",
                f"'{rec.id}': origin {rec.origin} {problem}",
                tip,
                record_id=rec.id,
            )


def conflict_sides(ctx: Context) -> Iterator[Diagnostic]:
    """Each side names real claims, and each of those claims lists the conflict."""
    for record in ctx.loaded.records["conflict"]:
        conflict = ctx.kb.conflicts.get(str(record.data.get("id")))
        if conflict is None or conflict.raw is not record.data:
            continue
        for si, side in enumerate(conflict.sides):
            for ci, cid in enumerate(side.claims):
                mark = record.mark(f"sides/{si}/claims/{ci}")
                claim = ctx.kb.claims.get(cid)
                if claim is None:
                    yield Diagnostic(
                        mark,
                        "unknown-claim",
                        f"conflict {conflict.id} names claim '{cid}', which does not exist",
                        _suggest(cid, ctx.kb.claims) or "check the id, or write the claim",
                        record_id=conflict.id,
                    )
                elif conflict.id not in claim.conflicts:
                    yield Diagnostic(
                        mark,
                        "conflict-not-listed",
                        f"conflict {conflict.id} names claim '{cid}', "
                        f"but that claim does not list {conflict.id}",
                        f"add {conflict.id} to the claim's conflicts",
                        record_id=conflict.id,
                    )
        if conflict.status == "resolved-in-version" and not conflict.resolved_in:
            yield Diagnostic(
                record.mark("status"),
                "resolved-in",
                f"conflict {conflict.id} is resolved in a version but names none",
                "add 'resolved_in: <version>'",
                record_id=conflict.id,
            )
        if conflict.resolved_in and conflict.resolved_in not in ctx.kb.versions:
            yield Diagnostic(
                record.mark("resolved_in"),
                "unknown-version",
                f"conflict {conflict.id} is resolved in '{conflict.resolved_in}', which does not exist",
                _suggest(conflict.resolved_in, ctx.kb.versions)
                or f"known versions: {', '.join(ctx.kb.versions)}",
                record_id=conflict.id,
            )
    for claim in ctx.kb.claims.values():
        for cid in claim.conflicts:
            conflict = ctx.kb.conflicts.get(cid)
            if conflict and not any(claim.id in s.claims for s in conflict.sides):
                yield Diagnostic(
                    claim.mark,
                    "conflict-not-listed",
                    f"claim '{claim.id}' lists conflict {cid}, but no side of {cid} names it",
                    f"add '{claim.id}' to a side of {cid}, or drop {cid} from the claim",
                    Severity.WARNING,
                    claim.id,
                )


def pinned_sources(ctx: Context) -> Iterator[Diagnostic]:
    """A source pinned to a commit says where in the repository it lives; a capture's
    transcript exists in captures/."""
    for source in ctx.kb.sources.values():
        if source.local and not (
            source.path.startswith("captures/") and (ctx.project.root / source.path).is_file()
        ):
            what = "a transcript" if source.kind == "capture" else "a suite run record"
            yield Diagnostic(
                source.mark,
                "missing-capture",
                f"{source.kind} source '{source.id}' names {source.path!r}, which is not {what} in captures/",
                f"run `a2a-kb {'capture' if source.kind == 'capture' else 'tck'}` or fix the path",
                record_id=source.id,
            )
        if source.commit and not source.path:
            yield Diagnostic(
                source.mark,
                "pinned-path",
                f"source '{source.id}' has a commit but no path",
                "add the file's path in the repository",
                record_id=source.id,
            )
        if source.commit and source.commit not in source.url:
            yield Diagnostic(
                source.mark,
                "pinned-url",
                f"source '{source.id}' is pinned to {source.commit[:7]} "
                "but its url does not name that commit",
                "use the raw URL of the pinned commit",
                record_id=source.id,
            )


def versions_in_order(ctx: Context) -> Iterator[Diagnostic]:
    """sources/versions.yaml lists versions oldest first: every page, table and diff takes
    its order from there, so a version out of place (a prerelease after its release) is an
    error."""
    versions = ctx.kb.ordered_versions
    for before, version in itertools.pairwise(versions):
        same_file = before.mark.path == version.mark.path
        if same_file and version_key(version.id) < version_key(before.id):
            yield Diagnostic(
                version.mark,
                "version-order",
                f"version '{version.id}' comes after '{before.id}' in the file but is older",
                f"move it before '{before.id}' (draft first, then by semantic version, a "
                "prerelease before its release, main last); `a2a-kb add-version` places it",
                record_id=version.id,
            )


def upstream_references(ctx: Context) -> Iterator[Diagnostic]:
    """What sources/upstream.yaml names exists: the tag list is a pinned git-refs source,
    a branch's version is a version, and a repository's files are named once each."""
    kb = ctx.kb
    for item in kb.upstream.values():
        if item.tags:
            source = kb.sources.get(item.tags)
            if source is None or source.kind != "git-refs" or not source.pinned:
                yield Diagnostic(
                    item.mark, "unknown-source",
                    f"upstream '{item.id}' reads its tags from {shown(item.tags)}, which is not "
                    "a pinned git-refs source",
                    _suggest(item.tags, kb.sources) or "name the source of its git/refs/tags answer",
                    record_id=item.id)
        for branch in item.branches:
            if branch.version and branch.version not in kb.versions:
                yield Diagnostic(
                    branch.mark, "unknown-version",
                    f"upstream '{item.id}' pins branch {shown(branch.name)} at version "
                    f"{shown(branch.version)}, which does not exist",
                    _suggest(branch.version, kb.versions)
                    or f"known versions: {', '.join(kb.versions)}",
                    record_id=item.id)
        names = [b.name for b in item.branches]
        paths = [f.path for f in item.files]
        for what, values in (("branch", names), ("file", paths)):
            for value in sorted({v for v in values if values.count(v) > 1}):
                yield Diagnostic(
                    item.mark, "duplicate-id",
                    f"upstream '{item.id}' names the {what} {shown(value)} twice",
                    f"keep one entry per {what}", record_id=item.id)


_CODE = re.compile(r"-32\d{3}")


def _codes(value: Any) -> set[str]:
    """Every JSON-RPC error code written anywhere in an expected value."""
    return set(_CODE.findall(json.dumps(value)))


def answers(ctx: Context) -> Iterator[Diagnostic]:
    """A claim's answer may only name a JSON-RPC error code its own checks expect, so that a
    matrix cell cannot say -32004 while the capture it rests on says -32602."""
    for claim in ctx.kb.claims.values():
        named = set(_CODE.findall(claim.answer))
        stray = sorted(named - {code for e in claim.expect for code in _codes(e.value)})
        if stray:
            yield Diagnostic(
                _claim_marks(ctx, claim)("answer"),
                "answer-unchecked",
                f"claim '{claim.id}' answers {', '.join(stray)}, which none of its checks expects",
                "give the claim an expect on that error (capture-error, error-mapping), or fix the answer",
                record_id=claim.id,
            )


def reported_claims(ctx: Context) -> Iterator[Diagnostic]:
    """A claim that tells what a page, a paper, an SDK or the dossier says is verified only
    against that source. Checked against another (the proto, for a page's count of states),
    it can be found stale, never verified: the check confirms the spec, not the page."""
    kb = ctx.kb
    for claim in kb.claims.values():
        checked = bool(claim.expect or claim.quote)
        if (claim.verdict == "verified" and checked and kb.reports_a_source(claim)
                and not kb.reads_own_source(claim)):
            read = sorted({e.source for e in claim.expect if e.source})
            yield Diagnostic(
                _claim_marks(ctx, claim)("verdict"),
                "reported-claim-verified",
                f"claim '{claim.id}' reports what '{claim.source}' says, but is recorded verified "
                f"on checks of {', '.join(read) or 'other sources'}, which do not read it",
                "record it unverifiable (its checks can still find it stale), or pin a copy of "
                f"'{claim.source}' and check that",
                record_id=claim.id,
            )


# Every rule, in the order it reports, with the record kinds it reads (unique_ids reads
# each kind on its own, so it holds for any kinds given). A rule runs when every kind it
# reads was loaded: claim_references, given no sources, would call every source unknown.
RULES: dict[Rule, frozenset[str]] = {
    unique_ids: frozenset(),
    versions_in_order: frozenset({"version"}),
    claim_references: frozenset({"claim", "source", "conflict", "version"}),
    source_rules: frozenset({"source", "version"}),
    claim_dates: frozenset({"claim"}),
    source_dates: frozenset({"source"}),
    origins: frozenset({"claim", "conflict", "source"}),
    conflict_sides: frozenset({"conflict", "claim", "version"}),
    pinned_sources: frozenset({"source"}),
    upstream_references: frozenset({"upstream", "source", "version"}),
    answers: frozenset({"claim"}),
    reported_claims: frozenset({"claim", "source", "version"}),
    ledger_rules: frozenset({"sweep", "claim", "source", "version"}),
}


def rules_for(kinds: Collection[str]) -> list[Rule]:
    """The rules that read only `kinds`, in the order they report."""
    return [rule for rule, reads in RULES.items() if reads <= set(kinds)]
