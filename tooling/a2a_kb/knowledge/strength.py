"""Whether a claim's check reads what its statement says: `a2a-kb check --strict`.

`a2a-kb mutate` proves that each check reads its facts: change a fact and the verdict
must change. This is the opposite question: does the check read everything the statement
asserts? A statement that names a state, an error code, an HTTP status or a quoted phrase
asserts something about it; when none of the facts its check read (the evidence) nor any of
its expectations holds that thing, the statement says more than was checked, and the
unread part is named.

What counts as named, so that prose does not trip it:

- a state written as code: `TASK_STATE_INPUT_REQUIRED`, `INPUT_REQUIRED`, `COMPLETED`,
  `input-required`, or any spelling in backticks (a bare "completed" in a sentence is
  English, not a state);
- a JSON-RPC error code (`-32002`) or an HTTP status (`409`);
- a phrase in double quotes, straight or curly, of two characters or more.

Each is looked for in the evidence and the expectations as the check compared them: states
by their canonical name (any spelling), numbers as they stand, phrases with whitespace
folded and case ignored.

Dates are held to the same rule, and to three more where they come from git (a commit's or
a tag's date, which the mirror's API answers give in UTC):

- a date (`2025-05-20`) the statement gives must be in what the check read;
- a statement that dates a commit or a tag from those objects says its time zone ("UTC");
- the date read is the one the statement names: "committed" reads the committer's date,
  "authored" the author's, a tag "created" the tag object's (the tagger's date), not the
  date of the commit it points at.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic
from ..facts import canonical_state
from ..records import patterns
from ..records.model import Claim

if TYPE_CHECKING:
    from .check import ClaimResult

_STATE = re.compile(r"\bTASK_STATE_[A-Z_]+\b|\b[A-Z]{4,}(?:_[A-Z]+)*\b|\b(?:input|auth)-required\b|`([^`]+)`")
_WORD = re.compile(r"[A-Za-z][A-Za-z_-]*")
_NUMBER = re.compile(r"(?<![\w.])-32\d{3}(?!\d)|(?<![\w.\-/#])[45]\d\d(?![\w%]|\.\d)")
_DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
_ZONE = re.compile(r"\bUTC\b|\bGMT\b|[+-][01]\d:?[0-5]\d\b")
# git's dates, as the extractor names them (extract/git_refs.py)
_GIT_DATES = ("commit-date", "commit-author-date", "tag-date")
# a verb of the statement, and the fact kind that holds the date it names
_DATED_BY = (
    (re.compile(r"(?i)\bcommitted\b|\bcommit (?:made|of the same day)\b"), "commit-date"),
    (re.compile(r"(?i)\bauthored\b"), "commit-author-date"),
    # in one sentence: "Tag v0.1.0 … created on", a version's dots being no full stop
    (re.compile(r"(?i)\btag\b(?:(?![.;]\s)[^;])*\bcreated\b|\bcreated\b(?:(?![.;]\s)[^;])*\btag\b"),
     "tag-date"),
)
_QUOTE = re.compile(r'(?:(?<=^)|(?<=[\s(\[:—–-]))["“]([^"“”]{2,200}?)["”](?=$|[\s).,;:!?\]—–])')


@dataclass(frozen=True)
class Outrun:
    """A verified claim whose statement names something its check did not read."""

    claim: str
    unread: tuple[str, ...]  # "state input-required", "number 409", "quote 'No (Pause)'"

    def as_json(self) -> dict[str, Any]:
        return {"id": self.claim, "unread": list(self.unread)}


def _flat(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k} {_flat(v)}" for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return " ".join(_flat(v) for v in value)
    return str(value)


def _fold(text: str) -> str:
    return " ".join(text.replace("`", "").split()).lower()


def named_states(text: str) -> set[str]:
    """The states `text` names as code.

    Examples:
        >>> sorted(named_states("ends at `completed` or INPUT_REQUIRED, once completed"))
        ['completed', 'input-required']
    """
    found = set()
    for m in _STATE.finditer(text):
        state = canonical_state(m.group(1) or m.group(0))
        if state:
            found.add(state)
    return found


def unread(claim: Claim, read: str) -> tuple[str, ...]:
    """What `claim`'s statement names that `read` (its evidence and expectations as
    text) does not hold.

    Examples:
        >>> from a2a_kb.records.model import Claim
        >>> c = Claim("x", 'The table says "No (Pause)" for INPUT_REQUIRED and -32002.', [], "s", [], None)
        >>> unread(c, "state-class TASK_STATE_INPUT_REQUIRED interrupted No (Pause)")
        ('number -32002',)
    """
    statement = claim.statement
    states = named_states(read) | {s for w in _WORD.findall(read) if (s := canonical_state(w))}
    states |= _read_by_pattern(claim, named_states(statement) - states)
    if _enumerates(claim):
        states |= _denied(statement)
    missing = [f"state {s}" for s in sorted(named_states(statement) - states)]
    missing += [f"number {n}" for n in sorted(set(_NUMBER.findall(statement)))
                if not re.search(rf"(?<![\w.]){re.escape(n)}(?!\d)", read)]
    missing += [f"date {d}" for d in dict.fromkeys(_DATE.findall(statement)) if d not in read]
    folded = _fold(read)
    missing += [f"quote {q!r}" for q in dict.fromkeys(_QUOTE.findall(statement)) if _fold(q) not in folded]
    return tuple(missing)


_NEGATION = re.compile(r"(?i)\b(?:no|not|none|without|never|nor|lacks?|drops?)\b")


def _denied(statement: str) -> set[str]:
    """The states a statement names in a clause that denies something ("has no
    TASK_STATE_UNSPECIFIED constant", "UNSPECIFIED has no class"): what an exhaustive list
    reads by leaving them out.

    Examples:
        >>> sorted(_denied("It lists COMPLETED; UNSPECIFIED has no class"))
        ['unspecified']
    """
    return {s for clause in re.split(r"[;:,.]\s", statement) if _NEGATION.search(clause)
            for s in named_states(clause)}


def _spellings(state: str) -> list[str]:
    snake = state.replace("-", "_").upper()
    return [state, snake, f"TASK_STATE_{snake}", state.replace("-", " ")]


def _read_by_pattern(claim: Claim, states: set[str]) -> set[str]:
    """The states a pattern of the check (matches, not-matches) would find in some spelling:
    `(?i)input[-_ ]?required` reads input-required, present or absent."""
    found = set()
    for e in claim.expect:
        if e.op not in ("matches", "not-matches") or not isinstance(e.value, str):
            continue
        for state in states:
            with contextlib.suppress(patterns.PatternError):
                if any(patterns.search(e.value, s) for s in _spellings(state)):
                    found.add(state)
    return found


def _enumerates(claim: Claim) -> bool:
    """Whether the check holds a value set equal to a whole list of states: such a check
    reads the absence of every state it leaves out (see `_denied`)."""
    for e in claim.expect:
        if e.op not in ("equals", "count"):
            continue
        values = e.value.values() if isinstance(e.value, dict) else [e.value]
        for v in values:
            if isinstance(v, list) and v and all(isinstance(x, str) and canonical_state(x) for x in v):
                return True
    return False


def read_text(claim: Claim, result: ClaimResult) -> str:
    """Everything the check of `claim` compared, as one text: each evidence fact's
    subject and value, each expectation's fact and value, and the claim's quote (the
    check finds it in the source word for word)."""
    parts = [f"{f.subject} {_flat(f.value)}" for f in result.evidence]
    parts += [f"{e.fact} {_flat(e.value)}" for e in claim.expect]
    parts.append(claim.quote)
    return "\n".join(parts)


def undated(claim: Claim, kinds: set[str]) -> tuple[str, ...]:
    """What a statement's dates lack, given the kinds of fact its check read: a zone for a
    git date, or the git date its verb names.

    Examples:
        >>> from a2a_kb.records.model import Claim
        >>> c = Claim("x", "Commit 3eda07e was committed on 2025-05-20.", [], "s", [], None)
        >>> undated(c, {"commit-author-date"})
        ('time zone of 2025-05-20', 'commit-date (the statement says committed)')
    """
    if not _DATE.search(claim.statement):
        return ()
    missing = []
    if kinds & set(_GIT_DATES) and not _ZONE.search(claim.statement):
        missing += [f"time zone of {d}" for d in dict.fromkeys(_DATE.findall(claim.statement))]
    for verb, kind in _DATED_BY:
        if (m := verb.search(claim.statement)) and kind not in kinds:
            missing.append(f"{kind} (the statement says {m.group(0).split()[-1].lower()})")
    return tuple(missing)


def outrunning(results: Iterable[ClaimResult]) -> list[Outrun]:
    """The verified claims whose statement names something their check did not read."""
    found = []
    for result in results:
        if result.verdict != "verified":
            continue
        read = read_text(result.claim, result)
        missing = unread(result.claim, read)
        missing += undated(result.claim, {f.kind for f in result.evidence}
                           | {e.fact.split(":", 1)[0] for e in result.claim.expect})
        if missing:
            found.append(Outrun(result.claim.id, missing))
    return found


def diagnostics(results: list[ClaimResult]) -> list[Diagnostic]:
    """An error per verified claim whose statement outruns its check, at the claim's place."""
    claims = {r.claim.id: r.claim for r in results}
    return [Diagnostic(
        claims[found.claim].mark, "statement-outruns-check",
        f"claim '{found.claim}' says more than its check reads: {', '.join(found.unread)}",
        "add an expectation that reads it (a fact holding that state, number, phrase or date; "
        "for a git date, the commit's or the tag's own date), say 'UTC' with a git date, "
        "or say only what the check reads",
        record_id=found.claim) for found in outrunning(results)]
