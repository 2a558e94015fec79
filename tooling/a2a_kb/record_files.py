"""Which files in a project are record files.

Its own small module so that the warm path of `a2a-kb query`, which only needs to know
whether any record file changed, imports nothing else of the package.
"""

from __future__ import annotations

import os
from pathlib import Path


def record_files_in(*folders: Path) -> list[Path]:
    """The record files of ``folders``, folder by folder: in each, the ``*.yaml`` files by
    name, then the ``*.yml`` files (hidden files included, as ``Path.glob`` has them)."""
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
