"""The knowledge base as typed records: versions, sources, claims and conflicts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..errors import ConfigurationError
from ..project import Project
from .model import Claim, Conflict, Source, SweepLedger, Upstream, Version

_VERSION = re.compile(r"^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z][0-9A-Za-z.]*)?)$")
_NUMBERED = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z][0-9A-Za-z.]*))?$")


def normalize_version(name: str) -> str:
    """'v0.3.0' → '0.3.0', 'v1.0.0-rc' → '1.0.0-rc'; other names ('draft', 'main',
    'latest') are kept."""
    m = _VERSION.match(name.strip())
    return m.group(1) if m else name.strip()


def version_key(name: str) -> tuple[int, tuple[int, ...], int, tuple[tuple[int, int | str], ...]]:
    """Where a version id sorts: `draft` first, then numbered versions in semantic-version
    order (a prerelease such as `1.0.0-rc` before its release), then `main` and any other
    name. The order of sources/versions.yaml must agree with it.

    Examples:
        >>> sorted(["main", "1.0.0", "0.3.0", "1.0.0-rc", "draft"], key=version_key)
        ['draft', '0.3.0', '1.0.0-rc', '1.0.0', 'main']
    """
    found = _NUMBERED.match(normalize_version(name))
    if name == "draft":
        return (0, (), 0, ())
    if found is None:
        return (2, (), 0, ())
    numbers = tuple(int(found.group(i)) for i in (1, 2, 3))
    pre = found.group(4)
    if pre is None:
        return (1, numbers, 1, ())
    # Semantic versioning: numeric identifiers compare as numbers and before words.
    parts = tuple((0, int(p)) if p.isdigit() else (1, p) for p in pre.split("."))
    return (1, numbers, 0, parts)


def is_prerelease(name: str) -> bool:
    """Whether a version id names a prerelease (`1.0.0-rc`)."""
    found = _NUMBERED.match(normalize_version(name))
    return bool(found and found.group(4))


@dataclass
class KnowledgeBase:
    """Every record of a project, with the problems found while reading them."""

    project: Project
    versions: dict[str, Version] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)
    claims: dict[str, Claim] = field(default_factory=dict)
    conflicts: dict[str, Conflict] = field(default_factory=dict)
    upstream: dict[str, Upstream] = field(default_factory=dict)
    sweep: SweepLedger = field(default_factory=SweepLedger)
    problems: list[Diagnostic] = field(default_factory=list)

    @property
    def ordered_versions(self) -> list[Version]:
        return sorted(self.versions.values(), key=lambda v: v.order)

    @property
    def latest(self) -> Version:
        """The newest released version."""
        released = [v for v in self.ordered_versions if v.released]
        if not released:
            raise ConfigurationError("sources/versions.yaml lists no released version")
        return released[-1]

    def version(self, name: str) -> Version:
        """Resolve '0.3.0', 'v0.3.0', '1.0.0-rc', 'latest', 'main' or 'draft' to a version."""
        key = normalize_version(name)
        if key == "latest":
            return self.latest
        found = self.versions.get(key)
        if found is None:
            known = ", ".join(self.versions)
            raise ConfigurationError(f"unknown version '{name}' (known: {known}, latest)")
        return found

    def resolve_source(self, ref: str) -> Source | None:
        """A source by id; `<kind>@latest` names that kind's source in the newest release."""
        if ref.endswith("@latest"):
            prefix = ref[: -len("@latest")]
            try:
                latest = self.latest
            except ConfigurationError:
                return None
            return self.sources.get(f"{prefix}@{latest.ref}")
        return self.sources.get(ref)

    def reports_a_source(self, claim: Claim) -> bool:
        """Whether the claim tells what another party says: its source is a secondary one
        (a web page, a paper, the dossier) or one with no pinned copy (an SDK's code, an
        issue). Such a claim can be verified only by reading that source; a check of the
        specification can find what it reports out of date, never confirm that it says so."""
        own = self.sources.get(claim.source)
        return own is None or not own.checkable or own.authority == "secondary"

    def reads_own_source(self, claim: Claim) -> bool:
        """Whether any check of the claim (its quote, an expect) reads the source it cites."""
        own = self.sources.get(claim.source)
        if own is None or not own.checkable:
            return False
        if claim.quote or any(not e.source for e in claim.expect):
            return True
        return any(self.resolve_source(e.source) is own for e in claim.expect)

    def sources_of(self, version: str) -> list[Source]:
        """The pinned primary sources that belong to `version`."""
        key = self.version(version).id
        return [s for s in self.sources.values() if key in s.versions and s.pinned]
