"""watch: upstream as it is now, held against the pins. Changes nothing.

What it consults (sources/upstream.yaml says which repositories, branches and packages):

- each repository's tag list: tags no version names (for an SDK's repository, tags not
  among its `releases`) are *new refs*; a new tag's tracked
  files are read at its commit, so the claims can be evaluated against it;
- each tracked branch's head: when it moved, every pinned file of the branch's commit (and
  every tracked file) is read at the head, and each that changed, appeared or went is a
  finding; a head that moved without touching those files is reported, not a finding;
- every other moving source pinned by sha256 (the dossier): changed or not;
- the release lists of the packages on PyPI and npm: releases not listed are *new refs*;
- every page known only by the date it was read: read as text (HTML through Beautiful
  Soup), and each claim quoting it checked — quoted words gone, or the same words with
  other numbers (a count that changed), are findings.

Then the claims are evaluated against the live bytes (`a2a_kb.knowledge.flips`) and
every claim whose verdict would flip is a finding.

Unreachable upstream (no answer, a timeout, a 5xx, a host the mirror does not hold) is
reported with its reason and is not a finding, unless `strict`: an outage says nothing
about the knowledge base, and a daily job that fails for a flaky page teaches people to
ignore it. A page that answers 404 or 410 is `gone`, which is a finding. A run where
nothing at all could be consulted is an error, never an empty success.

Why it is long: it builds one report, whose JSON shape the command line contract fixes, from
three readings of upstream (tag lists, branch heads, package registries) that share the
reader, the pins and the re-evaluation of the claims against what was read. The parts follow
the report's order; splitting them by reading would put that one shape in several places.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..cache import sha256_of
from ..diagnostics import Mark
from ..errors import ConfigurationError
from ..output import one_line
from ..records.kb import KnowledgeBase, normalize_version
from ..records.model import Claim, Source, Upstream
from .fetch import TerminalProgress
from .upstream import Answer, Endpoints, Reader, Snapshot, heads_url, ref_facts, snapshots

SCHEMA_VERSION = 1
# "refused": upstream answered with something the policy would not take (over the size
# cap, a redirect elsewhere). It is a finding, never an outage: a tag list grown past the cap
# must not pass for a quiet day.
FINDING_STATUSES = frozenset({"changed", "gone", "new", "quote-gone", "numbers-changed", "refused"})


@dataclass
class Observed:
    """One thing upstream and what it is now (a row of the report's `upstream`)."""

    id: str
    kind: str  # tag-list, branch, file, moving, registry, page
    url: str
    status: str  # unchanged, changed, moved, new, gone, read, unreachable, …
    pinned_sha256: str = ""
    live_sha256: str = ""
    message: str = ""
    mark: Mark | None = None
    pinned_commit: str = ""
    live_commit: str = ""

    def finding(self, strict: bool) -> bool:
        if strict and self.status == "unreachable":
            return True
        if self.kind == "registry":  # its new releases are the findings (new_refs)
            return self.status in ("gone", "refused")
        return self.status in FINDING_STATUSES

    def as_json(self, strict: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "kind": self.kind, "url": self.url,
                                "pinned_sha256": self.pinned_sha256 or None,
                                "live_sha256": self.live_sha256 or None,
                                "status": self.status, "finding": self.finding(strict),
                                "message": self.message}
        if self.kind == "branch":
            data["pinned_commit"], data["live_commit"] = self.pinned_commit, self.live_commit or None
        return data


@dataclass
class NewRef:
    """A tag, branch or release upstream that the knowledge base does not know."""

    kind: str  # tag, branch, release
    name: str
    where: str  # owner/name, or pypi:<package> / npm:<package>
    url: str
    commit: str = ""
    mark: Mark | None = None

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "where": self.where, "url": self.url,
                "commit": self.commit or None}

    def line(self) -> str:
        at = f" at {self.commit[:7]}" if self.commit else ""
        return f"new {self.kind} {self.name} in {self.where}{at}"


@dataclass
class Flip:
    """A claim whose verdict would change if the live bytes were pinned."""

    id: str
    pinned: str
    live: str
    message: str
    evidence: list[dict[str, Any]]
    mark: Mark

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "pinned": self.pinned, "live": self.live,
                "message": self.message, "evidence": self.evidence,
                "file": self.mark.path, "line": self.mark.line}

    def line(self) -> str:
        live = next((e["line"] for e in self.evidence if e.get("line")), "")
        shown = f" — live: {live!r}" if live else ""
        return f"{self.id}: {self.pinned} → {self.live}: {self.message}{shown}"


