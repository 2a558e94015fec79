"""Claim mutation testing: does each verified claim's check prove what its statement says?

A check can pass for the wrong reason. "FAILED cannot restart" checked by the fragment
"cannot restart" still passes if `failed` leaves the list the sentence gives; a quote can
stop before the words that carry the claim. To find such checks, the facts a verified
claim's checks read are perturbed, one mutation at a time, and the claim evaluated again
by [`a2a_kb.knowledge.check.evaluate`][a2a_kb.knowledge.check.evaluate]. A mutation the claim survives (it
stays `verified`) is a change to what the statement asserts that the check cannot see.

Two families of mutation:

- **of the check** (one expect, on one copy): drop or add a member of a list it names,
  change a value it compares, shift a date, remove what a `matches` pattern finds, add an
  item a `not-matches` pattern would find, remove the fact a `present` needs or add the
  one an `absent` forbids, cut a quote out of its text;
- **of the statement** (at each version, on every copy that stands for it): the states,
  classes (terminal, interrupted) and JSON-RPC codes the statement names are taken out of
  every text its checks read, and out of every list of states. A check that still passes
  does not rest on them.

A claim that survives any mutation is *weak*. `ALLOW_FILE` lists, with a reviewed
reason each, the weak claims accepted as they are; an entry for a claim that is no longer
weak (or no longer exists) is an error, so the list cannot go stale.

Why it is long: the mutation operators (states, quoted words, numbers, list members) and the
loop that applies them are one algorithm: each operator is a few lines, they share the
mutated fact book, and the allow-list and the report count what they make. Moving the
operators elsewhere would leave two modules that only make sense read together.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import re._parser as sre  # the stdlib's reader of the syntax the claims' RE2 patterns share
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cache import Cache
from ..diagnostics import Diagnostic, Mark
from ..facts import CANONICAL_STATES, Fact, canonical_state
from ..records import patterns
from ..records.kb import KnowledgeBase
from ..records.model import Claim, Expectation, Source
from .check import FactBook, evaluate
from .plan import Run, plan

ALLOW_FILE = Path("claims") / "mutation" / "allow.yaml"

# A value no source gives: what an "add a member" mutation adds, a changed value becomes.
_FOREIGN_STATE = "paused-by-mutation"
_CLASSES = ("terminal", "interrupted", "active", "not-interrupted-or-terminal")
_CLASS_WORDS = ("terminal", "interrupted")
_CODE = re.compile(r"-32\d{3}\b")


@dataclass(frozen=True)
class Edit:
    """One change to what a copy holds: a fact's facts replaced (None: removed), or its text."""

    source: str
    fact: str  # the fact key; "" for the source's text
    facts: tuple[Fact, ...] | None = None
    text: str | None = None


@dataclass(frozen=True)
class Mutation:
    claim: str
    description: str  # what was changed, in words: "drop failed from terminal-states:TaskState"
    edits: tuple[Edit, ...]
    family: str  # "check" or "statement"


@dataclass
class Outcome:
    mutation: Mutation
    verdict: str

    @property
    def killed(self) -> bool:
        return self.verdict != "verified"


@dataclass
class Allowance:
    claim: str
    reason: str
    mark: Mark


@dataclass
class Report:
    claims: int = 0
    outcomes: list[Outcome] = field(default_factory=list)
    allowed: list[Allowance] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def survived(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.killed]

    @property
    def weak(self) -> dict[str, list[Outcome]]:
        found: dict[str, list[Outcome]] = {}
        for o in self.survived:
            found.setdefault(o.mutation.claim, []).append(o)
        return found

    @property
    def unexplained(self) -> dict[str, list[Outcome]]:
        """Weak claims the allow-list does not name."""
        allowed = {a.claim for a in self.allowed}
        return {c: s for c, s in self.weak.items() if c not in allowed}

    @property
    def ok(self) -> bool:
        return not self.unexplained and not self.problems

    def as_json(self) -> dict[str, Any]:
        allowed = {a.claim: a.reason for a in self.allowed}
        return {
            "summary": {"claims": self.claims, "mutations": len(self.outcomes),
                        "killed": len(self.outcomes) - len(self.survived),
                        "survived": len(self.survived), "weak": len(self.weak),
                        "allowed": len([c for c in self.weak if c in allowed]),
                        "seconds": round(self.seconds, 2)},
            "weak": [{"id": claim, "allowed": claim in allowed, "reason": allowed.get(claim),
                      "survived": [o.mutation.description for o in outcomes]}
                     for claim, outcomes in self.weak.items()],
            "problems": [d.as_json() for d in self.problems],
            "ok": self.ok,
        }


