"""Where a knowledge base lives on disk, and its settings."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import layout
from .errors import ConfigurationError

DEFAULT_MAX_AGE_DAYS = 180


@dataclass(frozen=True)
class Project:
    """A knowledge-base checkout: claims/, sources/, content/ and the cache."""

    root: Path
    max_age_days: int = DEFAULT_MAX_AGE_DAYS
    today: str = ""  # ISO date; empty means the real today (tests pin it)

    @property
    def claims_dir(self) -> Path:
        return self.root / "claims"

    @property
    def sources_dir(self) -> Path:
        return self.root / "sources"

    @property
    def content_dir(self) -> Path:
        return self.root / "content"

    @property
    def captures_dir(self) -> Path:
        return self.root / "captures"

    @property
    def cache_dir(self) -> Path:
        return layout.cache_dir(self.root)

    @property
    def site_dir(self) -> Path:
        return self.root / "site"

    def relative(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.root.resolve()))
        except ValueError:
            return str(path)

    @classmethod
    def find(cls, start: Path | None = None) -> Project:
        """The project containing `start` (default: $A2A_KB_ROOT, else the cwd)."""
        root = layout.find_root(start)
        if root is not None:
            return cls.at(root)
        here = (start or Path(os.environ.get("A2A_KB_ROOT") or Path.cwd())).resolve()
        raise ConfigurationError(
            f"no knowledge base found at or above {here} "
            "(tip: run inside a checkout that has claims/ and sources/, or set A2A_KB_ROOT)"
        )

    @classmethod
    def at(cls, root: Path) -> Project:
        max_age = DEFAULT_MAX_AGE_DAYS
        pyproject = root / "pyproject.toml"
        if pyproject.is_file():
            try:
                settings = (
                    tomllib.loads(pyproject.read_text("utf-8")).get("tool", {}).get("a2a-kb", {})
                )
            except tomllib.TOMLDecodeError as e:
                raise ConfigurationError(f"{pyproject}: {e}") from e
            max_age = int(settings.get("max-age-days", max_age))
        return cls(root=root, max_age_days=max_age)
