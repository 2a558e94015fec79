"""The diff's HTTP+JSON and JSON-RPC grades held to two maintained tools, as buf holds its
binary protobuf and ProtoJSON grades (see :mod:`.oracle`).

- **HTTP+JSON**: each version's routes become an OpenAPI 3 document: the ``google.api.http``
  annotations as protoc reads them, their path templates expanded by google-api-core's
  grammar into OpenAPI paths (``/v1/{name=tasks/*}:cancel`` → ``/v1/tasks/{p1}:cancel``),
  and each body as the JSON keys it takes (``additionalProperties: false``, as a ProtoJSON
  parser refuses unknown fields by default). `openapi-diff` (npm, Atlassian) then judges
  each pair of documents. What the documents model — which routes exist, which keys a body
  takes — is what is compared: per pair of versions and RPC, openapi-diff breaking ⇔ the
  diff grades some change on that RPC's route or body breaking for an old client.
- **JSON-RPC**: each request definition of the JSON schemas (v0.1 … v0.3.0) is compared
  with `json-schema-diff` (npm, Atlassian), which computes the values one schema accepts and
  the other does not. Per pair and request: values removed (an old request is now invalid)
  ⇔ the diff grades a change on a definition that request reaches breaking for an old client.

Both run in one Node process (``tooling/npm/api-diff/run.mjs``), installed and pinned with
their integrity by ``make api-diff``. Disagreements kept on purpose live beside buf's in
``disagreements.yaml`` with their reasons.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .descriptors import ProtoFile
from .grades import OLD_CLIENT
from .model import Change
from .oracle import Disagreement
from .rest import VARIABLE, Route, body_keys, routes
from .schema import JsonDescription, from_proto
from .scope import closure

API_DIFF = Path("tooling/npm/api-diff")


def runner(root: Path) -> Path:
    return root / API_DIFF / "run.mjs"


def installed(root: Path) -> bool:
    modules = root / API_DIFF / "node_modules"
    return (modules / "openapi-diff").is_dir() and (modules / "json-schema-diff").is_dir()


def run(root: Path, jobs: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Every job through the two tools, in one Node process."""
    done = subprocess.run(["node", str(runner(root))], input=json.dumps(jobs), capture_output=True,
                          text=True, check=False, cwd=root / API_DIFF)
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if line.strip()), "")
    raise RuntimeError(f"the API oracles failed ({done.returncode}): {first}")
    answers: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return answers


# --- OpenAPI documents from the .protos' routes -------------------------------------------------


def openapi_path(template: str) -> tuple[str, list[str]]:
    """An http rule's path template as an OpenAPI path, with its parameters: each variable's
    pattern written out, each wildcard a parameter (``p1``, ``p2`` …: a client sees the
    segments, not the request field they fill)."""
    params: list[str] = []

    def segment(match: re.Match[str]) -> str:
        pattern = match.group("pattern") or "*"
        parts = []
        for part in pattern.split("/"):
            if part in ("*", "**"):
                params.append(f"p{len(params) + 1}")
                parts.append("{" + params[-1] + "}")
            else:
                parts.append(part)
        return "/".join(parts)

    return VARIABLE.sub(segment, template), params


_JSON_TYPES = {"number": "number", "integer": "integer", "boolean": "boolean", "string": "string",
               "object": "object", "array": "array", "any": ""}


def _json_schema(type_text: str) -> dict[str, Any]:
    if type_text.endswith("[]"):
        return {"type": "array", "items": _json_schema(type_text[:-2])}
    kind = _JSON_TYPES.get(type_text)
    if kind is None:  # a message or an enum: an object or a string
        return {}
    return {"type": kind} if kind else {}


@dataclass
class OpenApi:
    document: dict[str, Any]
    operations: dict[tuple[str, str], str]  # (path, verb) → RPC
    body_messages: dict[str, set[str]] = field(default_factory=dict)  # RPC → messages its bodies are


def openapi_document(proto: ProtoFile, version: str) -> OpenApi:
    """The HTTP+JSON surface of a version as OpenAPI 3: its task operations' routes, and what
    each body takes."""
    described = from_proto(proto)
    paths: dict[str, dict[str, Any]] = {}
    operations: dict[tuple[str, str], str] = {}
    bodies: dict[str, set[str]] = {}
    for n, route in enumerate(routes(proto), 1):
        path, params = openapi_path(route.template)
        operation: dict[str, Any] = {
            "operationId": f"{route.rpc.split('.')[-1]}_{n}",
            "parameters": [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                           for p in params],
            "responses": {"200": {"description": f"{route.rpc} answers"}},
        }
        keys = body_keys(proto, route)
        if keys is not None:
            message = _body_message(proto, route)
            bodies.setdefault(route.rpc, set()).add(message)
            types = {k: t for k, (t, _) in described.definitions[message].properties.items()} \
                if message in described.definitions else {}
            operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "additionalProperties": False,
                "properties": {k: _json_schema(types.get(k, "")) for k in sorted(keys)}}}}}
        paths.setdefault(path, {})[route.verb] = operation
        operations[(path, route.verb)] = route.rpc
    document = {"openapi": "3.0.3", "info": {"title": f"A2A {version} HTTP+JSON", "version": version},
                "paths": paths}
    return OpenApi(document, operations, bodies)


