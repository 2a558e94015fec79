"""The data derived from the cache and the records, checked against what it was made from.

Five stores hold derived data: the facts of each fetched copy (`<cache>/facts/`), the
descriptors protoc compiled from each .proto (`<cache>/descriptors/`), what the diff reads
from each .proto and JSON schema (`<cache>/diff/`), the query index
(`<cache>/query-index.jsonl`) and the site's page reuse records, its search index among
them (`.cache/site-pages/`). Each is sealed with this machine's key (`a2a_kb.seal`)
and is believed only while the seal matches; this sweep,
run by `a2a-kb fetch` (`--offline` included), finds the damaged ones, removes them so
that they are rebuilt from their inputs when next needed, and says which, so that damage is
reported rather than silently absorbed.
"""

from __future__ import annotations

from pathlib import Path

from ..cache import sweep_damaged
from ..project import Project
from .query import INDEX_NAME, verify_index

SITE_REUSE_DIR = Path(".cache") / "site-pages"


def sweep(project: Project) -> list[str]:
    """Remove every damaged piece of derived data; one message for each."""
    removed: list[str] = []
    facts = project.cache_dir / "facts"
    if facts.is_dir():
        for path in sweep_damaged(sorted(facts.glob("*.json"))):
            removed.append(f"{project.relative(path)}: the facts of this copy do not match their seal; "
                           "removed, they are extracted again when next needed")
    kept = project.cache_dir / "diff"  # knowledge.diff.kept.FOLDER, named here: fetch imports no diff
    if kept.is_dir():
        for path in sweep_damaged(sorted(kept.glob("*.json"))):
            removed.append(f"{project.relative(path)}: what the diff read from a source does not "
                           "match its seal; removed, it is read again when next needed")
    descriptors = project.cache_dir / "descriptors"  # knowledge.diff.descriptors.DESCRIPTORS
    if descriptors.is_dir():
        for path in sweep_damaged(sorted(p for p in descriptors.iterdir() if not p.name.startswith("."))):
            removed.append(f"{project.relative(path)}: a compiled descriptor does not match its seal; "
                           "removed, protoc compiles the .proto again when next needed")
    problem = verify_index(project.cache_dir / INDEX_NAME)
    if problem:
        removed.append(f"{project.relative(project.cache_dir / INDEX_NAME)}: {problem}; removed, the "
                       "next query rebuilds it")
    reuse = project.root / SITE_REUSE_DIR
    if reuse.is_dir():
        # Hidden files are writes in progress (atomic_write's temporary files): not ours to judge.
        stored = sorted(p for p in reuse.rglob("*") if p.is_file() and not p.name.startswith("."))
        for path in sweep_damaged(stored):
            removed.append(f"{project.relative(path)}: a page reuse record does not match its seal; "
                           "removed, the next build renders that page afresh")
    return removed
