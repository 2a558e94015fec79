"""A project's layout on disk: where its root is, where its cache is, which files hold records.

The one place for these rules. Its own small module so that the warm path of
`a2a-kb query`, which only needs to know whether any record file changed, imports
nothing else of the package; [`Project`][a2a_kb.project.Project] uses the same functions.
"""

from __future__ import annotations

import os
from pathlib import Path


def record_files_in(*folders: Path) -> list[Path]:
    """The record files of `folders`, folder by folder: in each, the `*.yaml` files by
    name, then the `*.yml` files (hidden files included, as `Path.glob` has them)."""
    files: list[Path] = []
    for folder in folders:
        try:
            # os.scandir, not Path.glob: this runs on every `a2a-kb query`.
            with os.scandir(folder) as entries:
                names = [e.name for e in entries if e.is_file()]
        except (FileNotFoundError, NotADirectoryError):
            continue
        for suffix in (".yaml", ".yml"):
            files += [folder / n for n in sorted(n for n in names if n.endswith(suffix))]
    return files


def find_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above `start` (default: $A2A_KB_ROOT, else the cwd) that
    has claims/ and sources/, or None."""
    env = os.environ.get("A2A_KB_ROOT")
    here = (start or (Path(env) if env else Path.cwd())).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "claims").is_dir() and (candidate / "sources").is_dir():
            return candidate
    return None


def cache_dir(root: Path) -> Path:
    """The source cache: $A2A_KB_CACHE, else sources/cache/ under `root`."""
    override = os.environ.get("A2A_KB_CACHE")
    return Path(override) if override else root / "sources" / "cache"
