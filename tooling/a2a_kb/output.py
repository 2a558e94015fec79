"""Shared output shapes: the JSON envelope, plain-text tables, and the one function that
makes text safe to show on a terminal.

Record text, file names, source text and command-line arguments all end up on someone's
terminal. `terminal_safe` is the single door for text going there: every command's
output and every error message pass through it (the CLI's `emit` and `say`), so an
escape sequence in a record can neither clear a screen, rewrite a line, retitle a window
nor hide text behind a right-to-left override.
"""

from __future__ import annotations

import json
import os
import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: see a2a_kb.cli on start-up
if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 1

# C0 controls but tab and line feed, DEL, the C1 controls (0x9b is a one-byte CSI to many
# terminals), and the bidirectional embeddings, overrides and isolates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# JSON escapes the C0 controls itself; these it would write raw with ensure_ascii=False.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def terminal_safe(text: str) -> str:
    """`text` with every character that drives a terminal shown as a `\\uXXXX` escape."""
    return _UNSAFE.sub(_escaped, text)


_LINE_BREAKS = re.compile("[\t\n\r\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` as one line of a report: terminal controls and every line break escaped.

    A report that prints text from upstream (a tag name, a page's words) line by line must
    not let that text start a line of its own: a line that reads `::error …` is a command
    to a CI runner, and one that reads ```` ``` ```` closes a Markdown fence."""
    return _LINE_BREAKS.sub(_escaped, terminal_safe(text))


def listed(names: list[str]) -> str:
    """Names as a sentence lists them: `a`, `a and b`, `a, b and c`."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def generated_at() -> str:
    """Now in UTC, or $SOURCE_DATE_EPOCH when set, so builds can be reproduced."""
    import datetime as dt  # here: the warm path of `a2a-kb query` never asks the time

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (
        dt.datetime.fromtimestamp(int(epoch), dt.UTC)
        if epoch and epoch.isdigit()
        else dt.datetime.now(dt.UTC)
    )
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def envelope(payload: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "generated_at": generated_at(), **payload}


def dumps(payload: Any) -> str:
    """JSON for people and tools: UTF-8 as is, but no raw terminal controls (the escapes are
    JSON's own, so a tool reads back exactly the same strings)."""
    text = json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=False)
    return _UNSAFE_IN_JSON.sub(_escaped, text)


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain-text table, columns padded to their widest cell."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)
