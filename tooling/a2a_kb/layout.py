"""A project's layout on disk: where its root is, where its cache is, which files hold records.

The one place for these rules. Its own small module so that the warm path of
`a2a-kb query`, which only needs to know whether any record file changed, imports
nothing else of the package; [`Project`][a2a_kb.project.Project] uses the same functions.
Each rule is written once over path strings (`os.path`), which that path uses as they
are: importing `pathlib` (with `urllib.parse`, `ipaddress` and `fnmatch`) and making a
`Path` of each of 400 record files was a fifth of a warm query. The `Path` forms, for
the rest of the package, wrap them.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (see a2a_kb.cli)
if TYPE_CHECKING:
    from pathlib import Path


def record_file_names(*folders: str) -> list[str]:
    """The record files of `folders`, folder by folder: in each, the `*.yaml` files by
    name, then the `*.yml` files (hidden files included, as `Path.glob` has them)."""
    files: list[str] = []
    for folder in folders:
        try:
            # os.scandir, not Path.glob: this runs on every `a2a-kb query`.
            with os.scandir(folder) as entries:
                names = [e.name for e in entries if e.is_file()]
        except (FileNotFoundError, NotADirectoryError):
            continue
        for suffix in (".yaml", ".yml"):
            files += [os.path.join(folder, n) for n in sorted(n for n in names if n.endswith(suffix))]
    return files


def record_files_in(*folders: Path) -> list[Path]:
    """[`record_file_names`][a2a_kb.layout.record_file_names], as paths."""
    from pathlib import Path

    return [Path(name) for name in record_file_names(*(str(f) for f in folders))]


def find_root_name(start: str | None = None) -> str | None:
    """The nearest folder at or above `start` (default: $A2A_KB_ROOT, else the cwd) that
    has claims/ and sources/, or None; resolved as `Path.resolve` resolves it."""
    here = os.path.realpath(start or os.environ.get("A2A_KB_ROOT") or os.getcwd())
    while True:
        if os.path.isdir(os.path.join(here, "claims")) and os.path.isdir(os.path.join(here, "sources")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def find_root(start: Path | None = None) -> Path | None:
    """[`find_root_name`][a2a_kb.layout.find_root_name], as a path."""
    from pathlib import Path

    found = find_root_name(str(start) if start else None)
    return Path(found) if found is not None else None


def cache_dir_name(root: str) -> str:
    """The source cache: $A2A_KB_CACHE, else sources/cache/ under `root`."""
    return os.environ.get("A2A_KB_CACHE") or os.path.join(root, "sources", "cache")


def cache_dir(root: Path) -> Path:
    """[`cache_dir_name`][a2a_kb.layout.cache_dir_name], as a path."""
    from pathlib import Path

    return Path(cache_dir_name(str(root)))
