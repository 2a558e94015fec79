"""states: the TaskState set of a version, per binding and per source, from facts.

Nothing here is typed by hand: the states, their numbers, spellings and classes all come
from the facts extracted from the pinned sources of the version asked about.
"""

from __future__ import annotations

from typing import Any

from ..cache import Cache
from ..extract.lifecycle import NOT_NAMED, POSITIVE_CLASSES, classes_disagree, ruled_out, state_name
from ..facts import CANONICAL_STATES, Fact, canonical_state
from ..records.kb import KnowledgeBase
from ..records.model import Claim, Source
from .check import FactBook
from .class_words import class_words

CLASSIFYING_KINDS = ("json-schema", "proto", "spec", "docs")
# Which binding a source's spelling stands for.
_BINDING = {"json-schema": "json", "proto": "grpc", "spec": "spec", "docs": "docs"}


def _binding(source: Source) -> str:
    if source.kind == "proto" and source.path == "specification/a2a.proto":
        return "proto"
    return _BINDING.get(source.kind, source.kind)


def _first(facts: dict[str, list[Fact]], key: str) -> Fact | None:
    found = facts.get(key)
    return found[0] if found else None


def classes_of(facts: dict[str, list[Fact]], states: list[str]) -> dict[str, tuple[str, Fact | None]]:
    """What one source says of each state's class; empty when it classifies nothing.

    A state the source classifies others beside and says nothing of is `unclassified`,
    but only if the source has that value at all: a binding without `unknown` (the gRPC
    proto) or without the zero value (the v0.x specification) says nothing of it, and gets
    no entry rather than "unclassified". A source that lists no values of its own (a
    guide page) is taken to speak of the named states only."""
    result: dict[str, tuple[str, Fact | None]] = {}
    terminal = _first(facts, "terminal-states:TaskState")
    interrupted = _first(facts, "interrupted-states:TaskState")
    for state in states:
        explicit = _first(facts, f"state-class:TaskState.{state}")
        if explicit is not None:
            result[state] = (str(explicit.value), explicit)
        elif terminal is not None and state in terminal.value:
            result[state] = ("terminal", terminal)
        elif interrupted is not None and state in interrupted.value:
            result[state] = ("interrupted", interrupted)
    if result or terminal is not None or interrupted is not None:
        for state in _presented(facts, states):
            result.setdefault(state, ("unclassified", None))
    return result


def _presented(facts: dict[str, list[Fact]], states: list[str]) -> list[str]:
    own = _first(facts, "states:TaskState")
    if own is not None:
        return [s for s in states if s in own.value]
    return [s for s in states if s not in NOT_NAMED]


def readings_of(facts: dict[str, list[Fact]], state: str,
                primary: tuple[str, Fact | None]) -> list[tuple[str, Fact]]:
    """Every place one source classifies `state`: the class the table shows first, then
    each other passage that gives it a class, then each prose list of the terminal states
    that leaves out a value the source itself has (the v0.2.4 specification's no-restart
    rule names four terminal states; its own table calls `unknown` terminal too). A list
    that is the value set's own presentation (a table, an enum's comments) is not read for
    what it leaves out: there the missing class is the row's own."""
    found: list[tuple[str, Fact]] = []
    seen: set[tuple[str, int, int]] = set()

    def add(cls: str, fact: Fact) -> None:
        key = (cls, fact.line_start, fact.line_end)
        if key not in seen:
            seen.add(key)
            found.append((cls, fact))

    if primary[1] is not None:
        add(primary[0], primary[1])
    prefix = f"state-class:TaskState.{state}"
    for key in sorted(k for k in facts if k == prefix or k.startswith(prefix + "@")):
        for fact in facts[key]:
            add(str(fact.value), fact)
    own = _first(facts, "states:TaskState")
    if own is None or state not in own.value:
        return found
    for key in sorted(k for k in facts if k.startswith("terminal-states:TaskState")):
        for fact in facts[key]:
            overlaps = fact.line_start <= own.line_end and own.line_start <= fact.line_end
            if not overlaps and state not in fact.value:
                add("not-terminal", fact)
    return found


