"""Synthetic knowledge bases for the benchmark, made from the real pinned sources.

A synthetic KB has 50 versions and 200 sources whose copies are the real mirror's files
(specification, key-concepts and life-of-a-task pages, JSON schema, proto, CHANGELOG) with
a small edit per synthetic version, so every copy has its own sha256 and its own facts.
The research dossier is one of the 200, so claims carry real origins. Claims are spread
over topic files of about the size of the real ones and check real facts of the vocabulary
(states, enum values, fields, errors, sections, release dates …) with the operations the
real claims use. Each claim's recorded verdict is the one its construction makes true
(most verified, some contradicted, some quotes missing, some unverifiable), so a check of
a synthetic KB does the full work and must pass: the benchmark asserts that it does.

Two KBs made by :func:`make_pair` share one cache (the same 200 sources), so the 1,000 and
the 10,000-claim KB are compared on the same sources.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_kb.cache import Cache, CacheEntry
from a2a_kb.extract.factstore import FactStore, facts_for
from a2a_kb.facts import CANONICAL_STATES, Fact, canonical_state
from a2a_kb.project import Project
from a2a_kb.records import dossier
from a2a_kb.records.model import Source
from a2a_kb.records.validate import validate
from a2a_kb.sources.fetch import mirror_path

VERSIONS = 50
SOURCES = 200
CLAIMS_PER_FILE = 25  # the real topic files hold 10 to 35 claims
CONFLICT_EVERY = 10  # one conflict per ten claims, as in the real register
REVIEWED = "2026-11-29"
FETCHED_AT = "2026-11-29T00:00:00Z"

# The order in which a synthetic version takes its base version's sources.
_KIND_ORDER = ("spec", "json-schema", "proto", "docs", "changelog")
# How often each kind of fact is checked, roughly as in the real claims.
_FACT_WEIGHTS = {
    "section": 30,
    "enum-values": 10,
    "states": 8,
    "named-states": 6,
    "terminal-states": 8,
    "interrupted-states": 4,
    "enum-value": 8,
    "state-class": 6,
    "field": 10,
    "message-fields": 4,
    "error": 6,
    "error-mapping": 2,
    "release-date": 6,
    "rpc-methods": 2,
}


@dataclass
class SyntheticSource:
    record: dict[str, Any]
    version: str
    facts: list[Fact] = field(default_factory=list)


@dataclass
class Corpus:
    """The versions and sources both KBs share, with the facts of every source."""

    versions: list[dict[str, Any]]
    sources: list[SyntheticSource]
    dossier_record: dict[str, Any]
    origins: list[str]
    cache_dir: Path


def _commit(name: str) -> str:
    return hashlib.sha1(f"synthetic {name}".encode()).hexdigest()


def _edited(kind: str, data: bytes, label: str) -> bytes:
    """A small edit that keeps the file's structure and line numbers."""
    note = f"synthetic copy for {label}"
    if kind == "json-schema":
        head, brace, rest = data.partition(b"{")
        return head + brace + f' "$comment": "{note}",'.encode() + rest
    if kind == "proto":
        return data + f"\n// {note}\n".encode()
    return data + f"\n<!-- {note} -->\n".encode()


def _base_sources(real: Project) -> tuple[list[tuple[str, list[Source]]], Source]:
    kb = validate(real)
    by_version = []
    for version in kb.ordered_versions:
        pinned = [s for s in kb.sources.values() if version.id in s.versions and s.pinned]
        pinned.sort(key=lambda s: (_KIND_ORDER.index(s.kind) if s.kind in _KIND_ORDER else 9, s.id))
        by_version.append((version.id, pinned))
    found = next(s for s in kb.sources.values() if s.kind == "dossier")
    return by_version, found


