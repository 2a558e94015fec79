"""What several pages ask of the claims: which claims speak about a state, a source, a cell."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from ...facts import canonical_state
from ...records.model import Claim, Source
from .. import paths
from ..data import SiteData
from ..links import Linker

# Fact keys through which a claim speaks about the values of TaskState as a whole.
_SET_KEYS = ("enum-values:TaskState", "states:TaskState", "named-states:TaskState")
_CLASS_KEYS = ("terminal-states:TaskState", "interrupted-states:TaskState")
ROLES = ("set-by", "client-next")
_ROLE = re.compile(r"(?<![\w-])(set-by|client-next)(?![\w-])")
_SDK_SUBJECT = re.compile(r"^sdk:([^/\s]+)/(\S+)$")


@dataclass(frozen=True)
class Cite:
    """A link to one claim, with its verdict, for a table cell or a list."""

    id: str
    verdict: str
    href: str
    rank: str


def subject_spelling(claim: Claim) -> str | None:
    """The state as a claim's subject spells it, when its subject is `TaskState.<spelling>`
    (`TaskState.TASK_STATE_CANCELLED/set-by` gives `TASK_STATE_CANCELLED`)."""
    subject = claim.subject.strip()
    if not subject.startswith("TaskState."):
        return None
    return subject[len("TaskState."):].split("/", 1)[0].split("#", 1)[0]


def subject_state(claim: Claim) -> str | None:
    """The canonical state a claim is about, when its subject is `TaskState.<spelling>`."""
    spelling = subject_spelling(claim)
    return canonical_state(spelling) if spelling is not None else None


def role(claim: Claim) -> str | None:
    """`set-by` or `client-next` when a claim about a state says who sets it or what a
    client does next: the word appears in its subject suffix, locator or note."""
    if subject_state(claim) is None:
        return None
    for text in (claim.subject, claim.locator, claim.note):
        found = _ROLE.search(text)
        if found:
            return found.group(1)
    return None


def claim_sources(data: SiteData, claim: Claim) -> set[str]:
    """The source ids a claim rests on: its own and those its checks read."""
    ids = {claim.source}
    for e in claim.expect:
        if e.source:
            resolved = data.kb.resolve_source(e.source)
            ids.add(resolved.id if resolved else e.source)
    return ids


def _fact_keys(data: SiteData, claim: Claim, source_id: str) -> set[str]:
    keys = set()
    for e in claim.expect:
        resolved = data.kb.resolve_source(e.source) if e.source else None
        target = resolved.id if resolved is not None else (e.source or claim.source)
        if target == source_id:
            keys.add(e.fact)
    return keys


def cite(data: SiteData, link: Linker, claim: Claim) -> Cite:
    href = link.page(paths.CLAIMS, paths.claim_anchor(claim.id))
    return Cite(claim.id, data.verdict(claim.id), href, claim.rank)


def _in_version(data: SiteData, claim: Claim, version: str) -> bool:
    """Whether a claim belongs on a state table of `version`: it is about that version
    and rests on a primary source (what others say has its own page)."""
    return version in claim.versions and data.authority(claim.id) == "primary"


def about_state(data: SiteData, version: str, state: str) -> list[Claim]:
    """Claims of `version` whose subject is this state (roles aside)."""
    return [c for c in data.kb.claims.values()
            if _in_version(data, c, version) and subject_state(c) == state and role(c) is None]


def with_role(data: SiteData, version: str, state: str, wanted: str) -> list[Claim]:
    return [c for c in data.kb.claims.values()
            if _in_version(data, c, version) and subject_state(c) == state and role(c) == wanted]


def about_value(data: SiteData, version: str, source_id: str, spelling: str) -> list[Claim]:
    """Claims that check this one value (its spelling, its number) in this source."""
    wanted = f"enum-value:TaskState.{spelling}"
    return [c for c in data.kb.claims.values()
            if _in_version(data, c, version) and wanted in _fact_keys(data, c, source_id)]


def about_set(data: SiteData, version: str, sources: list[str]) -> list[Claim]:
    """Claims that check the value set of a version as a whole (which values, how many)."""
    return [c for c in data.kb.claims.values()
            if _in_version(data, c, version)
            and any(_fact_keys(data, c, sid) & set(_SET_KEYS) for sid in sources)]


def _names(value: Any) -> set[str]:
    items = value if isinstance(value, list) else [value]
    return {canonical_state(str(v)) or str(v) for v in items}


def about_class(data: SiteData, version: str, state: str, source_id: str) -> list[Claim]:
    """Claims that check this state's class as this source gives it: a check on the source's
    terminal or interrupted list that names the state, or on the state's own class."""
    own = f"state-class:TaskState.{state}"
    found = []
    for c in data.kb.claims.values():
        if not _in_version(data, c, version):
            continue
        for e in c.expect:
            resolved = data.kb.resolve_source(e.source) if e.source else None
            target = resolved.id if resolved is not None else (e.source or c.source)
            if target != source_id:
                continue
            if e.fact == own or (e.fact in _CLASS_KEYS and state in _names(e.value)):
                found.append(c)
                break
    return found


