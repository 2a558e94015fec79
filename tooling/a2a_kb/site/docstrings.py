"""Docstrings as text on the Python API page: a Griffe extension that escapes their markup.

mkdocstrings renders each docstring as Markdown, and Markdown passes raw HTML through. A
docstring that names a placeholder the usual way, ``<title slug>`` or ``<Message>``, was
read by the browser as an element: ``<title slug>`` opened a ``<title>``, whose content is
raw text up to ``</title>``, so half of the page (37 of 71 entries, the footer and the
theme's scripts) vanished from the document. Every docstring therefore reaches Markdown
with ``&``, ``<`` and ``>`` escaped, except inside code spans and fenced blocks, where
Markdown shows text literally already. mkdocs.yml loads this module as an extension of the
Python handler (``extensions: [a2a_kb.site.docstrings:EscapeDocstrings]``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_FENCE = re.compile(r"^\s*(```|~~~)")
# A code span: a run of backticks, then anything up to the same run (CommonMark's rule).
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_MARKUP = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _escape_text(text: str) -> str:
    return re.sub(r"[&<>]", lambda m: _MARKUP[m.group(0)], text)


def _escape_line(line: str) -> str:
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(line):
        out.append(_escape_text(line[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_escape_text(line[last:]))
    return "".join(out)


def escape_docstring(text: str) -> str:
    """``text`` with every ``&``, ``<`` and ``>`` that Markdown would read as markup escaped:
    all of them but those in code spans and fenced code blocks. Indented code blocks are
    not used in this package's docstrings (a fence says what is code)."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            out.append(line)
            if opened and opened.group(1) == fence:
                fence = ""
        elif opened:
            fence = opened.group(1)
            out.append(line)
        else:
            out.append(_escape_line(line))
    return "\n".join(out)


class EscapeDocstrings(griffe.Extension):
    """Escapes each object's docstring as it is loaded, before any part of it is parsed."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        done = obj.extra["a2a_kb"]
        if obj.docstring is not None and not done.get("escaped"):
            obj.docstring.value = escape_docstring(obj.docstring.value)
            done["escaped"] = True  # twice would show "&lt;" instead of "<"
