"""One docstring style across the package: Google style, as mkdocstrings documents it
(mkdocs.yml says so), with Markdown text. No Sphinx role, reStructuredText literal or table,
and every `>>>` example under an `Examples:` section, where the docstring parser makes it
a code block. Read with the parser Python itself uses (ast)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import griffe
import pytest
import yaml

from a2a_kb.site.docstrings import escape_docstring

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "tooling" / "a2a_kb"
_ROLE = re.compile(r":(?:class|func|meth|data|mod|attr|exc|obj|ref|const|py:\w+):`")
_RST_LITERAL = re.compile(r"(?<!`)``(?!`)[^`\n]+``(?!`)")
_RST_RULE = re.compile(r"^\s*={4,}(\s+={4,})+\s*$", re.M)


def _docstrings() -> Iterator[tuple[str, int, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                text = ast.get_docstring(node, clean=True)
                if text:
                    line = node.body[0].lineno if node.body else 1
                    yield f"{path.relative_to(REPO)}:{line}", line, text


def test_mkdocstrings_reads_the_google_style() -> None:
    config = yaml.load((REPO / "mkdocs.yml").read_text("utf-8"), Loader=yaml.BaseLoader)
    plugins = {next(iter(p)) if isinstance(p, dict) else p: p for p in config["plugins"]}
    options = plugins["mkdocstrings"]["mkdocstrings"]["handlers"]["python"]["options"]
    assert options["docstring_style"] == "google"


def test_no_docstring_keeps_sphinx_or_restructuredtext_markup() -> None:
    found = []
    for where, _, text in _docstrings():
        for pattern, what in ((_ROLE, "a Sphinx role"), (_RST_LITERAL, "an RST ``literal``"),
                              (_RST_RULE, "an RST table")):
            if m := pattern.search(text):
                found.append(f"{where}: {what}: {m.group(0)!r}")
    assert len(list(_docstrings())) > 500
    assert not found, "\n".join(found)


def test_every_example_is_in_an_examples_section_the_parser_reads_as_code() -> None:
    """Each docstring with `>>>` lines, parsed by griffe's Google parser (the one
    mkdocstrings uses): every `>>>` line lands in an examples section's code, none in
    text."""
    seen = 0
    for where, _, text in _docstrings():
        if ">>>" not in text:
            continue
        sections = griffe.Docstring(text).parse("google")
        code = "\n".join(str(part[1]) for s in sections if s.kind.value == "examples"
                         for part in s.value if part[0].value == "examples")
        prose = "\n".join(str(s.value) for s in sections if s.kind.value == "text")
        wanted = [line.strip() for line in text.splitlines() if line.strip().startswith(">>>")]
        assert all(line in code for line in wanted), (where, wanted, code)
        assert ">>>" not in re.sub(r"`[^`]*`", "", prose), (where, prose)  # but in a code span
        seen += len(wanted)
    assert seen >= 40


@pytest.mark.parametrize(("text", "expected"), [
    ("a <b> c", "a &lt;b&gt; c"),
    ("`<kept>` and <x>", "`<kept>` and &lt;x&gt;"),
    # a code span may run over a line break; the next paragraph starts anew
    ("`a\n<b>` <c>\n\n`d <e>", "`a\n<b>` &lt;c&gt;\n\n`d &lt;e&gt;"),
    ("```text\n<a>\n```\n<b>", "```text\n<a>\n```\n&lt;b&gt;"),
    ("Examples:\n    >>> f('<a>')\n    '<a>'\n\nafter <z>",
     "Examples:\n    >>> f('<a>')\n    '<a>'\n\nafter &lt;z&gt;"),
])
def test_escaping_leaves_code_spans_fences_and_examples_alone(text: str, expected: str) -> None:
    assert escape_docstring(text) == expected
