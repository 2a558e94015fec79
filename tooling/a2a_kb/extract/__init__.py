"""The extract stage: one pure function per source kind, artifact → facts.

Each module reads one kind of pinned source with a real parser and returns the facts of
:mod:`a2a_kb.facts`, every one with its source, commit, path and exact lines. They share
one signature, ``(Artifact) -> list[Fact]``, and are found through :data:`EXTRACTORS`.
An extractor that finds nothing where it expects something raises
:class:`~a2a_kb.errors.ExtractError`; it never returns an empty success.

Extractors do no I/O: the bytes come in with the artifact. Caching by content lives in
:mod:`a2a_kb.extract.factstore`, keyed by the bytes' sha256 and :data:`EXTRACTOR_VERSIONS`.

May import: the top-level modules, :mod:`a2a_kb.records`, :mod:`a2a_kb.sources.cache`
and :mod:`a2a_kb.capture.transcript` (the transcript format).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ExtractError
from ..facts import Fact
from ..records.model import Source
from . import capture, changelog, git_refs, json_schema, markdown, proto, test_suite
from .artifact import Artifact, Draft

__all__ = ["EXTRACTORS", "EXTRACTOR_VERSIONS", "Artifact", "Draft", "artifact_of", "extract"]

Extractor = Callable[[Artifact], list[Fact]]

EXTRACTORS: dict[str, Extractor] = {
    "json-schema": json_schema.extract,
    "proto": proto.extract,
    "spec": markdown.extract_spec,
    "docs": markdown.extract_docs,
    "changelog": changelog.extract,
    "git-refs": git_refs.extract,
    "capture": capture.extract,
    "test-suite": test_suite.extract,
}

# Bump a module's VERSION when its output changes: cached facts of that kind are then
# extracted again. FORMAT covers what all kinds share (the Fact shape, the vocabulary).
FORMAT = "1"
EXTRACTOR_VERSIONS: dict[str, str] = {
    "json-schema": f"{FORMAT}.{json_schema.VERSION}",
    "proto": f"{FORMAT}.{proto.VERSION}",
    "spec": f"{FORMAT}.{markdown.VERSION}",
    "docs": f"{FORMAT}.{markdown.VERSION}",
    "changelog": f"{FORMAT}.{changelog.VERSION}",
    "git-refs": f"{FORMAT}.{git_refs.VERSION}",
    "capture": f"{FORMAT}.{capture.VERSION}",
    "test-suite": f"{FORMAT}.{test_suite.VERSION}",
}


def artifact_of(source: Source, data: bytes) -> Artifact:
    return Artifact(source_id=source.id, kind=source.kind, path=source.path,
                    commit=source.commit, data=data, binding=source.binding)


def extract(source: Source, data: bytes) -> list[Fact]:
    """The facts of ``data``, the bytes of ``source``, read by the extractor of its kind."""
    extractor = EXTRACTORS.get(source.kind)
    if extractor is None:
        known = ", ".join(sorted(EXTRACTORS))
        raise ExtractError(f"{source.id}: no extractor for source kind '{source.kind}' "
                           f"(kinds with one: {known})")
    return extractor(artifact_of(source, data))
