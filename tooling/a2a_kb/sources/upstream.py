"""Upstream as it is now: where each live thing is, and reading it without keeping it.

`watch`, `pin` and `add-version` read the world through here. The places are the real
hosts' (GitHub's API and raw files, PyPI's JSON API, the npm registry, each web page's own
URL), and each can be pointed elsewhere — a test's server on 127.0.0.1, a proxy — with
`--upstream NAME=URL` or `A2A_KB_UPSTREAM` (`NAME=URL` pairs, comma-separated).
`pages=URL` sends every other https URL to `URL/<host>/<path>`, the layout of a mirror.

A URL that was not pointed elsewhere is read from the mirror when one is given (the same
`<host>/<path>` layout `fetch` uses), else from the network through
`HttpClient`. Nothing read here is stored: the pins and the
cache stay as they are.

An answer is `ok` (the bytes), `gone` (HTTP 404 or 410, or a file missing from a
repository tree the mirror holds at that ref: the thing is not there) or `unreachable`
(no answer worth believing: a connection that failed, a timeout, a 5xx, or anything else
the mirror does not hold).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlsplit

from ..diagnostics import Mark
from ..errors import ConfigurationError, ExtractError, FetchError
from ..facts import Fact
from ..records.kb import KnowledgeBase
from ..records.model import Branch, Source, Upstream
from .fetch import DEFAULT_CONCURRENCY, mirror_path
from .http import HttpClient, HttpPolicy

ENDPOINTS: dict[str, str] = {
    "github-api": "https://api.github.com",
    "github-raw": "https://raw.githubusercontent.com",
    "pypi": "https://pypi.org",
    "npm": "https://registry.npmjs.org",
}
PAGES = "pages"  # not an endpoint of its own: every other https URL, mirror-style
GONE_STATUSES = frozenset({404, 410})

# "refused": upstream answered, and the answer was refused (over the size cap, a redirect
# to another host). Unlike "unreachable" it says something about upstream: watch reports it.
Status = Literal["ok", "gone", "unreachable", "refused"]
REFUSED = "upstream answered and was refused: "


@dataclass(frozen=True)
class Answer:
    """What one live URL gave: its bytes, or why there are none."""

    url: str  # the upstream URL asked for
    status: Status
    body: bytes = b""
    reason: str = ""
    read_from: str = ""  # where it was read: a URL, or a file of the mirror

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Endpoints:
    """The base URL of each upstream service, with any overrides applied."""

    def __init__(self, overrides: dict[str, str] | None = None) -> None:
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(ENDPOINTS) - {PAGES})
        if unknown:
            raise ConfigurationError(
                f"unknown upstream endpoint {unknown[0]!r} "
                f"(tip: one of {', '.join([*ENDPOINTS, PAGES])})")
        for name, base in overrides.items():
            if urlsplit(base).scheme not in ("http", "https") or not urlsplit(base).hostname:
                raise ConfigurationError(
                    f"upstream endpoint {name}={base!r} is not an http(s) URL "
                    "(tip: write NAME=https://host[/path])")
        self.overrides = {name: base.rstrip("/") for name, base in overrides.items()}

    @classmethod
    def parse(cls, pairs: Iterable[str], environment: str | None = None) -> Endpoints:
        """From `NAME=URL` pairs (flags) over those of `A2A_KB_UPSTREAM`."""
        env = os.environ.get("A2A_KB_UPSTREAM", "") if environment is None else environment
        given: dict[str, str] = {}
        for pair in [p for p in env.replace(" ", ",").split(",") if p.strip()] + list(pairs):
            name, sep, base = pair.strip().partition("=")
            if not sep or not name or not base:
                raise ConfigurationError(
                    f"upstream override {pair!r} is not NAME=URL "
                    "(tip: e.g. --upstream github-api=http://127.0.0.1:8080)")
            given[name] = base
        return cls(given)

    def base(self, name: str) -> str:
        return self.overrides.get(name, ENDPOINTS[name])

    def rewritten(self, url: str) -> bool:
        """Whether `url` is read somewhere else than where it lives."""
        return self.live(url) != url

    def live(self, url: str) -> str:
        """Where the upstream URL `url` is read from now."""
        for name, default in ENDPOINTS.items():
            if name in self.overrides and (url == default or url.startswith(default + "/")):
                return self.overrides[name] + url[len(default):]
        if PAGES in self.overrides and not any(url.startswith(d + "/") for d in ENDPOINTS.values()):
            parts = urlsplit(url)
            tail = parts.path or "/"
            return f"{self.overrides[PAGES]}/{parts.hostname}{tail}" + (
                f"?{parts.query}" if parts.query else "")
        return url

    # the URLs of upstream things, where they really live ---------------------------------

    @staticmethod
    def tags(repository: str) -> str:
        return f"{ENDPOINTS['github-api']}/repos/{repository}/git/refs/tags"

    @staticmethod
    def heads(repository: str) -> str:
        return f"{ENDPOINTS['github-api']}/repos/{repository}/git/refs/heads"

    @staticmethod
    def head(repository: str, branch: str) -> str:
        return f"{ENDPOINTS['github-api']}/repos/{repository}/git/ref/heads/{branch}"

    @staticmethod
    def tag_object(repository: str, sha: str) -> str:
        return f"{ENDPOINTS['github-api']}/repos/{repository}/git/tags/{sha}"

    @staticmethod
    def commit(repository: str, sha: str) -> str:
        return f"{ENDPOINTS['github-api']}/repos/{repository}/commits/{sha}"

    @staticmethod
    def raw(repository: str, ref: str, path: str) -> str:
        """A file at a commit (`ref` a sha) or at a branch's head (`refs/heads/<name>`)."""
        return f"{ENDPOINTS['github-raw']}/{repository}/{ref}/{path}"

    @staticmethod
    def pypi(package: str) -> str:
        return f"{ENDPOINTS['pypi']}/pypi/{quote(package, safe='')}/json"

    @staticmethod
    def npm(package: str) -> str:
        return f"{ENDPOINTS['npm']}/{quote(package, safe='@')}"