def source_href(data: SiteData, source_id: str, lines: Any = None) -> str:
    """The link of a source (the exact lines when given), or '' for an unknown source."""
    source = data.kb.sources.get(source_id)
    if source is None:
        return source_id if source_id.startswith("https://") else ""
    if isinstance(lines, list | tuple) and len(lines) == 2 and lines[0]:
        return source.permalink(int(lines[0]), int(lines[1] or lines[0]))
    return source.permalink()


def unique(claims: list[Claim]) -> list[Claim]:
    seen: set[str] = set()
    result = []
    for c in claims:
        if c.id not in seen:
            seen.add(c.id)
            result.append(c)
    return result


def sdk_subject(claim: Claim) -> tuple[str, str] | None:
    """`(sdk, behaviour)` of a claim whose subject is `sdk:<sdk>/<behaviour>`."""
    found = _SDK_SUBJECT.match(claim.subject.strip())
    return (found.group(1), found.group(2)) if found else None


def scenario_of(source: Source) -> str:
    """The SDK build and scenario of a capture source, from its transcript's path
    (`captures/a2a-sdk-1.3.0/04-input-required.http` → `a2a-sdk-1.3.0/04-input-required`)."""
    path = source.path or source.id
    name = posixpath.splitext(posixpath.basename(path))[0]
    build = posixpath.basename(posixpath.dirname(path))
    return f"{build}/{name}" if build and build != "captures" else name


def capture_href(link: Linker, source: Source, line: int = 0) -> str:
    """A link to a capture's page, at one line of its transcript when `line` is given."""
    return link.page(paths.capture_page(scenario_of(source)), paths.line_anchor(line) if line else "")


def capture_sources(data: SiteData) -> list[Source]:
    """The capture sources whose transcript could be read (each has a page), by scenario."""
    return sorted((s for s in data.kb.sources.values() if s.kind == "capture" and s.id in data.transcripts),
                  key=scenario_of)


def observed_builds(data: SiteData, claim: Claim) -> list[dict[str, str]]:
    """The builds the claim's capture sources ran, as their transcripts' headers say
    (`{"package": "a2a-sdk", "version": "0.3.26"}`); empty for a claim not read off a capture."""
    builds = []
    for sid in sorted(claim_sources(data, claim)):
        source = data.kb.sources.get(sid)
        if source is None or source.kind != "capture" or sid not in data.transcripts:
            continue
        scenario = scenario_of(source).rsplit("/", 1)[-1]  # facts name the scenario, not the build
        headers = [f.value for f in data.facts(source).get(f"capture-sdk:{scenario}", [])
                   if isinstance(f.value, dict)]
        builds += [{"package": str(h.get("package", "")), "version": str(h.get("version", ""))}
                   for h in headers]
    return builds