@dataclass
class LiveVersion:
    """A new tag read upstream: the version it would be, and its files' live sources."""

    id: str
    ref: str
    commit: str
    released: bool
    sources: list[Source]


@dataclass
class WatchReport:
    """Everything one run of watch saw; the CLI picks a format."""

    upstream: list[Observed] = field(default_factory=list)
    new_refs: list[NewRef] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)
    strict: bool = False
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    generated_at: str = field(default_factory=lambda: _now())
    # What flips are computed from: live bytes by pinned source id, and new versions.
    live: dict[str, bytes] = field(default_factory=dict, repr=False)
    live_pages: dict[str, str] = field(default_factory=dict, repr=False)
    new_versions: list[LiveVersion] = field(default_factory=list, repr=False)

    @property
    def findings(self) -> int:
        return (sum(o.finding(self.strict) for o in self.upstream) + len(self.new_refs)
                + len(self.flips))

    @property
    def ok(self) -> bool:
        return self.findings == 0

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for o in self.upstream:
            counts[o.status] = counts.get(o.status, 0) + 1
        return dict(sorted(counts.items()))

    def as_json(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "generated_at": self.generated_at,
                "ok": self.ok, "findings": self.findings, "strict": self.strict,
                "seconds": round(self.seconds, 3), "summary": self.counts,
                "upstream": [o.as_json(self.strict) for o in self.upstream],
                "new_refs": [r.as_json() for r in self.new_refs],
                "flips": [f.as_json() for f in self.flips], "notes": self.notes}


Progress = Callable[[int, int, str], None]


# --- consulting upstream ------------------------------------------------------------------


def observe(kb: KnowledgeBase, reader: Reader, *, strict: bool = False,
            progress: bool | Progress = False) -> WatchReport:
    """Read upstream (several URLs at once) and compare it with the pins."""
    started = time.monotonic()
    report = WatchReport(strict=strict)
    tracker = _Tracker(progress)
    run = _Run(kb, reader, report, tracker)
    run.first_round()
    run.second_round()
    report.seconds = time.monotonic() - started
    consulted = [o for o in report.upstream if o.status != "unreachable"]
    if report.upstream and not consulted:
        raise ConfigurationError(
            f"nothing upstream could be consulted ({len(report.upstream)} unreachable; first: "
            f"{report.upstream[0].message}) (tip: check the network, --mirror or --upstream)")
    return report


class _Tracker:
    """One progress bar over every round of reads."""

    def __init__(self, progress: bool | Progress) -> None:
        self.callback: Progress | None = (TerminalProgress(title="watch") if progress is True
                                          else progress or None)
        self.done = 0
        self.total = 0

    def round(self, count: int) -> Progress | None:
        if self.callback is None:
            return None
        base = self.done
        self.total += count
        callback = self.callback

        def tick(done: int, _: int, label: str) -> None:
            self.done = base + done
            callback(self.done, self.total, label)
        return tick


