"""The SDK behaviour matrix: one row per behaviour, one column per specification version and
per SDK, each cell holding the claims that say what that version or SDK does.

Everything in a cell comes from the records. SDK cells hold the claims whose subject is
`sdk:<sdk>/<behaviour>` (claims/sdk-behaviour.yaml documents the keys). Specification
cells hold the primary claims those SDK claims name in `related` (or that name them), for
each version the claim is about, plus the conflicts of the row whose sides hold claims about
that version. A verified SDK claim departs from the specification when the conflict
register puts it on a side of a conflict that no specification claim about its versions
takes, while such claims sit on the other sides; an unverifiable one never does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...records.model import Claim
from .. import paths
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common, sdk_timeline
from .common import Cite, capture_href, scenario_of, sdk_subject
from .sdk_timeline import BEHAVIOURS

# The claim that says which SDK release the captures ran: it heads the SDK's column.
SDK_VERSION = "sdk-version"
# The matrix compares the SDKs with the last 0.x release and every version after it.
FIRST_VERSION = "0.3.0"


def is_specification(data: SiteData, claim: Claim) -> bool:
    """A claim about what the specification says: primary, not about an SDK, not read off a
    capture, an SDK's code or the conformance suite."""
    source = data.kb.sources.get(claim.source)
    return (sdk_subject(claim) is None and data.authority(claim.id) == "primary"
            and (source is None or source.kind not in ("capture", "sdk", "test-suite")))


@dataclass
class CaptureLink:
    scenario: str
    href: str

    @property
    def label(self) -> str:
        """The scenario's number (`04`), short enough for a cell; else its name."""
        number = self.scenario.rsplit("/", 1)[-1].split("-", 1)[0]
        return number if number.isdigit() else self.scenario


@dataclass
class Departure:
    """A conflict where the register puts an SDK claim on a side that no specification
    claim about its versions takes."""

    conflict: str
    href: str
    title: str
    against: list[str]  # the specification claims on the other sides


@dataclass
class Entry:
    cite: Cite
    statement: str
    captures: list[CaptureLink]
    departures: list[Departure]
    since: str = ""  # the release it was read at, for a claim read from an SDK's source


@dataclass
class ConflictChip:
    id: str
    href: str
    title: str
    claims: list[str]  # the specification claims of this version on its sides


@dataclass
class Cell:
    entries: list[Entry] = field(default_factory=list)
    conflicts: list[ConflictChip] = field(default_factory=list)
    ranges: list[sdk_timeline.Range] = field(default_factory=list)  # read from source

    @property
    def departures(self) -> list[Departure]:
        seen: dict[str, Departure] = {}
        for e in self.entries:
            for d in e.departures:
                seen.setdefault(d.conflict, d)
        return list(seen.values())

    @property
    def empty(self) -> bool:
        return not self.entries and not self.conflicts


@dataclass
class Column:
    key: str
    kind: str  # "spec" or "sdk"
    title: str
    href: str
    note: str
    note_href: str = ""


@dataclass
class Row:
    behaviour: str
    label: str
    anchor: str
    cells: list[Cell]


# A phone shows each row as a card, and a card off the screen is laid out only when it comes
# near (tables.css); until then its height is this estimate, in ems of the card's text. It
# must never fall short (a tool that measures a card early would see its contents spill over
# the next one), so it counts lines as a 320 px screen breaks them, rounded up: a claim id
# breaks at about 15 characters, a label of more than 12 wraps in its 7.6em column.
CARD_LINE = 1.4  # em per line of a cell
CARD_HEAD = 5.8  # the behaviour's name and key, the card's border and its gap to the next
ID_CHARS = 15
LABEL_CHARS = 12


def _cell_lines(cell: Cell, title: str) -> tuple[int, int]:
    """How many lines a cell's contents and its label take on a card."""
    lines = 1 if cell.empty else 0
    lines += sum(math.ceil((len(e.cite.id) + 3) / ID_CHARS) for e in cell.entries)
    lines += sum(math.ceil((len(e.since) + 3) / ID_CHARS) for e in cell.entries if e.since)
    lines += sum(math.ceil((len(r.label) + len(r.answer) + 2) / ID_CHARS) for r in cell.ranges)
    badges = sum(len(e.captures) for e in cell.entries)
    lines += math.ceil(badges * 3 / ID_CHARS) + math.ceil(len(cell.conflicts) * 4 / ID_CHARS)
    lines += 2 if cell.departures else 0
    return lines, math.ceil(len(title) / LABEL_CHARS)


