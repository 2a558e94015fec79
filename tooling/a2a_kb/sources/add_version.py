"""add-version: a new version of the specification, with its primary sources, from its tag.

The tag is looked up in the repository's live tag list (an annotated tag through its tag
object), and each lifecycle file of sources/upstream.yaml is read at the tag's commit: the
files the tag has become pinned sources (`<source>@<tag>`, sha256 and size of the bytes
read), the ones it lacks are left out. The GitHub API's answer for the commit (and for an
annotated tag's object) is registered too, since the site dates a version by it.

The version goes into sources/versions.yaml where it sorts (a prerelease before its release,
and `released: false` so `latest` stays the newest release); its sources go into
sources/primary.yaml after the sources of the version before it. Both files keep their
comments and layout. Every copy read is verified and stored in the cache.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..cache import Cache, CacheEntry, sha256_of
from ..errors import ConfigurationError
from ..records.kb import KnowledgeBase, is_prerelease, normalize_version, version_key
from ..records.model import Upstream
from .upstream import ENDPOINTS, Answer, Endpoints, Reader, ref_facts
from .yamledit import RecordFile, commit_files

VERSIONS = "sources/versions.yaml"
PRIMARY = "sources/primary.yaml"


@dataclass
class NewVersion:
    """What add-version found for a tag, and what it writes."""

    version: dict[str, Any]
    sources: list[dict[str, Any]] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)  # tracked files the tag does not have
    bodies: dict[str, bytes] = field(default_factory=dict, repr=False)  # source id → copy
    notes: list[str] = field(default_factory=list)

    def format_text(self) -> str:
        v = self.version
        kind = "a prerelease" if not v["released"] else "a release"
        lines = [f"added version {v['id']} ({kind}, tag {v['ref']} at {v['commit'][:7]}) "
                 f"to {VERSIONS}"]
        lines += [f"  {s['id']}: {s.get('path', s['url'])} ({s['size']} bytes)"
                  for s in self.sources]
        if self.absent:
            lines.append(f"  the tag has no {', '.join(self.absent)}")
        lines += self.notes
        lines.append(f"registered {len(self.sources)} source(s) in {PRIMARY}; next: "
                     "`a2a-kb validate`, `a2a-kb check`, and claims about what is new")
        return "\n".join(lines) + "\n"

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "sources": self.sources, "absent": self.absent,
                "notes": self.notes}


def add_version(kb: KnowledgeBase, reader: Reader, tag: str, *, today: dt.date | None = None,
                write: bool = True) -> NewVersion:
    """Find `tag` upstream and register it; raises ConfigurationError when it cannot."""
    found = find_version(kb, reader, tag, today=today)
    if write:
        _write(kb, found)
    return found


def find_version(kb: KnowledgeBase, reader: Reader, tag: str, *,
                 today: dt.date | None = None) -> NewVersion:
    """The version `tag` names upstream, with its sources, without writing anything."""
    vid = normalize_version(tag)
    if version_key(vid)[0] != 1:
        raise ConfigurationError(f"'{tag}' is not a version tag (tip: write v1.2.0 or 1.2.0-rc)")
    if vid in kb.versions:
        raise ConfigurationError(f"version {vid} is already in {VERSIONS}")
    repo = _repository(kb)
    date = (today or dt.date.today()).isoformat()
    tags = _answer(reader, Endpoints.tags(repo.repository), "the tag list")
    facts = {f.key: str(f.value) for f in ref_facts(tags.body)}
    name = next((n for n in (tag, f"v{vid}", vid) if f"tag-commit:{n}" in facts
                 or f"tag-object:{n}" in facts), None)
    if name is None:
        known = sorted(k.split(":", 1)[1] for k in facts if k.startswith("tag-"))
        raise ConfigurationError(
            f"{repo.repository} has no tag {tag} (tip: tags upstream: {', '.join(known)})")
    found = NewVersion({})
    api: list[tuple[str, str, Answer]] = []
    commit = facts.get(f"tag-commit:{name}", "")
    if not commit:
        obj = facts[f"tag-object:{name}"]
        answer = _answer(reader, Endpoints.tag_object(repo.repository, obj), f"tag object {obj[:7]}")
        inner = {f.key: str(f.value) for f in ref_facts(answer.body)}
        commit = inner.get(f"tag-commit:{name}", "")
        if not commit:
            raise ConfigurationError(f"the tag object of {name} names no commit")
        api.append((f"github-tag-{obj[:7]}", f"git/tags/{obj}", answer))
    commit_url = Endpoints.commit(repo.repository, commit)
    api.append((f"github-commit-{commit[:7]}", f"commits/{commit}",
                _answer(reader, commit_url, f"commit {commit[:7]}")))
    found.version = {"id": vid, "title": name, "ref": name, "commit": commit,
                     "released": not is_prerelease(vid)}
    urls = {f.path: Endpoints.raw(repo.repository, commit, f.path) for f in repo.files}
    answers = reader.get_all(urls.values())
    for tracked in repo.files:
        answer = answers[urls[tracked.path]]
        if answer.status == "gone":
            found.absent.append(tracked.path)
            continue
        if not answer.ok:
            raise ConfigurationError(f"{tracked.path} at {name} is {answer.status}: "
                                     f"{answer.reason} (tip: try again, or use --mirror DIR)")
        record: dict[str, Any] = {
            "id": f"{tracked.source}@{name}", "kind": tracked.kind, "authority": "primary",
            "url": urls[tracked.path], "title": f"{tracked.title} at {name}",
            "versions": [vid], "ref": name, "commit": commit, "path": tracked.path,
            "sha256": sha256_of(answer.body), "size": len(answer.body)}
        if tracked.binding:
            record["binding"] = tracked.binding
        found.sources.append(record)
        found.bodies[record["id"]] = answer.body
    if not found.sources:
        raise ConfigurationError(f"{name} ({commit[:7]}) has none of the tracked files "
                                 f"of {repo.repository} (see sources/upstream.yaml)")
    api_base = f"{ENDPOINTS['github-api']}/repos/{repo.repository}"
    for sid, path, answer in api:
        if sid in kb.sources:
            continue  # already registered (another version on the same commit)
        found.sources.append({
            "id": sid, "kind": "git-refs", "authority": "primary", "url": f"{api_base}/{path}",
            "title": f"GitHub API {path}", "versions": [], "path": path,
            "sha256": sha256_of(answer.body), "size": len(answer.body), "retrieved": date})
        found.bodies[sid] = answer.body
    pinned_tags = kb.sources.get(repo.tags)
    if pinned_tags is not None and pinned_tags.sha256 != sha256_of(tags.body):
        found.notes.append(f"the tag list moved since it was pinned: `a2a-kb pin {repo.tags}`")
    return found


def _repository(kb: KnowledgeBase) -> Upstream:
    for item in kb.upstream.values():
        if item.kind == "repository" and item.tags and item.files:
            return item
    raise ConfigurationError(
        "sources/upstream.yaml names no repository with a tag list and files "
        "(tip: see README, Watching upstream)")


def _answer(reader: Reader, url: str, what: str) -> Answer:
    answer = reader.get(url)
    if not answer.ok:
        raise ConfigurationError(f"{what} is {answer.status} at {answer.read_from or url}: "
                                 f"{answer.reason} (tip: try again, or use --mirror DIR)")
    return answer


def _write(kb: KnowledgeBase, found: NewVersion) -> None:
    root = kb.project.root
    versions = RecordFile(root / VERSIONS, VERSIONS)
    key = version_key(found.version["id"])
    position = next((i for i, item in enumerate(versions.records)
                     if version_key(str(item.get("id", ""))) > key), len(versions.records))
    versions.insert(position, found.version)

    primary = RecordFile(root / PRIMARY, PRIMARY)
    later = {v.id for v in kb.ordered_versions if version_key(v.id) > key}
    files = [s for s in found.sources if s["versions"]]
    api = [s for s in found.sources if not s["versions"]]
    records = list(primary.records)
    at = next((i for i, item in enumerate(records)
               if set(map(str, item.get("versions") or [])) & later
               or not item.get("versions")), len(records))
    for offset, record in enumerate(files):
        primary.insert(at + offset, record)
    records = list(primary.records)
    last_api = max((i for i, item in enumerate(records)
                    if str(item.get("id", "")).startswith("github-")), default=len(records) - 1)
    for offset, record in enumerate(api):
        primary.insert(last_api + 1 + offset, record)

    cache = Cache(kb.project.cache_dir)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    entries = {}
    for source in found.sources:
        body = found.bodies[source["id"]]
        entries[source["id"]] = CacheEntry(cache.put_blob(body), source["url"], len(body), stamp)
    commit_files(root, [versions, primary])  # a version and its sources, together or not at all
    cache.record(entries)
