"""The offline mirror's files as (Source, bytes) pairs, for the extractor tests.

The mirror is found through A2A_KB_MIRROR, else at ../shared/mirror beside the checkout.
Its MANIFEST.tsv lists every file; each becomes a Source whose kind follows from its path,
as sources/primary.yaml does it.
"""

from __future__ import annotations

import csv
import functools
import os
from pathlib import Path

from a2a_kb.diagnostics import Mark
from a2a_kb.records.model import Source

ROOT = Path(__file__).resolve().parent.parent
KIND_OF_PATH = {
    "specification/json/a2a.json": "json-schema",
    "specification/grpc/a2a.proto": "proto",
    "specification/a2a.proto": "proto",
    "docs/specification.md": "spec",
    "docs/topics/life-of-a-task.md": "docs",
    "docs/topics/key-concepts.md": "docs",
    "docs/whats-new-v1.md": "docs",
    "CHANGELOG.md": "changelog",
    "specification/json/README.md": "docs",
}


def mirror_dir() -> Path:
    path = Path(os.environ.get("A2A_KB_MIRROR", ROOT.parent / "shared" / "mirror"))
    if not (path / "MANIFEST.tsv").is_file():
        raise AssertionError(f"no mirror at {path} (set A2A_KB_MIRROR to the offline mirror)")
    return path


@functools.cache
def manifest() -> tuple[dict[str, str], ...]:
    with open(mirror_dir() / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        return tuple(csv.DictReader(handle, delimiter="\t"))


@functools.cache
def registered_suite_files() -> frozenset[tuple[str, str]]:
    """(ref, path) of the conformance suite's files that sources/conformance.yaml registers."""
    import yaml

    listed = yaml.safe_load((ROOT / "sources" / "conformance.yaml").read_text("utf-8"))["sources"]
    return frozenset((f"tck-{s['branch']}", s["path"]) for s in listed if s["kind"] == "test-suite")


# The repositories whose files sources/ registers: the specification, its conformance suite and
# the six official SDKs (sources/sdks.yaml), whose tags can look like the specification's own
# (v0.2.6 is a2a-python's tag too): an SDK's file is known by its repository, not its ref.
SDK_REPOSITORIES = tuple(f"/a2aproject/{sdk}/" for sdk in (
    "a2a-python", "a2a-js", "a2a-java", "a2a-go", "a2a-dotnet", "a2a-rs"))
REGISTERED_REPOSITORIES = ("/a2aproject/A2A/", "/a2aproject/a2a-tck/", *SDK_REPOSITORIES)


def kind_of(row: dict[str, str]) -> str | None:
    if "github" in row["url"] and not any(r in row["url"] for r in REGISTERED_REPOSITORIES):
        return None
    if row["ref"] == "dossier":
        return None  # the research dossier is read by the validator, not by an extractor
    if row["ref"].startswith("tck-"):
        # Only the suite's lifecycle files are registered (and read); the rest is not A2A's.
        return "test-suite" if (row["ref"], row["path"]) in registered_suite_files() else None
    if row["ref"] == "api":
        return "git-refs"
    if any(r in row["url"] for r in SDK_REPOSITORIES):
        return "sdk-code"
    return KIND_OF_PATH[row["path"]]


def source_of(row: dict[str, str]) -> Source:
    kind = kind_of(row)
    assert kind is not None
    commit = "" if row["commit"] == "-" else row["commit"]
    return Source(id=f"{kind}@{row['ref']}:{row['path']}", kind=kind, authority="primary",
                  url=row["url"], title=row["path"], versions=[], mark=Mark("MANIFEST.tsv"),
                  ref=row["ref"], commit=commit, path=row["path"], sha256=row["sha256"])


def data_of(row: dict[str, str]) -> bytes:
    return (mirror_dir() / row["url"].split("://", 1)[1]).read_bytes()


def every_source() -> list[tuple[Source, bytes]]:
    """Every mirrored file an extractor reads, with its bytes."""
    return [(source_of(row), data_of(row)) for row in manifest() if kind_of(row)]


def at(ref: str, path: str) -> tuple[Source, bytes]:
    """The mirrored file at ``ref`` (a tag, 47b436f, 8a44cff, main or api) and ``path``."""
    for row in manifest():
        if row["ref"] == ref and row["path"] == path:
            return source_of(row), data_of(row)
    raise AssertionError(f"the mirror has no {path} at {ref}")
