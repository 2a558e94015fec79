"""State tables: one page per version, and one for the latest release with a version matrix.

Why it is long: a version's state table, its diagram and the index's version matrix are
built from the same rows, cells and citations; the matrix and the diagram are views of the
table's rows, so they are kept with the types they read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ...extract.lifecycle import NOT_NAMED, classes_disagree
from ...records.model import Claim, Version
from .. import paths, ranking
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common
from .common import Cite

# Columns of spellings, in the order the bindings appeared in A2A's history, and what each
# binding's spellings are read from, as a reader would name it.
_BINDING_ORDER = ("json", "grpc", "proto", "spec", "docs")
BINDING_TITLES = {
    "json": "JSON schema",
    "grpc": "gRPC .proto",
    "proto": "a2a.proto",
    "spec": "specification text",
    "docs": "docs",
}
_CLASS_ORDER = ("active", "interrupted", "terminal", "not-interrupted-or-terminal",
                "not-interrupted", "not-terminal", "unclassified")


def binding_title(binding: str) -> str:
    return BINDING_TITLES.get(binding, binding)


@dataclass(frozen=True)
class BindingCount:
    """How many values one binding of a version spells, and which of them name no state."""

    binding: str
    title: str
    count: int
    named: int
    sentinels: tuple[str, ...]  # as this binding spells them


@dataclass(frozen=True)
class Count:
    """What a count of a version's values counts, so that two counts that meet on a page
    can say why they differ: the union of the bindings against one binding, with or
    without the values that name no state (`unknown`, `TASK_STATE_UNSPECIFIED`)."""

    total: int
    named: int
    bindings: tuple[BindingCount, ...]

    @property
    def union(self) -> bool:
        """Whether some binding spells fewer values than the version has in all."""
        return any(b.count != self.total for b in self.bindings)

    @property
    def same_in_each(self) -> bool:
        """Whether every binding spells as many values as every other."""
        return len({b.count for b in self.bindings}) <= 1

    @property
    def sentinels(self) -> tuple[str, ...]:
        """The values that name no state, each spelling once, in the bindings' order."""
        seen: list[str] = []
        for b in self.bindings:
            seen.extend(s for s in b.sentinels if s not in seen)
        return tuple(seen)

    def readings(self) -> list[tuple[int, tuple[str, ...]]]:
        """The smaller counts a reader may meet for this version, largest first: one
        binding's count where it differs from the total (with the bindings that have it),
        then the count of the values that name a state (no bindings) where that differs."""
        found: dict[int, list[str]] = {}
        for b in self.bindings:
            if b.count != self.total:
                found.setdefault(b.count, []).append(b.title)
        result = [(n, tuple(titles)) for n, titles in sorted(found.items(), reverse=True)]
        if self.named != self.total and self.named not in found:
            result.append((self.named, ()))
        return result


def count_of(raw: dict[str, Any]) -> Count:
    """The `Count` of a state table in the JSON shape of `a2a-kb states`."""
    rows = raw.get("states", [])
    present = {b for r in rows for b in r.get("spellings", {})}
    ordered = [b for b in _BINDING_ORDER if b in present] + sorted(present - set(_BINDING_ORDER))
    bindings = []
    for b in ordered:
        spelled = [(r["name"], r["spellings"][b]) for r in rows if b in r.get("spellings", {})]
        sentinels = tuple(str(spelling) for name, spelling in spelled if name in NOT_NAMED)
        bindings.append(BindingCount(b, binding_title(b), len(spelled), len(spelled) - len(sentinels),
                                     sentinels))
    named = sum(1 for r in rows if r["name"] not in NOT_NAMED)
    return Count(len(rows), named, tuple(bindings))


@dataclass
class SourceCell:
    source: str
    href: str
    lines: list[int]
    cites: list[Cite]
    words: str = ""  # the source's own words for the class, quoted from `lines`
    also: list[tuple[int, str]] = field(default_factory=list)  # other lines saying the same


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
class SetCite:
    """A claim about the value set as a whole, with the binding its source spells."""

    cite: Cite
    where: str  # e.g. "JSON schema"; '' when the source spells no binding


@dataclass
class Edge:
    """One move of the lifecycle model, and the claims that give its two ends their class."""

    source: str
    target: str
    source_class: str
    target_class: str
    cites: list[Cite]


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
    set_cites: list[SetCite]
    counting: Count
    edges: list[Edge]
    grouped: bool  # the diagram draws "any state that goes on → any terminal state" once

    @property
    def count(self) -> int:
        return len(self.rows)

    def binding_title(self, binding: str) -> str:
        return binding_title(binding)

    def in_class(self, cls: str) -> list[Row]:
        """The rows some source of this version gives `cls`, in table order: the one-line
        summary atop the table, read from the same cells the table shows."""
        return [r for r in self.rows if cls in r.classes]


