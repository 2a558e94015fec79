"""Citation macros in hand-written pages: `{{spec §3.1.5}}`, `{{proto TaskState v0.3.0}}`,
`{{claim ID}}` and `{{conflict D3}}` become links to the exact lines of the pinned source,
to a claim's anchor or to a conflict's anchor; `{{values v0.3.0}}` becomes the count of a
version's values and what it counts, as its state table says it, linked to that table.

[`expand`][a2a_kb.site.macros.expand] is pure: it takes the Markdown of a page and a
[`Resolver`][a2a_kb.site.macros.Resolver], and returns
the new Markdown, the sources the page cited and the problems (unknown macro, claim, conflict,
section or symbol), each with its line. Macros inside code spans and fenced or indented code
blocks are left as they are.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from markdown_it import MarkdownIt

from ..errors import ConfigurationError
from ..facts import Fact
from ..records.kb import KnowledgeBase
from ..records.model import Source
from . import escape, paths
from .links import Linker
from .render.states import count_of
from .templating import environment

MACRO = re.compile(r"\{\{(?P<body>[^{}\n]*)\}\}")
KNOWN = ("spec", "proto", "claim", "conflict", "values")
_SECTION = re.compile(r"^§?(?P<n>\d+(?:\.\d+)*)$")
_SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$")
_VERSION = re.compile(r"^(?:v?\d+\.\d+\.\d+(?:-[0-9A-Za-z][0-9A-Za-z.]*)?|latest|main|draft)$")


class MacroError(Exception):
    """A macro that names nothing the knowledge base knows; the message says what and how."""


@dataclass(frozen=True)
class Link:
    """What a macro turns into: Markdown, and the source it cites (if any)."""

    markdown: str
    source: str = ""


@dataclass(frozen=True)
class Problem:
    line: int
    message: str

    def format(self, path: str) -> str:
        return f"{path}:{self.line}: {self.message}"


@dataclass
class Expansion:
    markdown: str
    cited: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class Resolver(Protocol):
    """Turns one macro into a link for the page `here`; raises MacroError if it cannot."""

    def spec(self, section: str, version: str, here: Linker) -> Link: ...
    def proto(self, symbol: str, version: str, here: Linker) -> Link: ...
    def claim(self, claim_id: str, here: Linker) -> Link: ...
    def conflict(self, conflict_id: str, here: Linker) -> Link: ...
    def values(self, version: str, here: Linker) -> Link: ...


def _code_lines(text: str) -> set[int]:
    """0-based numbers of the lines inside fenced or indented code blocks."""
    lines: set[int] = set()
    for token in MarkdownIt("commonmark").parse(text):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return lines


def _outside_code_spans(line: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the parts of `line` that are not inside a code span."""
    pos = 0
    start = 0
    while True:
        opening = re.compile(r"`+").search(line, pos)
        if opening is None:
            break
        ticks = opening.group(0)
        closing = re.compile(rf"(?<!`){ticks}(?!`)").search(line, opening.end())
        if closing is None:
            pos = opening.end()
            continue
        yield start, opening.start()
        start = pos = closing.end()
    yield start, len(line)


def _parse(body: str) -> tuple[str, list[str]]:
    words = body.split()
    return (words[0], words[1:]) if words else ("", [])


def _one(resolver: Resolver, here: Linker, body: str) -> Link:
    name, args = _parse(body)
    if name not in KNOWN:
        close = difflib.get_close_matches(name, KNOWN, n=1)
        tip = f"did you mean '{close[0]}'?" if close else "known: " + ", ".join(KNOWN)
        raise MacroError(f"unknown macro '{name}' (tip: {tip})")
    if name in ("claim", "conflict"):
        if len(args) != 1:
            example = "terminal-states" if name == "claim" else "D3"
            raise MacroError(f"'{name}' takes one id, e.g. {{{{{name} {example}}}}}")
        return resolver.claim(args[0], here) if name == "claim" else resolver.conflict(args[0], here)
    if name == "values":
        if len(args) > 1:
            raise MacroError("'values' takes an optional version, e.g. {{values v0.3.0}}")
        version = args[0] if args else "latest"
        if not _VERSION.match(version):
            raise MacroError(f"'{version}' is not a version (tip: write v0.3.0, latest, main or draft)")
        return resolver.values(version, here)
    if not 1 <= len(args) <= 2:
        example = "§3.1.5" if name == "spec" else "TaskState"
        raise MacroError(f"'{name}' takes a {'section' if name == 'spec' else 'symbol'} and an optional "
                         f"version, e.g. {{{{{name} {example} v0.3.0}}}}")
    version = args[1] if len(args) == 2 else "latest"
    if not _VERSION.match(version):
        raise MacroError(f"'{version}' is not a version (tip: write v0.3.0, latest, main or draft)")
    return resolver.spec(args[0], version, here) if name == "spec" else resolver.proto(args[0], version, here)


