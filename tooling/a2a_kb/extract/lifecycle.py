"""TaskState vocabulary shared by the extractors: spellings, classes in words, enum facts.

Every binding presents the TaskState enum a little differently (a JSON `enum` array, a
proto enum with comments, a TypeScript union or a table in the spec), but each gives the
same things: raw spellings in order, maybe a number, maybe a description, and sometimes
a statement of class. `enum_drafts` turns such a presentation into the facts of
[`a2a_kb.facts`][a2a_kb.facts], so that every extractor emits the same shapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..facts import canonical_state
from .artifact import Draft

TASK_STATE = "TaskState"
# Values that name no state a task can be in: proto's zero value and "cannot be determined".
NOT_NAMED = ("unknown", "unspecified")
# What a source can say of a state's class. The positive classes name the group the state is
# in; a negative class keeps a source's "not an interrupted or terminal state" as said, which
# rules groups out without naming one. `unclassified`: the source classifies other states
# of the same presentation and says nothing of this one.
POSITIVE_CLASSES = ("terminal", "interrupted", "active")
NEGATIVE_CLASSES = ("not-interrupted-or-terminal", "not-interrupted", "not-terminal")
CLASSES = (*POSITIVE_CLASSES, *NEGATIVE_CLASSES, "unclassified")


def ruled_out(state_class: str) -> frozenset[str]:
    """The positive classes a negative class excludes (none for any other class).

    Examples:
        >>> sorted(ruled_out("not-interrupted-or-terminal"))
        ['interrupted', 'terminal']
    """
    if state_class not in NEGATIVE_CLASSES:
        return frozenset()
    return frozenset(state_class.removeprefix("not-").split("-or-"))


def classes_disagree(a: str, b: str) -> bool:
    """Whether two sources' classes of one state cannot both hold. A source that says
    nothing (`unclassified`) disagrees with none; two positive classes disagree when they
    differ; a negative class disagrees with the positive classes it rules out, and with no
    other (`active` is neither interrupted nor terminal, so it agrees with
    `not-interrupted-or-terminal`).

    Examples:
        >>> classes_disagree("not-interrupted-or-terminal", "interrupted")
        True
        >>> classes_disagree("not-interrupted-or-terminal", "active")
        False
        >>> classes_disagree("terminal", "unclassified")
        False
    """
    if "unclassified" in (a, b) or a == b:
        return False
    if a in POSITIVE_CLASSES and b in POSITIVE_CLASSES:
        return True
    return b in ruled_out(a) or a in ruled_out(b)

# Words a source uses to classify one state. The proto comments say "This is a terminal
# state" or "This is an interrupted state"; the v0.3.0 gRPC file says of AUTH_REQUIRED
# "not an interrupted or terminal state"; the v0.x TypeScript comments say "(Terminal
# state)", "(Effectively a terminal state …)" and "(Task is paused)". "Paused" is the v0.x
# word for what the proto and v1 call interrupted: the task waits for the client.
_NEITHER = re.compile(r"\bnot an? (?:interrupted|terminal) or (?:interrupted|terminal) state\b")
_NOT_ONE = re.compile(r"\bnot an? (interrupted|terminal) state\b")
_INTERRUPTED = re.compile(r"\bthis is an interrupted state\b|\btask is paused\b")
_TERMINAL = re.compile(r"(?:\bthis is a|\beffectively a|\()\s*terminal state\b")


def class_in_words(text: str) -> str | None:
    """The class a comment or description gives its state, or None when it gives none.

    Examples:
        >>> class_in_words("Represents the status a task is finished. This is a terminal state")
        'terminal'
        >>> class_in_words("thus this is not an interrupted or terminal state.")
        'not-interrupted-or-terminal'
        >>> class_in_words("Waiting for the client, but not a terminal state.")
        'not-terminal'
        >>> class_in_words("Client may expect further updates or a terminal state.") is None
        True
    """
    words = " ".join(text.lower().split())
    if _NEITHER.search(words):
        return "not-interrupted-or-terminal"
    if (one := _NOT_ONE.search(words)) is not None:
        return f"not-{one.group(1)}"
    if _INTERRUPTED.search(words):
        return "interrupted"
    if _TERMINAL.search(words):
        return "terminal"
    return None


def state_name(spelling: str) -> str:
    """The canonical name of a spelling. A spelling no canonical name matches is written
    the canonical way (no `TASK_STATE_` prefix, lowercase, hyphens), so that a state
    added by a later version still counts and shows.

    Examples:
        >>> state_name("TASK_STATE_CANCELLED"), state_name("TASK_STATE_PAUSED_BY_ADMIN")
        ('canceled', 'paused-by-admin')
    """
    known = canonical_state(spelling)
    if known:
        return known
    name = spelling.strip()
    if name.upper().startswith("TASK_STATE_"):
        name = name[len("TASK_STATE_") :]
    name = re.sub(r"(?<=[a-z])(?=[A-Z])", "-", name)
    return name.replace("_", "-").lower()


def named(states: list[str]) -> list[str]:
    return [s for s in states if s not in NOT_NAMED]


@dataclass(frozen=True, slots=True)
class EnumEntry:
    """One value of a TaskState presentation, with the lines that present it."""

    spelling: str
    line_start: int
    line_end: int
    number: int | None = None
    description: str = ""
    state_class: str | None = None


def enum_drafts(entries: list[EnumEntry], first_line: int, last_line: int) -> list[Draft]:
    """The facts of one presentation of the TaskState enum spanning the given lines.

    The set facts (terminal-states, interrupted-states) are drafted only when the
    presentation classifies at least one value: then a class it never gives is a real
    answer (an empty list), not a silence.
    """
    spellings = [e.spelling for e in entries]
    states = [state_name(s) for s in spellings]
    span = (first_line, last_line)
    drafts = [
        Draft("enum-values", TASK_STATE, spellings, *span),
        Draft("states", TASK_STATE, states, *span),
        Draft("named-states", TASK_STATE, named(states), *span),
    ]
    for entry, state in zip(entries, states, strict=True):
        value = {"number": entry.number, "state": state, "description": entry.description}
        drafts.append(
            Draft("enum-value", f"{TASK_STATE}.{entry.spelling}", value,
                  entry.line_start, entry.line_end)
        )
        if entry.state_class:
            drafts.append(
                Draft("state-class", f"{TASK_STATE}.{state}", entry.state_class,
                      entry.line_start, entry.line_end)
            )
    if any(e.state_class for e in entries):
        for kind, wanted in (("terminal-states", "terminal"),
                             ("interrupted-states", "interrupted")):
            chosen = [s for e, s in zip(entries, states, strict=True) if e.state_class == wanted]
            drafts.append(Draft(kind, TASK_STATE, chosen, *span))
    return drafts


_LIST_LEAD = re.compile(r"^\s*(?:e\.g\.|i\.e\.|for example|such as)\s*,?\s*", re.IGNORECASE)
_LIST_SPLIT = re.compile(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+")


def state_list(text: str) -> tuple[list[str], bool] | None:
    """Read `(completed, canceled, rejected, or failed)`-style lists of states.

    Returns the canonical names in order and whether the list only gives examples
    ("e.g.", "such as"); None when any item is not a state, so that a parenthesis that
    says something else is never taken for a list.

    Examples:
        >>> state_list("e.g.,\\n `input-required`, `auth-required`")
        (['input-required', 'auth-required'], True)
        >>> state_list("`completed`, `cancelled`, `rejected` or `failed`")
        (['completed', 'canceled', 'rejected', 'failed'], False)
        >>> state_list("see Section 6.3") is None
        True
    """
    lead = _LIST_LEAD.match(text)
    examples = bool(lead and lead.group(0).strip())
    body = text[lead.end() :] if lead else text
    items = [i.strip(" \t\n`'\"*") for i in _LIST_SPLIT.split(body.strip())]
    items = [i for i in items if i]
    names = [canonical_state(i) for i in items]
    if not names or any(n is None for n in names):
        return None
    unique = list(dict.fromkeys(n for n in names if n))
    return unique, examples
