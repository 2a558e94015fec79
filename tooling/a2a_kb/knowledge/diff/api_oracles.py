"""The diff's HTTP+JSON and JSON-RPC grades held to two maintained tools, as buf holds its
binary protobuf and ProtoJSON grades (see `oracle`).

- **HTTP+JSON**: each version's routes become an OpenAPI 3 document: the `google.api.http`
  annotations as protoc reads them, their path templates expanded by google-api-core's
  grammar into OpenAPI paths (`/v1/{name=tasks/*}:cancel` → `/v1/tasks/{p1}:cancel`),
  and each body as the JSON keys it takes (`additionalProperties: false`, as a ProtoJSON
  parser refuses unknown fields by default). `openapi-diff` (npm, Atlassian) then judges
  each pair of documents. What the documents model — which routes exist, which keys a body
  takes — is what is compared: per pair of versions and RPC, openapi-diff breaking ⇔ the
  diff grades some change on that RPC's route or body breaking for an old client.
- **JSON-RPC**: each request definition of the JSON schemas (v0.1 … v0.3.0) is compared
  with `json-schema-diff` (npm, Atlassian), which computes the values one schema accepts and
  the other does not. Per pair and request: values removed (an old request is now invalid)
  ⇔ the diff grades a change on a definition that request reaches breaking for an old client.

Both run in one Node process (`tooling/npm/api-diff/run.mjs`), installed and pinned with
their integrity by `make api-diff`. Disagreements kept on purpose live beside buf's in
`disagreements.yaml` with their reasons.

Why it is long: it holds two oracles of the same form, HTTP+JSON through openapi-diff and
JSON-RPC through a JSON Schema comparison, each turning a version pair into documents,
running the tool and setting its verdict beside the diff's grade; they share the tally and
the agreement measure that the Quality page shows.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...records.kb import KnowledgeBase
from .descriptors import ProtoFile
from .grades import OLD_CLIENT
from .model import Change
from .oracle import Disagreement
from .rest import Route, body_keys, routes
from .schema import from_proto
from .sides import Reader

API_DIFF = Path("tooling/npm/api-diff")
_VARIABLE = re.compile(r"\{(?P<name>[\w.]+)(?:=(?P<pattern>[^}]*))?\}")


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
    pattern written out, each wildcard a parameter (`p1`, `p2` …: a client sees the
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

    return _VARIABLE.sub(segment, template), params


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
    proto: ProtoFile
    document: dict[str, Any]
    operations: dict[tuple[str, str], str]  # (OpenAPI path, verb) → the route's label ("POST /v1/…")
    bodies: dict[str, str] = field(default_factory=dict)  # route label → the message its body is


def openapi_document(proto: ProtoFile, version: str) -> OpenApi:
    """The HTTP+JSON surface of a version as OpenAPI 3: its task operations' routes, and the
    top-level JSON keys (and their JSON types) each body takes."""
    described = from_proto(proto)
    paths: dict[str, dict[str, Any]] = {}
    operations: dict[tuple[str, str], str] = {}
    bodies: dict[str, str] = {}
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
            bodies[route.label] = message
            types = {k: t for k, (t, _) in described.definitions[message].properties.items()} \
                if message in described.definitions else {}
            operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "additionalProperties": False,
                "properties": {k: _json_schema(types.get(k, "")) for k in sorted(keys)}}}}}
        paths.setdefault(path, {})[route.verb] = operation
        operations[(path, route.verb)] = route.label
    document = {"openapi": "3.0.3", "info": {"title": f"A2A {version} HTTP+JSON", "version": version},
                "paths": paths}
    return OpenApi(proto, document, operations, bodies)


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
           ours: dict[str, list[Change]], codes: dict[str, set[str]], items: set[str],
           seen: dict[str, set[str]]) -> None:
    """One pair's items: each the oracle flags needs a breaking grade from the diff, and each
    the diff grades breaking needs the oracle's flag, or a kept disagreement. `seen`: every
    change kind the diff reports on an item, breaking or not."""
    for item in sorted(items):
        verdicts.items += 1
        mine = ours.get(item, [])
        if item in theirs:
            verdicts.oracle_breaking += 1
            if mine:
                verdicts.matched += 1
            else:
                _keep(verdicts, kept, "oracle-only", seen.get(item, set()), codes.get(item, set()),
                      f"{label} {item}: {verdicts.oracle} {', '.join(sorted(codes.get(item, set())))}; "
                      f"the diff ({', '.join(sorted(seen.get(item, set()))) or 'no change'}) grades "
                      "nothing on it breaking for an old client")
        if mine:
            verdicts.diff_breaking += 1
            if item in theirs:
                verdicts.confirmed += 1
            else:
                kinds = {c.kind for c in mine}
                _keep(verdicts, kept, "diff-only", kinds, codes.get(item, set()),
                      f"{label} {item}: the diff grades {', '.join(sorted(kinds))} breaking; "
                      f"{verdicts.oracle} finds nothing breaking for an old client")


def _breaks_old_client(change: Change, encoding: str) -> bool:
    return any(g.encoding == encoding and g.level == "breaking" and OLD_CLIENT in g.directions
               for g in change.graded)


def http_item_changes(old: OpenApi, changes: Iterable[Change]
                      ) -> tuple[dict[str, list[Change]], dict[str, set[str]]]:
    """Old route → the diff's changes on it that it grades breaking for an old HTTP+JSON
    client: route and body changes naming the route, and changes to a field of the message
    its body is; and old route → every such change's kind, whatever its grade."""
    breaking: dict[str, list[Change]] = {}
    seen: dict[str, set[str]] = {}
    for c in changes:
        if not any(g.encoding == "http" for g in c.graded):
            continue
        if c.binding == "rest":
            on = {e.removeprefix("route:") for e in c.elements if e.startswith("route:")}
        else:
            owners = {e.split(":", 1)[1].split("#")[0] for e in c.elements if e.startswith("field:")}
            on = {label for label, message in old.bodies.items() if message in owners}
        for label in on:
            seen.setdefault(label, set()).add(c.kind)
            if _breaks_old_client(c, "http"):
                breaking.setdefault(label, []).append(c)
    return breaking, seen


