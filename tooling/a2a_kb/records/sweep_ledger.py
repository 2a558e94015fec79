"""The sweep ledger (sources/sweep.yaml) as typed records, and the rules that need no
source text: each entry is one kind of entry, names what exists, and says it once.

What the sources themselves say (which sentences are candidates, which sections a scope
selects) is compared by `a2a_kb.knowledge.sweep`, which reads the cache.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic, Severity
from . import patterns
from .model import SweepAccount, SweepLedger, SweepScope, SweepVersion

if TYPE_CHECKING:
    from .kb import KnowledgeBase
    from .loader import RawRecord
    from .rules import Context

ENTRY_KINDS = ("scope", "version", "key")


def title_pattern(pattern: str) -> str:
    """A scope's title pattern as run: the whole title, ignoring case."""
    return f"(?i)^(?:{pattern})$"


def entry_kind(data: dict[str, object]) -> str:
    """Which kind of entry a record is ('' when it is none or several)."""
    found = [k for k in ENTRY_KINDS if k in data]
    return found[0] if len(found) == 1 else ""


def build(kb: KnowledgeBase, records: list[RawRecord]) -> None:
    """The typed ledger of the records that passed the schema; a second entry for the same
    scope, version or key is left out (`ledger_rules` reports it)."""
    ledger = SweepLedger()
    for r in records:
        d = r.data
        ledger.path = ledger.path or r.doc.path
        kind = entry_kind(d)
        if kind == "scope":
            ledger.scopes.setdefault(str(d["scope"]), SweepScope(
                str(d["scope"]), [str(t) for t in d.get("titles", [])], r.mark(),
                str(d.get("note", ""))))
        elif kind == "version":
            swept = {str(s): [str(x) for x in ids] for s, ids in dict(d.get("swept", {})).items()}
            ledger.versions.setdefault(str(d["version"]).removeprefix("v"), SweepVersion(
                str(d["version"]).removeprefix("v"), swept, r.mark(),
                {s: r.mark(f"swept/{s}") for s in swept}))
        elif kind == "key":
            claims = [str(c) for c in d.get("claims", [])]
            ledger.accounts.setdefault(str(d["key"]), SweepAccount(
                str(d["key"]), r.mark(), str(d.get("in", "")), claims,
                str(d.get("not-lifecycle", "")), str(d.get("note", "")),
                [r.mark(f"claims/{i}") for i in range(len(claims))]))
    kb.sweep = ledger


def ledger_rules(ctx: Context) -> Iterator[Diagnostic]:
    """Each entry is a scope, a version or an account; an account says either which claims
    cover its sentence or why it is not about the lifecycle; everything named exists."""
    kb = ctx.kb
    seen: dict[tuple[str, str], RawRecord] = {}
    for r in ctx.loaded.records.get("sweep", []):
        d = r.data
        kind = entry_kind(d)
        if not kind:
            present = [k for k in ENTRY_KINDS if k in d]
            yield Diagnostic(
                r.mark(), "sweep-entry",
                "a sweep entry must be exactly one of a scope, a version or an account; "
                + (f"this one has {', '.join(present)}" if present else "this one has none of them"),
                "start the entry with 'scope:', 'version:' or 'key:' (and only one of them)")
            continue
        name = str(d[kind]).removeprefix("v") if kind == "version" else str(d[kind])
        first = seen.get((kind, name))
        if first is not None:
            yield Diagnostic(r.mark(kind), "duplicate-id",
                             f"the sweep has a second {kind} entry for '{name}' "
                             f"(first at {first.mark(kind)})",
                             "merge the two entries into one")
        seen.setdefault((kind, name), r)
        yield from _entry(ctx, r, kind, name)
    for account in kb.sweep.accounts.values():
        for claim_id, mark in zip(account.claims, account.claim_marks, strict=True):
            claim = kb.claims.get(claim_id)
            if claim is None:
                close = _close(claim_id, kb.claims)
                yield Diagnostic(mark, "unknown-claim",
                                 f"the account of sentence {account.key} names claim '{claim_id}', "
                                 "which does not exist",
                                 close or "name a claim id of claims/*.yaml, or write the claim")
            elif claim.rank == "deprecated":
                yield Diagnostic(mark, "deprecated-claim",
                                 f"the account of sentence {account.key} rests on the deprecated "
                                 f"claim '{claim_id}'",
                                 "name the claim that replaced it (see its `related:`)",
                                 Severity.WARNING)


