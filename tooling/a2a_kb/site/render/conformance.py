"""The conformance matrix: for each behaviour, what each specification version requires, what
the conformance suite a2a-tck checks (and how strictly), what each SDK build did when run,
and what the SDKs only read from source are said to do.

Every cell is made of claims, and shows each claim's answer (its `answer` field, or one
read off what its checks expect), linked to the claim and to the line of the capture or of
the suite's file its check reads. A cell is marked as differing from the specification only
for a verified claim that the conflict register puts on a side no specification claim takes
(the rule of the SDK matrix, `sdk_matrix._departures`), and only when a verified claim
of the row's own specification cells, about a version the claim's build speaks, is on another
side. Below the behaviours, `requirements` gives the suite's lifecycle requirements one
by one with its verdict on each build.

Rows: the behaviours in `ROWS`, those the suite tests or the captures were made for
(the SDK matrix keeps every behaviour). Columns: the specification versions 0.3.0 to
1.0.1; the suite's branches (claims with subject `tck:<branch>/<behaviour>`); one per
SDK build captured (a claim resting on a capture goes to the build of that capture); one
per SDK read but not run (the other
`sdk:<sdk>/<behaviour>` claims, and the SDKs named in `READ_SDKS` even without one).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ...records.model import Claim, Source
from .. import paths
from ..data import SiteData
from ..links import Linker, page_url
from ..templating import render
from . import common, requirements, sdk_matrix
from .common import capture_href, scenario_of

SPEC_VERSIONS = ("0.3.0", "1.0.0", "1.0.1")
# The SDKs that are read, not run: their columns stay even where no claim speaks yet.
READ_SDKS = ("a2a-python", "a2a-js", "a2a-java", "a2a-rs", "a2a-go", "a2a-dotnet")
# Builds, by the folder of their captures → the column's title.
BUILD_TITLES = {"a2a-sdk-1.3.0": "a2a-sdk 1.3.0", "a2a-sdk-0.3": "a2a-sdk 0.3.26",
                "a2a-js-sdk-1.3.0": "@a2a-js/sdk 1.3.0"}
ROWS = {
    "error-mapping": "Error codes on gRPC and HTTP",
    "blocking-return": "Where a blocking send returns",
    "context-generated": "A message without a contextId",
    "context-inferred": "A message with only a taskId",
    "context-mismatch": "A taskId with another task's contextId",
    "unknown-task": "An unknown task id (get, cancel, subscribe, send)",
    "history-length": "historyLength",
    "message-to-terminal": "A message to a terminal task",
    "cancel-of-terminal": "Cancelling a terminal task",
    "cancel-twice": "A second cancel",
    "cancel-interrupted": "Cancelling a task that waits for input",
    "cancel-working": "Cancelling a working task",
    "subscribe-to-terminal": "Subscribing to a terminal task",
    "subscribe-interrupted": "Subscribing to a task that waits for input",
    "multiple-subscribers": "Two subscribers on one task",
    "stream-close-interrupted": "Where streams close: interrupted states",
}
_SUITE_SUBJECT = re.compile(r"^tck:([^/\s]+)/(\S+)$")
_VERDICT_SUBJECT = re.compile(r"^tck-verdict:([^/\s]+)/(\S+)$")
_STATE_WORD = re.compile(r"^[a-z]+(-[a-z]+)?$")


@dataclass
class Evidence:
    label: str  # "capture 04 L97", "core_operations.py L283"
    href: str  # from the matrix page
    source: str
    lines: tuple[int, int]
    url: str  # from the site's root: the capture page and line, or the suite's permalink


@dataclass
class Answer:
    claim: str
    text: str
    statement: str
    verdict: str
    href: str
    evidence: list[Evidence] = field(default_factory=list)
    departs: list[str] = field(default_factory=list)  # conflict ids


@dataclass
class Column:
    key: str
    kind: str  # spec, suite, sdk, read
    title: str
    note: str


@dataclass
class Row:
    behaviour: str
    label: str
    anchor: str
    cells: list[list[Answer]]


@dataclass
class Matrix:
    columns: list[Column]
    rows: list[Row]

    def count(self, kind: str) -> int:
        return sum(1 for c in self.columns if c.kind == kind)


def _build_of(source: Source) -> str:
    """The capture build a source belongs to: the folder its transcript is in."""
    return posixpath.basename(posixpath.dirname(source.path))


def _capture_sources(data: SiteData, claim: Claim) -> list[Source]:
    found = [data.kb.sources.get(sid) for sid in sorted(common.claim_sources(data, claim))]
    return [s for s in found if s is not None and s.kind == "capture"]


def place(data: SiteData, claim: Claim) -> tuple[list[str], str] | None:
    """(column keys, behaviour) of a claim, or None when it is not about the suite or an SDK.

    A suite claim goes to its subject's branch and to every other branch whose pinned files
    its checks read (the 0.3 suite's claims check 0.3.x and main alike)."""
    verdict = _VERDICT_SUBJECT.match(claim.subject.strip())
    if verdict:  # the suite's verdict on a build, in the row of the behaviour its requirement tests
        behaviour = requirements.BEHAVIOURS.get(verdict.group(2))
        return ([f"build@{verdict.group(1)}"], behaviour) if behaviour else None
    suite = _SUITE_SUBJECT.match(claim.subject.strip())
    if suite:
        branches = [suite.group(1)]
        for sid in sorted(common.claim_sources(data, claim)):
            source = data.kb.sources.get(sid)
            if source is not None and source.kind == "test-suite" and source.branch not in branches:
                branches.append(source.branch)
        return [f"tck@{b}" for b in branches], suite.group(2)
    sdk = common.sdk_subject(claim)
    if sdk is None:
        return None
    captures = _capture_sources(data, claim)
    if captures:
        return [f"build@{_build_of(captures[0])}"], sdk[1]
    return [f"read@{sdk[0].split('@', 1)[0]}"], sdk[1]


def _error_names(data: SiteData) -> dict[int, str]:
    """JSON-RPC code → error name, from the pinned sources' error tables (spec and suite)."""
    names: dict[int, str] = {}
    for sid in ("tck-requirements-base@1.0-dev", "spec@v1.0.1"):
        source = data.kb.sources.get(sid)
        if source is None:
            continue
        for key, facts in data.facts(source).items():
            if key.startswith("error-mapping:"):
                for fact in facts:
                    code = fact.value.get("json-rpc") if isinstance(fact.value, dict) else None
                    if isinstance(code, int):
                        names.setdefault(code, fact.subject)
    return names


def _state(name: str) -> str:
    return name.upper().replace("-", "_")


def answer_text(claim: Claim, names: dict[int, str]) -> str:
    """What a cell shows for a claim: its answer, else what its checks expect (an error code
    and name, a mapping, a state, the specification's own words), else its statement cut short."""
    if claim.answer:
        return claim.answer
    for e in claim.expect:
        value = e.value
        if e.fact.startswith("error-mapping:") and isinstance(value, dict) and "http" in value:
            name = e.fact.split(":", 1)[1]
            return f"{name}: HTTP {value.get('http')}, gRPC {value.get('grpc')}"
    for e in claim.expect:
        value = e.value
        if isinstance(value, dict) and isinstance(value.get("code"), int):
            return f"{value['code']} {names.get(value['code'], '')}".strip()
        if isinstance(value, dict) and isinstance(value.get("error"), dict):
            code = value["error"].get("code")
            return f"{code} {names.get(code, '')}".strip()
    for e in claim.expect:
        value = e.value
        closes = e.fact.startswith("capture-stream-close:")
        if closes and isinstance(value, dict) and value.get("after_state"):
            return f"stream closes after {_state(str(value['after_state']))}"
        if isinstance(value, dict) and isinstance(value.get("states"), list) and value["states"]:
            last = str(value["states"][-1])
            return _state(last) if _STATE_WORD.match(last) else last
    quoted = next((str(e.value) for e in claim.expect if e.op == "quote-in-section" and not e.source), "")
    if quoted:  # the specification's own words, short and attributed to its section
        words = quoted.split()
        cut = " ".join(words[:10]) + ("…" if len(words) > 10 else "")
        return f"{claim.locator}: “{cut}”" if claim.locator else f"“{cut}”"
    words = claim.statement.split()
    return " ".join(words[:9]) + ("…" if len(words) > 9 else "")


def _evidence(data: SiteData, link: Linker, claim: Claim) -> list[Evidence]:
    """Where a claim's check reads: the capture line (a page here) or the suite's line (a
    permalink to the pinned commit)."""
    result = data.results.get(claim.id)
    first: dict[str, tuple[int, int]] = {}
    for fact in result.evidence if result else []:
        if fact.line_start and (fact.source not in first or fact.line_start < first[fact.source][0]):
            first[fact.source] = (fact.line_start, fact.line_end)
    found = []
    for sid, (start, end) in sorted(first.items()):
        source = data.kb.sources.get(sid)
        if source is None:
            continue
        if source.kind == "capture" and sid in data.transcripts:
            number = scenario_of(source).rsplit("/", 1)[-1].split("-", 1)[0]
            page = paths.capture_page(scenario_of(source))
            found.append(Evidence(f"capture {number} L{start}", capture_href(link, source, start), sid,
                                  (start, end), f"{page_url(page, link.use_directory_urls)}#L{start}"))
        elif source.kind == "test-suite":
            permalink = source.permalink(start, end)
            found.append(Evidence(f"{posixpath.basename(source.path)} L{start}", permalink, sid,
                                  (start, end), permalink))
    return found[:3]


def _columns(data: SiteData, placed: dict[str, list[tuple[str, Claim]]]) -> list[Column]:
    known = {v.id for v in data.versions}
    columns = [Column(v, "spec", f"v{v}", "what the specification says") for v in SPEC_VERSIONS if v in known]
    branches = sorted({s.branch for s in data.kb.sources.values() if s.kind == "test-suite" and s.branch}
                      | {k.split("@", 1)[1] for k in placed if k.startswith("tck@")},
                      key=lambda b: (b != "1.0-dev", b))
    for branch in branches:
        commit = next((s.commit[:7] for s in data.kb.sources.values()
                       if s.kind == "test-suite" and s.branch == branch), "")
        columns.append(Column(f"tck@{branch}", "suite", f"a2a-tck {branch}",
                              f"what the suite checks, at {commit}" if commit else "what the suite checks"))
    builds = [k.split("@", 1)[1] for k in placed if k.startswith("build@")]
    known_builds = list(BUILD_TITLES)
    for build in sorted(set(builds), key=lambda b: (known_builds.index(b) if b in known_builds else 99, b)):
        columns.append(Column(f"build@{build}", "sdk", BUILD_TITLES.get(build, build), "observed: run here"))
    read = {k.split("@", 1)[1] for k in placed if k.startswith("read@")} | set(READ_SDKS)
    for sdk in sorted(read, key=lambda s: (READ_SDKS.index(s) if s in READ_SDKS else 99, s)):
        columns.append(Column(f"read@{sdk}", "read", sdk, "read from source, not run"))
    return columns


def matrix(data: SiteData, link: Linker) -> Matrix:
    names = _error_names(data)
    sides = sdk_matrix._sides(data)
    by_row: dict[str, dict[str, list[tuple[str, Claim]]]] = {}
    placed: dict[str, list[tuple[str, Claim]]] = {}
    for claim in sorted(data.kb.claims.values(), key=lambda c: (c.file, c.mark.line, c.id)):
        where = place(data, claim)
        if where is None or where[1] == sdk_matrix.SDK_VERSION:
            continue
        columns_of, behaviour = where
        for column in columns_of:
            by_row.setdefault(behaviour, {}).setdefault(column, []).append((behaviour, claim))
            placed.setdefault(column, []).append((behaviour, claim))
    columns = _columns(data, placed)
    order = list(ROWS)
    rows = []
    # The rows the suite and the captures speak to; the SDK matrix (sdk/) has every behaviour.
    for behaviour in [b for b in order if b in by_row]:
        everyone = [c for claims in by_row[behaviour].values() for _, c in claims]
        specified = sdk_matrix._spec_claims(data, everyone)
        cells = []
        for col in columns:
            if col.kind == "spec":
                chosen = [c for c in specified if col.key in c.versions]
            else:
                chosen = [c for _, c in by_row[behaviour].get(col.key, [])]
            answers = [_answer(data, link, c, names, sides, col.kind != "spec", specified) for c in chosen]
            if col.kind == "spec" and not answers:
                answers = [_silent(col.key)]
            cells.append(answers)
        rows.append(Row(behaviour, ROWS.get(behaviour, behaviour), paths.behaviour_anchor(behaviour), cells))
    return Matrix(columns, rows)


def _silent(version: str) -> Answer:
    """A specification cell no claim answers, said in words rather than left blank."""
    return Answer("", f"no claim: nothing read in v{version} answers this", "", "", "")


def _answer(data: SiteData, link: Linker, claim: Claim, names: dict[int, str],
            sides: sdk_matrix.Sides, may_depart: bool, specified: list[Claim]) -> Answer:
    """A claim's cell entry. It is marked as departing from the specification only through a
    conflict whose other side holds a verified claim of this row's specification cells about
    a version the claim's build speaks: the spec's own answer to this row, not a neighbour's."""
    cite = common.cite(data, link, claim)
    verdict = _VERDICT_SUBJECT.match(claim.subject.strip())
    text = f"a2a-tck {verdict.group(2)}: {claim.answer}" if verdict else answer_text(claim, names)
    row_spec = {c.id for c in specified if set(c.versions) & set(claim.versions)
                and data.verdict(c.id) == "verified"}
    found = sdk_matrix._departures(data, link, claim, sides) if may_depart else []
    departs = [d.conflict for d in found if set(d.against) & row_spec]
    evidence = _evidence(data, link, claim)
    if verdict:  # the suite's reasons per transport are in the requirement's row below
        anchor = f"req-{verdict.group(2).lower()}"
        evidence = [Evidence(f"{verdict.group(2)} below", f"#{anchor}", claim.source, (0, 0),
                             f"{page_url(paths.CONFORMANCE, link.use_directory_urls)}#{anchor}")]
    return Answer(claim.id, text, claim.statement, cite.verdict, cite.href, evidence, departs)


def document(data: SiteData, use_directory_urls: bool = True) -> dict[str, Any]:
    """The matrix as the JSON API serves it (api/v1/conformance.json)."""
    link = Linker(paths.CONFORMANCE, use_directory_urls)
    found = matrix(data, link)
    return {
        "columns": [{"key": c.key, "kind": c.kind, "title": c.title, "note": c.note} for c in found.columns],
        "rows": [
            {"behaviour": r.behaviour, "label": r.label,
             "cells": {col.key: [{"claim": a.claim, "answer": a.text, "verdict": a.verdict,
                                  "differs_from_spec": a.departs,
                                  "evidence": [{"source": e.source, "lines": list(e.lines), "url": e.url}
                                               for e in a.evidence]}
                                 for a in cell if a.claim]
                       for col, cell in zip(found.columns, r.cells, strict=True)
                       if any(a.claim for a in cell)}}
            for r in found.rows
        ],
        "requirements": requirements.document(data, link),
    }


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.CONFORMANCE, use_directory_urls)
    found = matrix(data, link)
    return render("site/conformance.md.j2", matrix=found, link=link, paths=paths,
                  requirements=requirements.rows(data, link), builds=requirements.BUILDS,
                  spec_versions=requirements.SPEC_VERSIONS)