def http_oracle_items(answer: dict[str, Any], old: OpenApi) -> tuple[set[str], dict[str, set[str]]]:
    """The old routes openapi-diff finds a breaking difference on, with its codes."""
    found: set[str] = set()
    codes: dict[str, set[str]] = {}
    for difference in answer.get("breaking", []):
        for location in difference["source"]:
            for label in _routes_at(location, old):
                found.add(label)
                codes.setdefault(label, set()).add(difference["code"])
    return found, codes


def _routes_at(location: str, doc: OpenApi) -> set[str]:
    """The routes an openapi-diff location (`paths./v1/tasks/{p1}:cancel.post.requestBody…`,
    or a whole path) is about."""
    if not location.startswith("paths."):
        return set()
    rest = location[len("paths."):]
    found = set()
    for (path, verb), label in doc.operations.items():
        operation = f"{path}.{verb}"
        if rest in (path, operation) or rest.startswith(operation + "."):
            found.add(label)
    return found


@dataclass
class HttpPair:
    old_version: str
    new_version: str
    old: OpenApi
    new: OpenApi
    changes: list[Change]
    answer: dict[str, Any]  # openapi-diff's


def http_agreement(pairs: Iterable[HttpPair], kept: list[Disagreement]) -> Verdicts:
    """Per pair and route of the old version: openapi-diff's breaking differences against
    the diff's breaking grades for an old HTTP+JSON client."""
    verdicts = Verdicts("openapi-diff")
    for p in pairs:
        theirs, codes = http_oracle_items(p.answer, p.old)
        ours, seen = http_item_changes(p.old, p.changes)
        items = set(p.old.operations.values())
        _tally(verdicts, kept, f"{p.old_version}→{p.new_version}", theirs, ours, codes, items, seen)
    return verdicts


# --- JSON-RPC definitions -----------------------------------------------------------------------

