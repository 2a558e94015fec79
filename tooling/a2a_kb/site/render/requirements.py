"""The conformance suite's lifecycle requirements, one row each: what the specification's
section says in each version, and the verdict a2a-tck's own runner gave each SDK build on
each transport.

Rows are the lifecycle requirements of the 1.0-dev registry (the `suite-requirement`
facts of its pinned files, `is_lifecycle`). A build's
cell is the claim about that requirement and build (subject `tck-verdict:<build>/<ID>`,
checked against the run record) with its answer in words; a failing cell adds the reason the
suite gave. A specification cell is the section the requirement cites, read from that
version's pinned text: its title and whether its words carry the requirement's level;
a version without that section says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...knowledge.requirements import TRANSPORT_TITLES, is_lifecycle, registry, transports_of
from ..data import SiteData
from ..links import Linker
from . import common

BUILDS = {"a2a-sdk-1.3.0": "a2a-sdk 1.3.0", "a2a-js-sdk-1.3.0": "@a2a-js/sdk 1.3.0"}
SPEC_VERSIONS = ("1.0.0", "1.0.1")
# A requirement → the behaviour row of the matrix above that our own scenarios observe.
BEHAVIOURS = {
    "CORE-SEND-002": "message-to-terminal", "CORE-CANCEL-001": "cancel-working",
    "CORE-CANCEL-002": "cancel-of-terminal", "CORE-CANCEL-003": "unknown-task",
    "CORE-GET-002": "unknown-task",
    "CORE-MULTI-004": "unknown-task", "STREAM-SUB-004": "unknown-task", "CORE-MULTI-001": "context-generated",
    "CORE-MULTI-001a": "context-generated", "CORE-MULTI-005": "context-inferred",
    "CORE-MULTI-006": "context-mismatch", "CORE-HIST-001": "history-length",
    "CORE-HIST-002": "history-length",
    "CORE-EXECUTION-MODE-001": "blocking-return", "STREAM-SUB-003": "subscribe-to-terminal",
    "STREAM-ORDER-002": "multiple-subscribers", "STREAM-ORDER-003": "multiple-subscribers",
}


@dataclass
class Cell:
    text: str
    verdict: str = ""  # the claim's verdict; "" for a cell that is no claim
    href: str = ""
    claim: str = ""
    reasons: list[str] = field(default_factory=list)
    failing: bool = False
    conflicts: list[str] = field(default_factory=list)  # the conflicts its claim is evidence in


@dataclass
class Requirement:
    id: str
    level: str
    title: str
    section: str
    operation: str
    spec: list[Cell]
    builds: list[Cell]
    behaviour: str
    verdicts: dict[str, dict[str, str]]  # build → transport → the suite's verdict


def _record(data: SiteData, build: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """A build's verdicts (requirement → fact value) and failed tests' reasons, by requirement."""
    source = data.kb.sources.get(f"tck-run-1.0-dev@{build}")
    verdicts: dict[str, Any] = {}
    reasons: dict[str, list[str]] = {}
    if source is None:
        return verdicts, reasons
    for key, facts in data.facts(source).items():
        kind, _, subject = key.partition(":")
        value = facts[0].value
        if kind == "tck-verdict":
            verdicts[subject] = value
        elif kind == "tck-test" and value["outcome"] in ("failed", "skipped") and value["requirement"]:
            why = value["reason"].split(" (see specification", 1)[0]
            why = why.split("]: ", 1)[-1].split(f"failed on {value['transport']}: ", 1)[-1]
            label = f"{TRANSPORT_TITLES.get(value['transport'], value['transport'])}: {why}"
            known = reasons.setdefault(value["requirement"], [])
            if why and label not in known:
                known.append(label)
    return verdicts, reasons


def _spec_cell(data: SiteData, version: str, section: str, level: str) -> Cell:
    source = data.kb.sources.get(f"spec@v{version}")
    if source is None or not section:
        return Cell("no section cited")
    facts = data.facts(source).get(f"section:{section}")
    if not facts:
        return Cell(f"no §{section} in v{version}: the spec is silent here under that number")
    fact = facts[0]
    text = str(fact.value.get("text", ""))
    carries = f" — its text says {level}" if level and level in text else f" — its text does not say {level}"
    return Cell(f"§{section} “{fact.value.get('title', '')}”{carries}",
                href=source.permalink(fact.line_start, fact.line_end))


def rows(data: SiteData, link: Linker) -> list[Requirement]:
    requirements = registry(list(data.kb.sources.values()), data.facts)
    claims = {c.subject: c for c in data.kb.claims.values() if c.subject.startswith("tck-verdict:")}
    records = {build: _record(data, build) for build in BUILDS}
    found = []
    for rid in sorted(r for r, v in requirements.items() if is_lifecycle(r, v)):
        spec = requirements[rid]
        level, section = str(spec.get("level") or ""), str(spec.get("section") or "")
        builds, verdicts = [], {}
        for build in BUILDS:
            verdict = records[build][0].get(rid)
            claim = claims.get(f"tck-verdict:{build}/{rid}")
            verdicts[build] = transports_of(verdict) if verdict else {}
            if claim is None:
                builds.append(Cell("no claim yet"))
                continue
            cite = common.cite(data, link, claim)
            failing = verdict is not None and "FAIL" in (verdict.get("status"), *verdicts[build].values())
            builds.append(Cell(claim.answer or claim.statement, cite.verdict, cite.href, claim.id,
                               records[build][1].get(rid, [])[:3] if failing else [], failing,
                               [c for c in claim.conflicts if c in data.kb.conflicts]))
        found.append(Requirement(rid, level, str(spec.get("title") or ""), section,
                                 str(spec.get("operation") or ""),
                                 [_spec_cell(data, v, section, level) for v in SPEC_VERSIONS], builds,
                                 BEHAVIOURS.get(rid, ""), verdicts))
    return found


def document(data: SiteData, link: Linker) -> list[dict[str, Any]]:
    """The rows as the JSON API serves them: for each requirement, each build's verdict per
    transport and the claim that states it."""
    return [
        {"requirement": r.id, "level": r.level, "title": r.title, "section": r.section,
         "operation": r.operation or None, "behaviour": r.behaviour or None,
         "spec": {v: {"answer": c.text, "url": c.href or None}
                  for v, c in zip(SPEC_VERSIONS, r.spec, strict=True)},
         "builds": {b: {"transports": r.verdicts[b], "answer": c.text, "claim": c.claim or None,
                        "verdict": c.verdict or None, "reasons": c.reasons, "conflicts": c.conflicts}
                    for b, c in zip(BUILDS, r.builds, strict=True)}}
        for r in rows(data, link)
    ]
