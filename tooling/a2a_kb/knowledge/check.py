"""check: claims × facts → verdicts, compared with the verdicts recorded in the claims.

A claim's verdict is computed in this order:

1. `drifted`       a source it rests on no longer matches its pinned sha256;
2. `quote-missing` its quote is not (or no longer) in the source;
3. `verified`      every `expect` holds, at every version the claim names (see
                     `plan`: the claim's own checks run on the counterpart of its
                     source at each version);
4. `contradicted`  an `expect` fails at some version, which the message names
                     (`stale` when the claim tracks the latest spec: a secondary source's
                     statement about the current spec, now out of date);
5. `unverifiable`  nothing about it can be checked with the pinned sources, or the claim
                     reports what a page, paper or SDK says and no check reads that source.

The run fails when a computed verdict differs from the recorded one; that is how CI learns
that the world changed. Secondary sources read longer ago than the configured age warn
(error with `--strict`). With `--strict`, a verified claim whose statement names a state,
a code or a quoted phrase that its check does not read is an error too (`strength`).

Why it is long: the verdict of a claim is one ordered decision (drift, quote, expectations
per version, staleness), and the matching rules for quotes, state lists and items it applies
are what make the verdict; the text, GitHub and JUnit reports at the end are short views of
the same result type.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..cache import Cache, CacheEntry
from ..diagnostics import Diagnostic, Mark, Severity
from ..errors import SourceUnavailable
from ..facts import Fact, canonical_state
from ..records import patterns
from ..records.kb import KnowledgeBase
from ..records.loader import collector_paused
from ..records.model import Claim, Expectation, Source
from . import strength
from .factbook import FactBook
from .plan import Plan, Run, plan


@dataclass
class VersionResult:
    """How a claim fares at one of its versions: `holds`, `fails`, `quote-missing`,
    `no-counterpart` (its source's file does not exist there) or `not-checked`."""

    version: str
    status: str
    sources: list[str]  # the copies whose checks stand for this version
    message: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "status": self.status, "sources": self.sources,
                "message": self.message}


@dataclass
class ClaimResult:
    claim: Claim
    verdict: str
    message: str
    evidence: list[Fact] = field(default_factory=list)
    # The source whose pinned copy the cache lacks, which kept this claim from being checked.
    blocked_by: str = ""
    by_version: list[VersionResult] = field(default_factory=list)

    @property
    def failing_versions(self) -> list[str]:
        return [v.version for v in self.by_version if v.status in ("fails", "quote-missing")]

    @property
    def changed(self) -> bool:
        return self.verdict != self.claim.verdict

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.claim.id,
            "verdict": self.verdict,
            "expected": self.claim.verdict or None,
            "versions": self.claim.versions,
            "origin": self.claim.origin or None,
            "message": self.message,
            "file": self.claim.mark.path,
            "line": self.claim.mark.line,
            "evidence": [
                {"source": f.source, "fact": f.key, "lines": [f.line_start, f.line_end]}
                for f in self.evidence
            ],
            "by_version": [v.as_json() for v in self.by_version],
        }