def _body_message(proto: ProtoFile, route: Route) -> str:
    if route.body == "*":
        return route.input
    message = proto.messages.get(route.input)
    found = next((f for f in message.fields.values() if f.name == route.body), None) if message else None
    return found.type_name if found else route.input


# --- agreement ---------------------------------------------------------------------------------


@dataclass
class Verdicts:
    """One oracle against the diff over some pairs, item by item (an RPC, a request)."""

    oracle: str
    items: int = 0
    oracle_breaking: int = 0
    matched: int = 0
    diff_breaking: int = 0
    confirmed: int = 0
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    kept: dict[int, int] = field(default_factory=dict)

    @property
    def recall(self) -> float:
        return self.matched / self.oracle_breaking if self.oracle_breaking else 1.0

    @property
    def precision(self) -> float:
        return self.confirmed / self.diff_breaking if self.diff_breaking else 1.0

    def kept_count(self, kept: list[Disagreement], side: str) -> int:
        return sum(n for i, n in self.kept.items() if kept[i].side == side)


def _keep(verdicts: Verdicts, kept: list[Disagreement], side: str, kinds: set[str], rules: set[str],
          line: str) -> None:
    index = next((i for i, d in enumerate(kept) if d.oracle == verdicts.oracle and d.side == side
                  and (d.kind in kinds or (not d.kind and not kinds))
                  and (d.rule in rules or (not d.rule and not rules))), None)
    if index is None:
        (verdicts.missed if side == "oracle-only" else verdicts.extra).append(line)
    else:
        verdicts.kept[index] = verdicts.kept.get(index, 0) + 1


def _tally(verdicts: Verdicts, kept: list[Disagreement], label: str, theirs: set[str],
           ours: dict[str, list[Change]], codes: dict[str, set[str]], items: set[str]) -> None:
    for item in sorted(items):
        verdicts.items += 1
        mine = ours.get(item, [])
        kinds = {c.kind for c in mine}
        if item in theirs:
            verdicts.oracle_breaking += 1
            if mine:
                verdicts.matched += 1
            else:
                _keep(verdicts, kept, "oracle-only", set(), codes.get(item, set()),
                      f"{label} {item}: {verdicts.oracle} {', '.join(sorted(codes.get(item, set())))}; "
                      "the diff grades nothing on it breaking for an old client")
        if mine:
            verdicts.diff_breaking += 1
            if item in theirs:
                verdicts.confirmed += 1
            else:
                _keep(verdicts, kept, "diff-only", kinds, set(),
                      f"{label} {item}: the diff grades {', '.join(sorted(kinds))} breaking; "
                      f"{verdicts.oracle} finds nothing breaking")


def _breaks_old_client(change: Change, encoding: str) -> bool:
    return any(g.encoding == encoding and g.level == "breaking" and OLD_CLIENT in g.directions
               for g in change.graded)


def http_item_changes(old: OpenApi, new: OpenApi, changes: Iterable[Change]) -> dict[str, list[Change]]:
    """RPC → the diff's changes that an OpenAPI document of routes and bodies can show and that
    it grades breaking for an old HTTP+JSON client: route and body changes, and changes to a
    field of a message a route takes as its body."""
    found: dict[str, list[Change]] = {}
    bodies: dict[str, set[str]] = {}
    for rpc, messages in (*old.body_messages.items(), *new.body_messages.items()):
        bodies.setdefault(rpc, set()).update(messages)
    for c in changes:
        if not _breaks_old_client(c, "http"):
            continue
        if c.binding == "rest":
            found.setdefault(c.subject, []).append(c)
            continue
        owners = {e.split(":", 1)[1].split("#")[0] for e in c.elements if e.startswith("field:")}
        for rpc, messages in bodies.items():
            if owners & messages:
                found.setdefault(rpc, []).append(c)
    return found


