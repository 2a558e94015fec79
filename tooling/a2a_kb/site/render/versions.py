"""Versions: an index with the timeline, a page per version, a page per consecutive diff."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...knowledge.diff import ENCODINGS, oracle
from ...knowledge.diff.grades import LEVELS, WIRE, WIRE_NAMES
from ...records.model import Source, Version
from .. import paths, ranking
from ..data import SiteData
from ..links import Linker
from ..templating import render
from . import common
from .states import Count, count_of

SEVERITY_ORDER = ("wire-breaking", "source-breaking", "behavioural", "compatible", "editorial")
# The timeline follows the lifecycle's own types; the diff pages have everything else.
TIMELINE_TYPES = {"TaskState", "Task", "TaskStatus", "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent"}
TAB_TITLES = {"grpc": "gRPC & ProtoJSON messages", "rest": "HTTP+JSON routes", "json": "JSON-RPC",
              "prose": "Prose"}
# What each tab compares, in one line above its table.
TAB_LEGENDS = {
    "grpc": "The .protos compiled by protoc and compared element by element: messages, enums and RPCs, "
            "graded for binary protobuf (gRPC), ProtoJSON and the HTTP+JSON payloads built from them.",
    "rest": "The google.api.http routes compared as the URLs a client sends: verb, path and body.",
    "json": "The JSON-RPC binding compared as JSON.",
    "prose": "What the specification's prose and the .proto's comments say about the states' classes "
             "and the errors' mappings.",
}

# Which clients each encoding stands for, as a row of a diff page says it.
CLIENTS = {
    "binary": "gRPC clients (binary protobuf)",
    "json": "JSON clients (ProtoJSON, JSON-RPC, REST)",
    "source": "generated code",
    "behaviour": "behaviour",
}


@dataclass
class Event:
    """One step in the history of a subject: what happened to it in which version."""

    version: Version
    kind: str
    old: Any
    new: Any
    href: str  # the diff page (or the state table, for the first version)
    where: str  # the first source line that shows it
    binding: str = ""


@dataclass
class History:
    subject: str
    events: list[Event] = field(default_factory=list)


def _first_location(change: dict[str, Any], side: str) -> str:
    for loc in change.get("locations", []):
        if loc.get("side") == side and loc.get("lines", [0])[0]:
            return str(loc.get("permalink", ""))
    for loc in change.get("locations", []):
        if loc.get("permalink"):
            return str(loc["permalink"])
    return ""


def timeline(data: SiteData, link: Linker) -> list[History]:
    """When each state and field appeared, changed or went, from the first version's state
    table and then each consecutive diff."""
    by_version = {v.id: v for v in data.versions}
    histories: dict[str, History] = {}
    first = data.versions[0] if data.versions else None
    if first is not None:
        for row in data.tables[first.id]["states"]:
            subject = f"TaskState.{row['name']}"
            spelling = next(iter(row.get("spellings", {}).values()), row["name"])
            evidence: dict[str, Any] = next(iter(row.get("evidence", {}).values()), {})
            histories.setdefault(subject, History(subject)).events.append(Event(
                first, "present", None, spelling,
                link.page(paths.state_table(first.id), paths.state_anchor(row["name"])),
                str(evidence.get("permalink", ""))))
    for d in data.diffs:
        new = by_version[d["new_version"]]
        href = link.page(paths.diff_page(d["old_version"], d["new_version"]))
        for change in d["changes"]:
            if re.split(r"[.#]", change["subject"])[0] not in TIMELINE_TYPES:
                continue
            side = "old" if change["kind"].endswith("removed") else "new"
            event = Event(new, change["kind"], change.get("old"), change.get("new"), href,
                          _first_location(change, side), change.get("binding", ""))
            histories.setdefault(change["subject"], History(change["subject"])).events.append(event)
    return sorted(histories.values(), key=lambda h: (not h.subject.startswith("TaskState"), h.subject))


@dataclass
class VersionRow:
    version: Version
    href: str
    states_href: str
    dated: Any
    states: Count
    claims: int
    sources: int


def _breaking(d: dict[str, Any]) -> dict[str, int]:
    """encoding → how many of the diff's changes break it, for the encodings the pair has."""
    reported = {b for comparison in d.get("bindings", []) for b in comparison.get("reports", [])}
    has = {g["encoding"] for c in d["changes"] for g in c.get("grades", [])}
    if "grpc" in reported:
        has |= {"binary", "protojson", "http"}
    if "json" in reported:
        has.add("jsonrpc")
    return {e: d.get("encodings", {}).get(e, {}).get("breaking", 0) for e in WIRE if e in has}


def index_page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.VERSIONS_INDEX, use_directory_urls)
    rows = [VersionRow(
        v, link.page(paths.version_page(v.id)), link.page(paths.state_table(v.id)), data.dates.get(v.id),
        count_of(data.tables[v.id]),
        sum(1 for c in data.kb.claims.values() if v.id in c.versions),
        len(data.kb.sources_of(v.id)),
    ) for v in data.versions]
    diffs = [(d, link.page(paths.diff_page(d["old_version"], d["new_version"])),
              _breaking(d)) for d in data.diffs]
    return render("site/versions-index.md.j2", rows=rows, diffs=diffs, history=timeline(data, link),
                  versions={v.id: v for v in data.versions}, link=link, paths=paths,
                  severities=SEVERITY_ORDER, tab_titles=TAB_TITLES, wire=WIRE, wire_names=WIRE_NAMES,
                  kept=oracle.load_disagreements())


