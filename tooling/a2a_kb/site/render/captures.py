"""One page per capture transcript: the exchange as it happened on the wire, the facts the
extractor reads from it (with their lines), and the claims that rest on it.

The transcript is cut into its entries with the same parser the extractor uses
(`a2a_kb.capture.transcript.parse`), so each block on the page starts at the line
a fact points to. Every line keeps its number in the file and an anchor (`#L97`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ...capture.transcript import Event, Located, Note, Reply, Request, StreamEnd, parse
from ...records.model import Claim, Source
from .. import paths, ranking
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common
from .common import Cite, scenario_of
from .sdk_matrix import BEHAVIOURS, SDK_VERSION


@dataclass
class Line:
    number: int
    text: str

    @property
    def anchor(self) -> str:
        return paths.line_anchor(self.number)


@dataclass
class Block:
    """One entry of the transcript: its first line as a label, the rest as code."""

    kind: str  # request, reply, event, close, note
    label: Line
    body: list[Line]
    heading: str = ""  # for a request: "1 · SendStreamingMessage (stream)"
    request: int = 0


@dataclass
class FactRow:
    key: str
    value: str
    lines: str
    href: str


@dataclass
class Resting:
    """A claim that rests on the capture, and its row in the matrix."""

    cite: Cite
    statement: str
    row_href: str
    row_label: str


@dataclass
class CaptureView:
    source: Source
    scenario: str
    title: str
    sdk: str
    header: list[Line]
    blocks: list[Block]
    closes: list[Block]
    facts: list[FactRow]
    claims: list[Resting]


def _kind(located: Located) -> str:
    entry = located.entry
    if isinstance(entry, Request):
        return "request"
    if isinstance(entry, Reply):
        return "reply"
    if isinstance(entry, Event):
        return "event"
    if isinstance(entry, StreamEnd):
        return "close"
    return "note" if isinstance(entry, Note) else "other"


def _blocks(lines: list[str], entries: list[Located]) -> list[Block]:
    blocks = []
    for located in entries:
        numbered = [Line(n, lines[n - 1]) for n in range(located.line_start, located.line_end + 1)]
        entry = located.entry
        if isinstance(entry, Request):
            heading = f"{entry.number} · {entry.method} ({'stream' if entry.stream else 'call'})"
            blocks.append(Block("request", numbered[0], numbered[1:], heading, entry.number))
        else:
            blocks.append(Block(_kind(located), numbered[0], numbered[1:]))
    return blocks


def _facts(data: SiteData, link: Linker, source: Source) -> list[FactRow]:
    found = [f for facts in data.facts(source).values() for f in facts]
    found.sort(key=lambda f: (f.line_start, f.line_end, f.key))
    rows = []
    for fact in found:
        span = (f"L{fact.line_start}" if fact.line_end in (0, fact.line_start)
                else f"L{fact.line_start}–L{fact.line_end}") if fact.line_start else ""
        href = link.page(paths.capture_page(scenario_of(source)), paths.line_anchor(fact.line_start)) \
            if fact.line_start else ""
        rows.append(FactRow(fact.key, json.dumps(fact.value, sort_keys=True, ensure_ascii=False), span, href))
    return rows


def resting_on(data: SiteData, source: Source) -> list[Claim]:
    """The claims that cite the capture, as their source or in one of their checks."""
    return sorted((c for c in data.kb.claims.values() if source.id in common.claim_sources(data, c)),
                  key=lambda c: (c.file, c.mark.line, c.id))


def view(data: SiteData, link: Linker, source: Source, text: str) -> CaptureView:
    parsed = parse(text)
    lines = text.splitlines()
    first = parsed.entries[0].line_start if parsed.entries else len(lines) + 1
    header = [Line(n, lines[n - 1]) for n in range(1, first) if lines[n - 1].strip()]
    blocks = _blocks(lines, parsed.entries)
    claims = []
    for c in resting_on(data, source):
        subject = common.sdk_subject(c)
        if subject is None:
            where, label = "", ""
        elif subject[1] == SDK_VERSION:  # heads the SDK's column, not a row
            where, label = paths.sdk_anchor(subject[0]), f"the {subject[0]} column"
        else:
            where, label = paths.behaviour_anchor(subject[1]), BEHAVIOURS.get(subject[1], subject[1])
        claims.append(Resting(common.cite(data, link, c), c.statement,
                              link.page(paths.SDK_MATRIX, where) if where else "", label))
    return CaptureView(
        source=source,
        scenario=parsed.scenario or scenario_of(source),
        title=parsed.title,
        sdk=f"{parsed.sdk_package} {parsed.sdk_version}".strip(),
        header=header,
        blocks=blocks,
        closes=[b for b in blocks if b.kind == "close"],
        facts=_facts(data, link, source),
        claims=claims,
    )


def part_names(data: SiteData) -> list[str]:
    """A page per capture, by its source id, in the order of their scenarios."""
    return [s.id for s in common.capture_sources(data)]


def part(data: SiteData, source_id: str, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    source = data.kb.sources[source_id]
    page = paths.capture_page(scenario_of(source))
    link = Linker(page, use_directory_urls)
    shown = view(data, link, source, data.transcripts[source.id])
    return [(page, render("site/capture.md.j2", c=shown, link=link, paths=paths,
                          boost=ranking.boost("capture")))]


def pages(data: SiteData, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    return [page for name in part_names(data) for page in part(data, name, use_directory_urls)]