class _Run:
    def __init__(self, kb: KnowledgeBase, reader: Reader, report: WatchReport,
                 tracker: _Tracker) -> None:
        self.kb = kb
        self.reader = reader
        self.report = report
        self.tracker = tracker
        self.repositories = [u for u in kb.upstream.values() if u.kind == "repository"]
        self.registries = [u for u in kb.upstream.values() if u.kind in ("pypi", "npm")]
        self.snapshots = snapshots(kb)
        tag_sources = {u.tags for u in self.repositories if u.tags}
        self.moving = [s for s in kb.sources.values()
                       if s.pinned and s.moving and s.id not in tag_sources]
        self.pages = [s for s in kb.sources.values()
                      if not s.pinned and not s.local and s.url.startswith("https://")]
        self.heads: dict[str, dict[str, str]] = {}  # repository → branch → live commit
        self.new_tags: list[tuple[Upstream, str, str, str]] = []  # repo, tag, commit, object

    def read(self, urls: list[str]) -> dict[str, Answer]:
        return self.reader.get_all(urls, self.tracker.round(len(set(urls))))

    # round 1: tag lists, branch heads, moving sources, registries, pages ----------------

    def first_round(self) -> None:
        urls = [self.kb.sources[u.tags].url for u in self.repositories if u.tags]
        urls += [heads_url(u) for u in self.repositories if u.branches]
        urls += [s.url for s in self.moving]
        urls += [_registry_url(u) for u in self.registries]
        urls += [s.url for s in self.pages]
        answers = self.read(urls)
        for repo in self.repositories:
            if repo.tags:
                self._tag_list(repo, answers[self.kb.sources[repo.tags].url])
            if repo.branches:
                self._heads(repo, answers[heads_url(repo)])
        for source in self.moving:
            self._moving(source, answers[source.url])
        for registry in self.registries:
            self._registry(registry, answers[_registry_url(registry)])
        for source in self.pages:
            self._page(source, answers[source.url])

    def _tag_list(self, repo: Upstream, answer: Answer) -> None:
        source = self.kb.sources[repo.tags]
        row = _compare(source, answer, "tag-list")
        self.report.upstream.append(row)
        if not answer.ok:
            return
        self.report.live[source.id] = answer.body
        live = {f.key: str(f.value) for f in ref_facts(answer.body)}
        if repo.releases:  # an SDK: the tags taken note of, not the spec's versions
            known = set(repo.releases)
        else:
            known = {v.ref for v in self.kb.versions.values()}
            known |= {f"v{v.id}" for v in self.kb.versions.values()}
        tags = sorted({k.split(":", 1)[1] for k in live if k.startswith("tag-")})
        for tag in tags:
            if tag in known:
                continue
            commit = live.get(f"tag-commit:{tag}", "")
            obj = live.get(f"tag-object:{tag}", "")
            self.new_tags.append((repo, tag, commit, obj))
        for gone in sorted(set(repo.releases) - set(tags)):
            self.report.upstream.append(Observed(
                f"{repo.repository}@{gone}", "tag", Endpoints.tags(repo.repository), "gone",
                message=f"tag {gone} is no longer in the tag list", mark=repo.mark))
        for version in [] if repo.releases else self.kb.ordered_versions:
            if version.ref.startswith("v") and version.ref not in tags:
                self.report.upstream.append(Observed(
                    f"{repo.repository}@{version.ref}", "tag", Endpoints.tags(repo.repository),
                    "gone", message=f"tag {version.ref} of version {version.id} is no longer "
                    "in the tag list", mark=version.mark))

    def _heads(self, repo: Upstream, answer: Answer) -> None:
        if not answer.ok:
            for branch in repo.branches:
                self.report.upstream.append(Observed(
                    f"{repo.repository}@{branch.name}", "branch", answer.url, answer.status,
                    message=answer.reason, mark=branch.mark))
            return
        live = {str(f.subject): str(f.value) for f in ref_facts(answer.body)
                if f.kind == "branch-commit"}
        self.heads[repo.repository] = live
        tracked = {b.name for b in repo.branches}
        untracked = set(repo.untracked)
        if len(repo.branches) > 1:
            for name in sorted(set(live) - tracked - untracked):
                self.report.new_refs.append(NewRef("branch", name, repo.repository, answer.url,
                                                   live[name], repo.mark))

    def _moving(self, source: Source, answer: Answer) -> None:
        row = _compare(source, answer, "moving")
        self.report.upstream.append(row)
        if answer.ok and row.status == "changed":
            self.report.live[source.id] = answer.body

    def _registry(self, registry: Upstream, answer: Answer) -> None:
        url = _registry_url(registry)
        where = f"{registry.kind}:{registry.package}"
        if not answer.ok:
            self.report.upstream.append(Observed(registry.id, "registry", url, answer.status,
                                                 message=answer.reason, mark=registry.mark))
            return
        releases = _releases(registry.kind, answer.body)
        if releases is None:
            self.report.upstream.append(Observed(
                registry.id, "registry", url, "unreachable", live_sha256=sha256_of(answer.body),
                message=f"the answer is not a {registry.kind} release list", mark=registry.mark))
            return
        new = [r for r in releases if r not in set(registry.releases)]
        self.report.upstream.append(Observed(
            registry.id, "registry", url, "changed" if new else "unchanged",
            live_sha256=sha256_of(answer.body), mark=registry.mark,
            message=f"{len(new)} new release(s): {', '.join(new)}" if new
            else f"{len(releases)} releases, all known"))
        for release in new:
            self.report.new_refs.append(NewRef("release", release, where, url,
                                               mark=registry.mark))

    def _page(self, source: Source, answer: Answer) -> None:
        row = Observed(source.id, "page", source.url, "read" if answer.ok else answer.status,
                       live_sha256=sha256_of(answer.body) if answer.ok else "",
                       message=answer.reason, mark=source.mark)
        self.report.upstream.append(row)
        if not answer.ok:
            return
        text = page_text(answer.body)
        self.report.live_pages[source.id] = text
        news = []
        for claim in self.kb.claims.values():
            if claim.source == source.id and claim.quote:
                verdict = quoted(claim, text)
                if verdict is not None:
                    news.append(verdict)
        if news:
            row.status = news[0][0]
            row.message = "; ".join(message for _, message in news)

    # round 2: the files of moved branches and of new tags -------------------------------

    def second_round(self) -> None:
        plans: list[tuple[Snapshot, str, dict[str, str]]] = []
        for snap in self.snapshots:
            live = self.heads.get(snap.upstream.repository)
            if live is None:
                continue  # its heads answer was unreachable (already reported)
            plans.append((snap, live.get(snap.branch.name, ""), _branch_files(snap)))
        objects = [Endpoints.tag_object(repo.repository, obj)
                   for repo, _, commit, obj in self.new_tags if not commit]
        answers = self.read(objects)
        tags: list[tuple[Upstream, str, str]] = []
        for repo, tag, commit, obj in self.new_tags:
            if not commit:
                answer = answers[Endpoints.tag_object(repo.repository, obj)]
                inner = {f.key: str(f.value) for f in ref_facts(answer.body)} if answer.ok else {}
                commit = inner.get(f"tag-commit:{tag}", "")
            tags.append((repo, tag, commit))
            self.report.new_refs.append(NewRef("tag", tag, repo.repository,
                                               Endpoints.tags(repo.repository), commit,
                                               self.kb.sources[repo.tags].mark))
        urls = [url for snap, head, files in plans if head and head != snap.commit
                for url in files.values()]
        urls += [Endpoints.raw(repo.repository, commit, f.path)
                 for repo, _, commit in tags if commit for f in repo.files]
        answers = self.read(urls)
        for snap, head, files in plans:
            self._branch(snap, head, files, answers)
        for repo, tag, commit in tags:
            if commit and not repo.releases:  # an SDK's release is not a spec version
                self._new_version(repo, tag, commit, answers)

    def _branch(self, snap: Snapshot, head: str, files: dict[str, str],
                answers: dict[str, Answer]) -> None:
        url = heads_url(snap.upstream)
        row = Observed(snap.name, "branch", url, "unchanged", mark=snap.branch.mark,
                       pinned_commit=snap.commit, live_commit=head)
        self.report.upstream.append(row)
        if not head:
            row.status, row.message = "gone", f"branch {snap.branch.name} is no longer upstream"
            return
        if head == snap.commit:
            row.message = f"the head is still {head[:7]}"
            return
        row.status = "moved"
        by_path = {s.path: s for s in snap.sources}
        changed = 0
        for path, file_url in files.items():
            answer = answers[file_url]
            source = by_path.get(path)
            file_id = source.id if source else f"{snap.name}:{path}"
            file_row = Observed(file_id, "file", file_url, "unchanged",
                                pinned_sha256=source.sha256 if source else "",
                                mark=source.mark if source else snap.branch.mark)
            if answer.ok:
                file_row.live_sha256 = sha256_of(answer.body)
                if source is None:
                    file_row.status = "new"
                    file_row.message = f"{path} now exists on {snap.branch.name}"
                elif file_row.live_sha256 != source.sha256:
                    file_row.status = "changed"
                    file_row.message = f"{path} changed on {snap.branch.name} ({head[:7]})"
                    self.report.live[source.id] = answer.body
            elif answer.status == "gone":
                if source is None:
                    continue  # a tracked file this branch never had
                file_row.status = "gone"
                file_row.message = f"{path} is no longer on {snap.branch.name}"
            else:  # unreachable, or refused
                file_row.status, file_row.message = answer.status, answer.reason
            changed += file_row.status in FINDING_STATUSES
            self.report.upstream.append(file_row)
        row.message = (f"moved {snap.commit[:7]} → {head[:7]}; "
                       + (f"{changed} tracked file(s) changed" if changed
                          else "no tracked file changed"))

    def _new_version(self, repo: Upstream, tag: str, commit: str,
                     answers: dict[str, Answer]) -> None:
        vid = normalize_version(tag)
        sources = []
        for tracked in repo.files:
            answer = answers[Endpoints.raw(repo.repository, commit, tracked.path)]
            if not answer.ok:
                continue
            sid = f"{tracked.source}@{tag}"
            sources.append(Source(
                id=sid, kind=tracked.kind, authority="primary", url=answer.url,
                title=f"{tracked.title} at {tag}", versions=[vid],
                mark=self.kb.sources[repo.tags].mark, ref=tag, commit=commit,
                path=tracked.path, sha256=sha256_of(answer.body), size=len(answer.body),
                binding=tracked.binding))
            self.report.live[sid] = answer.body
        from ..records.kb import is_prerelease

        self.report.new_versions.append(LiveVersion(vid, tag, commit, not is_prerelease(vid),
                                                    sources))


