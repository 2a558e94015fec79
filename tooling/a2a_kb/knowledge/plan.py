"""Which copy of which source each check of a claim reads, at each version the claim names.

A claim about versions 0.2.0 … 0.3.0 is about each of them, so its checks run at each of
them. The claim's own checks (its `quote` and the expects without a `source:`) are
written against its `source`; at a version that source does not belong to, they run
against the source's **counterpart**: the pinned source of the same kind, binding,
repository and path that belongs to that version (`spec@v0.2.0` for `spec@v0.2.5`).
Expects that name a `source:` point at one copy on purpose and run there only; a version
one of them belongs to is *covered*: its author chose how it is checked, and the claim's
own checks are not carried to it.

A version with no counterpart (the file does not exist there: Life of a Task before
v0.2.4) is reported, never skipped in silence, and so is a version no check reads at all.
A source that belongs to none of the claim's versions (the v1.0.1 CHANGELOG, for a claim
about 0.1.0) is a document about those versions: its checks run once, on it, for all.

Pure: the plan is computed from the records alone; [`check`][a2a_kb.knowledge.check] runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records.kb import KnowledgeBase
from ..records.model import Claim, Expectation, Source


@dataclass
class Run:
    """Checks that read one source, for the versions that copy stands for."""

    source: Source
    expects: list[Expectation]
    quote: bool  # whether the claim's quote is looked for in this copy
    versions: list[str]  # the claim's versions this copy answers for; [] when it has none
    own: bool  # the claim's source itself, or its counterpart (not an explicit expect)


@dataclass
class Plan:
    runs: list[Run] = field(default_factory=list)
    no_counterpart: dict[str, str] = field(default_factory=dict)  # version → why
    unchecked: list[str] = field(default_factory=list)  # versions no check reads
    unresolved: str = ""  # a source an expect names that cannot be checked: why

    @property
    def sources(self) -> list[Source]:
        seen: list[Source] = []
        for run in self.runs:
            if run.source not in seen:
                seen.append(run.source)
        return seen


def family(source: Source) -> tuple[str, str, str, str]:
    """What makes two sources copies of one file at different versions."""
    return (source.kind, source.binding, source.repository, source.path)


def counterpart(kb: KnowledgeBase, source: Source, version: str) -> Source | None:
    """The copy of `source`'s file that belongs to `version`, or None. When a version
    has two (the draft's schema at 47b436f and at 8a44cff), the one at the version's own
    commit is taken."""
    found = [s for s in kb.sources.values()
             if s.checkable and version in s.versions and family(s) == family(source)]
    if len(found) > 1:
        commit = kb.versions[version].commit if version in kb.versions else ""
        found = [s for s in found if s.commit == commit] or found
    return found[0] if found else None


def plan(claim: Claim, kb: KnowledgeBase) -> Plan:
    result = Plan()
    own = kb.sources.get(claim.source)
    implicit = [e for e in claim.expect if not e.source]
    explicit: dict[str, Run] = {}
    for e in claim.expect:
        if not e.source:
            continue
        target = kb.resolve_source(e.source)
        if target is None or not target.checkable:
            result.unresolved = f"expect source '{e.source}' has no pinned copy"
            return result
        if target.id not in explicit:
            explicit[target.id] = Run(target, [], False, _answered(claim, target), own=False)
        explicit[target.id].expects.append(e)
    if implicit and (own is None or not own.checkable):
        result.unresolved = f"expect source '{claim.source}' has no pinned copy"
        return result
    covered = {v for run in explicit.values() for v in run.versions}

    if own is not None and own.checkable:
        carried = bool(implicit) or bool(claim.quote)
        answered = _answered(claim, own)
        result.runs.append(Run(own, implicit, bool(claim.quote), answered, own=True))
        if carried and answered:
            by_copy: dict[str, Run] = {}
            for version in claim.versions:
                if version in answered or version in covered:
                    continue
                copy = counterpart(kb, own, version)
                if copy is None:
                    result.no_counterpart[version] = (
                        f"no copy of {own.path or own.id} ({own.kind}) belongs to {version}")
                elif copy.id in by_copy:
                    by_copy[copy.id].versions.append(version)
                else:
                    by_copy[copy.id] = Run(copy, implicit, bool(claim.quote), [version], own=True)
            result.runs += by_copy.values()
    result.runs += explicit.values()

    read = {v for run in result.runs if run.expects or run.quote for v in run.versions}
    stands_for_all = any(not run.versions and (run.expects or run.quote) for run in result.runs)
    if not stands_for_all:
        result.unchecked = [v for v in claim.versions
                            if v not in read and v not in result.no_counterpart]
    return result


def _answered(claim: Claim, source: Source) -> list[str]:
    """The claim's versions a copy answers for: those it belongs to; all of them when it
    belongs to none of them (a document about other versions, or one about no version, such
    as the tag list) — then `[]`, which stands for every version."""
    return [v for v in claim.versions if v in source.versions]