def http_oracle_items(answer: dict[str, Any], old: OpenApi,
                      new: OpenApi) -> tuple[set[str], dict[str, set[str]]]:
    """The RPCs openapi-diff finds a breaking difference on, with its codes."""
    found: set[str] = set()
    codes: dict[str, set[str]] = {}
    for difference in answer.get("breaking", []):
        for side, doc in (("source", old), ("destination", new)):
            for location in difference[side]:
                for rpc in _rpcs_at(location, doc):
                    found.add(rpc)
                    codes.setdefault(rpc, set()).add(difference["code"])
    return found, codes


def _rpcs_at(location: str, doc: OpenApi) -> set[str]:
    """The RPCs an openapi-diff location ("paths./v1/tasks/{p1}:cancel.post.requestBody…")
    is about."""
    if not location.startswith("paths."):
        return set()
    rest = location[len("paths."):]
    for (path, verb), rpc in doc.operations.items():
        if rest == path or rest.startswith(path + "."):
            tail = rest[len(path) + 1:]
            if not tail or tail.split(".")[0] == verb:
                if not tail:
                    return {r for (p, _), r in doc.operations.items() if p == path}
                return {rpc}
    return set()


def http_agreement(pairs: list[tuple[str, str, OpenApi, OpenApi, list[Change], dict[str, Any]]],
                   kept: list[Disagreement]) -> Verdicts:
    verdicts = Verdicts("openapi-diff")
    for old_version, new_version, old, new, changes, answer in pairs:
        theirs, codes = http_oracle_items(answer, old, new)
        ours = http_item_changes(old, new, changes)
        items = set(old.operations.values()) | set(new.operations.values())
        _tally(verdicts, kept, f"{old_version}→{new_version}", theirs, ours, codes, items)
    return verdicts


# --- JSON-RPC requests --------------------------------------------------------------------------


def request_schemas(text: str) -> dict[str, dict[str, Any]]:
    """Each JSON-RPC request definition (one with a `method`) as a schema of its own: the
    definitions it reaches, each reference that closes a cycle replaced by the schema that
    accepts anything (json-schema-diff does not follow circular references; a cycle is met
    only in values nested inside themselves)."""
    document = json.loads(text)
    container = next(k for k in ("$defs", "definitions") if isinstance(document.get(k), dict))
    definitions = document[container]
    found = {}
    for name, schema in definitions.items():
        method = (schema.get("properties") or {}).get("method") if isinstance(schema, dict) else None
        if isinstance(method, dict) and ("const" in method or "enum" in method):
            reached = _acyclic(definitions, name, container)
            root = reached.pop(name)  # the request at the root, not a reference into itself
            found[name] = {**root, container: reached}
    return found


def _acyclic(definitions: dict[str, Any], root: str, container: str) -> dict[str, Any]:
    """The definitions ``root`` reaches, with the references that close a cycle cut."""
    prefix = f"#/{container}/"
    kept: dict[str, Any] = {}
    on_path: list[str] = []

    def visit(name: str) -> None:
        on_path.append(name)
        kept[name] = rewrite(definitions.get(name, {}))
        on_path.pop()

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [rewrite(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix):
            target = ref[len(prefix):]
            if target in on_path:
                return {}
            if target not in kept:
                visit(target)
            return dict(node)
        return {k: rewrite(v) for k, v in node.items()}

    visit(root)
    return kept


def jsonrpc_item_changes(old: JsonDescription, new: JsonDescription, requests: set[str],
                         changes: Iterable[Change]) -> dict[str, list[Change]]:
    """Request → the diff's JSON-RPC changes graded breaking for an old client on a
    definition the request reaches (in either version)."""
    def reach(description: JsonDescription, name: str) -> set[str]:
        def edges(n: str) -> set[str]:
            found = description.definitions.get(n)
            return found.refers_to if found else set()
        return closure([name], edges)

    found: dict[str, list[Change]] = {}
    breaking = [c for c in changes if c.binding == "json" and _breaks_old_client(c, "jsonrpc")]
    for request in requests:
        reached = reach(old, request) | reach(new, request)
        mine = [c for c in breaking
                if any(e.removeprefix("definition:") in reached for e in c.elements)]
        if mine:
            found[request] = mine
    return found


def jsonrpc_agreement(pairs: list[tuple[str, str, set[str], dict[str, list[Change]], dict[str, Any]]],
                      kept: list[Disagreement]) -> Verdicts:
    verdicts = Verdicts("json-schema-diff")
    for old_version, new_version, requests, ours, answers in pairs:
        theirs = {r for r in requests if answers[r]["removed"]}
        codes = {r: {"values removed"} for r in theirs}
        _tally(verdicts, kept, f"{old_version}→{new_version}", theirs, ours, codes, requests)
    return verdicts