def raw_parts(url: str) -> tuple[str, str, str] | None:
    """(owner/name, commit, path) of a raw GitHub URL pinned to a commit, else None."""
    prefix = ENDPOINTS["github-raw"] + "/"
    if not url.startswith(prefix):
        return None
    parts = url[len(prefix):].split("/", 3)
    if len(parts) < 4 or len(parts[2]) != 40:
        return None
    owner, name, commit, path = parts
    return f"{owner}/{name}", commit, path


Progress = Callable[[int, int, str], None]


class Reader:
    """Reads live URLs, several at once: from the mirror, or through the HTTP client."""

    def __init__(self, endpoints: Endpoints | None = None, *, mirror: Path | None = None,
                 policy: HttpPolicy | None = None,
                 concurrency: int = DEFAULT_CONCURRENCY) -> None:
        if concurrency < 1:
            raise ConfigurationError(f"concurrency must be at least 1, not {concurrency}")
        if mirror is not None and not mirror.is_dir():
            raise ConfigurationError(
                f"mirror {mirror} is not a directory (tip: check --mirror or A2A_KB_MIRROR)")
        self.endpoints = endpoints or Endpoints()
        self.mirror = mirror
        self.policy = policy or HttpPolicy.from_environment()
        self.concurrency = concurrency
        self._client = HttpClient(self.policy)

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()

    def get(self, url: str) -> Answer:
        """The live answer for the upstream URL `url`."""
        target = self.endpoints.live(url)
        if self.mirror is not None and target == url:
            return self._from_mirror(url)
        try:
            download = self._client.get(target)
        except FetchError as e:
            if e.refused:
                return Answer(url, "refused", reason=REFUSED + e.reason, read_from=target)
            status: Status = "gone" if e.status in GONE_STATUSES else "unreachable"
            return Answer(url, status, reason=e.reason, read_from=target)
        return Answer(url, "ok", download.body, read_from=target)

    def get_all(self, urls: Iterable[str], progress: Progress | None = None) -> dict[str, Answer]:
        """Every URL's answer, read `concurrency` at a time; `progress` after each."""
        wanted = list(dict.fromkeys(urls))
        answers: dict[str, Answer] = {}
        if not wanted:
            return answers
        workers = max(1, min(self.concurrency, len(wanted)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="a2a-kb-upstream") as pool:
            running = {pool.submit(self.get, url): url for url in wanted}
            for future in as_completed(running):
                answer = future.result()
                answers[answer.url] = answer
                if progress is not None:
                    progress(len(answers), len(wanted), _label(answer.url))
        return answers

    def _mirrors_tree_of(self, url: str) -> bool:
        assert self.mirror is not None
        return _mirrors_tree(self.mirror, url)

    def _from_mirror(self, url: str) -> Answer:
        assert self.mirror is not None
        try:
            path = mirror_path(self.mirror, url)
        except ValueError as e:
            return Answer(url, "unreachable", reason=str(e))
        try:
            size = path.stat().st_size
            if size > self.policy.max_bytes:
                return Answer(url, "refused", read_from=str(path), reason=(
                    f"{REFUSED}{path} is {size:,} bytes, over the {self.policy.max_bytes:,}-byte "
                    "size cap"))
            return Answer(url, "ok", path.read_bytes(), read_from=str(path))
        except FileNotFoundError:
            if self._mirrors_tree_of(url):
                return Answer(url, "gone", reason=f"not in the mirror (looked for {path})",
                              read_from=str(path))
            return Answer(url, "unreachable", reason=f"the mirror does not hold {url}",
                          read_from=str(path))
        except OSError as e:
            return Answer(url, "unreachable", reason=f"could not read {path}: {e.strerror or e}",
                          read_from=str(path))


def ref_facts(body: bytes) -> list[Fact]:
    """The facts of a GitHub refs answer (tags, branch heads), read by the git-refs
    extractor; none when the answer is not one."""
    from ..extract import extract  # only watch, pin and add-version read live refs

    probe = Source(id="upstream", kind="git-refs", authority="primary", url="", title="",
                   versions=[], mark=Mark("upstream"))
    try:
        return extract(probe, body)
    except ExtractError:
        return []


def _mirrors_tree(mirror: Path, url: str) -> bool:
    """Whether the mirror holds a repository's files at the ref of `url` (a raw GitHub
    URL): then a file missing there is not in that tree. Of anything else the mirror keeps
    what it was given, so a missing file says nothing."""
    prefix = ENDPOINTS["github-raw"] + "/"
    if not url.startswith(prefix):
        return False
    parts = url[len(prefix):].split("/")
    depth = 5 if parts[2:4] == ["refs", "heads"] else 3  # owner/name/<sha> or …/refs/heads/<b>
    tree = mirror / (urlsplit(url).hostname or "") / "/".join(parts[:depth])
    return len(parts) > depth and tree.is_dir()


def _label(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}{parts.path}"[-60:]


# --- what is pinned to a branch's head ---------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """The pinned files of one tracked branch: the sources whose URL names the commit the
    branch's head was when they were pinned. They move together."""

    upstream: Upstream
    branch: Branch
    commit: str
    sources: tuple[Source, ...]

    @property
    def name(self) -> str:
        return f"{self.upstream.repository}@{self.branch.name}"


def heads_url(repository: Upstream) -> str:
    """Where a repository's tracked heads are read: one branch, its own ref; several, the
    list of every branch, in one request."""
    if len(repository.branches) == 1:
        return Endpoints.head(repository.repository, repository.branches[0].name)
    return Endpoints.heads(repository.repository)


def pinned_commit(kb: KnowledgeBase, branch: Branch) -> str:
    """The commit a tracked branch is pinned at (its version's, or its own)."""
    if branch.version:
        version = kb.versions.get(branch.version)
        return version.commit if version else ""
    return branch.commit


def snapshots(kb: KnowledgeBase) -> list[Snapshot]:
    """Every tracked branch with the pinned sources of its commit, in upstream.yaml order."""
    by_commit: dict[tuple[str, str], list[Source]] = {}
    for source in kb.sources.values():
        parts = raw_parts(source.url) if source.pinned else None
        if parts is not None:
            by_commit.setdefault((parts[0].lower(), parts[1]), []).append(source)
    found = []
    for item in kb.upstream.values():
        for branch in item.branches:
            commit = pinned_commit(kb, branch)
            files = by_commit.get((item.repository.lower(), commit), [])
            found.append(Snapshot(item, branch, commit, tuple(files)))
    return found