@dataclass
class Matrix:
    columns: list[Column]
    rows: list[Row]

    def card_height(self, row: Row) -> float:
        """An upper bound of `row`'s card height on a phone, in ems (see `CARD_LINE`);
        tests/test_browser_site.py measures every card against it."""
        height = CARD_HEAD
        for col, cell in zip(self.columns, row.cells, strict=True):
            lines, label = _cell_lines(cell, col.title)
            height += 0.75 + max(lines * CARD_LINE, label * 1.62) + 0.15 * len(cell.entries)
        return math.ceil(height * 1.05 + 1)

    def departures(self) -> list[tuple[Row, Column, Entry]]:
        return [(row, col, e) for row in self.rows for col, cell in zip(self.columns, row.cells, strict=True)
                for e in cell.entries if e.departures]


Sides = dict[str, list[list[str]]]  # conflict id → each side's claim ids


def _sides(data: SiteData) -> Sides:
    """Each conflict's sides as lists of claim ids."""
    return {c.id: [list(s.claims) for s in c.sides] for c in data.kb.conflicts.values()}


def _specified(data: SiteData, side: list[str], versions: list[str]) -> list[str]:
    """The specification claims on a side that are about one of `versions`."""
    return [cid for cid in side if cid in data.kb.claims and is_specification(data, data.kb.claims[cid])
            and set(data.kb.claims[cid].versions) & set(versions)]


def _departures(data: SiteData, link: Linker, claim: Claim, sides: Sides) -> list[Departure]:
    # Only a verified claim can show a departure: a note nobody can check here (an
    # unverifiable reading of an SDK's source) is no evidence that the SDK departs.
    if data.verdict(claim.id) != "verified":
        return []
    result = []
    for cid in claim.conflicts:
        conflict = data.kb.conflicts.get(cid)
        if conflict is None:
            continue
        mine = {i for i, side in enumerate(sides[cid]) if claim.id in side}
        backed = [i for i in mine if _specified(data, sides[cid][i], claim.versions)]
        against = sorted({other for i, side in enumerate(sides[cid]) if i not in mine
                          for other in _specified(data, side, claim.versions)})
        # A side the specification itself takes for these versions is no departure, even
        # when another passage of the specification takes another side.
        if mine and not backed and against:
            result.append(Departure(cid, link.page(paths.CONFLICTS, paths.conflict_anchor(cid)),
                                    conflict.title or conflict.question, against))
    return result


def _captures(data: SiteData, link: Linker, claim: Claim) -> list[CaptureLink]:
    result = data.results.get(claim.id)
    first_line: dict[str, int] = {}
    for fact in result.evidence if result else []:
        if fact.line_start and (fact.source not in first_line or fact.line_start < first_line[fact.source]):
            first_line[fact.source] = fact.line_start
    links = []
    for sid in sorted(common.claim_sources(data, claim)):
        source = data.kb.sources.get(sid)
        if source is None or source.kind != "capture" or sid not in data.transcripts:
            continue
        links.append(CaptureLink(scenario_of(source), capture_href(link, source, first_line.get(sid, 0))))
    return links


def _spec_claims(data: SiteData, sdk_claims: list[Claim]) -> list[Claim]:
    """Specification claims linked to the row's SDK claims by `related`, either way."""
    ids = {c.id for c in sdk_claims}
    found = {rid for c in sdk_claims for rid in c.related}
    found |= {c.id for c in data.kb.claims.values() if ids & set(c.related)}
    return sorted((data.kb.claims[i] for i in found
                   if i in data.kb.claims and is_specification(data, data.kb.claims[i])),
                  key=lambda c: c.id)


def _conflict_chips(data: SiteData, link: Linker, sdk_claims: list[Claim], version: str,
                    sides: Sides) -> list[ConflictChip]:
    named = sorted({cid for c in sdk_claims for cid in c.conflicts if cid in data.kb.conflicts},
                   key=lambda cid: list(data.kb.conflicts).index(cid))
    chips = []
    for cid in named:
        about = sorted({other for side in sides[cid] for other in side
                        if other in data.kb.claims and is_specification(data, data.kb.claims[other])
                        and version in data.kb.claims[other].versions})
        if about:
            conflict = data.kb.conflicts[cid]
            chips.append(ConflictChip(cid, link.page(paths.CONFLICTS, paths.conflict_anchor(cid)),
                                      conflict.title or conflict.question, about))
    return chips


