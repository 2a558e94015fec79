"""Passages of the spec and docs that state lifecycle facts, and how their facts are named.

A Markdown source may say the same thing more than once, and not always alike: v0.2.5's
TaskState table calls `unknown` terminal, while its no-restart rule lists four terminal
states without it. Every passage is kept. The readers here find four sorts of passage:

- a TypeScript `type TaskState = | 'submitted' // …` union inside a code block (v0.1.0,
  v0.2.0): the enum as the spec shows it, each comment possibly giving a class;
- a `| Value | Description | Terminal? |` table (v0.1.0–v0.2.5): `Yes` is terminal,
  `No (Pause)` interrupted (the v0.x word for a task waiting on its client), `No` active;
- a list in prose: "a terminal state (completed, canceled, rejected, or failed)" gives
  terminal-states; "(e.g., …)", "like …" and "such as …" give only examples
  (terminal-examples, interrupted-examples), since they do not claim to be complete;
- an error table: error name with JSON-RPC code and message (error facts), or with gRPC
  and HTTP status (error-mapping facts).

Naming (`publish`): each passage's facts get the subject `<subject>@<anchor>`, the
anchor of the section the passage sits in; a second passage with the same kind and
subject in the same section gets `@<anchor>~2`, and so on. The plain `<subject>` is
given once more to the leading passage: the first passage inside the section that defines
TaskState (its heading names TaskState), else the first in the document. So
`terminal-states:TaskState` is what a source says where it defines the enum, and
`terminal-states:TaskState@61-task-object` what its Task section says.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from markdown_it.token import Token

from .artifact import Draft
from .lifecycle import TASK_STATE, EnumEntry, class_in_words, enum_drafts, state_list


@dataclass
class Passage:
    anchor: str
    defining: bool  # inside the section whose heading names TaskState
    drafts: list[Draft] = field(default_factory=list)


@dataclass
class Table:
    header: list[str]
    rows: list[tuple[int, list[str]]]  # (1-based line, raw cells)
    first_line: int
    last_line: int


def publish(passages: list[Passage]) -> list[Draft]:
    """The facts of all passages under the naming convention of this module."""
    drafts: list[Draft] = []
    repeats: Counter[tuple[str, str, str]] = Counter()
    for passage in passages:
        for d in passage.drafts:
            repeats[(d.kind, d.subject, passage.anchor)] += 1
            n = repeats[(d.kind, d.subject, passage.anchor)]
            suffix = f"@{passage.anchor}" + (f"~{n}" if n > 1 else "")
            drafts.append(Draft(d.kind, d.subject + suffix, d.value, d.line_start, d.line_end))
    leading = sorted(passages, key=lambda p: not p.defining)  # stable: document order kept
    taken: set[tuple[str, str]] = set()
    for passage in leading:
        for d in passage.drafts:
            if (d.kind, d.subject) not in taken:
                taken.add((d.kind, d.subject))
                drafts.append(d)
    return drafts


# --- the TypeScript union ------------------------------------------------------------------

_UNION_START = re.compile(r"^\s*(?:export\s+)?type\s+TaskState\s*=")
_UNION_MEMBER = re.compile(r"^\s*\|?\s*['\"](?P<value>[^'\"]+)['\"]\s*;?\s*(?://\s*(?P<comment>.*))?$")


def read_union(fence: Token) -> list[Draft]:
    """The TaskState union of a TypeScript code block, or nothing when it has none."""
    if fence.map is None:
        return []
    body = fence.content.splitlines()
    first_content_line = fence.map[0] + 2  # 1-based; the fence's opening line comes first
    entries: list[EnumEntry] = []
    start = 0
    for offset, text in enumerate(body):
        line = first_content_line + offset
        if not start:
            if _UNION_START.match(text):
                start = line
            continue
        member = _UNION_MEMBER.match(text)
        if not member:
            if entries:
                break
            continue
        comment = (member.group("comment") or "").strip()
        entries.append(EnumEntry(spelling=member.group("value"), description=comment,
                                 state_class=class_in_words(comment),
                                 line_start=line, line_end=line))
        if text.split("//")[0].rstrip().endswith(";"):
            break
    if not entries:
        return []
    return enum_drafts(entries, start, entries[-1].line_end)


# --- tables -----------------------------------------------------------------------------

def plain(cell: str) -> str:
    """A cell without Markdown emphasis, code marks, quotes and surrounding space."""
    return cell.strip().strip("`*_\"' ").strip()


def _terminal_column(cell: str) -> str | None:
    answer = plain(cell).lower()
    if answer.startswith("yes"):
        return "terminal"
    if answer.startswith("no"):
        return "interrupted" if "pause" in answer else "active"
    return None


def read_state_table(table: Table) -> list[Draft]:
    """A `Value | Description | Terminal?` table, or nothing when `table` is another."""
    header = [plain(h).lower() for h in table.header]
    if "value" not in header or not any(h.startswith("terminal") for h in header):
        return []
    value_at = header.index("value")
    class_at = next(i for i, h in enumerate(header) if h.startswith("terminal"))
    described_at = header.index("description") if "description" in header else None
    entries = []
    for line, cells in table.rows:
        if len(cells) <= max(value_at, class_at):
            continue
        description = cells[described_at].strip() if described_at is not None else ""
        entries.append(EnumEntry(spelling=plain(cells[value_at]), description=description,
                                 state_class=_terminal_column(cells[class_at]),
                                 line_start=line, line_end=line))
    return enum_drafts(entries, table.first_line, table.last_line) if entries else []


_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CODE = re.compile(r"-?\d+")
_HTTP = re.compile(r"(\d{3})\b")
_GRPC = re.compile(r"[A-Z][A-Z_]*")


def _roles(header: list[str]) -> dict[str, int]:
    """Which column of an error table holds what, read from its header."""
    roles: dict[str, int] = {}
    for i, cell in enumerate(header):
        text = plain(cell).lower()
        if "error name" in text or "error type" in text:
            role = "name"
        elif "grpc" in text:
            role = "grpc"
        elif "http" in text:
            role = "http"
        elif "message" in text:
            role = "message"
        elif "code" in text:
            role = "code"
        else:
            continue
        roles.setdefault(role, i)
    return roles


def _cell(cells: list[str], roles: dict[str, int], role: str) -> str:
    at = roles.get(role)
    return plain(cells[at]) if at is not None and at < len(cells) else ""


def read_error_table(table: Table) -> list[Draft]:
    """Error facts (name → code, message) or error-mapping facts (name → JSON-RPC code,
    HTTP status, gRPC status) of a table, or nothing when it is no error table."""
    roles = _roles(table.header)
    mapping = "grpc" in roles or "http" in roles
    if "name" not in roles or not (mapping or "code" in roles):
        return []
    drafts = []
    for line, cells in table.rows:
        name = _cell(cells, roles, "name")
        if not _IDENTIFIER.fullmatch(name):
            continue
        code_text = _cell(cells, roles, "code")
        code = int(code_text) if _CODE.fullmatch(code_text) else None
        if mapping:
            http = _HTTP.match(_cell(cells, roles, "http"))
            grpc = _cell(cells, roles, "grpc")
            value: dict[str, object] = {
                "json-rpc": code,
                "http": int(http.group(1)) if http else None,
                "grpc": grpc if _GRPC.fullmatch(grpc) else None,
            }
            drafts.append(Draft("error-mapping", name, value, line, line))
        else:
            message = _cell(cells, roles, "message")
            value = {"code": code, "message": message or None}
            drafts.append(Draft("error", name, value, line, line))
    return drafts


# --- lists in prose -----------------------------------------------------------------------

_CLASS_LIST = re.compile(
    r"\b(?P<cls>terminal|interrupted)\s+states?\s*"
    r"(?:\((?P<paren>[^()]*)\)|(?P<like>like|such as)\s+(?P<tail>[^.;()]*))",
    re.IGNORECASE,
)


def read_state_lists(content: str, first_line: int) -> list[list[Draft]]:
    """Each list of terminal or interrupted states in one inline run of prose.

    `content` is the raw Markdown of a paragraph, list item or table cell; its lines
    are the source lines from `first_line` on, so a match's line is counted from it.
    """
    found = []
    for match in _CLASS_LIST.finditer(content):
        words = match.group("paren") if match.group("paren") is not None else match.group("tail")
        read = state_list(words)
        if read is None:
            continue
        states, examples = read
        examples = examples or match.group("like") is not None
        state_class = match.group("cls").lower()
        kind = f"{state_class}-{'examples' if examples else 'states'}"
        start = first_line + content.count("\n", 0, match.start())
        end = first_line + content.count("\n", 0, match.end() - 1)
        drafts = [Draft(kind, TASK_STATE, states, start, end)]
        drafts += [Draft("state-class", f"{TASK_STATE}.{s}", state_class, start, end)
                   for s in states]
        found.append(drafts)
    return found