def binding_of(data: SiteData, source_id: str) -> str:
    """The binding a source's spellings stand for (as [`a2a_kb.knowledge.states`][a2a_kb.knowledge.states]
    keys them)."""
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
    classes = _class_cells(data, link, version, state, raw)
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


def _class_cells(data: SiteData, link: Linker, version: str, state: str,
                 raw: dict[str, Any]) -> dict[str, list[SourceCell]]:
    """Class → the sources that give it, each with its own words; a source whose passages
    give two classes stands in both groups (the row is then flagged)."""
    evidence: dict[str, dict[str, Any]] = raw.get("evidence", {})
    readings: dict[str, list[dict[str, Any]]] = raw.get("readings", {})
    every = [str(r["class"]) for found in readings.values() for r in found]
    classes: dict[str, list[SourceCell]] = {}
    for sid, cls in raw.get("stated", raw.get("class", {})).items():
        cites = [common.cite(data, link, c) for c in common.about_class(data, version, state, sid)]
        # a passage past the first is shown where it disagrees: that is what it adds
        found = [r for i, r in enumerate(readings.get(sid, []))
                 if i == 0 or any(classes_disagree(str(r["class"]), c) for c in every)]
        found = found or [{"class": cls, "words": "", **evidence.get(sid, {})}]
        cells: dict[tuple[str, str], SourceCell] = {}
        for r in found:
            key = (str(r["class"]), str(r.get("words", "")))
            if key in cells:
                cells[key].also.append((int(r["lines"][0]), str(r["permalink"])))
                continue
            cells[key] = SourceCell(sid, str(r.get("permalink", "")), list(r.get("lines", [])),
                                    cites if not cells else [], key[1])
            classes.setdefault(key[0], []).append(cells[key])
    return classes


def _class_rank(cls: str) -> int:
    return _CLASS_ORDER.index(cls) if cls in _CLASS_ORDER else len(_CLASS_ORDER)


def _free_id(wanted: str, taken: set[str]) -> str:
    """`wanted`, or `wanted_2` … when a state of the model already has that id."""
    ident, n = wanted, 1
    while ident in taken:
        n += 1
        ident = f"{wanted}_{n}"
    taken.add(ident)
    return ident


def mermaid(model: dict[str, Any]) -> tuple[Markup, list[str], bool]:
    """A stateDiagram of one version's lifecycle model, the states it leaves out, and whether
    it drew the moves into terminal states as one edge.

    The model allows a move from every state that goes on into every terminal state; drawn
    one by one those edges are most of the picture (16 of the 25 moves of v1.0) and hide the rest.
    So the terminal states sit in one box, and a state that may end in every one of them
    gets one edge into the box; when every such state may, they sit in a box of their own
    and a single edge joins the two. Every move still has its row in the table below the
    diagram. States with no class (the proto's zero value, `unknown`) take part in no move
    and are named below the diagram instead.
    """
    from ..escape import mermaid_id

    states = model.get("states", [])
    drawn = [s for s in states if s.get("class") != "unclassified"]
    names = [str(s["name"]) for s in drawn]
    ids = {name: mermaid_id(name) for name in names}
    taken = set(ids.values())
    terminal = [str(s["name"]) for s in drawn if s.get("class") == "terminal"]
    going = [n for n in names if n not in terminal]
    moves = [(str(m["from"]), str(m["to"])) for m in model.get("transitions", [])
             if m.get("from") in ids and m.get("to") in ids]
    allowed = set(moves)
    ends_anywhere = [a for a in going if terminal and all((a, t) in allowed for t in terminal)]
    grouped = bool(going) and ends_anywhere == going
    ends_box = _free_id("terminal_states", taken) if terminal else ""
    going_box = _free_id("states_that_go_on", taken) if grouped else ""

    def declare(name: str, indent: str) -> str:
        label = "".join(ch for ch in name if ch.isalnum() or ch == "-")
        return f'{indent}state "{label}" as {ids[name]}'

    lines = ["stateDiagram-v2", "    direction LR"]
    inner = "        " if grouped else "    "
    if grouped:
        lines.append(f'    state "states that go on" as {going_box} {{')
    lines.extend(declare(n, inner) for n in going)
    if "submitted" in going:
        lines.append(f"{inner}[*] --> {ids['submitted']}")
    for a, b in moves:
        if a in going and b in going:
            lines.append(f"{inner}{ids[a]} --> {ids[b]}")
    if grouped:
        lines.append("    }")
    if terminal:
        lines.append(f'    state "terminal: no way out" as {ends_box} {{')
        lines.append("        direction LR")  # no edges inside: LR stacks them in a column
        lines.extend(declare(n, "        ") for n in terminal)
        lines.append("    }")
    if grouped:
        lines.append(f"    {going_box} --> {ends_box} : any of them, into any terminal state")
    for a in going:
        if grouped:
            break
        if a in ends_anywhere:
            lines.append(f"    {ids[a]} --> {ends_box} : into any terminal state")
        else:
            lines.extend(f"    {ids[a]} --> {ids[t]}" for t in terminal if (a, t) in allowed)
    # Moves out of a terminal state break the model's own rule; drawn one by one if any.
    lines.extend(f"    {ids[a]} --> {ids[b]}" for a, b in moves if a in terminal)
    if terminal:
        lines.append(f"    {ends_box} --> [*]")
    for cls in ("interrupted", "terminal"):
        members = [ids[str(s["name"])] for s in drawn if s.get("class") == cls]
        if members:
            lines.append(f"    class {','.join(members)} {cls}")
    lines.append("    classDef interrupted stroke-width:3px,stroke-dasharray:4 3")
    lines.append("    classDef terminal stroke-width:3px")
    left_out = [str(s["name"]) for s in states if s.get("class") == "unclassified"]
    # Marked safe for the template: every id and label above went through mermaid_id or a
    # letters-digits-hyphens filter, the edge labels are the constants above, and the
    # fence escapes what it holds once more.
    return Markup("\n".join(lines)), left_out, grouped


