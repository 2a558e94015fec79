"""The sweep: every lifecycle sentence of the primary sources, held to the ledger.

For each version, each of its pinned primary sources that a scope of sources/sweep.yaml
names is read by `a2a_kb.extract.sentences`; the scope selects its sections (by
title, with their subsections) and the candidates in them must each be accounted for in
the ledger, by the claims that state them or as not about the lifecycle. The comparison
goes both ways (STYLE.md rule 8): what the sources say and the ledger does not is a
finding, and so is what the ledger says and the sources no longer do.

Findings (each a diagnostic with the ledger's place and a fix):

`sweep-unswept`      a version with sources in scope has no entry in the ledger;
`sweep-sections`     a version entry's list of sections differs from what its scope selects
                       (a new section to sweep, or one that is gone);
`sweep-unaccounted`  a candidate sentence has no account;
`sweep-uncovered`    an account's claims do not name a version the sentence is in;
`sweep-stale`        an account names a sentence no swept source has any longer;
`sweep-moved`        an account's `in` names a place that no longer has its sentence;
`source-unavailable` a source to sweep is not in the cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cache import Cache, sha256_of
from ..diagnostics import Diagnostic, Mark
from ..extract import artifact_of
from ..extract.sentences import READERS, Reading, Section, Sentence, read
from ..extract.sentences import VERSION as SENTENCES_VERSION
from ..records import patterns
from ..records.kb import KnowledgeBase
from ..records.model import Source, SweepAccount, SweepLedger
from ..records.sweep_ledger import title_pattern


@dataclass
class SourceSweep:
    """One source of one version as swept: the sections the scope selects, and the
    candidates in them."""

    source: Source
    sections: list[Section]
    candidates: list[Sentence]


@dataclass
class Figures:
    """How far one version's sweep has got; a sentence is counted once per version,
    however many of its sources or sections repeat it."""

    version: str
    sources: int
    sections: int
    sentences: int
    by_claims: int
    not_lifecycle: int

    @property
    def accounted(self) -> int:
        return self.by_claims + self.not_lifecycle

    @property
    def unaccounted(self) -> int:
        return self.sentences - self.accounted

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "sources": self.sources, "sections": self.sections,
                "sentences": self.sentences, "accounted": self.accounted,
                "by_claims": self.by_claims, "not_lifecycle": self.not_lifecycle,
                "unaccounted": self.unaccounted}


@dataclass
class SweepResult:
    ledger: SweepLedger
    versions: dict[str, list[SourceSweep]] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)

    def keys(self, version: str) -> dict[str, list[tuple[SourceSweep, Sentence]]]:
        """Each distinct sentence of a version, with every place it is found."""
        found: dict[str, list[tuple[SourceSweep, Sentence]]] = {}
        for swept in self.versions.get(version, []):
            for sentence in swept.candidates:
                found.setdefault(sentence.key, []).append((swept, sentence))
        return found

    def figures(self, version: str) -> Figures:
        keys = self.keys(version)
        accounts = [self.ledger.accounts.get(k) for k in keys]
        return Figures(
            version, len(self.versions.get(version, [])),
            sum(len(s.sections) for s in self.versions.get(version, [])), len(keys),
            sum(1 for a in accounts if a is not None and a.claims),
            sum(1 for a in accounts if a is not None and not a.claims and a.not_lifecycle))

    @property
    def ok(self) -> bool:
        return not self.problems


def selected(reading: Reading, titles: list[str]) -> list[Section]:
    """The sections a scope sweeps: those whose title matches a pattern, with everything
    under them."""
    chosen: set[str] = set()
    compiled = [patterns.compile_pattern(title_pattern(t)) for t in titles]
    result = []
    for section in reading.sections:  # a parent comes before its subsections
        if section.parent in chosen or any(p.search(section.title) for p in compiled):
            chosen.add(section.id)
            result.append(section)
    return result


# Readings already made in this process, by source kind and the bytes' sha256: what such a
# key names never changes, and a second sweep (a test, `a2a-kb serve`) need not parse the
# sources again. Bounded, like the fact store's.
_READINGS: dict[tuple[str, str, str], Reading] = {}
_READINGS_LIMIT = 256


def _reading(source: Source, data: bytes) -> Reading:
    key = (source.kind, source.sha256 or sha256_of(data), SENTENCES_VERSION)
    found = _READINGS.get(key)
    if found is None:
        found = read(artifact_of(source, data))
        if len(_READINGS) >= _READINGS_LIMIT:
            _READINGS.clear()
        _READINGS[key] = found
    return found


def sweep_source(source: Source, data: bytes, titles: list[str]) -> SourceSweep:
    """The sweep of one source's bytes under a scope's titles."""
    reading = _reading(source, data)
    sections = selected(reading, titles)
    ids = {s.id for s in sections}
    return SourceSweep(source, sections, [u for u in reading.candidates() if u.section in ids])


def in_scope(kb: KnowledgeBase, version: str) -> list[Source]:
    """The pinned primary sources of a version that a scope of the ledger names."""
    return [s for s in kb.sources_of(version)
            if s.authority == "primary" and s.kind in READERS
            and s.id.split("@")[0] in kb.sweep.scopes]


def sweep(kb: KnowledgeBase, versions: list[str] | None = None) -> SweepResult:
    """Sweep `versions` (default: every version) and compare with the ledger. A stale
    account is only looked for when every version is swept."""
    ledger = kb.sweep
    result = SweepResult(ledger)
    where = Mark(ledger.path or "sources/sweep.yaml", 1, 1)
    if not ledger.scopes:
        result.problems.append(Diagnostic(
            where, "sweep-unswept", "the sweep ledger has no scope: nothing says what to sweep",
            "add sources/sweep.yaml with a '- scope: spec' entry and its titles"))
        return result
    cache = Cache(kb.project.cache_dir)
    claim_versions = {c.id: set(c.versions) for c in kb.claims.values()}
    chosen = [kb.version(v).id for v in versions] if versions else [v.id for v in kb.ordered_versions]
    for version in chosen:
        entry = ledger.versions.get(version)
        sources = in_scope(kb, version)
        if entry is None and not sources:
            continue
        swept = []
        for source in sources:
            data = cache.content(source.id, source.sha256)
            if data is None:
                result.problems.append(Diagnostic(
                    source.mark, "source-unavailable",
                    f"source '{source.id}' is not in the cache, so version '{version}' cannot be swept",
                    "run `a2a-kb fetch` (with the network, or --mirror DIR)", record_id=source.id))
                continue
            titles = ledger.scopes[source.id.split("@")[0]].titles
            swept.append(sweep_source(source, data, titles))
        result.versions[version] = swept
        if entry is None:
            result.problems.append(Diagnostic(
                where, "sweep-unswept",
                f"version '{version}' has {len(sources)} source(s) to sweep and no entry in the ledger",
                f"add '- version: {version}' with the 'swept:' lists that `a2a-kb sweep --version "
                f"{version} --list` prints, and an account for each sentence"))
        else:
            result.problems += _sections(entry.swept, entry.marks, entry.mark, version, swept)
        result.problems += _accounts(result, version, entry.mark if entry else where, claim_versions)
    if not versions:
        result.problems += _stale(result)
    return result


def _sections(recorded: dict[str, list[str]], marks: dict[str, Mark], mark: Mark, version: str,
              swept: list[SourceSweep]) -> list[Diagnostic]:
    problems = []
    for item in swept:
        listed = recorded.get(item.source.id)
        ids = [s.id for s in item.sections]
        if listed is None:
            problems.append(Diagnostic(
                mark, "sweep-sections",
                f"version '{version}' does not list the sections swept of '{item.source.id}'",
                f"add under 'swept:' {item.source.id}: [{', '.join(repr(i) for i in ids)}]"))
            continue
        new = [i for i in ids if i not in listed]
        gone = [i for i in listed if i not in ids]
        if new or gone:
            said = "; ".join(p for p in (
                f"the scope now also selects {', '.join(new)}" if new else "",
                f"{', '.join(gone)} is no longer selected or no longer there" if gone else "") if p)
            problems.append(Diagnostic(
                marks.get(item.source.id, mark), "sweep-sections",
                f"the sections swept of '{item.source.id}' differ from the ledger's list: {said}",
                "review the new sections' sentences, then write the list as the scope selects it"))
    for source_id in recorded:
        if source_id not in {s.source.id for s in swept}:
            problems.append(Diagnostic(
                marks.get(source_id, mark), "sweep-sections",
                f"version '{version}' lists sections of '{source_id}', which no scope sweeps "
                "in that version", "remove the list, or add a scope for the source"))
    return problems


def _excerpt(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _accounts(result: SweepResult, version: str, mark: Mark,
              claim_versions: dict[str, set[str]]) -> list[Diagnostic]:
    problems = []
    for key, places in result.keys(version).items():
        swept, sentence = places[0]
        place = f"{swept.source.id} §{sentence.section} lines {sentence.line_start}–{sentence.line_end}"
        account = result.ledger.accounts.get(key)
        if account is None:
            problems.append(Diagnostic(
                mark, "sweep-unaccounted",
                f"version '{version}': sentence {key} of {place} is not accounted for: "
                f"\"{_excerpt(sentence.text)}\"",
                f"add '- key: {key}' with 'in: {swept.source.id} §{sentence.section}' and the "
                "'claims:' that state it, or 'not-lifecycle:' with the reason"))
            continue
        if account.claims and not any(version in claim_versions.get(c, set()) for c in account.claims):
            problems.append(Diagnostic(
                account.mark, "sweep-uncovered",
                f"sentence {key} is in version '{version}' ({place}), but none of its claims "
                f"({', '.join(account.claims)}) names that version",
                f"add '{version}' to the versions of the claim that states it, or name a claim "
                "about that version"))
    return problems


def _stale(result: SweepResult) -> list[Diagnostic]:
    """Accounts whose sentence no swept source has; accounts whose place is wrong."""
    places: dict[str, set[str]] = {}
    for version in result.versions:
        for key, found in result.keys(version).items():
            places.setdefault(key, set()).update(f"{s.source.id} §{c.section}" for s, c in found)
    problems = []
    for account in result.ledger.accounts.values():
        where = places.get(account.key)
        if where is None:
            problems.append(_stale_account(account))
        elif account.found_in and account.found_in not in where:
            problems.append(Diagnostic(
                account.mark, "sweep-moved",
                f"sentence {account.key} is not in {account.found_in}; it is in "
                f"{', '.join(sorted(where)[:3])}",
                f"write 'in: {sorted(where)[-1]}'"))
    return problems


def _stale_account(account: SweepAccount) -> Diagnostic:
    return Diagnostic(
        account.mark, "sweep-stale",
        f"the ledger accounts for sentence {account.key}, which no swept section of any "
        "version has any longer",
        "remove the account (its sentence changed or left the sources: sweep what replaced it)")


# --- reporters ----------------------------------------------------------------------------

FIGURE_HEADERS = ["version", "sources", "sections", "sentences", "accounted", "by claims",
                  "not-lifecycle", "unaccounted"]


def figure_rows(result: SweepResult) -> list[list[str]]:
    rows = []
    for version in result.versions:
        f = result.figures(version)
        rows.append([f.version, str(f.sources), str(f.sections), str(f.sentences), str(f.accounted),
                     str(f.by_claims), str(f.not_lifecycle), str(f.unaccounted)])
    return rows


def _account_words(account: SweepAccount | None) -> str:
    if account is None:
        return "UNACCOUNTED"
    if account.claims:
        return "claims: " + ", ".join(account.claims)
    return f"not-lifecycle: {account.not_lifecycle}"


def format_text(result: SweepResult, listing: bool = False) -> str:
    """The problems, then (with `listing`) every swept section and sentence, then the
    per-version figures."""
    from ..output import table

    lines = [d.format() for d in result.problems]
    if listing:
        for version, swept in result.versions.items():
            lines.append(f"\n== {version}: the sections swept, as the ledger writes them\n"
                         f"  - version: {version}\n    swept:")
            lines += [f"      {item.source.id}: [{', '.join(repr(s.id) for s in item.sections)}]"
                      for item in swept]
            for item in swept:
                lines.append(f"\n== {version}  {item.source.id}  sections: "
                             + ", ".join(s.id for s in item.sections))
                for s in item.candidates:
                    about = f"  {s.subject}" if s.subject else ""
                    lines.append(f"  {s.key}  §{s.section}{about}  L{s.line_start}-{s.line_end}  "
                                 f"[{','.join(s.cues)}]  {s.text}")
                    lines.append(f"      → {_account_words(result.ledger.accounts.get(s.key))}")
        lines.append("")
    lines.append(table(FIGURE_HEADERS, figure_rows(result)))
    unaccounted = sum(result.figures(v).unaccounted for v in result.versions)
    lines.append(f"\n{len(result.versions)} version(s) swept: "
                 + (f"{len(result.problems)} problem(s), {unaccounted} sentence(s) unaccounted"
                    if result.problems else "every sentence accounted for"))
    return "\n".join(lines)


def as_json(result: SweepResult) -> dict[str, Any]:
    versions = []
    for version, swept in result.versions.items():
        versions.append({
            **result.figures(version).as_json(),
            "sources": [{
                "id": item.source.id,
                "sections": [{"id": s.id, "title": s.title, "lines": [s.line_start, s.line_end]}
                             for s in item.sections],
                "sentences": [{**s.as_json(), "account": _account_json(
                    result.ledger.accounts.get(s.key))} for s in item.candidates],
            } for item in swept],
        })
    return {"versions": versions, "problems": [d.as_json() for d in result.problems],
            "ok": result.ok}


def _account_json(account: SweepAccount | None) -> dict[str, Any] | None:
    if account is None:
        return None
    return {"claims": account.claims, "not_lifecycle": account.not_lifecycle or None}
