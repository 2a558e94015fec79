"""Facts of an SDK's source file (source kind ``sdk-code``), read with tree-sitter.

One walker serves the six languages of the official SDKs; :mod:`.sdk_grammars` says how
each writes a class, a function, a branch and a switch. What it reads is the lifecycle as
code states it, never its comments:

- ``sdk-enum:<Enum>``: a state enum's members in source order, the wire name each is
  declared with (a string value, an attribute, a constructor argument; ``None`` where the
  declaration gives none), and the canonical state of each;
- ``sdk-flag:<Enum>.<parameter>``: where an enum's constants pass booleans to its
  constructor (Java's ``TASK_STATE_COMPLETED(true, false)``), the states whose argument for
  that parameter is ``true``;
- ``sdk-scope:<Scope>``: for a function, method or constant that names a state, the states
  it names and the lifecycle words among its identifiers (``terminal``, ``final``,
  ``interrupt``): ``Terminal``, ``TERMINAL_TASK_STATES``, ``isFinal``;
- ``sdk-guard:<Scope>/<Error>``: a branch whose body raises or returns a lifecycle error
  (``TaskNotCancelable`` …), with the states its condition tests (``states``), the states
  it tests for inequality (``unless``: ``!=``, ``not in``) and the lifecycle words it calls;
- ``sdk-map:<Scope>``: a switch, match or map literal over states: each pattern (a
  canonical state, a quoted string, ``default``) and what it gives (a state, a quoted
  string, ``error``, ``null`` or ``other``);
- ``sdk-code:<Name>``: an integer constant in JSON-RPC's error range (-32768 to -32000) and
  the name it is declared or matched under;
- ``sdk-error-map:<Error>``: what the file's error tables give a lifecycle error
  (``TaskNotCancelable`` …) on each transport: ``{"json-rpc": int|None, "http": int|None,
  "grpc": str|None}``, read from switch and match arms, map literals and enum arguments.

A repeated subject gets ``~2``, ``~3`` … in source order. Lines are the declaration's,
branch's or switch's own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import tree_sitter

from ..facts import Fact, canonical_state
from .artifact import Artifact, Draft
from .sdk_enums import enum_drafts
from .sdk_grammars import Grammar, grammar_for, parser

LIFECYCLE_WORD = re.compile(r"(?i)terminal|final|interrupt")
ERRORS = ("TaskNotCancelable", "TaskNotFound", "UnsupportedOperation", "InvalidParams",
          "InvalidRequest", "ContentTypeNotSupported")
_ERROR_KEYS = {e.lower(): e for e in ERRORS}
_JAVA_CONSTANTS = re.compile(r"(?:SUBMITTED|WORKING|INPUT_REQUIRED|AUTH_REQUIRED|COMPLETED|"
                             r"CANCELED|CANCELLED|FAILED|REJECTED|UNKNOWN|UNSPECIFIED)")
_THREADS = re.compile(r"Exception$|^interrupt$|^Interrupt$")  # a thread's interruption, not a task's
_NEGATIONS = ("!=", "!==", "not in", "is not", "not")
_LOCAL_DECLARATIONS = frozenset({"variable_declarator", "short_var_declaration", "let_declaration",
                                 "assignment"})
_INTEGER_LEAVES = frozenset({"decimal_integer_literal", "int_literal", "integer_literal",
                             "number", "integer"})


def state_of(spelling: str) -> str | None:
    """The canonical state a spelling names; protobuf's ``UNRECOGNIZED`` stays itself,
    since an SDK that maps it is making a choice about an unknown value."""
    if spelling.upper() == "UNRECOGNIZED":
        return "unrecognized"
    return canonical_state(spelling)


def error_of(identifier: str) -> str | None:
    """The lifecycle error an identifier names, in any language's spelling:
    ``ErrTaskNotCancelable``, ``task_not_cancelable``, ``TaskNotCancelableError``."""
    name = re.sub(r"^Err(?=[A-Z])", "", identifier.rsplit(".", 1)[-1])
    name = re.sub(r"(?i)_?(error|exception)$", "", name)
    return _ERROR_KEYS.get(name.replace("_", "").lower())


class _Reader:
    """One file's tree, and what its leaves name."""

    def __init__(self, grammar: Grammar, tree: tree_sitter.Tree, source: bytes) -> None:
        self.g = grammar
        self.tree = tree
        self.source = source

    @staticmethod
    def text(node: tree_sitter.Node | None) -> str:
        return node.text.decode("utf-8", "replace") if node is not None and node.text else ""

    def leaves(self, node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
        """The leaves under ``node``, comments left out."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type in self.g.comments:
                continue
            if n.child_count == 0:
                yield n
            else:
                stack.extend(reversed(n.children))

    def in_string(self, leaf: tree_sitter.Node) -> bool:
        parent = leaf.parent
        return parent is not None and parent.type in self.g.strings and leaf.type not in (
            '"', "'", "`", "string_start", "string_end")

    def state(self, leaf: tree_sitter.Node) -> str | None:
        """The canonical state a leaf names, or None."""
        t = self.text(leaf)
        if self.in_string(leaf):
            return state_of(t) if (t.startswith("TASK_STATE_") or t == t.lower()) else None
        if not (leaf.type.endswith("identifier") or leaf.type == "constant"):
            return None
        if t.startswith("TASK_STATE_") or t == "UNRECOGNIZED":
            return state_of(t)
        m = re.fullmatch(r"TaskState([A-Z]\w*)", t)
        if m:
            return state_of(m.group(1))
        before = leaf.prev_sibling
        if before is not None and self.text(before) in (".", "::") and before.prev_sibling is not None \
                and self.text(before.prev_sibling) == "TaskState":
            return state_of(t)  # inside a macro's token tree (Rust's matches!), tokens are flat
        parent = leaf.parent
        if parent is not None and re.search(r"TaskState\s*(?:\.|::)\s*" + re.escape(t) + r"$",
                                            self.text(parent)):
            return state_of(t)
        if self.g.key == "java" and _JAVA_CONSTANTS.fullmatch(t):
            return state_of(t)
        return None

    def states(self, node: tree_sitter.Node) -> list[str]:
        return sorted({s for leaf in self.leaves(node) if (s := self.state(leaf))})

    def words(self, node: tree_sitter.Node, skip: str = "") -> list[str]:
        found = set()
        for leaf in self.leaves(node):
            t = self.text(leaf)
            if (leaf.type.endswith("identifier") and LIFECYCLE_WORD.search(t)
                    and not _THREADS.search(t) and not self.state(leaf) and t != skip):
                found.add(t)
        return sorted(found)

    def errors(self, node: tree_sitter.Node) -> list[str]:
        found: list[str] = []
        for leaf in self.leaves(node):
            e = error_of(self.text(leaf)) if leaf.type.endswith("identifier") else None
            if e and e not in found:
                found.append(e)
        return found

    def errors_in(self, parts: list[tree_sitter.Node]) -> bool:
        return any(self.errors(p) for p in parts)

    def negated(self, leaf: tree_sitter.Node, stop: tree_sitter.Node) -> bool:
        """Whether the comparison nearest above ``leaf`` (within ``stop``) tests inequality."""
        node = leaf.parent
        while node is not None:
            ops = [self.text(c) for c in node.children if not c.is_named]
            if any(op in ("==", "===", "!=", "!==", "in", "not in", "is", "is not") for op in ops):
                return any(op in _NEGATIONS for op in ops)
            if node == stop:
                break
            node = node.parent
        return False


def _name(r: _Reader, node: tree_sitter.Node) -> str:
    """The name a declaration gives its scope: a Go method is ``Receiver.Method``, a Rust
    ``impl`` its type, a Python assignment its target."""
    g = r.g
    if node.type == "impl_item":
        return re.sub(r"<.*", "", r.text(node.child_by_field_name("type")))
    if node.type == "assignment":
        left = node.child_by_field_name("left")
        return r.text(left) if left is not None and left.type == "identifier" else ""
    name = r.text(node.child_by_field_name("name"))
    if g.key == "go" and node.type == "method_declaration":
        receiver = r.text(node.child_by_field_name("receiver"))
        m = re.search(r"\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)\s*$", receiver)
        return f"{m.group(1)}.{name}" if m else name
    return name


def _walk(r: _Reader) -> list[tuple[str, tree_sitter.Node, str]]:
    """Every scope of the file: (qualified name, node, "function" | "variable" | "container").
    A variable opens a scope only outside functions (a module's or class's constant)."""
    g, found = r.g, []

    def visit(node: tree_sitter.Node, prefix: list[str], in_function: bool) -> None:
        for child in node.children:
            kind = ("container" if child.type in g.containers else
                    "function" if child.type in g.functions else
                    "variable" if child.type in g.variables and not in_function else "")
            name = _name(r, child) if kind else ""
            if kind and name:
                found.append((".".join([*prefix, name]), child, kind))
                visit(child, [*prefix, name], in_function or kind == "function")
            else:
                visit(child, prefix, in_function)

    visit(r.tree.root_node, [], False)
    return found


def _numbered(drafts: list[Draft]) -> list[Draft]:
    """Drafts whose subject repeats get ``~2``, ``~3`` … in source order."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    out = []
    for d in sorted(drafts, key=lambda d: (d.line_start, d.kind, d.subject)):
        seen[(d.kind, d.subject)] += 1
        n = seen[(d.kind, d.subject)]
        out.append(d if n == 1 else Draft(d.kind, f"{d.subject}~{n}", d.value,
                                          d.line_start, d.line_end))
    return out


def _lines(node: tree_sitter.Node, end: tree_sitter.Node | None = None) -> tuple[int, int]:
    return node.start_point[0] + 1, (end or node).end_point[0] + 1


def _locals(r: _Reader, node: tree_sitter.Node) -> dict[str, list[str]]:
    """The names declared inside a function whose value names states
    (``const nonCancelableStates = ['completed', …]``)."""
    found: dict[str, list[str]] = {}
    stack = [node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type in _LOCAL_DECLARATIONS:
            target = n.child_by_field_name("name") or n.child_by_field_name("left") or \
                n.child_by_field_name("pattern")
            value = n.child_by_field_name("value") or n.child_by_field_name("right")
            if target is not None and value is not None and (states := r.states(value)):
                found[r.text(target)] = states
    return found


def _guards(r: _Reader, scope: str, node: tree_sitter.Node,
            constants: dict[str, list[str]]) -> list[Draft]:
    """The branches of a function that end in a lifecycle error. A name in the condition
    that this file declares with states (a constant, or a local of the function) counts
    as those states."""
    known = {**constants, **_locals(r, node)}
    drafts = []
    stack = [node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type not in r.g.branches:
            continue
        condition, body = n.child_by_field_name("condition"), n.child_by_field_name("consequence")
        if condition is None or body is None:
            continue
        states = [(s, r.negated(leaf, condition)) for leaf in r.leaves(condition)
                  for s in ([r.state(leaf)] if r.state(leaf) else known.get(r.text(leaf), []))
                  if s]
        value = {"states": sorted({s for s, neg in states if not neg}),
                 "unless": sorted({s for s, neg in states if neg}),
                 "names": r.words(condition)}
        if not (value["states"] or value["unless"] or value["names"]):
            continue  # a guard that does not look at the lifecycle
        for error in r.errors(body):
            drafts.append(Draft("sdk-guard", f"{scope}/{error}", value, *_lines(n, body)))
    return drafts


def _split(r: _Reader, arm: tree_sitter.Node) -> tuple[list[tree_sitter.Node], list[tree_sitter.Node]]:
    """An arm's pattern part and result part."""
    key, value = arm.child_by_field_name("key"), arm.child_by_field_name("value")
    if arm.type == "pair" and key is not None and value is not None:
        return [key], [value]
    children = list(arm.children)
    for i, c in enumerate(children):
        if not c.is_named and r.text(c) in ("->", "=>", ":"):
            return children[:i], children[i + 1:]
    labels = [c for c in children if c.type.endswith("label")]
    return labels, [c for c in children if c not in labels]


def _label(r: _Reader, parts: list[tree_sitter.Node], pattern: bool) -> list[str]:
    leaves = [leaf for p in parts for leaf in r.leaves(p)]
    texts = [r.text(leaf) for leaf in leaves]
    strings = [t for leaf, t in zip(leaves, texts, strict=True) if r.in_string(leaf)]
    states = sorted({s for leaf in leaves if (s := r.state(leaf))})
    if pattern:
        if strings:
            return [f'"{strings[0]}"']
        if states:
            return states
        if "default" in texts or texts == ["_"] or texts == ["case", "_"]:
            return ["default"]
        return []
    if any(p.type in r.g.errors for p in parts) or any(
            p.type in r.g.errors for leaf in leaves for p in _ancestors(leaf, parts)):
        return ["error"]
    if strings and all(leaf.type not in r.g.errors for leaf in leaves):
        return [f'"{strings[0]}"']
    if len(states) == 1:
        return states
    if any(t in ("Err", "panic", "throw", "raise") for t in texts) or r.errors_in(parts):
        return ["error"]
    if texts and texts[0] in ("null", "None", "nil", "undefined"):
        return ["null"]
    return ["other"]


def _ancestors(leaf: tree_sitter.Node, tops: list[tree_sitter.Node]) -> Iterator[tree_sitter.Node]:
    node = leaf.parent
    while node is not None and node not in tops:
        yield node
        node = node.parent


def _maps(r: _Reader, scope: str, node: tree_sitter.Node) -> list[Draft]:
    drafts = []
    stack = [node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type not in r.g.multiway:
            continue
        arms, todo = [], list(n.children)
        while todo:
            c = todo.pop(0)
            if c.type in r.g.arms:
                arms.append(c)
            elif c.type not in r.g.multiway:
                todo[:0] = list(c.children)
        mapping: dict[str, str] = {}
        named, waiting = 0, list[str]()  # keys of arms that fall through to the next arm's result
        for arm in arms:
            pattern, result = _split(r, arm)
            keys = waiting + _label(r, pattern, True)
            if not any(p.is_named for p in result) and arm.type != "pair":
                waiting = keys
                continue
            waiting, given = [], _label(r, result, False)
            named += any(k not in ("default",) and not k.startswith('"') for k in keys) or (
                given[0] not in ("error", "null", "other") and not given[0].startswith('"'))
            for k in keys:
                mapping.setdefault(k, given[0])
        if named >= 2:
            drafts.append(Draft("sdk-map", scope, mapping, *_lines(n)))
    return drafts


_GRPC = ("CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
         "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
         "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
         "UNAUTHENTICATED")
_GRPC_KEYS = {g.replace("_", "").lower(): g for g in _GRPC}
# HTTP statuses written by name: ASP.NET's Results helpers, Java's HttpStatus …
_HTTP_NAMES = {"badrequest": 400, "notfound": 404, "conflict": 409, "unprocessableentity": 422,
               "unsupportedmediatype": 415, "internalservererror": 500}


def _transport(r: _Reader, parts: list[tree_sitter.Node]) -> dict[str, Any]:
    """The JSON-RPC code, HTTP status and gRPC code an error table's entry gives."""
    found: dict[str, Any] = {}
    for leaf in (leaf for p in parts for leaf in r.leaves(p)):
        t = r.text(leaf)
        if leaf.type in _INTEGER_LEAVES and t.lstrip("-").isdigit():
            n = -int(t.lstrip("-")) if _negative(r, leaf) else int(t)
            key = "json-rpc" if -32768 <= n <= -32000 else "http" if 100 <= n <= 599 else ""
            if key:
                found.setdefault(key, n)
        elif m := re.fullmatch(r"Status(\d{3})\w*", t):
            found.setdefault("http", int(m.group(1)))
        elif t.lower() in _HTTP_NAMES and leaf.type.endswith("identifier"):
            found.setdefault("http", _HTTP_NAMES[t.lower()])
        elif (g := _GRPC_KEYS.get(t.replace("_", "").lower())) and (
                t.isupper() or "code" in r.text(leaf.parent).lower()):  # FAILED_PRECONDITION, codes.NotFound
            found.setdefault("grpc", g)
    return found


def _negative(r: _Reader, leaf: tree_sitter.Node) -> bool:
    parent = leaf.parent
    return r.text(leaf).startswith("-") or (
        parent is not None and r.text(parent).replace(" ", "") == "-" + r.text(leaf))


def _error_tables(r: _Reader) -> list[Draft]:
    """``sdk-error-map:<Error>``: what an error table (a switch or match arm, a map literal's
    pair, an enum constant's arguments) gives a lifecycle error on each transport, merged
    over the file's tables (the first table to give a transport's value wins); the lines run
    from the first entry that gives a value to the last."""
    merged: dict[str, dict[str, Any]] = {}
    lines: dict[str, tuple[int, int]] = {}
    stack = [r.tree.root_node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type in r.g.arms:
            pattern, result = _split(r, n)
        elif n.type in r.g.members and (args := n.child_by_field_name("arguments")) is not None \
                and (name := n.child_by_field_name("name")) is not None:
            pattern, result = [name], [args]
        else:
            continue
        errors = [e for p in pattern for e in r.errors(p)]
        found = _transport(r, result) if errors else {}
        for error in errors if found else []:
            entry = merged.setdefault(error, {})
            taken = [key for key, value in found.items() if entry.setdefault(key, value) == value]
            if taken:  # the lines span every entry the fact takes a value from
                start, end = _lines(n)
                was = lines.get(error, (start, end))
                lines[error] = (min(was[0], start), max(was[1], end))
    return [Draft("sdk-error-map", error, {k: merged[error].get(k) for k in ("json-rpc", "http", "grpc")},
                  *lines[error]) for error in sorted(merged)]


def _codes(r: _Reader, scopes: list[tuple[str, tree_sitter.Node, str]]) -> list[Draft]:
    """Integers in JSON-RPC's error range, by the name they are declared or matched under,
    qualified by the innermost scope that holds them (``TaskNotCancelableError.code``)."""
    drafts, seen = [], set()
    for leaf in r.leaves(r.tree.root_node):
        if leaf.type not in _INTEGER_LEAVES:
            continue
        t, parent = r.text(leaf), leaf.parent
        negative = t.startswith("-") or (parent is not None and r.text(parent).replace(" ", "") == "-" + t)
        try:
            value = -abs(int(t)) if negative else int(t)
        except ValueError:
            continue
        if not -32768 <= value <= -32000:
            continue
        name = _code_name(r, leaf)
        owner = [q for q, node, _ in scopes if node.start_byte <= leaf.start_byte < node.end_byte]
        if owner:
            inner = owner[-1]
            name = inner if not name or inner.rsplit(".", 1)[-1] == name else f"{inner}.{name}"
        if name and (name, value) not in seen:
            seen.add((name, value))
            drafts.append(Draft("sdk-code", name, value, *_lines(leaf)))
    return drafts


def _code_name(r: _Reader, leaf: tree_sitter.Node) -> str:
    node = leaf.parent
    while node is not None:
        if node.type in r.g.arms:
            pattern, _ = _split(r, node)
            ids = [r.text(x) for p in pattern for x in r.leaves(p)
                   if x.type.endswith("identifier")]
            return ids[-1] if ids else ""
        if node.type in r.g.variables or node.type in r.g.members:
            return _name(r, node) or r.text(node.child_by_field_name("name"))
        node = node.parent
    return ""


def extract(artifact: Artifact) -> list[Fact]:
    grammar = grammar_for(artifact.path)
    if grammar is None:
        raise artifact.fail("no SDK grammar for this file's suffix (tip: one of "
                            ".java .go .cs .rs .ts .py .pyi)")
    data = artifact.text.encode("utf-8")
    tree = parser(grammar.key).parse(data)
    broken = _first_error(tree.root_node)
    if broken is not None:
        raise artifact.fail(f"line {broken.start_point[0] + 1}: the {grammar.key} parser "
                            "cannot read this (tip: is the pinned copy whole?)")
    r = _Reader(grammar, tree, data)
    scopes = _walk(r)
    drafts: list[Draft] = enum_drafts(r, scopes)
    constants = {name.rsplit(".", 1)[-1]: states for name, node, kind in scopes
                 if kind == "variable" and (states := r.states(node))}
    for name, node, kind in scopes:
        if kind == "container" or _enum_member(r, node):
            continue
        states, words = r.states(node), r.words(node, skip=name.rsplit(".", 1)[-1])
        if states or (words and kind == "function"):
            drafts.append(Draft("sdk-scope", name, {"states": states, "names": words},
                                *_lines(node)))
        if kind == "function":
            drafts += _guards(r, name, node, constants)
        drafts += _maps(r, name, node)
    drafts += _codes(r, scopes)
    drafts += _error_tables(r)
    # What the file declares, so that a claim can say a scope is absent (a check removed).
    drafts.append(Draft("sdk-scopes", "document", [n for n, _, k in scopes if k != "container"],
                        1, max(1, len(artifact.text.splitlines()))))
    return artifact.facts(_numbered(drafts))


def _enum_member(r: _Reader, node: tree_sitter.Node) -> bool:
    """A Go constant of the state type: a member of the enum, not a scope of its own."""
    return node.type == "const_spec" and r.text(node.child_by_field_name("type")).endswith("TaskState")


def _first_error(node: tree_sitter.Node) -> tree_sitter.Node | None:
    if not node.has_error:
        return None
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n
        stack.extend(c for c in reversed(n.children) if c.has_error or c.is_missing)
    return node


def describe(value: dict[str, Any]) -> str:  # used by the site to say a guard in words
    parts = []
    if value.get("states"):
        parts.append(", ".join(value["states"]))
    if value.get("names"):
        parts.append(" / ".join(value["names"]))
    text = " or ".join(parts) or "nothing it names"
    if value.get("unless"):
        text += " (unless " + ", ".join(value["unless"]) + ")"
    return text
