"""What an extractor reads (an artifact) and what it writes before identity is stamped (drafts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ExtractError
from ..facts import Fact


@dataclass(frozen=True, slots=True)
class Draft:
    """A fact without its source: kind, subject, value and the lines (1-based, inclusive)."""

    kind: str
    subject: str
    value: Any
    line_start: int
    line_end: int


@dataclass(frozen=True, slots=True)
class Artifact:
    """The bytes of one pinned source, with what an extractor needs to know about it."""

    source_id: str
    kind: str
    path: str
    commit: str
    data: bytes
    binding: str = ""

    @property
    def text(self) -> str:
        """The artifact decoded as UTF-8 (a byte-order mark is dropped, as editors do)."""
        try:
            return self.data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise self.fail(f"not UTF-8 text: {e}") from e

    def fail(self, message: str) -> ExtractError:
        """An ExtractError that names this artifact; the caller raises it."""
        return ExtractError(f"{self.source_id} ({self.path or self.kind}): {message}")

    def fact(self, draft: Draft) -> Fact:
        return Fact(
            kind=draft.kind,
            subject=draft.subject,
            value=draft.value,
            source=self.source_id,
            path=self.path,
            commit=self.commit,
            line_start=draft.line_start,
            line_end=draft.line_end,
        )

    def facts(self, drafts: list[Draft]) -> list[Fact]:
        return [self.fact(d) for d in drafts]
