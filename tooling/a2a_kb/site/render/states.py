"""State tables: one page per version, and one for the latest release with a version matrix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ...records.model import Claim, Version
from .. import paths
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common
from .common import Cite

# Columns of spellings, in the order the bindings appeared in A2A's history.
_BINDING_ORDER = ("json", "grpc", "proto", "spec", "docs")
_CLASS_ORDER = ("active", "interrupted", "terminal", "not-interrupted-or-terminal",
                "not-interrupted", "not-terminal", "unclassified")


@dataclass
class SourceCell:
    source: str
    href: str
    lines: list[int]
    cites: list[Cite]


@dataclass
class Spelling:
    binding: str
    spelling: str
    href: str
    cites: list[Cite]


@dataclass
class Statement:
    """A claim shown by its own words in a cell (who sets a state, what a client does)."""

    cite: Cite
    statement: str


@dataclass
class ConflictLink:
    id: str
    href: str


@dataclass
class Row:
    name: str
    anchor: str
    number: int | None
    number_href: str
    description: str
    disagreement: bool
    spellings: dict[str, Spelling]
    classes: dict[str, list[SourceCell]]  # class → the sources that give it
    cites: list[Cite]
    conflicts: list[ConflictLink] = field(default_factory=list)  # the register's, about this state
    set_by: list[Statement] = field(default_factory=list)
    client_next: list[Statement] = field(default_factory=list)


@dataclass
class Table:
    version: Version
    page: str
    bindings: list[str]
    sources: list[str]
    rows: list[Row]
    mermaid: Markup
    unclassified: list[str]
    roles_known: bool
    set_cites: list[Cite]

    @property
    def count(self) -> int:
        return len(self.rows)


def binding_of(data: SiteData, source_id: str) -> str:
    """The binding a source's spellings stand for (as :mod:`a2a_kb.knowledge.states` keys them)."""
    source = data.kb.sources[source_id]
    if source.kind == "json-schema":
        return "json"
    if source.kind == "proto":
        return "proto" if source.path == "specification/a2a.proto" else "grpc"
    return source.kind


def _statements(data: SiteData, link: Linker, claims: list[Claim]) -> list[Statement]:
    return [Statement(common.cite(data, link, c), c.statement) for c in claims]


def _row(data: SiteData, link: Linker, version: str, table: dict[str, Any], raw: dict[str, Any]) -> Row:
    state = raw["name"]
    evidence: dict[str, dict[str, Any]] = raw.get("evidence", {})
    by_binding = {binding_of(data, sid): sid for sid in table["sources"] if sid in evidence}
    spellings = {}
    for binding, spelling in raw.get("spellings", {}).items():
        sid = by_binding.get(binding, "")
        where = evidence.get(sid, {})
        cites = [common.cite(data, link, c)
                 for c in common.about_value(data, version, sid, spelling)] if sid else []
        spellings[binding] = Spelling(binding, spelling, str(where.get("permalink", "")), cites)
    classes: dict[str, list[SourceCell]] = {}
    for sid, cls in raw.get("stated", raw.get("class", {})).items():
        where = evidence.get(sid, {})
        cites = [common.cite(data, link, c) for c in common.about_class(data, version, state, sid)]
        classes.setdefault(cls, []).append(
            SourceCell(sid, str(where.get("permalink", "")), list(where.get("lines", [])), cites))
    numbering = next((sid for sid in table["sources"]
                      if data.kb.sources[sid].kind == "proto" and sid in evidence), "")
    return Row(
        name=state,
        anchor=paths.state_anchor(state),
        number=raw.get("number"),
        number_href=str(evidence.get(numbering, {}).get("permalink", "")) if numbering else "",
        description=str(raw.get("description", "")),
        disagreement=bool(raw.get("disagreement")),
        spellings=spellings,
        classes={k: classes[k] for k in sorted(classes, key=_class_rank)},
        cites=[common.cite(data, link, c) for c in common.about_state(data, version, state)],
        conflicts=[ConflictLink(cid, link.page(paths.CONFLICTS, paths.conflict_anchor(cid)))
                   for cid in raw.get("conflicts", [])],
        set_by=_statements(data, link, common.with_role(data, version, state, "set-by")),
        client_next=_statements(data, link, common.with_role(data, version, state, "client-next")),
    )


def _class_rank(cls: str) -> int:
    return _CLASS_ORDER.index(cls) if cls in _CLASS_ORDER else len(_CLASS_ORDER)