def _compare(source: Source, answer: Answer, kind: str) -> Observed:
    row = Observed(source.id, kind, source.url, answer.status, pinned_sha256=source.sha256,
                   message=answer.reason, mark=source.mark)
    if answer.ok:
        row.live_sha256 = sha256_of(answer.body)
        row.status = "unchanged" if row.live_sha256 == source.sha256 else "changed"
        row.message = "" if row.status == "unchanged" else (
            f"upstream serves {row.live_sha256[:12]}…, pinned {source.sha256[:12]}…; "
            f"`a2a-kb pin {source.id}` after review")
    return row


def _branch_files(snap: Snapshot) -> dict[str, str]:
    """Path → the URL of the file at the branch's head, for every file to compare."""
    paths = [s.path for s in snap.sources] + [f.path for f in snap.upstream.files]
    ref = f"refs/heads/{snap.branch.name}"
    return {p: Endpoints.raw(snap.upstream.repository, ref, p) for p in dict.fromkeys(paths)}


def _registry_url(registry: Upstream) -> str:
    return Endpoints.pypi(registry.package) if registry.kind == "pypi" \
        else Endpoints.npm(registry.package)


def _releases(kind: str, body: bytes) -> list[str] | None:
    """The versions in a PyPI JSON API or npm registry answer, None if it is neither."""
    import json

    try:
        answer = json.loads(body)
    except ValueError:
        return None
    key = "releases" if kind == "pypi" else "versions"
    found = answer.get(key) if isinstance(answer, dict) else None
    return [str(v) for v in found] if isinstance(found, dict) else None