def expand(text: str, resolver: Resolver, here: Linker, first_line: int = 1) -> Expansion:
    """Resolve every macro of `text` outside code; `first_line` is the file line of its
    first line (front matter shifts it)."""
    code = _code_lines(text)
    result = Expansion("")
    out: list[str] = []
    for number, line in enumerate(text.split("\n")):
        if number in code or "{{" not in line:
            out.append(line)
            continue
        pieces: list[str] = []
        last = 0
        for start, end in _outside_code_spans(line):
            for m in MACRO.finditer(line, start, end):
                if m.end() > end:
                    continue
                pieces.append(line[last:m.start()])
                try:
                    link = _one(resolver, here, m.group("body"))
                except MacroError as e:
                    result.problems.append(Problem(first_line + number, str(e)))
                    pieces.append(f'<span class="kb-unresolved">{escape.markdown(m.group(0))}</span>')
                else:
                    pieces.append(link.markdown)
                    if link.source and link.source not in result.cited:
                        result.cited.append(link.source)
                last = m.end()
        pieces.append(line[last:])
        out.append("".join(pieces))
    result.markdown = "\n".join(out)
    return result


def sources_cited(kb: KnowledgeBase, cited: list[str]) -> str:
    """The "Sources cited" list that ends a page, or '' when it cited none."""
    if not cited:
        return ""
    lines = ["", "## Sources cited {#sources-cited}", ""]
    for sid in cited:
        source = kb.sources.get(sid)
        if source is None:
            continue
        href = escape.safe_url(source.permalink())
        name = f"`{sid}`" if re.fullmatch(r"[A-Za-z0-9@._-]+", sid) else escape.markdown(sid)
        label = f"[{name}]({href})" if href else name
        pin = f", commit `{source.commit[:7]}`" if source.commit else (
            f", read {escape.markdown(source.retrieved)}" if source.retrieved else "")
        lines.append(f"- {label}: {escape.markdown(source.title)}{pin}")
    return "\n".join(lines) + "\n"