def make_corpus(real_root: Path, mirror: Path, cache_dir: Path, seed: int = 7) -> Corpus:
    """Versions, sources and a filled cache (blobs, index and facts) under ``cache_dir``."""
    rng = random.Random(seed)
    bases, dossier_source = _base_sources(Project.at(real_root))
    cache = Cache(cache_dir)
    store = FactStore.in_cache(cache_dir)
    versions: list[dict[str, Any]] = []
    plan: list[tuple[str, str, Source]] = []
    wanted = SOURCES - 1  # the dossier is the last one
    # Four sources per version, then the rest from the versions that have more.
    for extra in (False, True):
        for i in range(VERSIONS):
            vid = f"{2 + i // 10}.{i % 10}.0"
            if not extra:
                versions.append({"id": vid, "title": f"v{vid} (synthetic)", "ref": f"v{vid}",
                                 "commit": _commit(vid), "released": True})
            base = bases[i % len(bases)][1]
            chosen = base[:4] if not extra else base[4:5]
            for s in chosen:
                if len(plan) < wanted:
                    plan.append((vid, f"v{vid}", s))
    entries: dict[str, CacheEntry] = {}
    sources: list[SyntheticSource] = []
    taken: set[str] = set()
    for vid, ref, base_source in plan:
        name = base_source.id.split("@", 1)[0]
        while f"{name}@{ref}" in taken:  # the draft has two JSON schemas
            name += "-2"
        taken.add(f"{name}@{ref}")
        data = _edited(base_source.kind, mirror_path(mirror, base_source.url).read_bytes(), ref)
        sha = cache.put_blob(data)
        commit = _commit(vid)
        record = {
            "id": f"{name}@{ref}", "kind": base_source.kind, "authority": "primary",
            "url": f"https://raw.githubusercontent.com/a2aproject/A2A/{commit}/{base_source.path}",
            "title": f"{base_source.title.rsplit(' at ', 1)[0]} at {ref}", "versions": [vid],
            "ref": ref, "commit": commit, "path": base_source.path, "sha256": sha,
            "size": len(data),
        }
        if base_source.binding:
            record["binding"] = base_source.binding
        entries[record["id"]] = CacheEntry(sha, record["url"], len(data), FETCHED_AT)
        typed = Source(id=record["id"], kind=record["kind"], authority="primary",
                       url=record["url"], title=record["title"], versions=[vid],
                       mark=None,  # type: ignore[arg-type]
                       ref=ref, commit=commit, path=record["path"], sha256=sha,
                       binding=base_source.binding)
        sources.append(SyntheticSource(record, vid, facts_for(typed, data, store)))
    text = mirror_path(mirror, dossier_source.url).read_bytes()
    cache.put_blob(text)
    entries[dossier_source.id] = CacheEntry(dossier_source.sha256, dossier_source.url,
                                            len(text), FETCHED_AT)
    cache.record(entries)
    record = {k: v for k, v in dossier_source.raw.items()}
    origins = []
    for key, blocks in dossier.blocks(text.decode("utf-8")).items():
        numbers = sorted(set().union(*(b.numbers for b in blocks))) or [1]
        origins += [f"{key}:{n}" for n in numbers]
    rng.shuffle(origins)
    return Corpus(versions, sources, record, origins, cache_dir)


# --- claims ---------------------------------------------------------------------------------


def _flow(value: Any) -> str:
    """A value in YAML flow style (JSON is a subset PyYAML reads back as the same value)."""
    return json.dumps(value, ensure_ascii=False)


def _unique_facts(facts: list[Fact]) -> dict[str, list[Fact]]:
    by_kind: dict[str, list[Fact]] = {}
    counts: dict[str, int] = {}
    for f in facts:
        counts[f.key] = counts.get(f.key, 0) + 1
    for f in facts:
        if counts[f.key] == 1 and not any(c.isspace() for c in f.key) and f.kind in _FACT_WEIGHTS:
            by_kind.setdefault(f.kind, []).append(f)
    return by_kind


def _words(text: str, rng: random.Random, low: int = 6, high: int = 14) -> str:
    words = " ".join(text.split()).split(" ")
    if len(words) <= low:
        return " ".join(words)
    n = rng.randint(low, min(high, len(words)))
    start = rng.randrange(0, len(words) - n + 1)
    phrase = " ".join(words[start : start + n])
    return phrase[:280].strip()


def _expectation(fact: Fact, rng: random.Random, wrong: bool) -> tuple[str, Any] | None:
    """An (op, value) that holds for ``fact`` (or, ``wrong``, one that fails)."""
    value = fact.value
    if fact.kind == "section":
        body = str(value.get("text", "")) if isinstance(value, dict) else ""
        if len(body.split()) < 8:
            return None
        phrase = _words(body, rng)
        return "quote-in-section", phrase + (" never said" if wrong else "")
    if isinstance(value, list):
        if not value:
            return ("count", 1) if wrong else ("count", 0)
        choice = rng.random()
        if choice < 0.4:
            return "equals", (value[:-1] if len(value) > 1 else [*value, value[0]]) if wrong else value
        if choice < 0.65:
            return "count", len(value) + (1 if wrong else 0)
        if choice < 0.85 and all(isinstance(v, str) for v in value):
            return "contains", ["synthetic-missing"] if wrong else [rng.choice(value)]
        named = {canonical_state(str(v)) for v in value}
        absent = [s for s in CANONICAL_STATES if s not in named and s != "unspecified"]
        if wrong:
            return "excludes", [value[0]]
        return "excludes", [absent[0] if absent else "synthetic-missing"]
    if isinstance(value, dict):
        keys = [k for k, v in value.items() if isinstance(v, str | int | bool) and k != "text"]
        if not keys:
            return ("absent", None) if wrong else ("present", None)
        subset = {k: value[k] for k in rng.sample(keys, min(len(keys), 2))}
        if wrong:
            k = next(iter(subset))
            subset[k] = f"{subset[k]}-not" if isinstance(subset[k], str) else 1_000_000
        return "equals", subset
    if fact.kind == "release-date" and isinstance(value, str):
        return "date-equals", ("1999" + value[4:]) if wrong else value
    return "equals", f"{value}-not" if wrong else value