def state_table(kb: KnowledgeBase, version: str, book: FactBook | None = None) -> dict[str, Any]:
    """The states of `version` in the JSON shape of the CLI contract."""
    v = kb.version(version)
    book = book or FactBook(kb, Cache(kb.project.cache_dir))
    sources = [s for s in kb.sources_of(v.id) if s.kind in CLASSIFYING_KINDS]
    per_source = {s.id: book.facts(s) for s in sources}

    # The order and numbers come from the source that numbers its values (the .proto),
    # else from the enum order of the schema.
    order: list[str] = []
    numbers: dict[str, int | None] = {}
    spellings: dict[str, dict[str, str]] = {}
    evidence: dict[str, dict[str, Any]] = {}
    descriptions: dict[str, str] = {}
    for source in sorted(sources, key=lambda s: (s.kind != "proto", s.kind != "json-schema")):
        facts = per_source[source.id]
        enum = _first(facts, "enum-values:TaskState")
        if enum is None:
            continue
        for raw in enum.value:
            state = state_name(raw)  # a state added upstream keeps a row of its own
            if not state:
                continue
            if state not in order:
                order.append(state)
            spellings.setdefault(state, {}).setdefault(_binding(source), raw)
            detail = _first(facts, f"enum-value:TaskState.{raw}")
            if detail is not None and isinstance(detail.value, dict):
                if detail.value.get("number") is not None:
                    numbers.setdefault(state, detail.value["number"])
                if detail.value.get("description"):
                    descriptions.setdefault(state, str(detail.value["description"]))
            where = detail or enum
            evidence.setdefault(state, {})[source.id] = {
                "lines": [where.line_start, where.line_end],
                "permalink": source.permalink(where.line_start, where.line_end),
            }

    classes = {s.id: classes_of(per_source[s.id], order) for s in sources}
    rows = []
    for state in sorted(
        order, key=lambda st: (numbers.get(st) is None, numbers.get(st) or 0, order.index(st))
    ):
        stated = {sid: cls[state][0] for sid, cls in classes.items() if state in cls}
        readings = {sid: [_reading(book, kb.sources[sid], c, f)
                          for c, f in readings_of(per_source[sid], state, cls[state])]
                    for sid, cls in classes.items() if state in cls}
        for sid, cls in classes.items():
            fact = cls.get(state, ("", None))[1]
            if fact is not None and sid not in evidence.get(state, {}):
                src = kb.sources[sid]
                evidence.setdefault(state, {})[sid] = {
                    "lines": [fact.line_start, fact.line_end],
                    "permalink": src.permalink(fact.line_start, fact.line_end),
                }
        rows.append(
            {
                "name": state,
                "number": numbers.get(state),
                "spellings": spellings.get(state, {}),
                "class": {sid: contract_class(c) for sid, c in stated.items()},
                "stated": stated,
                "readings": {sid: found for sid, found in readings.items() if found},
                "disagreement": disagreement(stated) or disagreement(
                    {f"{sid}#{i}": r["class"]
                     for sid, found in readings.items() for i, r in enumerate(found)}),
                "conflicts": conflicts_about(kb, v.id, state),
                "evidence": evidence.get(state, {}),
                "description": descriptions.get(state, ""),
            }
        )
    counts: dict[str, int] = {}
    for state in order:
        for binding in spellings.get(state, {}):
            counts[binding] = counts.get(binding, 0) + 1
    return {
        "version": v.id,
        "title": v.title,
        "commit": v.commit,
        "sources": [s.id for s in sources],
        "counts": counts,
        "states": rows,
    }


def _reading(book: FactBook, source: Source, cls: str, fact: Fact) -> dict[str, Any]:
    """One place a source classifies a state: the class, the source's own words for it and
    where they stand."""
    return {"class": cls, "words": class_words(book.text(source).splitlines(), fact),
            "lines": [fact.line_start, fact.line_end],
            "permalink": source.permalink(fact.line_start, fact.line_end)}


def contract_class(stated: str) -> str:
    """A source's class of a state as the `class` key of the states contract gives it:
    active, interrupted, terminal or unclassified. A negative class that leaves one group
    open is that group ("not an interrupted or terminal state" is active); one that leaves
    two open places the state in none. The source's own terms stay in `stated`.

    Examples:
        >>> contract_class("not-interrupted-or-terminal"), contract_class("not-terminal")
        ('active', 'unclassified')
    """
    if stated in POSITIVE_CLASSES or stated == "unclassified":
        return stated
    open_groups = set(POSITIVE_CLASSES) - ruled_out(stated)
    return open_groups.pop() if len(open_groups) == 1 else "unclassified"