def _edges(model: dict[str, Any], rows: list[Row]) -> list[Edge]:
    """Every move of the model, each with the claims that give its two ends the class the
    model settled on (the claims the state table's class cells link to)."""
    by_name = {r.name: r for r in rows}
    classes = {str(s["name"]): str(s.get("class", "")) for s in model.get("states", [])}

    def class_cites(name: str) -> list[Cite]:
        row = by_name.get(name)
        return [c for cell in (row.classes.get(classes.get(name, ""), []) if row else []) for c in cell.cites]

    edges = []
    for move in model.get("transitions", []):
        a, b = str(move.get("from")), str(move.get("to"))
        cites = list({c.id: c for c in class_cites(a) + class_cites(b)}.values())
        edges.append(Edge(a, b, classes.get(a, ""), classes.get(b, ""), cites))
    return edges


def _set_cites(data: SiteData, link: Linker, version: str, sources: list[str]) -> list[SetCite]:
    result = []
    for c in common.about_set(data, version, sources):
        binding = binding_of(data, c.source) if c.source in data.kb.sources else ""
        result.append(SetCite(common.cite(data, link, c), BINDING_TITLES.get(binding, "")))
    return result


def table(data: SiteData, version: Version, page: str, link: Linker) -> Table:
    raw = data.tables[version.id]
    rows = [_row(data, link, version.id, raw, r) for r in raw["states"]]
    present = {b for r in rows for b in r.spellings}
    bindings = [b for b in _BINDING_ORDER if b in present] + sorted(present - set(_BINDING_ORDER))
    model = data.lifecycle.get("versions", {}).get(version.id, {})
    diagram, left_out, grouped = mermaid(model)
    roles_known = any(r.set_by or r.client_next for r in rows)
    return Table(version, page, bindings, list(raw["sources"]), rows, diagram, left_out, roles_known,
                 _set_cites(data, link, version.id, list(raw["sources"])), count_of(raw),
                 _edges(model, rows), grouped)


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
        boost=ranking.boost("state-table", version),
    )


@dataclass
class Presence:
    version: Version
    href: str
    cells: dict[str, str]  # state → its spelling in that version (see _matrix_spelling)
    counting: Count


def _matrix_spelling(spellings: dict[str, str], name: str) -> str:
    """The spelling a cell of the version matrix shows: the JSON schema's where the version
    has one (what a JSON-RPC client of v0.x sends), else its first binding's."""
    return spellings.get("json") or next(iter(spellings.values()), name)


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
            cells[r["name"]] = _matrix_spelling(r.get("spellings", {}), r["name"])
        matrix.append(Presence(v, link.page(paths.state_table(v.id)), cells, count_of(data.tables[v.id])))
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
        boost=ranking.boost("state-table", latest),
    )


def part_names(data: SiteData) -> list[str]:
    """The pages of the family one by one: the index, then a table per version."""
    return ["index", *(f"version:{v.id}" for v in data.versions)]


def part(data: SiteData, name: str, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    if name == "index":
        return [(paths.STATES_INDEX, index_page(data, use_directory_urls))]
    version = data.kb.versions[name.removeprefix("version:")]
    return [(paths.state_table(version.id), version_page(data, version, use_directory_urls))]


def pages(data: SiteData, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    return [page for name in part_names(data) for page in part(data, name, use_directory_urls)]
