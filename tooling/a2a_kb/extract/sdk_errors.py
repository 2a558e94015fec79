"""Lifecycle errors as an SDK's code declares them (for `sdk_code`): the integers in
JSON-RPC's error range and the name each is declared under (`sdk-code`), and what the
file's error tables give each lifecycle error on each transport (`sdk-error-map`)."""

from __future__ import annotations

import re
from typing import Any

import tree_sitter

from .artifact import Draft
from .sdk_reader import INTEGER_LEAVES, Reader, scope_name, span, split_arm

_GRPC = ("CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
         "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
         "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
         "UNAUTHENTICATED")
_GRPC_KEYS = {g.replace("_", "").lower(): g for g in _GRPC}
# HTTP statuses written by name: ASP.NET's Results helpers, Java's HttpStatus …
_HTTP_NAMES = {"badrequest": 400, "notfound": 404, "conflict": 409, "unprocessableentity": 422,
               "unsupportedmediatype": 415, "internalservererror": 500}


def _transport(r: Reader, parts: list[tree_sitter.Node]) -> dict[str, Any]:
    """The JSON-RPC code, HTTP status and gRPC code an error table's entry gives."""
    found: dict[str, Any] = {}
    for leaf in (leaf for p in parts for leaf in r.leaves(p)):
        t = r.text(leaf)
        if leaf.type in INTEGER_LEAVES and t.lstrip("-").isdigit():
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


def _negative(r: Reader, leaf: tree_sitter.Node) -> bool:
    parent = leaf.parent
    return r.text(leaf).startswith("-") or (
        parent is not None and r.text(parent).replace(" ", "") == "-" + r.text(leaf))


def error_tables(r: Reader) -> list[Draft]:
    """`sdk-error-map:<Error>`: what an error table (a switch or match arm, a map literal's
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
            pattern, result = split_arm(r, n)
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
                start, end = span(n)
                was = lines.get(error, (start, end))
                lines[error] = (min(was[0], start), max(was[1], end))
    return [Draft("sdk-error-map", error, {k: merged[error].get(k) for k in ("json-rpc", "http", "grpc")},
                  *lines[error]) for error in sorted(merged)]


def codes(r: Reader, scopes: list[tuple[str, tree_sitter.Node, str]]) -> list[Draft]:
    """Integers in JSON-RPC's error range, by the name they are declared or matched under,
    qualified by the innermost scope that holds them (`TaskNotCancelableError.code`)."""
    drafts, seen = [], set()
    for leaf in r.leaves(r.tree.root_node):
        if leaf.type not in INTEGER_LEAVES:
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
            drafts.append(Draft("sdk-code", name, value, *span(leaf)))
    return drafts


def _code_name(r: Reader, leaf: tree_sitter.Node) -> str:
    node = leaf.parent
    while node is not None:
        if node.type in r.g.arms:
            pattern, _ = split_arm(r, node)
            ids = [r.text(x) for p in pattern for x in r.leaves(p)
                   if x.type.endswith("identifier")]
            return ids[-1] if ids else ""
        if node.type in r.g.variables or node.type in r.g.members:
            return scope_name(r, node) or r.text(node.child_by_field_name("name"))
        node = node.parent
    return ""
