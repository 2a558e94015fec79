"""A state enum as each SDK language declares it: its members, their wire names, and the
booleans its constants pass to a constructor (for `sdk_code`).

- Java: `enum TaskState { TASK_STATE_COMPLETED(true, false) … }`; a string argument is the
  wire name, boolean arguments are flags named by the constructor's parameters;
- Go: `TaskStateCompleted TaskState = "TASK_STATE_COMPLETED"` in a const block;
- C#: `[JsonStringEnumMemberName("…")]` on a member, or a kebab-case converter on the enum;
- Rust: the variants (their wire names are in the `Serialize` match, an `sdk-map`);
- TypeScript: `enum TaskState { X = 0 }` or `type TaskState = "submitted" | …`;
- Python: `class TaskState(str, Enum)` with `name = 'value'`, or a `.pyi` stub's
  annotated names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import tree_sitter

from .artifact import Draft
from .sdk_reader import Reader, state_of


def _is_state_enum(name: str) -> bool:
    return name.rsplit(".", 1)[-1] == "TaskState"


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()


def _string(r: Reader, node: tree_sitter.Node | None) -> str | None:
    """The first string literal's content under `node` ("" for an empty one), or None."""
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop(0)
        if n.type in r.g.strings:
            return "".join(r.text(leaf) for leaf in r.leaves(n) if r.in_string(leaf))
        stack[:0] = list(n.children)
    return None


def enum_drafts(r: Reader, scopes: list[tuple[str, tree_sitter.Node, str]]) -> list[Draft]:
    drafts: list[Draft] = []
    go_members: list[tuple[str, str | None, tree_sitter.Node]] = []
    for name, node, _ in scopes:
        if r.g.key == "go" and node.type == "const_spec":
            if r.text(node.child_by_field_name("type")).endswith("TaskState"):
                go_members.append((name, _string(r, node.child_by_field_name("value")), node))
            continue
        if not _is_state_enum(name):
            continue
        members: list[tuple[str, str | None]] = []
        if node.type in r.g.enums and r.g.key != "python":
            members = _members(r, node, drafts, name)
        elif node.type == "type_alias_declaration":
            members = [(w, w) for w in _union_strings(r, node)]
        elif node.type == "class_definition":
            members = _python_members(r, node)
        if members:
            drafts.append(_draft(name, members, node, state_of))
    if go_members:
        first, last = go_members[0][2], go_members[-1][2]
        drafts.append(Draft("sdk-enum", "TaskState", _value(
            [(n, w) for n, w, _ in go_members], state_of),
            first.start_point[0] + 1, last.end_point[0] + 1))
    return drafts


def _value(members: list[tuple[str, str | None]],
           state_of: Callable[[str], str | None]) -> dict[str, list[Any]]:
    return {"members": [m for m, _ in members], "wire": [w for _, w in members],
            "states": [state_of(w or "") or state_of(re.sub(r"^TaskState", "", m)) for m, w in members]}


def _draft(name: str, members: list[tuple[str, str | None]], node: tree_sitter.Node,
           state_of: Callable[[str], str | None]) -> Draft:
    return Draft("sdk-enum", name, _value(members, state_of),
                 node.start_point[0] + 1, node.end_point[0] + 1)


def _members(r: Reader, node: tree_sitter.Node, drafts: list[Draft],
             name: str) -> list[tuple[str, str | None]]:
    kebab = "KebabCaseLower" in " ".join(r.text(c) for c in node.children
                                         if c.type == "attribute_list")
    members: list[tuple[str, str | None]] = []
    flags: dict[int, list[str]] = {}
    params = _constructor_params(r, node)
    stack = [node.child_by_field_name("body") or node]
    while stack:
        n = stack.pop(0)
        if n.type in ("enum_constant", "enum_member_declaration", "enum_variant",
                      "enum_assignment") or (n.type == "property_identifier"
                                             and n.parent is not None
                                             and n.parent.type == "enum_body"):
            member = r.text(n.child_by_field_name("name")) if n.child_count else r.text(n)
            wire = _string(r, n)
            if r.g.key == "csharp":
                wire = _string(r, next((c for c in n.children if c.type == "attribute_list"), None))
                wire = wire or (_kebab(member) if kebab else None)
            if r.g.key == "rust":
                wire = None
            members.append((member, wire))
            args = n.child_by_field_name("arguments")
            if args is not None:
                values = [c for c in args.children if c.is_named]
                for i, v in enumerate(values):
                    if r.text(v) == "true":
                        flags.setdefault(i, []).append(member)
                    elif r.text(v) == "false":
                        flags.setdefault(i, [])
        else:
            stack[:0] = [c for c in n.children if c.type not in r.g.functions]
    for i, chosen in sorted(flags.items()):
        if i < len(params):
            drafts.append(Draft("sdk-flag", f"{name}.{params[i]}",
                                sorted(s for m in chosen if (s := state_of(m))),
                                node.start_point[0] + 1, node.end_point[0] + 1))
    return members


def _constructor_params(r: Reader, node: tree_sitter.Node) -> list[str]:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "constructor_declaration":
            ps = n.child_by_field_name("parameters")
            return [r.text(p.child_by_field_name("name")) for p in (ps.children if ps else [])
                    if p.type == "formal_parameter"]
        stack.extend(n.children)
    return []


def _union_strings(r: Reader, node: tree_sitter.Node) -> list[str]:
    value = node.child_by_field_name("value")
    if value is None or value.type != "union_type":
        return []
    return [r.text(leaf) for leaf in r.leaves(value) if r.in_string(leaf)]


def _python_members(r: Reader, node: tree_sitter.Node) -> list[tuple[str, str | None]]:
    body = node.child_by_field_name("body")
    members: list[tuple[str, str | None]] = []
    for statement in body.children if body else []:
        assignment = next((c for c in statement.children if c.type == "assignment"), None)
        if assignment is None:
            continue
        left = assignment.child_by_field_name("left")
        if left is None or left.type != "identifier":
            continue
        member = r.text(left)
        if member.startswith("__"):
            continue  # __slots__ and the like: the class's machinery, not a member
        wire = _string(r, assignment.child_by_field_name("right"))
        members.append((member, wire if wire is not None else member))
    return members
