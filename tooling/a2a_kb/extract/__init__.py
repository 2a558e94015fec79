"""The extract stage: one pure function per source kind, artifact → facts.

Each module reads one kind of pinned source with a real parser and returns the facts of
[`a2a_kb.facts`][a2a_kb.facts], every one with its source, commit, path and exact lines. They share
one signature, `(Artifact) -> list[Fact]`, and are found through `EXTRACTORS`,
which imports each module (and its parser: markdown-it, antlr4, tree-sitter) the first time its kind is
extracted: reading cached facts, as a diff or the check of unchanged sources does, needs
no parser.
An extractor that finds nothing where it expects something raises
`ExtractError`; it never returns an empty success.

Extractors do no I/O: the bytes come in with the artifact. Caching by content lives in
`a2a_kb.extract.factstore`, keyed by the bytes' sha256 and `EXTRACTOR_VERSIONS`.

May import: the top-level modules (the cache among them), `a2a_kb.records` and
`a2a_kb.capture.transcript` (the transcript format).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..errors import ExtractError
from ..facts import Fact
from ..records.model import Source
from .artifact import Artifact, Draft

__all__ = ["EXTRACTORS", "EXTRACTOR_VERSIONS", "READERS", "VERSIONS", "Artifact", "Draft",
           "artifact_of", "extract"]

Extractor = Callable[[Artifact], list[Fact]]

# source kind → the module of this package that reads it, and the function that does.
READERS: dict[str, tuple[str, str]] = {
    "json-schema": ("json_schema", "extract"),
    "proto": ("proto", "extract"),
    "spec": ("markdown", "extract_spec"),
    "docs": ("markdown", "extract_docs"),
    "changelog": ("changelog", "extract"),
    "git-refs": ("git_refs", "extract"),
    "capture": ("capture", "extract"),
    "test-suite": ("test_suite", "extract"),
    "tck-run": ("tck_run", "extract"),
    "sdk-code": ("sdk_code", "extract"),
}

# The version of what each module emits. Bump a module's version when its output changes:
# cached facts of its kinds are then extracted again. Kept here rather than in the modules
# so that the cache can be read without importing them. FORMAT covers what all kinds share
# (the Fact shape, the vocabulary).
FORMAT = "1"
VERSIONS: dict[str, str] = {
    "json_schema": "4",  # 3: inventories; 4: description facts
    "proto": "5",  # 4: inventories; 5: comment facts
    "markdown": "3",
    "changelog": "1",
    "git_refs": "3",
    "capture": "3",
    "test_suite": "2",  # 2: the bundled schema's accepted states
    "tck_run": "1",
    "sdk_code": "7",
}


def _deferred(module: str, function: str) -> Extractor:
    """`module.function`, imported on the first call."""

    def run(artifact: Artifact) -> list[Fact]:
        found: Extractor = getattr(importlib.import_module(f"{__name__}.{module}"), function)
        return found(artifact)

    run.__name__ = run.__qualname__ = f"{module}.{function}"
    return run


EXTRACTORS: dict[str, Extractor] = {
    kind: _deferred(module, function) for kind, (module, function) in READERS.items()
}
EXTRACTOR_VERSIONS: dict[str, str] = {
    kind: f"{FORMAT}.{VERSIONS[module]}" for kind, (module, _) in READERS.items()
}


def artifact_of(source: Source, data: bytes) -> Artifact:
    return Artifact(source_id=source.id, kind=source.kind, path=source.path,
                    commit=source.commit, data=data, binding=source.binding)


def extract(source: Source, data: bytes) -> list[Fact]:
    """The facts of `data`, the bytes of `source`, read by the extractor of its kind."""
    extractor = EXTRACTORS.get(source.kind)
    if extractor is None:
        known = ", ".join(sorted(EXTRACTORS))
        raise ExtractError(f"{source.id}: no extractor for source kind '{source.kind}' "
                           f"(kinds with one: {known})")
    return extractor(artifact_of(source, data))