# --- the mutated fact book ----------------------------------------------------------------


class _MutatedBook(FactBook):
    """The facts and texts of `base`, with the edits of one mutation laid over them."""

    def __init__(self, base: FactBook, edits: tuple[Edit, ...]) -> None:
        super().__init__(base.kb, base.cache)
        self.base = base
        self.edits = edits

    def text(self, source: Source) -> str:
        for e in self.edits:
            if e.source == source.id and not e.fact and e.text is not None:
                return e.text
        return self.base.text(source)

    def facts(self, source: Source) -> dict[str, list[Fact]]:
        mine = [e for e in self.edits if e.source == source.id and e.fact]
        if not mine:
            return self.base.facts(source)
        facts = dict(self.base.facts(source))
        for e in mine:
            if e.facts is None:
                facts.pop(e.fact, None)
            else:
                facts[e.fact] = list(e.facts)
        return facts

    def drifted(self, source: Source) -> str:
        return self.base.drifted(source)

    def has_pinned_copy(self, source: Source) -> bool:
        return self.base.has_pinned_copy(source)


def _with_value(facts: list[Fact], value: Any) -> tuple[Fact, ...]:
    return tuple(dataclasses.replace(f, value=value) for f in facts)


def _edit(source: Source, key: str, facts: list[Fact], value: Any) -> Edit:
    return Edit(source.id, key, _with_value(facts, value))


# --- mutations of one check -----------------------------------------------------------------


