"""Citation macros: parsing, code left alone, links to the exact lines, and failures that
name the page and the line."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2a_kb.errors import BuildError
from a2a_kb.project import Project
from a2a_kb.site.build import build_into
from a2a_kb.site.data import SiteData, collect
from a2a_kb.site.links import Linker
from a2a_kb.site.macros import KnowledgeBaseResolver, Link, MacroError, expand, sources_cited
from a2a_kb.site.vendor import vendor_dir
from conftest import REPO

HERE = Linker("guide/page.md")


class FakeResolver:
    """Resolves every macro to a marker naming it; ids starting with 'bad' are unknown."""

    def spec(self, section: str, version: str, here: Linker) -> Link:
        return Link(f"<SPEC {section} {version}>", f"spec@{version}")

    def proto(self, symbol: str, version: str, here: Linker) -> Link:
        if symbol.startswith("Bad"):
            raise MacroError(f"unknown proto symbol '{symbol}'")
        return Link(f"<PROTO {symbol} {version}>", f"proto@{version}")

    def claim(self, claim_id: str, here: Linker) -> Link:
        if claim_id.startswith("bad"):
            raise MacroError(f"unknown claim '{claim_id}'")
        return Link(f"<CLAIM {claim_id}>", "claim-source")

    def conflict(self, conflict_id: str, here: Linker) -> Link:
        return Link(f"<CONFLICT {conflict_id}>")

    def values(self, version: str, here: Linker) -> Link:
        return Link(f"<VALUES {version}>")


def run(text: str, first_line: int = 1) -> tuple[str, list[str], list[tuple[int, str]]]:
    result = expand(text, FakeResolver(), HERE, first_line)
    return result.markdown, result.cited, [(p.line, p.message) for p in result.problems]


def test_each_macro_kind_resolves_with_its_default_version() -> None:
    text = "A {{spec §3.1.5}} B {{ proto TaskState v0.3.0 }} C {{claim x}} D {{conflict D3}} E {{values}}"
    out, cited, problems = run(text)
    assert out == ("A <SPEC §3.1.5 latest> B <PROTO TaskState v0.3.0> C <CLAIM x> D <CONFLICT D3> "
                   "E <VALUES latest>")
    assert run("{{values v0.3.0}}")[0] == "<VALUES v0.3.0>"
    too_many = "'values' takes an optional version, e.g. {{values v0.3.0}}"
    assert run("{{values v0.3.0 v1.0.0}}")[2] == [(1, too_many)]
    assert cited == ["spec@latest", "proto@v0.3.0", "claim-source"]
    assert problems == []


def test_cited_sources_are_listed_once_in_order() -> None:
    _, cited, _ = run("{{claim a}} {{spec §1}} {{claim b}}\n{{spec §2}}")
    assert cited == ["claim-source", "spec@latest"]


def test_macros_in_code_are_left_alone() -> None:
    text = "\n".join([
        "Inline `{{claim bad-1}}` and ``{{claim bad-2}}`` stay.",
        "",
        "```markdown",
        "{{claim bad-3}}",
        "```",
        "",
        "~~~",
        "{{spec nonsense}}",
        "~~~",
        "",
        "    {{claim bad-4}} in an indented block",
        "",
        "After: {{claim ok}}",
    ])
    out, _, problems = run(text)
    assert problems == []
    assert out.count("{{claim bad-") == 4 and "{{spec nonsense}}" in out
    assert out.endswith("After: <CLAIM ok>")


def test_a_macro_beside_a_code_span_still_resolves() -> None:
    out, _, problems = run("`code` then {{claim ok}} then `{{claim bad}}`")
    assert out == "`code` then <CLAIM ok> then `{{claim bad}}`"
    assert problems == []


@pytest.mark.parametrize(("text", "message"), [
    ("{{claim bad-id}}", "unknown claim 'bad-id'"),
    ("{{clam x}}", "unknown macro 'clam' (tip: did you mean 'claim'?)"),
    ("{{frobnicate x}}", "unknown macro 'frobnicate'"),
    ("{{}}", "unknown macro ''"),
    ("{{claim a b}}", "'claim' takes one id"),
    ("{{conflict}}", "'conflict' takes one id"),
    ("{{spec}}", "'spec' takes a section and an optional version"),
    ("{{proto A v1.0.0 extra}}", "'proto' takes a symbol and an optional version"),
    ("{{spec §1 version-one}}", "'version-one' is not a version"),
    ("{{proto BadSymbol}}", "unknown proto symbol 'BadSymbol'"),
])
def test_problems_say_what_is_wrong(text: str, message: str) -> None:
    _, _, problems = run(text)
    assert len(problems) == 1
    assert problems[0][1].startswith(message), problems[0][1]


def test_problem_lines_count_from_the_file_start() -> None:
    text = "# Title\n\nfine {{claim ok}}\n\n{{claim bad-one}} and {{claim bad-two}}\n"
    _, _, problems = run(text, first_line=5)
    assert problems == [(9, "unknown claim 'bad-one'"), (9, "unknown claim 'bad-two'")]


@pytest.mark.parametrize("argument", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "x}}{{y",
])
def test_an_unresolved_macro_is_shown_inert(argument: str) -> None:
    import markdown

    out, _, problems = run(f"See {{{{claim bad {argument}}}}}.")
    assert problems
    rendered = markdown.markdown(out, extensions=["attr_list"])
    attributes = rendered.split('"')[1::2]
    assert "<script" not in rendered and "<img" not in rendered and "javascript:" not in attributes
    assert "<a " not in rendered


# --- against the real knowledge base ----------------------------------------------------


@pytest.fixture(scope="module")
def real(real_cache: Path) -> Iterator[SiteData]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("A2A_KB_CACHE", str(real_cache))
        yield collect(Project.at(REPO))


@pytest.fixture(scope="module")
def resolver(real: SiteData) -> KnowledgeBaseResolver:
    return KnowledgeBaseResolver(real.kb, real.facts, real.tables)


def _lines(link: str) -> tuple[str, int, int]:
    blob = r"\(https://github\.com/a2aproject/A2A/blob/([0-9a-f]{40})/[^#)]+"
    m = re.search(blob + r"#L(\d+)(?:-L(\d+))?\)", link)
    assert m, link
    return m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))


def test_spec_section_links_to_its_lines_at_the_pinned_commit(
    real: SiteData, resolver: KnowledgeBaseResolver
) -> None:
    link = resolver.spec("§3.1.5", "latest", HERE)
    source = real.kb.sources[link.source]
    assert source.kind == "spec" and real.kb.latest.id in source.versions
    fact = real.facts(source)["section:3.1.5"][0]
    assert _lines(link.markdown) == (source.commit, fact.line_start, fact.line_end)
    assert link.markdown.startswith("[§3\\.1\\.5 ")


def test_an_explicit_version_picks_that_versions_source(resolver: KnowledgeBaseResolver) -> None:
    link = resolver.spec("§7.1", "v0.3.0", HERE)
    assert link.source == "spec@v0.3.0"
    assert "\\(v0\\.3\\.0\\)" in link.markdown
    proto = resolver.proto("TaskStatusUpdateEvent", "v0.3.0", HERE)
    assert proto.source == "grpc-proto@v0.3.0"
    assert proto.markdown.startswith("[`TaskStatusUpdateEvent` \\(v0\\.3\\.0\\)](")


def test_proto_symbols_link_to_their_definition(real: SiteData, resolver: KnowledgeBaseResolver) -> None:
    link = resolver.proto("TaskState", "latest", HERE)
    source = real.kb.sources[link.source]
    fact = real.facts(source)["enum-values:TaskState"][0]
    assert _lines(link.markdown) == (source.commit, fact.line_start, fact.line_end)
    field = resolver.proto("TaskStatus.state", "latest", HERE)
    assert _lines(field.markdown)[1] >= 1


@pytest.mark.parametrize(("call", "message"), [
    (lambda r: r.spec("§99.9", "latest", HERE), r"unknown section §99\.9 in spec@v"),
    (lambda r: r.spec("three", "latest", HERE), r"'three' is not a section number"),
    (lambda r: r.spec("§1", "v9.9.9", HERE), r"unknown version 'v9\.9\.9'"),
    (lambda r: r.proto("TaskStat", "latest", HERE), r"unknown proto symbol 'TaskStat'.*mean TaskState"),
    (lambda r: r.proto("TaskState", "v0.1.0", HERE), r"v0\.1\.0 has no \.proto file.*from v0\.2\.\d on"),
    (lambda r: r.claim("no-such-claim", HERE), r"unknown claim 'no-such-claim'"),
    (lambda r: r.conflict("D999", HERE), r"unknown conflict 'D999'"),
    (lambda r: r.values("v9.9.9", HERE), r"unknown version 'v9\.9\.9'"),
])
def test_unknown_targets_fail_with_a_tip(resolver: KnowledgeBaseResolver, call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MacroError, match=message):
        call(resolver)


def test_claims_and_conflicts_link_to_their_anchors(real: SiteData, resolver: KnowledgeBaseResolver) -> None:
    claim_id = next(iter(real.kb.claims))
    assert resolver.claim(claim_id, HERE).markdown == f"[`{claim_id}`](../claims.md#{claim_id})"
    conflict_id = next(iter(real.kb.conflicts))
    link = resolver.conflict(conflict_id.lower(), Linker("index.md"))
    assert link.markdown == f"[{conflict_id}](conflicts.md#{conflict_id.lower()})"


def test_sources_cited_lists_each_source_with_its_pin(real: SiteData) -> None:
    text = sources_cited(real.kb, ["spec@v1.0.1", "dossier"])
    assert "## Sources cited {#sources-cited}" in text
    spec = real.kb.sources["spec@v1.0.1"]
    assert f"[`spec@v1.0.1`]({spec.permalink()})" in text and f"commit `{spec.commit[:7]}`" in text
    assert sources_cited(real.kb, []) == ""


def test_a_strict_build_names_the_page_and_line(tmp_path: Path, real_cache: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2A_KB_CACHE", str(real_cache))
    monkeypatch.setenv("A2A_KB_VENDOR", str(vendor_dir(REPO)))
    root = tmp_path / "kb"
    root.mkdir()
    shutil.copy2(REPO / "pyproject.toml", root)
    config = re.sub(r"^nav:\n(?:[ -].*\n?)*", "", (REPO / "mkdocs.yml").read_text("utf-8"), flags=re.M)
    (root / "mkdocs.yml").write_text(config, "utf-8")
    for folder in ("claims", "sources", "captures"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("cache"))
    shutil.copytree(REPO / "content" / "assets", root / "content" / "assets")
    (root / "content" / "index.md").write_text("# Home\n", "utf-8")
    (root / "content" / "x.md").write_text(
        "---\ntitle: X\n---\n\n# X\n\nFine: {{proto TaskState}}.\n\n`{{claim foo}}` is code.\n\n"
        "Broken: {{claim foo}}\n", "utf-8")
    with pytest.raises(BuildError, match=r"content/x\.md:11: unknown claim 'foo'"):
        build_into(Project.at(root), tmp_path / "site", strict=True, quiet=True)
    build_into(Project.at(root), tmp_path / "site", strict=False, quiet=True)
    page = (tmp_path / "site" / "x" / "index.html").read_text("utf-8")
    assert "kb-unresolved" in page and 'id="sources-cited"' in page


def test_values_says_what_a_count_counts_and_links_to_the_state_table(
        real: SiteData, resolver: KnowledgeBaseResolver) -> None:
    """The count a guide page shows comes from the state table, with what it counts."""
    from a2a_kb.site.render.states import count_of

    link = resolver.values("v0.3.0", HERE).markdown
    c = count_of(real.tables["0.3.0"])
    assert link.startswith(f'<a class="kb-count" data-count="{c.total}" href="../../states/0.3.0/">'
                           f"{c.total} values</a>, the union of its bindings")
    assert "<code>TASK_STATE_UNSPECIFIED</code>" in link and "A count of 9 is that of one binding" in link
    latest = resolver.values("latest", HERE).markdown
    assert f'href="../../states/{real.kb.latest.id}/"' in latest and " in the a2a.proto: 8 states" in latest