def disagreement(by_source: dict[str, str]) -> bool:
    """Whether two sources give a state classes that cannot both hold (a source that says
    nothing of it disagrees with none; see `a2a_kb.extract.lifecycle.classes_disagree`)."""
    stated = list(by_source.values())
    return any(classes_disagree(a, b) for i, a in enumerate(stated) for b in stated[i + 1 :])


def _names_state(claim: Claim, state: str) -> bool:
    """Whether a claim is about one state: its subject or locator is `TaskState.<spelling>`
    (a subject may go on after a `/`: `TaskState.auth-required/set-by`)."""
    for where in (claim.subject, claim.locator):
        head = where.split("/", 1)[0].split(" ", 1)[0]
        if head.startswith("TaskState.") and canonical_state(head.removeprefix("TaskState.")) == state:
            return True
    return False


def conflicts_about(kb: KnowledgeBase, version: str, state: str) -> list[str]:
    """The register's conflicts that a claim about `state` at `version` belongs to, in
    the register's order: how a reader of the state table finds where the disagreement is
    discussed."""
    named = {cid for c in kb.claims.values()
             if c.conflicts and version in c.versions and _names_state(c, state)
             for cid in c.conflicts}
    return [cid for cid in kb.conflicts if cid in named]


def all_versions(kb: KnowledgeBase) -> list[dict[str, Any]]:
    book = FactBook(kb, Cache(kb.project.cache_dir))
    return [state_table(kb, v.id, book) for v in kb.ordered_versions]


def resolve(kb: KnowledgeBase, name: str) -> dict[str, Any]:
    """What `name` (any spelling from any version) names in each version."""
    book = FactBook(kb, Cache(kb.project.cache_dir))
    state = canonical_state(name)
    answers = []
    for v in kb.ordered_versions:
        table = state_table(kb, v.id, book)
        row = next((r for r in table["states"] if r["name"] == state), None)
        answers.append(
            {
                "version": v.id,
                "state": row["name"] if row else None,
                "spellings": row["spellings"] if row else {},
                "number": row["number"] if row else None,
                "note": "" if row else _absent_note(state, table),
            }
        )
    return {"query": name, "canonical": state, "versions": answers}


def _absent_note(state: str | None, table: dict[str, Any]) -> str:
    if state is None:
        return "not a spelling of any TaskState value (known: " + ", ".join(CANONICAL_STATES) + ")"
    names = [r["name"] for r in table["states"]]
    if state == "unknown" and "unspecified" in names:
        return (
            "no named 'unknown' value; the zero value TASK_STATE_UNSPECIFIED "
            "stands for an undetermined state"
        )
    return f"this version has no {state} state"


def format_table(table: dict[str, Any]) -> str:
    from ..output import table as render

    bindings = sorted({b for r in table["states"] for b in r["spellings"]})
    sources = table["sources"]
    classifying = [s for s in sources if any(s in r["class"] for r in table["states"])]
    headers = ["#", "state", *bindings, *classifying]
    rows = []
    for r in table["states"]:
        cls = [r["stated"].get(s, "") for s in classifying]
        rows.append(
            [
                "" if r["number"] is None else str(r["number"]),
                r["name"] + (" *" if r["disagreement"] else ""),
                *[r["spellings"].get(b, "") for b in bindings],
                *cls,
            ]
        )
    disagreeing = [r for r in table["states"] if r["disagreement"]]
    note = "".join(
        f"\n* {r['name']}: the sources disagree on its class ("
        + ", ".join(f"{sid} {cls}" for sid, cls in r["stated"].items() if cls != "unclassified")
        + "); "
        + (f"conflict {', '.join(r['conflicts'])} in the register" if r["conflicts"]
           else "no conflict in the register names it")
        for r in disagreeing
    )
    return (
        f"{table['title']} ({table['commit'][:7]}): {len(table['states'])} values\n"
        + render(headers, rows)
        + note
    )


def format_resolution(answer: dict[str, Any]) -> str:
    lines = [f"{answer['query']!r} → canonical {answer['canonical'] or '(none)'}"]
    for v in answer["versions"]:
        if v["state"]:
            spell = ", ".join(f"{b}: {s}" for b, s in sorted(v["spellings"].items()))
            num = f" = {v['number']}" if v["number"] is not None else ""
            lines.append(f"  {v['version']:>6}  {v['state']}{num}  ({spell})")
        else:
            lines.append(f"  {v['version']:>6}  — {v['note']}")
    return "\n".join(lines)
