"""Docstrings as text on the Python API page: a Griffe extension that escapes their markup.

mkdocstrings renders each docstring as Markdown, and Markdown passes raw HTML through. A
docstring that names a placeholder the usual way, `<title slug>` or `<Message>`, was
read by the browser as an element: `<title slug>` opened a `<title>`, whose content is
raw text up to `</title>`, so half of the page (37 of 71 entries, the footer and the
theme's scripts) vanished from the document. Every docstring therefore reaches Markdown
with `&`, `<` and `>` escaped, except inside code spans and fenced blocks, where
Markdown shows text literally already. mkdocs.yml loads this module as an extension of the
Python handler (`extensions: [a2a_kb.site.docstrings:EscapeDocstrings]`).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_FENCE = re.compile(r"^\s*(```|~~~)")
# A Google-style section of examples: its title alone on a line, then indented lines.
_EXAMPLES = re.compile(r"^(\s*)Examples?:\s*$")
# A code span: a run of backticks, then anything up to the same run (CommonMark's rule),
# within one paragraph: it may go on over a line break, never over a blank line.
_CODE_SPAN = re.compile(r"(`+)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.S)
_MARKUP = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _escape_text(text: str) -> str:
    return re.sub(r"[&<>]", lambda m: _MARKUP[m.group(0)], text)


def _escape_prose(text: str) -> str:
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape_text(text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_escape_text(text[last:]))
    return "".join(out)


def escape_docstring(text: str) -> str:
    """`text` with every `&`, `<` and `>` that Markdown would read as markup escaped:
    all of them but those in code spans (one may run over a line break), fenced code
    blocks and `Examples:` sections, whose `>>>` lines the docstring parser turns into
    code blocks itself. Indented code blocks are not used in this package's docstrings
    (a fence or an `Examples:` section says what is code)."""
    out: list[str] = []
    prose: list[str] = []
    fence = ""
    examples: str | None = None  # the indentation of the Examples: title we are under

    def flush() -> None:
        if prose:
            out.append(_escape_prose("\n".join(prose)))
            prose.clear()

    for line in text.split("\n"):
        if examples is not None:
            indent = line[: len(line) - len(line.lstrip())]
            if not line.strip() or len(indent) > len(examples):
                out.append(line)
                continue
            examples = None
        opened = _FENCE.match(line)
        titled = _EXAMPLES.match(line)
        if fence:
            out.append(line)
            if opened and opened.group(1) == fence:
                fence = ""
        elif opened or titled:
            flush()
            out.append(line)
            if opened:
                fence = opened.group(1)
            else:
                examples = titled.group(1) if titled else None
        else:
            prose.append(line)
    flush()
    return "\n".join(out)


class EscapeDocstrings(griffe.Extension):
    """Escapes each object's docstring as it is loaded, before any part of it is parsed."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        done = obj.extra["a2a_kb"]
        if obj.docstring is not None and not done.get("escaped"):
            obj.docstring.value = escape_docstring(obj.docstring.value)
            done["escaped"] = True  # twice would show "&lt;" instead of "<"