# --- pages and the words quoted from them ---------------------------------------------------

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                "seventeen", "eighteen", "nineteen", "twenty")
_NUMBER = r"(?:\d+(?:[.,]\d+)*|" + "|".join(NUMBER_WORDS) + r")"
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[A-Za-z]+|\S", re.UNICODE)


def page_text(body: bytes) -> str:
    """What a reader of the page sees, as one line of text: HTML through Beautiful Soup
    (scripts, styles and templates dropped); anything else as it is."""
    head = body[:2048].lower()
    text = body.decode("utf-8", "replace")
    if b"<html" in head or b"<!doctype html" in head or b"<body" in head:
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(body, "html.parser")
        for tag in soup(["script", "style", "template", "noscript"]):
            tag.decompose()
        text = soup.get_text(" ")
    return " ".join(text.split())


def quoted(claim: Claim, text: str) -> tuple[str, str] | None:
    """None while the claim's quoted words are in `text`; else (status, message):
    `numbers-changed` when the same words are there with other numbers, else
    `quote-gone`."""
    quote = " ".join(claim.quote.split())
    if quote.casefold() in text.casefold():
        return None
    tokens = _TOKEN.findall(quote)
    if any(_is_number(t) for t in tokens) and not all(_is_number(t) for t in tokens):
        pattern = r"\s*".join(_NUMBER if _is_number(t) else re.escape(t) for t in tokens)
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return ("numbers-changed",
                    f"claim '{claim.id}' quotes {quote!r}; the page now says {found.group(0)!r}")
    return "quote-gone", f"claim '{claim.id}' quotes {quote!r}, which the page no longer has"


def _is_number(token: str) -> bool:
    return token[0].isdigit() or token.lower() in NUMBER_WORDS


# --- formats ----------------------------------------------------------------------------------