_ANNOTATIONS = frozenset({"description", "title", "examples", "$comment", "default"})
# json-schema-diff reads neither `enum` nor `const` (its KEYWORDS.md), which would leave it
# blind to a state added to TaskState. Each schema is therefore rewritten, the same way on
# both sides, into keywords it does read: every string becomes an integer at or above
# _STRINGS (a literal string its own integer, `type: string` all of them), and numbers stay
# below it. The rewriting is one-to-one on the values A2A's schemas name, so a value the old
# schema accepts and the new one refuses is still one after it (tests/test_api_oracles.py
# holds it to known cases). String lengths and patterns, which it cannot carry, are dropped:
# no lifecycle definition uses them.
_STRINGS = 1 << 40


class _Literals:
    """Strings numbered in the order met, shared by every schema of a run."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def of(self, value: Any) -> dict[str, Any]:
        """The schema that accepts exactly the rewritten `value`."""
        if isinstance(value, str):
            n = self.numbers.setdefault(value, _STRINGS + len(self.numbers))
            return {"type": "integer", "minimum": n, "maximum": n}
        if isinstance(value, bool):  # JSON booleans: json-schema-diff cannot tell true from false
            return {"type": "boolean"}
        if isinstance(value, int | float):
            return {"type": "number", "minimum": value, "maximum": value}
        if value is None:
            return {"type": "null"}
        return {}  # an object or array literal: none in A2A's schemas

    @staticmethod
    def of_type(name: str) -> dict[str, Any]:
        if name == "string":
            return {"type": "integer", "minimum": _STRINGS}
        if name in ("number", "integer"):
            return {"type": name, "maximum": _STRINGS - 1}
        return {"type": name}


def definition_schemas(text: str, literals: _Literals | None = None) -> dict[str, dict[str, Any]]:
    """Each definition of a JSON schema as a schema of its own, judged one level deep: every
    reference to another definition becomes the literal `"$ref:Name"`, so a property that
    now refers elsewhere removes (and adds) values, and the referenced definition is judged
    on its own. Whole requests, references followed, take json-schema-diff 20 s each (a
    message's parts are unions of unions); one level takes milliseconds, and the diff itself
    compares definition by definition. Annotations are dropped: they validate nothing."""
    literals = literals or _Literals()
    document = json.loads(text)
    container = next(k for k in ("$defs", "definitions") if isinstance(document.get(k), dict))
    prefix = f"#/{container}/"

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [rewrite(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix):
            return literals.of("$ref:" + ref[len(prefix):])
        parts: list[dict[str, Any]] = []
        kept: dict[str, Any] = {}
        for key, value in node.items():
            if key in _ANNOTATIONS or key in ("minLength", "maxLength", "pattern", "format"):
                continue
            if key == "properties" and isinstance(value, dict):  # a property may be called "description"
                kept[key] = {name: rewrite(sub) for name, sub in value.items()}
            elif key == "type":
                names = value if isinstance(value, list) else [value]
                parts.append({"anyOf": [literals.of_type(n) for n in names]} if len(names) > 1
                             else literals.of_type(names[0]))
            elif key == "enum" and isinstance(value, list):
                parts.append({"anyOf": [literals.of(v) for v in value]})
            elif key == "const":
                parts.append(literals.of(value))
            else:
                kept[key] = rewrite(value)
        if not parts:
            return kept
        if not kept and len(parts) == 1:
            return parts[0]
        kept["allOf"] = [*kept.get("allOf", []), *parts]
        return kept

    return {name: rewrite(schema) for name, schema in document[container].items() if isinstance(schema, dict)}


def oracle_breaks_old_client(answer: dict[str, Any], role: set[str]) -> bool:
    """json-schema-diff's answer read for an old client of a new server: a request it sent
    is now refused (values removed), or a response it receives may hold what it refuses
    (values added)."""
    return bool(("request" in role and answer["removed"]) or ("response" in role and answer["added"]))


def jsonrpc_item_changes(changes: Iterable[Change]) -> tuple[dict[str, list[Change]], dict[str, set[str]]]:
    """Definition → the diff's JSON-RPC changes on it graded breaking for an old client; and
    definition → the kinds of all its JSON-RPC changes."""
    breaking: dict[str, list[Change]] = {}
    seen: dict[str, set[str]] = {}
    for c in changes:
        if c.binding != "json":
            continue
        for element in c.elements:
            if element.startswith("definition:"):
                name = element.removeprefix("definition:")
                seen.setdefault(name, set()).add(c.kind)
                if _breaks_old_client(c, "jsonrpc"):
                    breaking.setdefault(name, []).append(c)
    return breaking, seen


@dataclass
class JsonRpcPair:
    old_version: str
    new_version: str
    roles: dict[str, set[str]]  # each definition judged (in scope, in both versions) → its roles
    changes: list[Change]
    answers: dict[str, dict[str, Any]]  # definition → json-schema-diff's {added, removed}


def jsonrpc_agreement(pairs: Iterable[JsonRpcPair], kept: list[Disagreement]) -> Verdicts:
    """Per pair and definition in the diff's scope present in both versions:
    json-schema-diff's verdict, read by the definition's role, against the diff's breaking
    grades for an old JSON-RPC client."""
    verdicts = Verdicts("json-schema-diff")
    for p in pairs:
        theirs = {d for d, answer in p.answers.items()
                  if oracle_breaks_old_client(answer, p.roles.get(d, set()))}
        codes = {d: {k for k in ("removed", "added") if p.answers[d][k]} for d in theirs}
        ours, seen = jsonrpc_item_changes(p.changes)
        _tally(verdicts, kept, f"{p.old_version}→{p.new_version}", theirs, ours, codes, set(p.roles), seen)
    return verdicts


def unused(kept: list[Disagreement], verdicts: Iterable[Verdicts]) -> list[Disagreement]:
    """The kept disagreements of these oracles that none of `verdicts` needed."""
    done = list(verdicts)
    used = {i for v in done for i in v.kept}
    oracles = {v.oracle for v in done}
    return [d for i, d in enumerate(kept) if d.oracle in oracles and i not in used]


# --- every pair, both oracles, one Node process ------------------------------------------------


def measure(kb: KnowledgeBase, reader: Reader, root: Path) -> tuple[list[HttpPair], list[JsonRpcPair]]:
    """Every ordered pair of the versions with a .proto, held to openapi-diff, and of the
    versions with a JSON schema, held to json-schema-diff."""
    from itertools import combinations

    from . import proto as proto_diff
    from . import rest as rest_diff
    from . import schema as schema_diff
    from .sides import bindings

    protos = [v.id for v in kb.ordered_versions if "grpc" in bindings(kb, v.id)]
    documents = {v: openapi_document(reader.proto(bindings(kb, v)["grpc"]), v) for v in protos}
    http_pairs = list(combinations(protos, 2))
    schemas = [v.id for v in kb.ordered_versions
               if "json" in bindings(kb, v.id) and bindings(kb, v.id)["json"].kind == "json-schema"]
    jobs: dict[str, list[dict[str, Any]]] = {
        "openapi": [{"id": f"{a}>{b}", "old": documents[a].document, "new": documents[b].document}
                    for a, b in http_pairs],
        "jsonschema": [],
    }
    json_pairs = []
    literals = _Literals()
    for a, b in combinations(schemas, 2):
        old, new = (reader.json(bindings(kb, v)["json"]) for v in (a, b))
        shallow = [definition_schemas(reader.book.text(bindings(kb, v)["json"]), literals) for v in (a, b)]
        roles = schema_diff._roles(old)
        for name, found in schema_diff._roles(new).items():
            roles[name] = roles.get(name, set()) | found
        judged = {d: roles.get(d, {"request", "response"})
                  for d in (old.scope | new.scope) & old.definitions.keys() & new.definitions.keys()}
        for d in sorted(judged):
            if shallow[0][d] != shallow[1][d]:
                jobs["jsonschema"].append({"id": f"{a}>{b}>{d}", "old": shallow[0][d], "new": shallow[1][d]})
        json_pairs.append((a, b, judged, schema_diff.compare(old, new)))
    answers = run(root, jobs)
    unchanged = {"added": False, "removed": False}
    return (
        [HttpPair(a, b, documents[a], documents[b],
                  proto_diff.compare(documents[a].proto, documents[b].proto)
                  + rest_diff.compare(documents[a].proto, documents[b].proto),
                  answers["openapi"][f"{a}>{b}"]) for a, b in http_pairs],
        [JsonRpcPair(a, b, judged, changes,
                     {d: answers["jsonschema"].get(f"{a}>{b}>{d}", unchanged) for d in judged})
         for a, b, judged, changes in json_pairs],
    )