class KnowledgeBaseResolver:
    """Resolves macros against a knowledge base and the facts of its pinned sources."""

    def __init__(self, kb: KnowledgeBase, facts: FactLookup,
                 tables: Mapping[str, dict[str, Any]] | None = None) -> None:
        self.kb = kb
        self.facts = facts
        self.tables = tables or {}  # version id → its state table, for {{values}}

    def _version(self, name: str) -> str:
        try:
            return self.kb.version(name).id
        except ConfigurationError as e:
            raise MacroError(str(e)) from e

    def _pick(self, version: str, kinds: tuple[str, ...], what: str) -> Source:
        v = self.kb.version(version)
        found = [s for s in self.kb.sources_of(v.id) if s.kind in kinds]
        if not found:
            having = [x.title for x in self.kb.ordered_versions
                      if any(s.kind in kinds for s in self.kb.sources_of(x.id))]
            tip = f"it is there from {having[0]} on" if having else "no version has one"
            raise MacroError(f"{v.title} has no {what} among the pinned sources (tip: {tip})")
        found.sort(key=lambda s: (s.ref != v.ref, s.path != "specification/a2a.proto", s.id))
        return found[0]

    @staticmethod
    def _suffix(explicit: bool, title: str) -> str:
        return f" {escape.markdown(f'({title})')}" if explicit else ""

    def spec(self, section: str, version: str, here: Linker) -> Link:
        m = _SECTION.match(section)
        if m is None:
            raise MacroError(f"'{section}' is not a section number (tip: write §3.1.5)")
        vid = self._version(version)
        source = self._pick(vid, ("spec",), "specification")
        facts = self.facts(source)
        found = facts.get(f"section:{m.group('n')}")
        if not found:
            numbers = [k.split(":", 1)[1] for k in facts if k.startswith("section:") and k[8:9].isdigit()]
            close = difflib.get_close_matches(m.group("n"), numbers, n=3)
            tip = (f"did you mean {', '.join('§' + c for c in close)}?" if close
                   else "see the specification's headings")
            raise MacroError(f"unknown section §{m.group('n')} in {source.id} (tip: {tip})")
        fact = found[0]
        title = str(fact.value.get("title", "")) if isinstance(fact.value, dict) else ""
        text = escape.markdown(f"§{m.group('n')} {title}".strip())
        suffix = self._suffix(version != "latest", self.kb.version(vid).title)
        return Link(f"[{text}{suffix}]({_href(source, fact)})", source.id)

    def proto(self, symbol: str, version: str, here: Linker) -> Link:
        if not _SYMBOL.match(symbol):
            raise MacroError(f"'{symbol}' is not a proto symbol (tip: write TaskState or TaskStatus.state)")
        vid = self._version(version)
        source = self._pick(vid, ("proto",), ".proto file")
        facts = self.facts(source)
        keys = ([f"enum-value:{symbol}", f"field:{symbol}", f"rpc-method:{symbol}"] if "." in symbol
                else [f"enum-values:{symbol}", f"message-fields:{symbol}", f"rpc-methods:{symbol}"])
        fact = next((facts[k][0] for k in keys if facts.get(k)), None)
        if fact is None:
            names = sorted({k.split(":", 1)[1] for k in facts
                            if k.split(":", 1)[0] in ("enum-values", "message-fields", "rpc-methods")})
            close = difflib.get_close_matches(symbol, names, n=3)
            tip = f"did you mean {', '.join(close)}?" if close else "name an enum, message or service"
            raise MacroError(f"unknown proto symbol '{symbol}' in {source.id} (tip: {tip})")
        suffix = self._suffix(version != "latest", self.kb.version(vid).title)
        return Link(f"[`{symbol}`{suffix}]({_href(source, fact)})", source.id)

    def claim(self, claim_id: str, here: Linker) -> Link:
        claim = self.kb.claims.get(claim_id)
        if claim is None:
            close = difflib.get_close_matches(claim_id, list(self.kb.claims), n=1)
            tip = f" (tip: did you mean '{close[0]}'?)" if close else ""
            raise MacroError(f"unknown claim '{claim_id}'{tip}")
        target = here.markdown_page(paths.CLAIMS, paths.claim_anchor(claim.id))
        cited = claim.source if claim.source in self.kb.sources else ""
        return Link(f"[`{claim.id}`]({target})", cited)

    def values(self, version: str, here: Linker) -> Link:
        vid = self._version(version)
        if vid not in self.tables:
            raise MacroError(f"no state table of {self.kb.version(vid).title} was computed")
        href = here.page(paths.state_table(vid))
        # The same macro of the same template as the state table pages (Jinja macros are
        # attributes mypy cannot see).
        count = environment().get_template("site/_count.j2").module
        return Link(str(count.long(count_of(self.tables[vid]), href)))  # type: ignore[attr-defined]

    def conflict(self, conflict_id: str, here: Linker) -> Link:
        conflict = self.kb.conflicts.get(conflict_id) or next(
            (c for c in self.kb.conflicts.values() if c.id.lower() == conflict_id.lower()), None)
        if conflict is None:
            known = ", ".join(sorted(self.kb.conflicts)) or "none yet"
            raise MacroError(f"unknown conflict '{conflict_id}' (known: {known})")
        target = here.markdown_page(paths.CONFLICTS, paths.conflict_anchor(conflict.id))
        return Link(f"[{conflict.id}]({target})")


class FactLookup(Protocol):
    def __call__(self, source: Source) -> dict[str, list[Fact]]: ...


def _href(source: Source, fact: Fact) -> str:
    link = escape.safe_url(source.permalink(fact.line_start, fact.line_end))
    if not link:
        raise MacroError(f"{source.id} has no https address to link to")
    return link
