"""Facts of an SDK's source file (source kind `sdk-code`), read with tree-sitter.

One walker serves the six languages of the official SDKs; `sdk_grammars` says how
each writes a class, a function, a branch and a switch. What it reads is the lifecycle as
code states it, never its comments:

- `sdk-enum:<Enum>`: a state enum's members in source order, the wire name each is
  declared with (a string value, an attribute, a constructor argument; `None` where the
  declaration gives none), and the canonical state of each;
- `sdk-flag:<Enum>.<parameter>`: where an enum's constants pass booleans to its
  constructor (Java's `TASK_STATE_COMPLETED(true, false)`), the states whose argument for
  that parameter is `true`;
- `sdk-scope:<Scope>`: for a function, method or constant that names a state, the states
  it names and the lifecycle words among its identifiers (`terminal`, `final`,
  `interrupt`): `Terminal`, `TERMINAL_TASK_STATES`, `isFinal`;
- `sdk-guard:<Scope>/<Error>`: a branch whose body raises or returns a lifecycle error
  (`TaskNotCancelable` …), with the states its condition tests (`states`), the states
  it tests for inequality (`unless`: `!=`, `not in`) and the lifecycle words it calls;
- `sdk-branches:<Scope>`: every branch of a function whose condition looks at the
  lifecycle, in source order, with the same keys and what it does (`raise <Error>`,
  `return` or `other`);
- `sdk-map:<Scope>`: a switch, match or map literal over states: each pattern (a
  canonical state, a quoted string, `default`) and what it gives (a state, a quoted
  string, `error`, `null` or `other`);
- `sdk-code:<Name>`: an integer constant in JSON-RPC's error range (-32768 to -32000) and
  the name it is declared or matched under;
- `sdk-error-map:<Error>`: what the file's error tables give a lifecycle error
  (`TaskNotCancelable` …) on each transport: `{"json-rpc": int|None, "http": int|None,
  "grpc": str|None}`, read from switch and match arms, map literals and enum arguments.

A repeated subject gets `~2`, `~3` … in source order. Lines are the declaration's,
branch's or switch's own.
"""

from __future__ import annotations

from collections import defaultdict

import tree_sitter

from ..facts import Fact
from .artifact import Artifact, Draft
from .sdk_enums import enum_drafts
from .sdk_errors import codes, error_tables
from .sdk_grammars import grammar_for, parser
from .sdk_reader import Reader, ancestors, scope_name, span, split_arm

_LOCAL_DECLARATIONS = frozenset({"variable_declarator", "short_var_declaration", "let_declaration",
                                 "assignment"})


def _walk(r: Reader) -> list[tuple[str, tree_sitter.Node, str]]:
    """Every scope of the file: (qualified name, node, "function" | "variable" | "container").
    A variable opens a scope only outside functions (a module's or class's constant)."""
    g, found = r.g, []

    def visit(node: tree_sitter.Node, prefix: list[str], in_function: bool) -> None:
        for child in node.children:
            kind = ("container" if child.type in g.containers else
                    "function" if child.type in g.functions else
                    "variable" if child.type in g.variables and not in_function else "")
            name = scope_name(r, child) if kind else ""
            if kind and name:
                found.append((".".join([*prefix, name]), child, kind))
                visit(child, [*prefix, name], in_function or kind == "function")
            else:
                visit(child, prefix, in_function)

    visit(r.tree.root_node, [], False)
    return found


def _numbered(drafts: list[Draft]) -> list[Draft]:
    """Drafts whose subject repeats get `~2`, `~3` … in source order."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    out = []
    for d in sorted(drafts, key=lambda d: (d.line_start, d.kind, d.subject)):
        seen[(d.kind, d.subject)] += 1
        n = seen[(d.kind, d.subject)]
        out.append(d if n == 1 else Draft(d.kind, f"{d.subject}~{n}", d.value,
                                          d.line_start, d.line_end))
    return out


def _locals(r: Reader, node: tree_sitter.Node) -> dict[str, list[str]]:
    """The names declared inside a function whose value names states
    (`const nonCancelableStates = ['completed', …]`)."""
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


def _guards(r: Reader, scope: str, node: tree_sitter.Node,
            constants: dict[str, list[str]]) -> list[Draft]:
    """The branches of a function that look at the lifecycle: each that ends in a lifecycle
    error (`sdk-guard`), and all of them in source order with what each does
    (`sdk-branches`), so that an early `return` before a refusal is seen. A name in the
    condition that this file declares with states (a constant, or a local of the function)
    counts as those states."""
    known = {**constants, **_locals(r, node)}
    drafts, branches, last = [], [], 0
    for n in _in_order(node, r.g.branches):
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
            continue  # a branch that does not look at the lifecycle
        errors = r.errors(body)
        for error in errors:
            drafts.append(Draft("sdk-guard", f"{scope}/{error}", value, *span(n, body)))
        does = (f"raise {errors[0]}" if errors else
                "return" if any(c.type in _RETURNS for c in _in_order(body, _RETURNS)) else "other")
        branches.append({**value, "does": does})
        last = span(n, body)[1]
    if branches:
        drafts.append(Draft("sdk-branches", scope, branches, span(node)[0], last))
    return drafts


_RETURNS = frozenset({"return_statement", "return_expression"})


def _in_order(node: tree_sitter.Node, types: frozenset[str]) -> list[tree_sitter.Node]:
    """The nodes of `types` under `node`, in source order."""
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type in types:
            found.append(n)
        stack.extend(reversed(n.children))
    return found


def _label(r: Reader, parts: list[tree_sitter.Node], pattern: bool) -> list[str]:
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
            p.type in r.g.errors for leaf in leaves for p in ancestors(leaf, parts)):
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


def _maps(r: Reader, scope: str, node: tree_sitter.Node) -> list[Draft]:
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
            pattern, result = split_arm(r, arm)
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
            drafts.append(Draft("sdk-map", scope, mapping, *span(n)))
    return drafts


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
    r = Reader(grammar, tree, data)
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
                                *span(node)))
        if kind == "function":
            drafts += _guards(r, name, node, constants)
        drafts += _maps(r, name, node)
    drafts += codes(r, scopes)
    drafts += error_tables(r)
    # What the file declares, so that a claim can say a scope is absent (a check removed).
    drafts.append(Draft("sdk-scopes", "document", [n for n, _, k in scopes if k != "container"],
                        1, max(1, len(artifact.text.splitlines()))))
    return artifact.facts(_numbered(drafts))


def _enum_member(r: Reader, node: tree_sitter.Node) -> bool:
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