@dataclass
class CheckResult:
    results: list[ClaimResult]
    problems: list[Diagnostic]

    @property
    def summary(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.results:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def changed(self) -> list[ClaimResult]:
        return [r for r in self.results if r.changed]

    @property
    def ok(self) -> bool:
        return not self.changed and not any(p.severity is Severity.ERROR for p in self.problems)


def _norm(text: str) -> str:
    """`text` with every run of whitespace made one space: what is looked for (a quote, a
    wanted phrase), short and different in every claim, so not worth keeping."""
    return " ".join(text.split())  # the same as re.sub(r"\s+", " ", text).strip(), faster


@functools.lru_cache(maxsize=4096)
def _norm_haystack(text: str) -> str:
    """`_norm` of what is looked in: a source, a section or a fact's text, long and
    shared by many claims. Kept apart from the quotes, so that ten thousand different
    quotes cannot push the sources' texts out and have them normalised again and again."""
    return _norm(text)


def _state_list(value: Any) -> Any:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        mapped = [canonical_state(v) for v in value]
        if all(mapped):
            return mapped
    return value


def _matches(op: str, actual: Any, expected: Any) -> bool:
    if op == "present":
        return True
    if op == "equals":
        if isinstance(expected, dict) and isinstance(actual, dict):
            return all(actual.get(k) == v for k, v in expected.items())
        if actual == expected:
            return True
        return bool(_state_list(actual) == _state_list(expected))
    if op in ("contains", "excludes"):
        wanted = expected if isinstance(expected, list) else [expected]
        if isinstance(actual, str):
            hits = [_norm(str(w)) in _norm_haystack(actual) for w in wanted]
        elif isinstance(actual, list):
            pool = list(actual) + [s for s in (_state_list(actual) or []) if isinstance(s, str)]
            hits = [w in pool or canonical_state(str(w)) in pool for w in wanted]
        elif isinstance(actual, dict):
            hits = [w in actual for w in wanted]
        else:
            return False
        return all(hits) if op == "contains" else not any(hits)
    if op == "count":
        return isinstance(actual, list | dict | str) and len(actual) == expected
    if op == "date-equals":
        return str(actual)[:10] == str(expected)[:10]
    if op in ("matches", "not-matches"):
        try:
            found = _matching_item(str(expected), actual) is not None
        except patterns.PatternError:
            return False  # validation reports the pattern; an unvalidated KB fails the check
        return found if op == "matches" else not found
    if op == "quote-in-section":
        text = actual.get("text", "") if isinstance(actual, dict) else str(actual)
        return _norm(str(expected)) in _norm_haystack(text)
    return False


def _matching_item(pattern: str, actual: Any) -> str | None:
    """The first item a pattern is found in, or None. A list (an inventory) is searched item
    by item, so that a pattern never matches across two sentences or two table headers;
    anything else as its text. RE2, never `re`: a claim's pattern must not be able to hang
    the check."""
    items = [str(a) for a in actual] if isinstance(actual, list) else [str(actual)]
    return next((item for item in items if patterns.search(pattern, item)), None)


def _show(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def evaluate(claim: Claim, kb: KnowledgeBase, book: FactBook) -> ClaimResult:
    """The verdict of one claim, with a message that says why.

    A source whose pinned copy cannot be had stops this claim only: it is `unverifiable`
    (`drifted` when a refresh saw the source move), and names the source that blocked it.
    """
    try:
        return _evaluate(claim, kb, book)
    except SourceUnavailable as e:
        return ClaimResult(claim, "unverifiable", str(e), blocked_by=e.source_id)


def _evaluate(claim: Claim, kb: KnowledgeBase, book: FactBook) -> ClaimResult:
    steps = plan(claim, kb)
    if steps.unresolved:
        return ClaimResult(claim, "unverifiable", steps.unresolved)
    for source in steps.sources:
        why = book.drifted(source)
        if why:
            blocked = "" if book.has_pinned_copy(source) else source.id
            return ClaimResult(claim, "drifted", why, blocked_by=blocked)

    outcomes = [_run(claim, run, book) for run in steps.runs]
    by_version = _by_version(claim, steps, outcomes)
    missing = [o for o in outcomes if o.quote_missing]
    if missing:
        where = ", ".join(o.run.source.id for o in missing)
        scope = f"§{_quoted_section(claim)} of " if _quoted_section(claim) else ""
        return ClaimResult(claim, "quote-missing", _at_versions(claim, missing)
                           + f"the quoted words are not in {scope}{where}", by_version=by_version)

    evidence = [f for o in outcomes for f in o.evidence]
    failed = [o for o in outcomes if o.failure]
    if failed:
        verdict = "stale" if claim.tracks == "latest" else "contradicted"
        return ClaimResult(claim, verdict, _at_versions(claim, failed) + failed[0].failure,
                           evidence, by_version=by_version)

    checks = len(claim.expect)  # each is run on every copy that stands for a version
    gaps = _gaps(steps)
    if checks:
        where = ", ".join(sorted({o.run.source.id for o in outcomes if o.run.expects}))
        message = f"{checks} check(s) hold against {where}{gaps}"
    elif any(o.run.quote for o in outcomes):
        where = ", ".join(o.run.source.id for o in outcomes if o.run.quote)
        message = f"the quoted words are in {where}{gaps}"
    else:
        return ClaimResult(claim, "unverifiable", "no check is possible with the pinned sources",
                           by_version=by_version)
    if kb.reports_a_source(claim) and not kb.reads_own_source(claim):
        return ClaimResult(
            claim, "unverifiable",
            f"{message}, but not one reads {claim.source}, which the claim reports: what a "
            "source says is verified only against that source (a check of another can find "
            "it stale, never verify it)", evidence, by_version=by_version)
    return ClaimResult(claim, "verified", message, evidence, by_version=by_version)


@dataclass
class _Outcome:
    """What the checks of one run found in their copy."""

    run: Run
    quote_missing: bool = False
    failure: str = ""
    evidence: list[Fact] = field(default_factory=list)


def _quoted_section(claim: Claim) -> str:
    return claim.locator.removeprefix("§").strip() if claim.locator.startswith("§") else ""


def _run(claim: Claim, run: Run, book: FactBook) -> _Outcome:
    outcome = _Outcome(run)
    target = run.source
    if run.quote:
        text = book.text(target)
        where = text
        section = _quoted_section(claim)
        if section:
            facts = book.facts(target).get(f"section:{section}")
            if facts and isinstance(facts[0].value, dict):
                where = str(facts[0].value.get("text", ""))
        if _norm(claim.quote) not in _norm_haystack(where):
            outcome.quote_missing = True
            return outcome
    for e in run.expects:
        found = book.facts(target).get(e.fact, [])
        if e.op == "absent":
            if found:
                outcome.failure = (f"{e.fact} is present in {target.id} "
                                   f"(lines {found[0].line_start}–{found[0].line_end})")
                outcome.evidence.append(found[0])
                return outcome
            continue
        if not found:
            outcome.failure = f"{target.id} has no fact {e.fact}"
            return outcome
        outcome.evidence.append(found[0])
        if not any(_matches(e.op, f.value, e.value) for f in found):
            outcome.failure = _mismatch(e, target, found[0])
            return outcome
    return outcome


def _at_versions(claim: Claim, outcomes: list[_Outcome]) -> str:
    """"fails at 0.2.0, 0.2.1: " when the claim names several versions and the failing
    copies stand for some of them."""
    versions = [v for v in claim.versions for o in outcomes if v in o.run.versions]
    if len(claim.versions) < 2 or not versions:
        return ""
    return f"fails at {', '.join(dict.fromkeys(versions))}: "


def _gaps(steps: Plan) -> str:
    """What the message must say of versions that were not checked."""
    parts = []
    if steps.no_counterpart:
        parts.append(f"not checked at {', '.join(steps.no_counterpart)}: "
                     + "; ".join(dict.fromkeys(steps.no_counterpart.values())))
    if steps.unchecked:
        parts.append(f"no check reads a source of {', '.join(steps.unchecked)}")
    return "".join(f"; {p}" for p in parts)


def _by_version(claim: Claim, steps: Plan, outcomes: list[_Outcome]) -> list[VersionResult]:
    """For each version the claim names: whether its checks hold there, and on which copies."""
    result = []
    for version in claim.versions:
        mine = [o for o in outcomes if version in o.run.versions or not o.run.versions]
        sources = [o.run.source.id for o in mine if o.run.expects or o.run.quote]
        if version in steps.no_counterpart:
            result.append(VersionResult(version, "no-counterpart", sources,
                                        steps.no_counterpart[version]))
        elif version in steps.unchecked or not sources:
            result.append(VersionResult(version, "not-checked", sources,
                                        "no check reads a source of this version"))
        elif any(o.quote_missing for o in mine):
            result.append(VersionResult(version, "quote-missing", sources,
                                        "the quoted words are not in " + ", ".join(
                                            o.run.source.id for o in mine if o.quote_missing)))
        elif any(o.failure for o in mine):
            result.append(VersionResult(version, "fails", sources,
                                        next(o.failure for o in mine if o.failure)))
        else:
            result.append(VersionResult(version, "holds", sources))
    return result


def _mismatch(e: Expectation, target: Source, fact: Fact) -> str:
    """Why an expect fails: what the fact holds, and for a pattern that must not be found,
    the item it was found in (an inventory is long; the item is what the reader needs)."""
    if e.op == "not-matches" and isinstance(fact.value, list):
        item = _matching_item(str(e.value), fact.value)
        return (f"{e.fact} in {target.id} (lines {fact.line_start}–{fact.line_end}) has "
                f"{_show(item)}, which matches {_show(e.value)}; expected not-matches")
    want = "" if e.op == "present" else f" {_show(e.value)}"
    return f"{e.fact} in {target.id} is {_show(fact.value)}; expected {e.op}{want}"


Evaluator = Callable[[Claim, KnowledgeBase, FactBook], ClaimResult]


@collector_paused()
def check(kb: KnowledgeBase, *, strict: bool = False, today: dt.date | None = None,
          evaluator: Evaluator = evaluate) -> CheckResult:
    """Compute every claim's verdict; problems say what changed and what is too old.

    `evaluator` stands in for [`evaluate`][a2a_kb.knowledge.check.evaluate] (knowledge.verdicts remembers
    verdicts)."""
    cache = Cache(kb.project.cache_dir)
    book = FactBook(kb, cache)
    results = [evaluator(claim, kb, book) for claim in kb.claims.values()]
    problems = _unavailable_sources(kb, book, results)
    for r in results:
        if r.changed and not r.blocked_by:  # those are named in their source's diagnostic
            recorded = r.claim.verdict or "nothing"
            problems.append(
                Diagnostic(
                    r.claim.mark,
                    "verdict-changed",
                    f"claim '{r.claim.id}' was recorded {recorded}, now {r.verdict}: {r.message}",
                    "review the claim against its source; then fix the claim or record the new verdict",
                    record_id=r.claim.id,
                )
            )
    problems += _aged_sources(kb, strict, today or _today(kb))
    if strict:
        problems += strength.diagnostics(results)
    if book.store.unwritable:  # a read-only or full disk: the verdicts hold, the facts were not kept
        problems.append(Diagnostic(
            Mark(str(cache.root)), "cache-unwritable",
            f"the facts were extracted for this run only: the cache cannot be written "
            f"({book.store.unwritable})",
            "make the cache writable or free some space, or point A2A_KB_CACHE at a writable folder",
            Severity.WARNING))
    return CheckResult(results, problems)


def _unavailable_sources(
    kb: KnowledgeBase, book: FactBook, results: list[ClaimResult]
) -> list[Diagnostic]:
    """One error per source whose pinned copy is missing: the claims it kept from being
    checked, and the command that brings the source back."""
    blocked: dict[str, list[str]] = {}
    for r in results:
        if r.blocked_by:
            blocked.setdefault(r.blocked_by, []).append(r.claim.id)
    problems = []
    for source_id, claim_ids in blocked.items():
        source = kb.sources[source_id]
        moved = book.drifted(source)
        if moved:
            upstream = (book.cache.entry(source.id) or CacheEntry("", "", 0, "")).upstream_sha256
            why = (f"source '{source.id}' has no pinned copy: upstream now serves "
                   f"{upstream[:12]}…, not the pinned {source.sha256[:12]}…")
            tip = (f"review what changed, then `a2a-kb pin {source.id}` writes the new pin "
                   f"into {source.mark.path} and `a2a-kb fetch` stores the copy")
        else:
            why = f"source '{source.id}' is not in the cache"
            tip = "run `a2a-kb fetch` (with the network, or --mirror DIR)"
        shown = ", ".join(claim_ids[:12]) + (f" and {len(claim_ids) - 12} more"
                                             if len(claim_ids) > 12 else "")
        problems.append(Diagnostic(
            source.mark, "source-unavailable",
            f"{why}; {len(claim_ids)} claim(s) could not be checked: {shown}",
            tip, record_id=source.id))
    return problems


def _today(kb: KnowledgeBase) -> dt.date:
    return dt.date.fromisoformat(kb.project.today) if kb.project.today else dt.date.today()


def _aged_sources(kb: KnowledgeBase, strict: bool, today: dt.date) -> list[Diagnostic]:
    used = {c.source for c in kb.claims.values()}
    problems = []
    for source in kb.sources.values():
        if source.authority != "secondary" or not source.retrieved or source.id not in used:
            continue
        try:
            age = (today - dt.date.fromisoformat(source.retrieved)).days
        except ValueError:
            continue  # validate reports the bad date
        if age > kb.project.max_age_days:
            problems.append(
                Diagnostic(
                    source.mark,
                    "source-age",
                    f"secondary source '{source.id}' was read {age} days ago ({source.retrieved}), "
                    f"over the {kb.project.max_age_days}-day limit",
                    "read it again, update the claims that cite it and its 'retrieved' date",
                    Severity.ERROR if strict else Severity.WARNING,
                    source.id,
                )
            )
    return problems


# --- reporters ----------------------------------------------------------------------------


def _text(result: CheckResult) -> str:
    lines = [d.format() for d in result.problems]
    summary = ", ".join(f"{n} {v}" for v, n in result.summary.items())
    changed = len(result.changed)
    lines.append(
        f"{len(result.results)} claims: {summary}; "
        + (f"{changed} verdict(s) changed" if changed else "no verdict changed")
    )
    return "\n".join(lines)


def _github(result: CheckResult) -> str:
    def esc(s: str) -> str:
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    lines = []
    for d in result.problems:
        level = "error" if d.severity is Severity.ERROR else "warning"
        lines.append(
            f"::{level} file={d.mark.path},line={d.mark.line},col={d.mark.column},"
            f"title={esc(d.rule)}::{esc(d.message)}" + (esc(f" (tip: {d.tip})") if d.tip else "")
        )
    lines.append(_text(CheckResult(result.results, [])))
    return "\n".join(lines)


def _junit(result: CheckResult) -> str:
    from xml.sax.saxutils import escape, quoteattr

    failures = len(result.changed)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuite name="a2a-kb check" tests="{len(result.results)}" failures="{failures}">',
    ]
    for r in result.results:
        name = quoteattr(r.claim.id)
        cls = quoteattr(r.claim.mark.path)
        if r.changed:
            msg = quoteattr(f"recorded {r.claim.verdict or 'nothing'}, now {r.verdict}")
            out.append(
                f"  <testcase classname={cls} name={name}><failure message={msg}>"
                f"{escape(str(r.claim.mark))}: {escape(r.message)}</failure></testcase>"
            )
        else:
            out.append(f"  <testcase classname={cls} name={name}/>")
    out.append("</testsuite>")
    return "\n".join(out)


def as_json(result: CheckResult) -> dict[str, Any]:
    return {
        "summary": result.summary,
        "claims": [r.as_json() for r in result.results],
        "problems": [d.as_json() for d in result.problems],
        "ok": result.ok,
    }


REPORTERS: dict[str, Callable[[CheckResult], str]] = {
    "text": _text,
    "github": _github,
    "junit": _junit,
}

__all__ = ["REPORTERS", "CheckResult", "ClaimResult", "Mark", "as_json", "check", "evaluate"]
