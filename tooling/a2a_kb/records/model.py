"""Typed records: versions, sources, claims and conflicts, each remembering its place."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Mark

VERDICTS = ("verified", "contradicted", "unverifiable", "quote-missing", "stale", "drifted")
SOURCE_KINDS = (
    "json-schema",
    "proto",
    "spec",
    "docs",
    "changelog",
    "git-refs",
    "capture",
    "tck-run",
    "sdk-code",
    "sdk",
    "web",
    "paper",
    "issue",
    "dossier",
)
# Source kinds whose copies are fetched, pinned and read by an extractor.
FETCHED_KINDS = ("json-schema", "proto", "spec", "docs", "changelog", "git-refs", "dossier")


@dataclass
class Version:
    """A version of the A2A specification, pinned to the commit of its ref."""

    id: str
    title: str
    ref: str
    commit: str
    released: bool
    mark: Mark
    order: int = 0
    notes: str = ""

    @property
    def tag(self) -> str:
        return self.ref

    @property
    def prerelease(self) -> bool:
        """A release candidate or similar: tagged, but not a release (`1.0.0-rc`)."""
        return "-" in self.id and self.id[:1].isdigit()


@dataclass
class Source:
    """A primary or secondary source. Pinned sources carry commit and sha256."""

    id: str
    kind: str
    authority: str
    url: str
    title: str
    versions: list[str]
    mark: Mark
    ref: str = ""
    commit: str = ""
    path: str = ""
    sha256: str = ""
    size: int = 0
    retrieved: str = ""
    moving: bool = False
    binding: str = ""
    notes: str = ""
    repository: str = ""  # owner/name when the file is not from a2aproject/A2A
    branch: str = ""  # the branch whose head `commit` was when the file was taken
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def pinned(self) -> bool:
        return bool(self.sha256)

    @property
    def local(self) -> bool:
        """Kept in this repository (SDK capture transcripts, the suite's run records), not
        fetched into the cache."""
        return self.kind in ("capture", "tck-run")

    @property
    def checkable(self) -> bool:
        """Whether claims can be checked against this source's facts."""
        return self.pinned or self.local

    @property
    def fetched(self) -> bool:
        """Whether `a2a-kb fetch` keeps a copy of this source in the cache."""
        return self.pinned

    def permalink(self, line_start: int = 0, line_end: int = 0) -> str:
        """A link to the exact lines of the pinned commit, where the source has one."""
        if self.commit and self.path and "github" in self.url:
            repo = "a2aproject/A2A"
            parts = self.url.split("/")
            if "raw.githubusercontent.com" in self.url and len(parts) > 5:
                repo = f"{parts[3]}/{parts[4]}"
            link = f"https://github.com/{repo}/blob/{self.commit}/{self.path}"
            if line_start:
                link += f"#L{line_start}"
                if line_end and line_end != line_start:
                    link += f"-L{line_end}"
            return link
        return self.url


@dataclass(slots=True)
class Expectation:
    """One machine check of a claim against the facts of a source."""

    fact: str
    op: str
    value: Any = None
    source: str = ""  # defaults to the claim's source
    mark: Mark | None = None


@dataclass(slots=True)
class Claim:
    """One checkable fact, in the project's own words, tied to its source."""

    id: str
    statement: str
    versions: list[str]
    source: str
    conflicts: list[str]
    mark: Mark
    subject: str = ""
    locator: str = ""
    quote: str = ""
    expect: list[Expectation] = field(default_factory=list)
    verdict: str = ""
    reviewed: str = ""
    origin: str = ""
    rank: str = "normal"
    tracks: str = ""
    related: list[str] = field(default_factory=list)
    note: str = ""
    answer: str = ""  # a few words for a matrix cell; its JSON-RPC code must be one the checks expect
    file: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Side:
    position: str
    claims: list[str]


@dataclass
class Conflict:
    """A disagreement between sources: the question, its sides, its status, the advice."""

    id: str
    question: str
    sides: list[Side]
    status: str
    advice: str
    mark: Mark
    title: str = ""
    resolved_in: str = ""
    origin: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Branch:
    """A branch watch follows; its pinned head is a version's commit or a commit of its own."""

    name: str
    mark: Mark
    version: str = ""
    commit: str = ""


@dataclass
class TrackedFile:
    """A file every version of a repository may have, and how its sources are named."""

    path: str
    source: str  # the id before '@': json-schema for json-schema@v0.3.0
    kind: str
    title: str
    binding: str = ""


@dataclass
class Upstream:
    """Something upstream that `a2a-kb watch` consults (sources/upstream.yaml): a GitHub
    repository with its tag list, branches and lifecycle files, or a package's releases on
    PyPI or npm."""

    id: str
    kind: str  # repository, pypi or npm
    mark: Mark
    repository: str = ""  # owner/name
    tags: str = ""  # the source holding the tag list
    branches: list[Branch] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)  # branches seen and not followed
    files: list[TrackedFile] = field(default_factory=list)
    package: str = ""
    releases: list[str] = field(default_factory=list)
    notes: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class SweepScope:
    """Which sections of a source are swept: those whose title matches one of `titles`
    (RE2, whole title, any case), each with its subsections."""

    source: str  # the source name: the part of a source id before '@'
    titles: list[str]
    mark: Mark
    note: str = ""


@dataclass
class SweepVersion:
    """The sections swept in one version, per source id, as the ledger records them."""

    version: str
    swept: dict[str, list[str]]
    mark: Mark
    marks: dict[str, Mark] = field(default_factory=dict)  # per source id, its list's place


@dataclass
class SweepAccount:
    """How one candidate sentence (by its key) is accounted for: by the claims that state
    it, or as not about the lifecycle, with the reason."""

    key: str
    mark: Mark
    found_in: str = ""  # `<source id> §<section>`
    claims: list[str] = field(default_factory=list)
    not_lifecycle: str = ""
    note: str = ""
    claim_marks: list[Mark] = field(default_factory=list)


@dataclass
class SweepLedger:
    """sources/sweep.yaml: the scopes, the versions swept and the accounts."""

    scopes: dict[str, SweepScope] = field(default_factory=dict)
    versions: dict[str, SweepVersion] = field(default_factory=dict)
    accounts: dict[str, SweepAccount] = field(default_factory=dict)
    path: str = ""
