"""The JSON API in the site: one document per kind of data, each beside its JSON Schema.

The documents hold record text exactly as recorded (JSON escaping only): a consumer gets
the statement a claim makes, not an HTML rendering of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from ...schemas import KINDS as RECORD_KINDS
from ...schemas import schema as record_schema
from .. import paths
from ..data import SiteData
from ..links import Linker, page_url
from ..templating import render
from . import conformance, sdk_timeline

DOCUMENTS = ("claims", "conflicts", "states", "sources", "diffs", "lifecycle", "conformance", "sdks")


@cache
def api_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the API document `name`, shipped in `templates/api/`."""
    text = resources.files("a2a_kb").joinpath(f"templates/api/{name}.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _head(data: SiteData, name: str) -> dict[str, Any]:
    return {"$schema": f"schemas/{name}.schema.json", "schema_version": 1, "generated_at": data.generated_at}


def _site_link(src_uri: str, anchor: str, use_directory_urls: bool) -> str:
    return f"{page_url(src_uri, use_directory_urls)}#{anchor}"


def _expectation(fact: str, op: str, value: Any, source: str) -> dict[str, Any]:
    found = {"fact": fact, "op": op, "value": value}
    return {**found, "source": source} if source else found


def claims_document(data: SiteData, use_directory_urls: bool = True) -> dict[str, Any]:
    items = []
    for c in data.kb.claims.values():
        result = data.results.get(c.id)
        evidence = []
        for fact in result.evidence if result else []:
            src = data.kb.sources.get(fact.source)
            evidence.append({
                "source": fact.source, "fact": fact.key, "lines": [fact.line_start, fact.line_end],
                "permalink": src.permalink(fact.line_start, fact.line_end) if src else "",
            })
        item: dict[str, Any] = {
            "id": c.id, "statement": c.statement, "subject": c.subject, "versions": c.versions,
            "source": c.source, "authority": data.authority(c.id), "conflicts": c.conflicts,
            "locator": c.locator, "quote": c.quote,
            "expect": [_expectation(e.fact, e.op, e.value, e.source) for e in c.expect],
            "verdict": data.verdict(c.id), "recorded_verdict": c.verdict or None,
            "message": result.message if result else "", "evidence": evidence,
            "reviewed": c.reviewed, "origin": c.origin, "rank": c.rank, "tracks": c.tracks,
            "related": c.related, "note": c.note, "file": c.mark.path, "line": c.mark.line,
            "page": _site_link(paths.CLAIMS, paths.claim_anchor(c.id), use_directory_urls),
        }
        items.append(item)
    return {**_head(data, "claims"), "count": len(items), "claims": items}


def conflicts_document(data: SiteData, use_directory_urls: bool = True) -> dict[str, Any]:
    items = [{**c, "page": _site_link(paths.CONFLICTS, paths.conflict_anchor(c["id"]), use_directory_urls)}
             for c in data.register["conflicts"]]
    return {**_head(data, "conflicts"), "conflicts": items}


def states_document(data: SiteData) -> dict[str, Any]:
    return {**_head(data, "states"), "latest": data.kb.latest.id,
            "versions": [data.tables[v.id] for v in data.versions]}


def sources_document(data: SiteData) -> dict[str, Any]:
    items = []
    for s in data.kb.sources.values():
        items.append({
            "id": s.id, "kind": s.kind, "authority": s.authority, "url": s.url, "title": s.title,
            "versions": s.versions, "ref": s.ref, "commit": s.commit, "path": s.path, "sha256": s.sha256,
            "size": s.size, "retrieved": s.retrieved, "moving": s.moving, "binding": s.binding,
            "notes": s.notes, "pinned": s.pinned, "permalink": s.permalink(),
        })
    return {**_head(data, "sources"), "sources": items}


def diffs_document(data: SiteData, use_directory_urls: bool = True) -> dict[str, Any]:
    items = [{**d, "page": page_url(paths.diff_page(d["old_version"], d["new_version"]), use_directory_urls)}
             for d in data.diffs]
    return {**_head(data, "diffs"), "diffs": items}


def lifecycle_document(data: SiteData) -> dict[str, Any]:
    model = {k: v for k, v in data.lifecycle.items() if k not in ("schema_version", "generated_at")}
    return {**_head(data, "lifecycle"), **model}


def conformance_document(data: SiteData, use_directory_urls: bool = True) -> dict[str, Any]:
    return {**_head(data, "conformance"), **conformance.document(data, use_directory_urls)}


BUILDERS: dict[str, Callable[[SiteData, bool], dict[str, Any]]] = {
    "claims": claims_document,
    "conflicts": conflicts_document,
    "states": lambda data, u: states_document(data),
    "sources": lambda data, u: sources_document(data),
    "diffs": diffs_document,
    "lifecycle": lambda data, u: lifecycle_document(data),
    "conformance": conformance_document,
    "sdks": lambda data, u: {**_head(data, "sdks"), **sdk_timeline.document(data, u)},
}


def documents(data: SiteData, use_directory_urls: bool = True) -> dict[str, dict[str, Any]]:
    """Every API document by name."""
    return {name: BUILDERS[name](data, use_directory_urls) for name in DOCUMENTS}


def dumps(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def files(data: SiteData, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    """The API documents, their schemas, and the record schemas for editors."""
    return [file for name in (*DOCUMENTS, "schemas") for file in part(data, name, use_directory_urls)]


def part_names(data: SiteData) -> list[str]:
    """The family one piece at a time: the index page, each document, the schemas."""
    return ["index", *DOCUMENTS, "schemas"]


def part(data: SiteData, name: str, use_directory_urls: bool = True) -> list[tuple[str, str]]:
    if name == "index":
        return [(paths.API_INDEX, page(data, use_directory_urls))]
    if name == "schemas":
        return [*((paths.api_schema(n), dumps(api_schema(n))) for n in DOCUMENTS),
                *((f"{paths.RECORD_SCHEMAS_DIR}/{kind}.schema.json", dumps(record_schema(kind)))
                  for kind in RECORD_KINDS)]
    return [(paths.api_file(name), dumps(BUILDERS[name](data, use_directory_urls)))]


def _fields(schema: dict[str, Any], key: str) -> list[tuple[str, str]]:
    """(name, description) of the fields of the items under `key`."""
    node = schema["properties"][key]
    items = node.get("items") or node.get("additionalProperties") or {}
    props = items.get("properties", {}) if isinstance(items, dict) else {}
    required = set(items.get("required", [])) if isinstance(items, dict) else set()
    return [(name, ("" if name in required else "optional; ") + str(p.get("description", "")))
            for name, p in props.items()]


def _held_key(schema: dict[str, Any]) -> str:
    """The key under which a document holds its entries (the one array or object it requires)."""
    return next(k for k in schema["required"]
                if schema["properties"].get(k, {}).get("type") in ("array", "object"))


def page(data: SiteData, use_directory_urls: bool = True) -> str:
    link = Linker(paths.API_INDEX, use_directory_urls)
    docs = documents(data, use_directory_urls)
    entries = []
    for name in DOCUMENTS:
        schema = api_schema(name)
        key = _held_key(schema)
        held = docs[name][key]
        entries.append({
            "name": name, "href": link.file(paths.api_file(name)), "path": paths.api_file(name),
            "schema_href": link.file(paths.api_schema(name)), "schema_path": paths.api_schema(name),
            "title": schema.get("title", name), "description": schema.get("description", ""),
            "key": key, "count": len(held), "fields": _fields(schema, key),
            "top": [k for k in schema["properties"] if k != key],
        })
    records = [{"kind": k, "href": link.file(f"{paths.RECORD_SCHEMAS_DIR}/{k}.schema.json"),
                "path": f"{paths.RECORD_SCHEMAS_DIR}/{k}.schema.json"} for k in RECORD_KINDS]
    return render("site/api.md.j2", entries=entries, records=records, link=link, paths=paths)