@dataclass
class SourceRow:
    source: Source
    href: str
    anchor_href: str


def version_page(data: SiteData, version: Version, use_directory_urls: bool = True) -> str:
    page = paths.version_page(version.id)
    link = Linker(page, use_directory_urls)
    ordered = data.versions
    i = [v.id for v in ordered].index(version.id)
    before = ordered[i - 1] if i > 0 else None
    after = ordered[i + 1] if i + 1 < len(ordered) else None
    claims = sorted((c for c in data.kb.claims.values() if version.id in c.versions), key=lambda c: c.id)
    sources = [SourceRow(s, s.permalink(), link.page(paths.SOURCES, paths.source_anchor(s.id)))
               for s in data.kb.sources.values() if version.id in s.versions]
    return render(
        "site/version.md.j2",
        v=version,
        dated=data.dates.get(version.id),
        latest=data.kb.latest,
        table=data.tables[version.id],
        before=before,
        after=after,
        diff_in=data.diff_between(before.id, version.id) if before else None,
        diff_out=data.diff_between(version.id, after.id) if after else None,
        claims=[common.cite(data, link, c) for c in claims],
        statements={c.id: c.statement for c in claims},
        sources=sources,
        link=link,
        paths=paths,
        boost=ranking.boost("version", version),
        counting=count_of(data.tables[version.id]),
    )


@dataclass
class Tab:
    """One binding of a diff page: what was compared, and its changes."""

    key: str
    title: str
    comparison: dict[str, Any]
    changes: list[dict[str, Any]]
    legend: str = ""


def worst(change: dict[str, Any]) -> str:
    """The change's worst grade over the wire encodings ('compatible' when it has none)."""
    levels = [g["level"] for g in change.get("grades", [])]
    return min(levels, key=LEVELS.index) if levels else "compatible"


def summary(d: dict[str, Any]) -> list[tuple[str, str, dict[str, int]]]:
    """(encoding, its name, level → count) for each wire encoding the diff grades a change in."""
    counts = d.get("encodings", {})
    return [(e, WIRE_NAMES[e], counts[e]) for e in WIRE if e in counts and any(counts[e].values())]


def tabs(d: dict[str, Any]) -> list[Tab]:
    """A tab per binding the diff compared (gRPC, its REST routes, JSON-RPC), then prose."""
    def order(c: dict[str, Any]) -> int:
        return SEVERITY_ORDER.index(c["severity"]) if c["severity"] in SEVERITY_ORDER else 9

    found = []
    for comparison in d.get("bindings", []):
        for binding in comparison.get("reports", [comparison["binding"]]):
            changes = sorted((c for c in d["changes"] if c["binding"] == binding), key=order)
            if binding == "rest" and not changes:
                continue
            found.append(Tab(binding, TAB_TITLES.get(binding, binding), comparison, changes,
                             TAB_LEGENDS.get(binding, comparison.get("title", ""))))
    prose = sorted((c for c in d["changes"] if c["binding"] == "prose"), key=order)
    if prose:
        found.append(Tab("prose", TAB_TITLES["prose"], {}, prose, TAB_LEGENDS["prose"]))
    return found


def diff_page(data: SiteData, d: dict[str, Any], use_directory_urls: bool = True) -> str:
    page = paths.diff_page(d["old_version"], d["new_version"])
    link = Linker(page, use_directory_urls)
    old = data.kb.version(d["old_version"])
    new = data.kb.version(d["new_version"])
    return render("site/diff.md.j2", d=d, old=old, new=new, tabs=tabs(d), link=link, paths=paths,
                  severities=SEVERITY_ORDER, clients=CLIENTS, encodings=ENCODINGS, wire=WIRE,
                  wire_names=WIRE_NAMES, levels=LEVELS, summary=summary(d), worst=worst)


def part_names(data: SiteData) -> list[str]:
    """The pages of the family one by one: the index, each version, each diff."""
    return (["index"] + [f"version:{v.id}" for v in data.versions]
            + [f"diff:{d['old_version']}:{d['new_version']}" for d in data.diffs])


def part(data: SiteData, name: str, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    kind, _, which = name.partition(":")
    if kind == "index":
        return [(paths.VERSIONS_INDEX, index_page(data, use_directory_urls))]
    if kind == "version":
        return [(paths.version_page(which), version_page(data, data.kb.versions[which], use_directory_urls))]
    old, _, new = which.partition(":")
    found = data.diff_between(old, new)
    if found is None:
        raise KeyError(f"no diff {old} → {new}")
    return [(paths.diff_page(old, new), diff_page(data, found, use_directory_urls))]


def pages(data: SiteData, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    return [page for name in part_names(data) for page in part(data, name, use_directory_urls)]