def _columns(data: SiteData, link: Linker, sdk_claims: dict[str, list[Claim]]) -> list[Column]:
    ids = [v.id for v in data.versions]
    start = ids.index(FIRST_VERSION) if FIRST_VERSION in ids else 0
    columns = []
    for v in data.versions[start:]:
        dated = data.dates.get(v.id)
        note, note_href = (f"{dated.what} {dated.date}", dated.permalink) if dated else ("", "")
        columns.append(Column(v.id, "spec", v.title, link.page(paths.version_page(v.id)), note, note_href))
    # An SDK column is "observed" when its claims rest on captures; the releases are those the
    # captures' headers name (one SDK key per build, so a2a-python@0.3 is its own column).
    observed: dict[str, set[str]] = {}
    for sdk, claims in sdk_claims.items():
        for claim in claims:
            for build in common.observed_builds(data, claim):
                observed.setdefault(sdk, set()).add(f"{build['package']} {build['version']}".strip())
    read = {sdk: {r for c in claims if (r := sdk_timeline.read_from_source(data, c))}
            for sdk, claims in sdk_claims.items()}
    for sdk in sorted(sdk_claims, key=lambda s: (s not in observed, s)):
        version_claim = next((c for c in sdk_claims[sdk] if sdk_subject(c) == (sdk, SDK_VERSION)), None)
        note_href = link.page(paths.CLAIMS, paths.claim_anchor(version_claim.id)) if version_claim else ""
        notes = []
        if sdk in observed:
            notes.append(f"observed: {', '.join(sorted(observed[sdk]))}")
        if read[sdk]:
            notes.append(f"read from source: {len(read[sdk])} releases")
        note = "; ".join(notes) or "from claims; not run here"
        href = link.page(paths.sdk_page(sdk)) if read[sdk] else ""
        columns.append(Column(sdk, "sdk", sdk, href, note, note_href))
    return columns


def matrix(data: SiteData, link: Linker) -> Matrix:
    by_sdk: dict[str, list[Claim]] = {}
    by_row: dict[str, dict[str, list[Claim]]] = {}
    for claim in sorted(data.kb.claims.values(), key=lambda c: (c.file, c.mark.line, c.id)):
        found = sdk_subject(claim)
        if found is None:
            continue
        sdk, behaviour = found
        by_sdk.setdefault(sdk, []).append(claim)
        if behaviour != SDK_VERSION:
            by_row.setdefault(behaviour, {}).setdefault(sdk, []).append(claim)
    columns = _columns(data, link, by_sdk)
    sides = _sides(data)
    since = sdk_timeline.releases_read(data)
    ranges = sdk_timeline.cell_ranges(data, link)
    order = list(BEHAVIOURS)
    rows = []
    for behaviour in sorted(by_row, key=lambda b: (order.index(b) if b in order else len(order), b)):
        claims_of = by_row[behaviour]
        everyone = [c for claims in claims_of.values() for c in claims]
        specified = _spec_claims(data, everyone)
        cells = []
        for col in columns:
            if col.kind == "spec":
                entries = [Entry(common.cite(data, link, c), c.statement, [], [])
                           for c in specified if col.key in c.versions]
                cells.append(Cell(entries, _conflict_chips(data, link, everyone, col.key, sides)))
            else:
                cells.append(Cell([Entry(common.cite(data, link, c), c.statement, _captures(data, link, c),
                                         _departures(data, link, c, sides), since.get(c.id, ""))
                                   for c in claims_of.get(col.key, [])],
                                  ranges=ranges.get((col.key, behaviour), [])))
        label = BEHAVIOURS.get(behaviour, behaviour)
        rows.append(Row(behaviour, label, paths.behaviour_anchor(behaviour), cells))
    return Matrix(columns, rows)


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.SDK_MATRIX, use_directory_urls)
    found = matrix(data, link)
    captures = common.capture_sources(data)
    return render("site/sdk-matrix.md.j2", matrix=found, link=link, paths=paths,
                  captures=[(scenario_of(s), s.title, capture_href(link, s)) for s in captures])