def _members(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _same_state(a: Any, b: Any) -> bool:
    return a == b or (isinstance(a, str) and isinstance(b, str)
                      and canonical_state(a) is not None and canonical_state(a) == canonical_state(b))


def _changed(value: Any) -> Any:
    """Another value of the same shape: the mutation of a compared scalar."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        if value in _CLASSES:
            return next(c for c in _CLASSES if c != value)
        if canonical_state(value):
            return _FOREIGN_STATE
        return value + " (changed by a mutation)"
    if value is None:
        return "set by a mutation"
    return None


def sample(pattern: str) -> str | None:
    """A string the pattern matches, built from its syntax tree, or None if none is found.

    Examples:
        >>> sample(r"(?i)\\bcycl(?:e|es)\\b")
        ' cycle '
        >>> sample(r"input[-_ ]?required|x")
        'inputrequired'
    """
    try:
        tree = sre.parse(pattern)
        text = _build(list(tree))
    except (re.error, ValueError, RecursionError):
        return None
    try:
        return text if patterns.search(pattern, text) else None
    except patterns.PatternError:
        return None


def _build(items: list[tuple[Any, Any]]) -> str:
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_one_of(arg))
        elif name == "BRANCH":
            out.append(_build(list(arg[1][0])))
        elif name == "SUBPATTERN":
            out.append(_build(list(arg[3])))
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, _, body = arg
            out.append(_build(list(body)) * max(low, 0))
        elif name == "AT":
            out.append(" " if "BOUNDARY" in str(arg) else "")
        else:
            raise ValueError(f"cannot build {name}")
    return "".join(out)


def _one_of(choices: list[tuple[Any, Any]]) -> str:
    if choices and str(choices[0][0]) == "NEGATE":
        return "a" if not any(str(o) == "LITERAL" and a == ord("a") for o, a in choices) else "b"
    op, arg = choices[0]
    name = str(op)
    if name == "LITERAL":
        return chr(arg)
    if name == "RANGE":
        return chr(arg[0])
    if name == "CATEGORY":
        return {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " "}.get(str(arg), "a")
    raise ValueError(f"cannot build {name}")


def _strings_replaced(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {k: _strings_replaced(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings_replaced(v, change) for v in value]
    return value


def _check_mutations(claim: Claim, run: Run, e: Expectation,
                     facts: list[Fact]) -> Iterator[tuple[str, Edit]]:
    """Each way of making this one check's fact say something else, with its description."""
    src, key = run.source, e.fact
    at = f"{key} in {src.id}"
    if e.op == "absent":
        yield f"add {at}", Edit(src.id, key, (Fact(key.split(":", 1)[0], key.split(":", 1)[1], [],
                                                   src.id, src.path, src.commit, 1, 1),))
        return
    if not facts:
        return
    if e.op == "present":
        yield f"remove {at}", Edit(src.id, key, None)
        return
    actual = facts[0].value
    if e.op == "quote-in-section":
        words = " ".join(str(e.value).split())

        def cut(text: str) -> str:
            return " ".join(text.split()).replace(words, "")

        yield f"cut the quoted words out of {at}", _edit(src, key, facts,
                                                         _strings_replaced(actual, cut))
    elif e.op == "matches":
        pattern = str(e.value)

        def erase(text: str) -> str:
            # a dict is matched as its repr, so a pattern may take a string's quotes along
            if not patterns.search(pattern, text) and patterns.search(pattern, repr(text)):
                return ""
            return _erase_pattern(pattern, text)

        yield f"remove what the pattern finds in {at}", _edit(src, key, facts,
                                                              _strings_replaced(actual, erase))
    elif e.op == "not-matches":
        found = sample(str(e.value))
        if found is not None:
            grown = ([*actual, found] if isinstance(actual, list)
                     else _strings_replaced(actual, lambda t: t + " " + found))
            yield f"add {found.strip()!r} to {at}", _edit(src, key, facts, grown)
    elif e.op == "date-equals":
        try:
            day = dt.date.fromisoformat(str(actual)[:10]) + dt.timedelta(days=1)
        except ValueError:
            return
        yield f"shift the date of {at} by a day", _edit(src, key, facts, day.isoformat() + str(actual)[10:])
    elif e.op == "count" and isinstance(actual, list):
        yield f"add a member to {at}", _edit(src, key, facts, [*actual, _FOREIGN_STATE])
        if actual:
            yield f"drop {actual[-1]} from {at}", _edit(src, key, facts, actual[:-1])
    elif e.op in ("contains", "equals") and isinstance(actual, list):
        for member in _members(e.value):
            kept = [a for a in actual if not _same_state(a, member)]
            if kept != actual:
                yield f"drop {member} from {at}", _edit(src, key, facts, kept)
        if e.op == "equals":
            yield f"add a member to {at}", _edit(src, key, facts, [*actual, _FOREIGN_STATE])
    elif e.op == "excludes" and isinstance(actual, list):
        for member in _members(e.value):
            yield f"add {member} to {at}", _edit(src, key, facts, [*actual, member])
    elif e.op in ("contains", "excludes") and isinstance(actual, str):
        for member in _members(e.value):
            text = str(member)
            changed = (" ".join(actual.split()).replace(" ".join(text.split()), "")
                       if e.op == "contains" else actual + " " + text)
            yield f"{'remove' if e.op == 'contains' else 'add'} {text!r} in {at}", _edit(
                src, key, facts, changed)
    elif e.op == "equals" and isinstance(e.value, dict) and isinstance(actual, dict):
        for name, wanted in e.value.items():
            other = dict(actual)
            other[name] = _changed(wanted)
            yield f"change {name} of {at}", _edit(src, key, facts, other)
    elif e.op == "equals":
        yield f"change {at}", _edit(src, key, facts, _changed(actual))


def _cutting(words: str) -> Callable[[str], str]:
    quoted = " ".join(words.split())
    return lambda text: " ".join(text.split()).replace(quoted, "")


def _erase_pattern(pattern: str, text: str) -> str:
    """`text` with every match of the pattern cut out (RE2 finds; Python does not run it)."""
    compiled = patterns.compile_pattern(pattern)
    pieces, at = [], 0
    for match in compiled.finditer(text):
        if match.end() == match.start():
            continue
        pieces.append(text[at : match.start()])
        at = match.end()
    pieces.append(text[at:])
    return "".join(pieces)


# --- mutations of what the statement names -----------------------------------------------


def named_terms(statement: str) -> list[tuple[str, re.Pattern[str]]]:
    """What a statement names that its check should rest on: states, the two classes, and
    JSON-RPC error codes, each with a pattern for all its spellings.

    Examples:
        >>> [name for name, _ in named_terms("FAILED and TASK_STATE_CANCELLED are terminal (-32002)")]
        ['failed', 'canceled', 'terminal', '-32002']
    """
    found: list[tuple[str, re.Pattern[str]]] = []
    states = []
    for word in re.findall(r"[A-Za-z][A-Za-z_-]*[A-Za-z]", statement):
        state = canonical_state(word)
        if state and state not in states:
            states.append(state)
    for state in states:
        found.append((state, _state_words(state)))
    lowered = statement.lower()
    for word in _CLASS_WORDS:
        if re.search(rf"\b{word}\b", lowered):
            found.append((word, re.compile(rf"(?i)\b{word}\b")))
    for code in dict.fromkeys(_CODE.findall(statement)):
        found.append((code, re.compile(re.escape(code) + r"\b")))
    return found


def _state_words(state: str) -> re.Pattern[str]:
    """Every spelling of a state a source uses: input-required, `input_required`,
    TASK_STATE_INPUT_REQUIRED, InputRequired; cancelled for canceled."""
    parts = state.split("-")
    if state == "canceled":
        parts = ["cancell?ed"]
    body = r"[-_ ]?".join(parts)
    return re.compile(rf"(?i)(?<![A-Za-z])(?:TASK_STATE_)?{body}(?![A-Za-z])")


_NEGATIVE_OPS = ("not-matches", "excludes", "absent")


def _statement_mutations(claim: Claim, runs: list[Run],
                         book: FactBook) -> Iterator[tuple[str, tuple[Edit, ...]]]:
    """At each version, each term the statement names taken out of every copy that stands
    for that version. A claim checked only by negative checks (not-matches, excludes,
    absent: "no timeout is defined") is left out: taking words away cannot make an absence
    false, so such a mutation says nothing about the check."""
    terms = named_terms(claim.statement)
    positive = any(e.op not in _NEGATIVE_OPS for r in runs for e in r.expects) or any(
        r.quote for r in runs)
    if not terms or not positive:
        return
    versions = claim.versions or [""]
    for version in versions:
        standing = [r for r in runs if not version or version in r.versions or not r.versions]
        for name, words in terms:
            if _asserted_absent(standing, name, words):
                continue  # the check says it is not there: the "add" mutations test that
            edits = list(_without_term(claim, standing, book, name, words))
            if edits:
                where = f" at {version}" if version and len(versions) > 1 else ""
                yield f"take {name} out of the sources the checks read{where}", tuple(edits)


def _asserted_absent(runs: list[Run], name: str, words: re.Pattern[str]) -> bool:
    """Whether a negative check of these copies is about the term: an `excludes` that
    lists it, a `not-matches` whose pattern finds its words. The statement then names it
    to say it is missing ("not unknown"), and taking it out proves nothing."""
    for run in runs:
        for e in run.expects:
            if e.op == "excludes" and any(_same_state(v, name) or str(v) == name
                                          for v in _members(e.value)):
                return True
            if e.op == "not-matches":
                # the pattern finds one of the term's spellings, or what it finds holds one
                spelled = [name, name.replace("-", " "), name.upper().replace("-", "_")]
                found = sample(str(e.value))
                try:
                    if any(patterns.search(str(e.value), s) for s in spelled):
                        return True
                except patterns.PatternError:
                    continue
                if found is not None and words.search(found):
                    return True
    return False


def _names_term(fact: Fact, name: str) -> bool:
    """Whether a fact is about the term: its subject names the state (`state-class:
    TaskState.failed`, `enum-value:TaskState.TASK_STATE_FAILED`), its kind is the class
    (`terminal-states`), or its value is the class (a `state-class` of `terminal`)."""
    subject = fact.subject.split("@", 1)[0]
    if name in CANONICAL_STATES:
        tail = subject.removeprefix("TaskState.")
        return tail != subject and canonical_state(tail) == name
    if name in _CLASS_WORDS:
        return fact.kind.startswith(f"{name}-") or (fact.kind == "state-class" and fact.value == name)
    return False


def _without_term(claim: Claim, runs: list[Run], book: FactBook, name: str,
                  words: re.Pattern[str]) -> Iterator[Edit]:
    """The edits by which the copies `runs` read no longer name `name`: facts about it
    removed, it dropped from lists of states, its words (and a code's digits) cut from text."""
    def erase(text: str) -> str:
        return words.sub("", text)

    def without(value: Any) -> Any:
        if isinstance(value, list):
            kept = [v for v in value if not (name in CANONICAL_STATES and _same_state(v, name))]
            return [without(v) for v in kept]
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and str(value) == name:
            return 0  # a JSON-RPC code the statement names
        if isinstance(value, dict):
            return {k: without(v) for k, v in value.items()}
        return erase(value) if isinstance(value, str) else value

    for run in runs:
        facts = _facts(book, run.source)
        for key in dict.fromkeys(e.fact for e in run.expects):
            found = facts.get(key, [])
            if not found:
                continue
            if _names_term(found[0], name):
                yield Edit(run.source.id, key, None)
            else:
                changed = without(found[0].value)
                if changed != found[0].value:
                    yield _edit(run.source, key, found, changed)
        if run.quote:
            yield from _in_quoted_text(claim, run, book, erase)


def _in_quoted_text(claim: Claim, run: Run, book: FactBook,
                    change: Callable[[str], str]) -> Iterator[Edit]:
    """Edits that change the text a claim's quote is looked for in: the source's text, and
    the section its locator names (where the check looks when there is one)."""
    yield Edit(run.source.id, "", text=change(book.text(run.source)))
    section = claim.locator.removeprefix("§").strip() if claim.locator.startswith("§") else ""
    key = f"section:{section}"
    facts = _facts(book, run.source)
    if section and key in facts:
        yield _edit(run.source, key, facts[key], _strings_replaced(facts[key][0].value, change))


def _facts(book: FactBook, source: Source) -> dict[str, list[Fact]]:
    """The facts a source's checks could read. A source no extractor reads (the dossier:
    its claims rest on their quote) has none, so only its text is mutated; check itself
    never asks such a source for facts."""
    from ..extract import EXTRACTORS

    return book.facts(source) if source.kind in EXTRACTORS else {}


# --- the run ------------------------------------------------------------------------------


def mutations(claim: Claim, kb: KnowledgeBase, book: FactBook) -> Iterator[Mutation]:
    runs = plan(claim, kb).runs
    for run in runs:
        facts = _facts(book, run.source)
        for e in run.expects:
            for description, single in _check_mutations(claim, run, e, facts.get(e.fact, [])):
                yield Mutation(claim.id, description, (single,), "check")
        if run.quote:
            yield Mutation(claim.id, f"cut the quote out of {run.source.id}",
                           tuple(_in_quoted_text(claim, run, book, _cutting(claim.quote))), "check")
    for description, edits in _statement_mutations(claim, runs, book):
        yield Mutation(claim.id, description, edits, "statement")


def run(kb: KnowledgeBase, allowances: list[Allowance], problems: list[Diagnostic],
        book: FactBook | None = None) -> Report:
    """Mutate every verified claim's facts and report the checks that survive."""
    started = time.process_time()
    book = book or FactBook(kb, Cache(kb.project.cache_dir))
    report = Report(allowed=allowances, problems=list(problems))
    for claim in kb.claims.values():
        if evaluate(claim, kb, book).verdict != "verified":
            continue
        report.claims += 1
        for mutation in mutations(claim, kb, book):
            verdict = evaluate(claim, kb, _MutatedBook(book, mutation.edits)).verdict
            report.outcomes.append(Outcome(mutation, verdict))
    weak = report.weak
    for allowance in allowances:
        if allowance.claim not in kb.claims:
            report.problems.append(Diagnostic(
                allowance.mark, "stale-allowance",
                f"the mutation allow-list names claim '{allowance.claim}', which does not exist",
                "remove the entry"))
        elif allowance.claim not in weak:
            report.problems.append(Diagnostic(
                allowance.mark, "stale-allowance",
                f"claim '{allowance.claim}' is on the mutation allow-list but no mutation survives "
                "its check any more", "remove the entry: the check now proves its statement"))
    report.seconds = time.process_time() - started
    return report


def load_allowances(kb: KnowledgeBase) -> tuple[list[Allowance], list[Diagnostic]]:
    """The reviewed allow-list (claims/mutation/allow.yaml): each entry a claim and a reason.
    Read with the records' strict YAML reader, so its problems have a place."""
    from ..records import yamldoc

    path = kb.project.root / ALLOW_FILE
    if not path.is_file():
        return [], []
    document = yamldoc.read(path, str(ALLOW_FILE))
    if document.problems:
        return [], list(document.problems)
    entries = document.value.get("allowed") if isinstance(document.value, dict) else None
    if not isinstance(entries, list):
        return [], [Diagnostic(document.mark(""), "allow-list",
                               "the allow-list has no list under 'allowed'",
                               "write 'allowed:' and one entry per claim: {claim: ID, reason: WHY}")]
    allowances, problems = [], []
    for i, entry in enumerate(entries):
        mark = document.mark(f"/allowed/{i}")
        claim = entry.get("claim") if isinstance(entry, dict) else None
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if not isinstance(claim, str) or not isinstance(reason, str) or not reason.strip():
            problems.append(Diagnostic(mark, "allow-list", "an entry needs a 'claim' and a 'reason'",
                                       "say why the mutations it survives do not weaken the claim"))
            continue
        allowances.append(Allowance(claim, " ".join(reason.split()), mark))
    return allowances, problems


def format_text(report: Report, verbose: bool = False) -> str:
    lines = [d.format() for d in report.problems]
    allowed = {a.claim for a in report.allowed}
    for claim, survived in report.weak.items():
        if claim in allowed and not verbose:
            continue
        tag = "allowed" if claim in allowed else "weak"
        lines.append(f"{tag}: {claim}: {len(survived)} mutation(s) survive")
        lines += [f"    {o.mutation.description}" for o in survived[:8]]
        if len(survived) > 8:
            lines.append(f"    … and {len(survived) - 8} more")
    s = report.as_json()["summary"]
    lines.append(
        f"{s['claims']} verified claims, {s['mutations']} mutations: {s['killed']} killed, "
        f"{s['survived']} survived; {s['weak']} weak claim(s), {s['allowed']} on the allow-list, "
        f"{len(report.unexplained)} not ({s['seconds']:.1f} s)")
    return "\n".join(lines)


__all__ = ["ALLOW_FILE", "Mutation", "Report", "format_text", "load_allowances", "run", "sample"]
