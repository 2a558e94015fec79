"""Each page family's declaration of what it reads (site.pages.FAMILIES) against what its
renderer really reads of the real knowledge base (site.reads.watching): a read the
declaration misses would let the generation cache keep a page that changed, and a declared
aspect nothing reads is stale. Also: the digests of the aspects are the same in two
processes, and the watch sees what it is meant to see."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from a2a_kb.site import inputs
from a2a_kb.site.data import DERIVED, SiteData
from a2a_kb.site.pages import FAMILIES
from a2a_kb.site.reads import Reads, watching
from conftest import REPO


@pytest.fixture(scope="module")
def watched(real_data: SiteData) -> Iterator[dict[str, list[tuple[str, Reads, set[str]]]]]:
    """Per family: for each part, what rendering it read and which claims its pages name."""
    found: dict[str, list[tuple[str, Reads, set[str]]]] = {}
    for name, family in FAMILIES.items():
        for part in family.part_names(real_data):
            with watching() as reads:
                pages = family.render(real_data, part, True)
            named = inputs.named_claims((c for _, c in pages), real_data.kb)
            assert named is not None, "the real knowledge base has a claim id of another form"
            found.setdefault(name, []).append((part, reads, set(named)))
    yield found


@pytest.mark.parametrize("name", FAMILIES)
def test_a_family_reads_nothing_it_does_not_declare(
    name: str, watched: dict[str, list[tuple[str, Reads, set[str]]]], real_data: SiteData
) -> None:
    family = FAMILIES[name]
    for part, reads, named in watched[name]:
        declared = set(family.reads_of(part)) | ({"generated_at"} if family.stamped else set())
        missing = reads.uncovered(declared, real_data.kb, named)
        where = f"{name}{f' ({part})' if part else ''}"
        assert not missing, (f"{where} reads what pages.FAMILIES does not declare: {missing[:12]} "
                             "(tip: add the aspect to its reads; an @shown aspect covers only the "
                             "claims its pages name by id)")


@pytest.mark.parametrize("name", FAMILIES)
def test_every_declared_aspect_is_read(
    name: str, watched: dict[str, list[tuple[str, Reads, set[str]]]], real_data: SiteData
) -> None:
    family = FAMILIES[name]
    for aspect in family.reads:
        seen = any(reads.covered(aspect.replace("{part}", part), real_data.kb)
                   for part, reads, _ in watched[name])
        assert seen, f"{name} declares {aspect!r}, which none of its pages reads (tip: remove it)"


def test_every_declared_aspect_has_a_digest(real_data: SiteData) -> None:
    digests = inputs.Digests(real_data)
    for family in FAMILIES.values():
        for part in family.part_names(real_data)[:2]:
            for aspect in family.reads_of(part):
                if aspect.endswith(inputs.SHOWN):
                    assert digests.shown(aspect.removesuffix(inputs.SHOWN), [next(iter(real_data.kb.claims))])
                else:
                    assert len(digests.of(aspect)) == 64


def test_the_watch_sees_each_kind_of_read(real_data: SiteData) -> None:
    claim = next(iter(real_data.kb.claims.values()))
    with watching() as reads:
        _ = claim.statement, real_data.tables, real_data.kb.sources, real_data.results[claim.id].verdict
        real_data.facts(next(iter(real_data.kb.sources.values())))
    assert (claim.id, "statement") in reads.claim_fields
    assert (claim.id, "verdict") in reads.result_fields
    assert {"tables", "sources", "claims", "facts"} <= reads.aspects
    assert "__getattribute__" not in type(claim).__dict__, "the watch did not put the class back"


_DIGESTS = """
import sys
from pathlib import Path
from a2a_kb.project import Project
from a2a_kb.site.data import collect
from a2a_kb.site.inputs import Digests
from a2a_kb.site.pages import FAMILIES
data = collect(Project.at(Path(sys.argv[1])))
d = Digests(data)
print(sorted((a, d.of(a)) for f in FAMILIES.values() for p in f.part_names(data)
             for a in f.reads_of(p) if not a.endswith("@shown") and a != "generated_at"))
"""


@pytest.mark.slow
def test_digests_are_the_same_in_another_process(real_kb_env: object) -> None:
    """Sets and dicts hash differently from process to process: a digest must not."""
    runs = [subprocess.run([sys.executable, "-c", _DIGESTS, str(REPO)], capture_output=True, text=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": seed}, timeout=300)
            for seed in ("1", "2")]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout


def test_a_stamped_family_writes_the_time_and_uses_it_for_nothing_else(real_data: SiteData) -> None:
    import dataclasses

    from a2a_kb.site.generated import _stamp, _stand_in

    later = dataclasses.replace(real_data, generated_at="2031-05-06T07:08:09Z")
    for name, family in FAMILIES.items():
        if not family.stamped:
            continue
        for part in family.part_names(real_data):
            for data in (real_data, later):
                stamped = _stamp(family.render(_stand_in(data), part, True), data)
                assert stamped == family.render(data, part, True), \
                    f"{name} ({part}) does not come out the same rendered at the stand-in time"


@pytest.mark.parametrize("name", list(DERIVED))
def test_a_derived_value_reads_what_it_declares(name: str, real_data: SiteData) -> None:
    from a2a_kb.cache import Cache
    from a2a_kb.knowledge.check import FactBook

    derived = DERIVED[name]
    kb = real_data.kb
    with watching() as reads:
        value = derived.compute(kb, FactBook(kb, Cache(kb.project.cache_dir)))
    assert value == getattr(real_data, name)
    missing = reads.uncovered(set(derived.reads), kb, set())
    assert not missing, f"{name} reads what data.DERIVED does not declare: {missing[:12]}"
    stale = [a for a in derived.reads if not reads.covered(a, kb)]
    assert not stale, f"{name} declares {stale}, which it does not read"