@dataclass
class _Claim:
    id: str
    version: str
    source: str
    statement: str
    subject: str = ""
    locator: str = ""
    quote: str = ""
    expect: list[dict[str, Any]] = field(default_factory=list)
    verdict: str = "verified"
    origin: str = ""
    conflicts: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)


def _claims(corpus: Corpus, count: int, rng: random.Random) -> list[_Claim]:
    usable = [(s, _unique_facts(s.facts)) for s in corpus.sources]
    usable = [(s, f) for s, f in usable if f]
    by_version: dict[str, list[SyntheticSource]] = {}
    for s, _ in usable:
        by_version.setdefault(s.version, []).append(s)
    facts_of = {s.record["id"]: f for s, f in usable}
    claims: list[_Claim] = []
    n = 0
    while len(claims) < count:
        n += 1
        source, by_kind = usable[n % len(usable)]
        sid, version = source.record["id"], source.version
        roll = rng.random()
        cid = f"synthetic-{n:05d}-{source.record['kind']}"
        if roll < 0.22:  # a secondary web page: nothing to check it against
            claims.append(_Claim(cid, version, f"https://example.org/a2a/notes/{n}",
                                 f"A secondary page says something about version {version} "
                                 f"that no pinned source can confirm (note {n}).",
                                 verdict="unverifiable"))
            continue
        if roll < 0.42 and "section" in by_kind:  # a quote, maybe placed in a section
            fact = rng.choice(by_kind["section"])
            body = str(fact.value.get("text", "")) if isinstance(fact.value, dict) else ""
            if len(body.split()) < 8:
                continue
            missing = roll > 0.41
            quote = _words(body, rng) + (" that was never written" if missing else "")
            numbered = fact.subject.replace(".", "").isdigit()
            claims.append(_Claim(cid, version, sid,
                                 f"The {source.record['title']} says, in its section "
                                 f"{fact.subject}: {quote[:120]}",
                                 subject="TaskState", quote=quote,
                                 locator=f"§{fact.subject}" if numbered else "",
                                 verdict="quote-missing" if missing else "verified"))
            continue
        wrong = roll > 0.92
        checks: list[dict[str, Any]] = []
        wrong_made = False
        for i in range(rng.choice((1, 1, 1, 2, 2, 3))):
            target_id = sid
            if i and rng.random() < 0.3:  # another source of the same version
                other = rng.choice(by_version[version])
                target_id = other.record["id"]
            facts = facts_of[target_id]
            kind = rng.choices(list(facts), [_FACT_WEIGHTS[k] for k in facts])[0]
            fact = rng.choice(facts[kind])
            made = _expectation(fact, rng, wrong and i == 0)
            if made is None:
                continue
            op, value = made
            wrong_made = wrong_made or (wrong and i == 0)
            check: dict[str, Any] = {"fact": fact.key, "op": op}
            if op not in ("present", "absent"):
                check["value"] = value
            if target_id != sid:
                check["source"] = target_id
            checks.append(check)
        if not checks or wrong != wrong_made:
            continue
        if rng.random() < 0.1:
            checks.append({"fact": "enum-value:TaskState.TASK_STATE_SYNTHETIC", "op": "absent"})
        first = checks[0]
        claims.append(_Claim(cid, version, sid,
                             f"In version {version}, {first['fact']} in {sid} is checked "
                             f"with {first['op']} (synthetic claim {n}).",
                             subject=first["fact"].split(":", 1)[1][:100],
                             expect=checks, verdict="contradicted" if wrong else "verified"))
    for i, c in enumerate(claims):
        if rng.random() < 0.5 and corpus.origins:
            c.origin = corpus.origins[i % len(corpus.origins)]
        if i and rng.random() < 0.1:
            c.related = [claims[rng.randrange(0, i)].id]
    return claims


