"""What the SDK extractor (`sdk_code`) reads a file with: its tree, the states and
lifecycle errors its leaves name (comments left out), and the helpers the facts of
`sdk_code`, `sdk_enums` and `sdk_errors` share."""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from ..facts import canonical_state
from .sdk_grammars import Grammar

LIFECYCLE_WORD = re.compile(r"(?i)terminal|final|interrupt")
ERRORS = ("TaskNotCancelable", "TaskNotFound", "UnsupportedOperation", "InvalidParams",
          "InvalidRequest", "ContentTypeNotSupported")
_ERROR_KEYS = {e.lower(): e for e in ERRORS}
_JAVA_CONSTANTS = re.compile(r"(?:SUBMITTED|WORKING|INPUT_REQUIRED|AUTH_REQUIRED|COMPLETED|"
                             r"CANCELED|CANCELLED|FAILED|REJECTED|UNKNOWN|UNSPECIFIED)")
_THREADS = re.compile(r"Exception$|^interrupt$|^Interrupt$")  # a thread's interruption, not a task's
_NEGATIONS = ("!=", "!==", "not in", "is not", "not")
INTEGER_LEAVES = frozenset({"decimal_integer_literal", "int_literal", "integer_literal",
                             "number", "integer"})


def state_of(spelling: str) -> str | None:
    """The canonical state a spelling names; protobuf's `UNRECOGNIZED` stays itself,
    since an SDK that maps it is making a choice about an unknown value."""
    if spelling.upper() == "UNRECOGNIZED":
        return "unrecognized"
    return canonical_state(spelling)


def error_of(identifier: str) -> str | None:
    """The lifecycle error an identifier names, in any language's spelling:
    `ErrTaskNotCancelable`, `task_not_cancelable`, `TaskNotCancelableError`."""
    name = re.sub(r"^Err(?=[A-Z])", "", identifier.rsplit(".", 1)[-1])
    name = re.sub(r"(?i)_?(error|exception)$", "", name)
    return _ERROR_KEYS.get(name.replace("_", "").lower())


class Reader:
    """One file's tree, and what its leaves name."""

    def __init__(self, grammar: Grammar, tree: tree_sitter.Tree, source: bytes) -> None:
        self.g = grammar
        self.tree = tree
        self.source = source

    @staticmethod
    def text(node: tree_sitter.Node | None) -> str:
        return node.text.decode("utf-8", "replace") if node is not None and node.text else ""

    def leaves(self, node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
        """The leaves under `node`, comments left out."""
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
        """Whether the comparison nearest above `leaf` (within `stop`) tests inequality."""
        node = leaf.parent
        while node is not None:
            ops = [self.text(c) for c in node.children if not c.is_named]
            if any(op in ("==", "===", "!=", "!==", "in", "not in", "is", "is not") for op in ops):
                return any(op in _NEGATIONS for op in ops)
            if node == stop:
                break
            node = node.parent
        return False


def scope_name(r: Reader, node: tree_sitter.Node) -> str:
    """The name a declaration gives its scope: a Go method is `Receiver.Method`, a Rust
    `impl` its type, a Python assignment its target."""
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


def span(node: tree_sitter.Node, end: tree_sitter.Node | None = None) -> tuple[int, int]:
    return node.start_point[0] + 1, (end or node).end_point[0] + 1


def split_arm(r: Reader, arm: tree_sitter.Node) -> tuple[list[tree_sitter.Node], list[tree_sitter.Node]]:
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


def ancestors(leaf: tree_sitter.Node, tops: list[tree_sitter.Node]) -> Iterator[tree_sitter.Node]:
    node = leaf.parent
    while node is not None and node not in tops:
        yield node
        node = node.parent