def mermaid(model: dict[str, Any]) -> tuple[Markup, list[str]]:
    """A stateDiagram of one version's lifecycle model, and the states it leaves out.

    Only the transitions the model lists are drawn; states with no class (the proto's zero
    value, ``unknown``) take part in none and are named below the diagram instead.
    """
    from ..escape import mermaid_id

    states = model.get("states", [])
    drawn = [s for s in states if s.get("class") != "unclassified"]
    names = {s["name"] for s in drawn}
    lines = ["stateDiagram-v2", "    direction LR"]
    for s in drawn:
        label = "".join(ch for ch in str(s["name"]) if ch.isalnum() or ch == "-")
        lines.append(f'    state "{label}" as {mermaid_id(s["name"])}')
    if "submitted" in names:
        lines.append("    [*] --> submitted")
    for move in model.get("transitions", []):
        if move.get("from") in names and move.get("to") in names:
            lines.append(f"    {mermaid_id(move['from'])} --> {mermaid_id(move['to'])}")
    for s in drawn:
        if s.get("class") == "terminal":
            lines.append(f"    {mermaid_id(s['name'])} --> [*]")
    for cls in ("interrupted", "terminal"):
        members = [mermaid_id(s["name"]) for s in drawn if s.get("class") == cls]
        if members:
            lines.append(f"    class {','.join(members)} {cls}")
    lines.append("    classDef interrupted stroke-width:3px,stroke-dasharray:4 3")
    lines.append("    classDef terminal stroke-width:3px")
    left_out = [str(s["name"]) for s in states if s.get("class") == "unclassified"]
    # Marked safe for the template: every id and label above went through mermaid_id or a
    # letters-digits-hyphens filter, and the fence escapes what it holds once more.
    return Markup("\n".join(lines)), left_out


def table(data: SiteData, version: Version, page: str, link: Linker) -> Table:
    raw = data.tables[version.id]
    rows = [_row(data, link, version.id, raw, r) for r in raw["states"]]
    present = {b for r in rows for b in r.spellings}
    bindings = [b for b in _BINDING_ORDER if b in present] + sorted(present - set(_BINDING_ORDER))
    model = data.lifecycle.get("versions", {}).get(version.id, {})
    diagram, left_out = mermaid(model)
    roles_known = any(r.set_by or r.client_next for r in rows)
    set_cites = [common.cite(data, link, c) for c in common.about_set(data, version.id, list(raw["sources"]))]
    return Table(version, page, bindings, list(raw["sources"]), rows, diagram, left_out, roles_known,
                 set_cites)


def _neighbours(data: SiteData, version: Version) -> tuple[Version | None, Version | None]:
    ordered = data.versions
    i = [v.id for v in ordered].index(version.id)
    return (ordered[i - 1] if i > 0 else None, ordered[i + 1] if i + 1 < len(ordered) else None)


def version_page(data: SiteData, version: Version, use_directory_urls: bool = True) -> str:
    page = paths.state_table(version.id)
    link = Linker(page, use_directory_urls)
    before, after = _neighbours(data, version)
    return render(
        "site/state-table.md.j2",
        t=table(data, version, page, link),
        link=link,
        paths=paths,
        data=data,
        latest=data.kb.latest,
        before=before,
        after=after,
        dated=data.dates.get(version.id),
    )


@dataclass
class Presence:
    version: Version
    href: str
    cells: dict[str, str]  # state → the spelling of its first binding in that version


def index_page(data: SiteData, use_directory_urls: bool = True) -> str:
    page = paths.STATES_INDEX
    link = Linker(page, use_directory_urls)
    latest = data.kb.latest
    matrix = []
    order: list[str] = []
    for v in data.versions:
        cells = {}
        for r in data.tables[v.id]["states"]:
            if r["name"] not in order:
                order.append(r["name"])
            spellings = r.get("spellings", {})
            cells[r["name"]] = next(iter(spellings.values()), r["name"])
        matrix.append(Presence(v, link.page(paths.state_table(v.id)), cells))
    from ...facts import CANONICAL_STATES

    order.sort(key=lambda s: CANONICAL_STATES.index(s) if s in CANONICAL_STATES else len(CANONICAL_STATES))
    return render(
        "site/states-index.md.j2",
        t=table(data, latest, page, link),
        link=link,
        paths=paths,
        data=data,
        latest=latest,
        matrix=matrix,
        order=order,
    )


def pages(data: SiteData, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    result = [(paths.STATES_INDEX, index_page(data, use_directory_urls))]
    for v in data.versions:
        result.append((paths.state_table(v.id), version_page(data, v, use_directory_urls)))
    return result