def _conflicts(claims: list[_Claim], rng: random.Random) -> list[dict[str, Any]]:
    register = []
    pool = list(range(len(claims)))
    rng.shuffle(pool)
    for k in range(len(claims) // CONFLICT_EVERY):
        members = [claims[i] for i in pool[4 * k : 4 * k + 4]]
        if len(members) < 4:
            break
        cid = f"D{k + 1}"
        for c in members:
            c.conflicts.append(cid)
        register.append({
            "id": cid, "title": f"Synthetic disagreement {k + 1}",
            "question": f"Do the sources of synthetic question {k + 1} agree?",
            "sides": [{"position": "They say one thing.", "claims": [c.id for c in members[:2]]},
                      {"position": "They say another.", "claims": [c.id for c in members[2:]]}],
            "status": rng.choice(["open", "settled"]),
            "advice": "Read both sides and the sources they cite.",
        })
    return register


# --- writing --------------------------------------------------------------------------------


def _folded(text: str, indent: str) -> str:
    return "\n".join(indent + line for line in textwrap.wrap(text, 88 - len(indent)))


def _claim_yaml(c: _Claim) -> Iterator[str]:
    yield f"  - id: {c.id}"
    yield "    statement: >-"
    yield _folded(c.statement, "      ")
    if c.subject:
        yield f"    subject: {_flow(c.subject)}"
    yield f"    versions: ['{c.version}']"
    yield f"    source: {c.source}"
    if c.locator:
        yield f"    locator: {_flow(c.locator)}"
    if c.quote:
        yield f"    quote: {_flow(c.quote)}"
    yield f"    conflicts: [{', '.join(c.conflicts)}]"
    if len(c.expect) == 1:
        yield "    expect:"
        for key, value in c.expect[0].items():
            yield f"      {key}: {_flow(value) if key == 'value' else value}"
    elif c.expect:
        yield "    expect:"
        for e in c.expect:
            lead = "      - "
            for key, value in e.items():
                yield f"{lead}{key}: {_flow(value) if key == 'value' else value}"
                lead = "        "
    yield f"    verdict: {c.verdict}"
    yield f"    reviewed: '{REVIEWED}'"
    if c.origin:
        yield f"    origin: {c.origin}"
    if c.related:
        yield f"    related: [{', '.join(c.related)}]"
    yield ""


def _records_yaml(key: str, schema: str, records: list[dict[str, Any]]) -> str:
    lines = [f"# yaml-language-server: $schema=../tooling/a2a_kb/schemas/{schema}.schema.json",
             "#", "# Synthetic records for the benchmark.", f"{key}:"]
    for r in records:
        lead = "  - "
        for k, v in r.items():
            lines.append(f"{lead}{k}: {_flow(v)}")
            lead = "    "
    return "\n".join(lines) + "\n"


def write_kb(corpus: Corpus, root: Path, claims_count: int, seed: int = 11) -> Project:
    """A project of ``claims_count`` claims at ``root`` over the corpus's sources."""
    rng = random.Random(seed)
    if root.exists():
        shutil.rmtree(root)
    (root / "claims").mkdir(parents=True)
    (root / "sources").mkdir()
    claims = _claims(corpus, claims_count, rng)
    register = _conflicts(claims, rng)
    (root / "sources" / "versions.yaml").write_text(
        _records_yaml("versions", "version", corpus.versions), "utf-8")
    (root / "sources" / "primary.yaml").write_text(
        _records_yaml("sources", "source", [s.record for s in corpus.sources]), "utf-8")
    (root / "sources" / "secondary.yaml").write_text(
        _records_yaml("sources", "source", [corpus.dossier_record]), "utf-8")
    (root / "claims" / "conflicts.yaml").write_text(
        _records_yaml("conflicts", "conflict", register), "utf-8")
    for start in range(0, len(claims), CLAIMS_PER_FILE):
        topic = start // CLAIMS_PER_FILE
        lines = ["# yaml-language-server: $schema=../tooling/a2a_kb/schemas/claim.schema.json",
                 "#", f"# Synthetic topic {topic}: claims about the sources of several versions.",
                 "claims:"]
        for c in claims[start : start + CLAIMS_PER_FILE]:
            lines += _claim_yaml(c)
        (root / "claims" / f"topic-{topic:04d}.yaml").write_text("\n".join(lines), "utf-8")
    (root / "pyproject.toml").write_text('[tool.a2a-kb]\nmax-age-days = 100000\n', "utf-8")
    return Project(root=root, max_age_days=100000, today="2026-12-01")


def make_pair(real_root: Path, mirror: Path, workdir: Path,
              sizes: tuple[int, ...] = (1_000, 10_000)) -> dict[int, Path]:
    """Synthetic KBs of each size under ``workdir``, sharing ``workdir/cache``."""
    corpus = make_corpus(real_root, mirror, workdir / "cache")
    return {n: write_kb(corpus, workdir / f"kb-{n}", n).root for n in sizes}


if __name__ == "__main__":  # a quick look: python bench/synth.py /tmp/synthetic
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/a2a-kb-synthetic")
    here = Path(__file__).resolve().parent.parent
    mirror_dir = Path(os.environ.get("A2A_KB_MIRROR", here.parent / "shared" / "mirror"))
    for size, path in make_pair(here, mirror_dir, out).items():
        print(size, path)