def _sections(report: WatchReport) -> list[tuple[str, list[str]]]:
    """The text report's sections; every item is one line, whatever upstream put in it."""
    strict = report.strict
    findings = [o for o in report.upstream if o.finding(strict)]
    moved = [o for o in report.upstream if o.status == "moved"]
    unreachable = [o for o in report.upstream if o.status == "unreachable" and not strict]
    sections = [
        ("new tags, branches and releases", [r.line() for r in report.new_refs]),
        ("changed upstream", [f"{o.id}: {o.status}: {o.message}" for o in findings]),
        ("claims whose verdict would flip", [f.line() for f in report.flips]),
        ("branches that moved (no finding unless a tracked file changed)",
         [f"{o.id}: {o.message}" for o in moved]),
        ("not consulted (unreachable; not findings without --strict)",
         [f"{o.id}: {o.message}" for o in unreachable]),
    ]
    return [(title, [one_line(item) for item in items]) for title, items in sections]


def format_text(report: WatchReport) -> str:
    lines = []
    for title, items in _sections(report):
        if items:
            lines.append(f"{title}:")
            lines += [f"  {item}" for item in items]
    lines += [one_line(note) for note in report.notes]
    counts = ", ".join(f"{n} {status}" for status, n in report.counts.items())
    lines.append(f"{len(report.upstream)} upstream items ({counts}) in {report.seconds:.1f}s: "
                 + (f"{report.findings} finding(s)" if report.findings else "no findings"))
    return "\n".join(lines) + "\n"


def _github(report: WatchReport) -> str:
    """Workflow commands for each finding, then the text report with command processing
    stopped around it, so that no line of it, whatever upstream wrote, is read as one."""
    import secrets

    def esc(s: str) -> str:  # a command's message
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(s: str) -> str:  # a command's property value
        return esc(s).replace(":", "%3A").replace(",", "%2C")

    def at(mark: Mark | None) -> str:
        if not mark:
            return " "
        return f" file={prop(mark.path)},line={mark.line},col={mark.column},"

    out = []
    for ref in report.new_refs:
        out.append(f"::warning{at(ref.mark)}title={prop('watch new ' + ref.kind)}::"
                   f"{esc(one_line(ref.line()))}")
    for o in report.upstream:
        if o.finding(report.strict):
            out.append(f"::error{at(o.mark)}title={prop('watch ' + o.status)}::"
                       f"{esc(one_line(f'{o.id}: {o.message}'))}")
    for flip in report.flips:
        out.append(f"::error{at(flip.mark)}title=watch verdict would flip::{esc(one_line(flip.line()))}")
    token = secrets.token_hex(16)
    return "\n".join([*out, f"::stop-commands::{token}", format_text(report).rstrip("\n"),
                      f"::{token}::"])


def _junit(report: WatchReport) -> str:
    from xml.sax.saxutils import escape, quoteattr

    cases = []
    for o in report.upstream:
        name, cls = quoteattr(o.id), quoteattr(f"upstream.{o.kind}")
        if o.finding(report.strict):
            cases.append(f"  <testcase classname={cls} name={name}><failure message="
                         f"{quoteattr(o.status)}>{escape(o.message)}</failure></testcase>")
        elif o.status == "unreachable":
            cases.append(f"  <testcase classname={cls} name={name}><skipped message="
                         f"{quoteattr(o.message)}/></testcase>")
        else:
            cases.append(f"  <testcase classname={cls} name={name}/>")
    for ref in report.new_refs:
        cases.append(f"  <testcase classname={quoteattr('new_refs.' + ref.kind)} "
                     f"name={quoteattr(ref.name)}><failure message={quoteattr(ref.line())}/>"
                     "</testcase>")
    for flip in report.flips:
        cases.append(f"  <testcase classname={quoteattr(flip.mark.path)} name={quoteattr(flip.id)}>"
                     f"<failure message={quoteattr(f'{flip.pinned} → {flip.live}')}>"
                     f"{escape(flip.line())}</failure></testcase>")
    failures = report.findings
    skipped = sum(o.status == "unreachable" and not report.strict for o in report.upstream)
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>',
                      f'<testsuite name="a2a-kb watch" tests="{len(cases)}" '
                      f'failures="{failures}" skipped="{skipped}">', *cases, "</testsuite>"])


REPORTERS: dict[str, Callable[[WatchReport], str]] = {
    "text": format_text,
    "github": _github,
    "junit": _junit,
}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