def _entry(ctx: Context, r: RawRecord, kind: str, name: str) -> Iterator[Diagnostic]:
    d = r.data
    allowed = {"scope": {"scope", "titles", "note"}, "version": {"version", "swept", "note"},
               "key": {"key", "in", "claims", "not-lifecycle", "note"}}[kind]
    for stray in sorted(set(d) - allowed):
        yield Diagnostic(r.mark(stray), "sweep-entry",
                         f"a {kind} entry of the sweep has no field '{stray}'",
                         f"a {kind} entry has {', '.join(sorted(allowed))}")
    if kind == "scope":
        if "titles" not in d:
            yield Diagnostic(r.mark(), "sweep-entry", f"scope '{name}' says no titles",
                             "add 'titles:' with the patterns of the section titles to sweep")
        for i, title in enumerate(d.get("titles") or []):
            try:
                patterns.compile_pattern(title_pattern(str(title)))
            except patterns.PatternError as e:
                yield Diagnostic(r.mark(f"titles/{i}"), "sweep-pattern",
                                 f"scope '{name}': the title pattern cannot be used: {e}",
                                 "patterns run on RE2: no look-around or back-references")
    elif kind == "version":
        if name not in ctx.kb.versions:
            yield Diagnostic(r.mark("version"), "unknown-version",
                             f"the sweep names version '{name}', which sources/versions.yaml does not list",
                             _close(name, ctx.kb.versions) or f"known: {', '.join(ctx.kb.versions)}")
        for source_id in dict(d.get("swept") or {}):
            source = ctx.kb.sources.get(source_id)
            where = r.mark(f"swept/{source_id}")
            if source is None:
                yield Diagnostic(where, "unknown-source",
                                 f"the sweep of version '{name}' names source '{source_id}', "
                                 "which does not exist",
                                 _close(source_id, ctx.kb.sources) or "name a source id of sources/*.yaml")
            elif name not in source.versions:
                yield Diagnostic(where, "sweep-source",
                                 f"source '{source_id}' does not belong to version '{name}'",
                                 "list under a version only the sources of that version")
            elif source_id.split("@")[0] not in ctx.kb.sweep.scopes:
                yield Diagnostic(where, "sweep-source",
                                 f"no scope entry says which sections of '{source_id.split('@')[0]}' "
                                 "sources are swept",
                                 f"add '- scope: {source_id.split('@')[0]}' with its titles")
    else:
        has_claims, has_reason = "claims" in d, "not-lifecycle" in d
        if has_claims == has_reason:
            yield Diagnostic(r.mark(), "sweep-account",
                             f"the account of sentence {name} must give either 'claims' or "
                             "'not-lifecycle'" + (", not both" if has_claims else ""),
                             "name the claims that state the sentence, or say why it is not "
                             "about the lifecycle")
        found_in = str(d.get("in", ""))
        source_id = found_in.split(" §")[0]
        if found_in and source_id not in ctx.kb.sources:
            yield Diagnostic(r.mark("in"), "unknown-source",
                             f"the account of sentence {name} places it in '{source_id}', "
                             "which does not exist",
                             _close(source_id, ctx.kb.sources) or "name a source id of sources/*.yaml")


def _close(name: str, known: object) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)  # type: ignore[call-overload]
    return f"did you mean '{close[0]}'?" if close else ""
