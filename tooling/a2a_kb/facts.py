r"""Facts: what an extractor read out of one pinned source, with where it read it.

A fact is addressed by `kind:subject` within its source, for example
`enum-values:TaskState` in `proto@v1.0.0`. Claims check themselves against facts
through their `expect` (see [`a2a_kb.knowledge.check`][a2a_kb.knowledge.check]).

Fact kinds and their values (extractors must use these names):

| Kind | Subject | Value |
| --- | --- | --- |
| `enum-values` | `TaskState` | list of raw spellings, in source order |
| `states` | `TaskState` | list of canonical state names (see below) |
| `named-states` | `TaskState` | canonical names without unknown/unspecified |
| `enum-value` | `TaskState.<RAW>` | {"number": int\|None, "state": canonical, "description": str} |
| `state-class` | `TaskState.<canonical>` | "terminal" \| "interrupted" \| "active" \| "not-interrupted-or-terminal" \| "not-interrupted" \| "not-terminal" |
| `terminal-states` | `TaskState` | canonical names this source calls terminal |
| `interrupted-states` | `TaskState` | canonical names this source calls interrupted |
| `terminal-examples` | `TaskState` | canonical names a passage gives as examples of terminal states ("e.g.", "like …") |
| `interrupted-examples` | `TaskState` | the same for interrupted states |
| `message-fields` | `<Message>` | list of field names, in source order |
| `field` | `<Message>.<field>` | {"number": int\|None, "type": str, "required": bool, "json_name": str\|None} |
| `reserved` | `<Message>` | {"numbers": [...], "names": [...]} |
| `rpc-methods` | `<Service>` | list of method names |
| `rpc-method` | `<Service>.<Method>` | {"request": str, "response": str, "streaming": bool} |
| `comment` | `<Symbol>` or `<Message>.<field>` or `<Service>.<Method>` | the comment of a proto declaration (message, field, service, method, the TaskState enum), as one line of words |
| `description` | `<Definition>[.<property>]` | a JSON schema description, as written |
| `error` | `<ErrorName>` | {"code": int\|None, "message": str\|None} |
| `error-mapping` | `<ErrorName>` | {"json-rpc": int\|None, "http": int\|None, "grpc": str\|None} |
| `section` | `<number>` (e.g. `3.1.5`) or `<anchor>` | {"title": str, "anchor": str, "text": str} |
| `section-title` | `<title slug>` | section number as str |
| `release-date` | `<version>` (e.g. `1.0.0`) | "YYYY-MM-DD" |
| `tag-commit` | `<tag>` (e.g. `v1.0.0`) | full commit sha |
| `tag-object` | `<tag>` | sha of the annotated tag object |
| `newest-release` | `tags` | the highest vX.Y.Z tag of a tag list (pre-releases such as v1.0.0-rc left out) |
| `tag-date` | `<tag>` | "YYYY-MM-DDTHH:MM:SSZ" (UTC, tagger) |
| `branch-commit` | `<branch>` (e.g. `main`) | full sha of the commit at the branch's head |
| `commit-date` | `<sha>` | "YYYY-MM-DDTHH:MM:SSZ" (UTC, committer) |
| `capture-sdk` | `<scenario>` | {"package": str, "version": str} that ran it |
| `capture-scenario` | `<scenario>` | what the scripted agent does, as the transcript's "# scenario:" line says it |
| `capture-states` | `<scenario>` | canonical states seen, requests taken in the order sent; a task's repeat of the state it was last seen in is left out |
| `capture-final-state` | `<scenario>` | canonical state last seen, of the task the last observation was about |
| `capture-final-artifacts` | `<scenario>` | {"count": int, "names": [str]} of that task |
| `capture-stream-close` | `<scenario>/<n>` | {"after_event": int, "after_state": canonical\|None, "by": "server"\|"client"} |
| `capture-error` | `<scenario>/<n>` | {"code": int, "message": str} |
| `capture-exchange` | `<scenario>/<n>` | {"method": str, "kind": "call"\|"stream", "states": [canonical], "error": {...}\|None, "context": contextId\|None (the first a task or update showed), "history": int\|None (messages in a Task reply's history; 0 when the field is absent)} |
| `commit-author-date` | `<sha>` | "YYYY-MM-DDTHH:MM:SSZ" (UTC, author) |
| `suite-requirement` | `<ID>` (e.g. `CORE-SEND-002`) | {"level": MUST\|SHOULD\|MAY, "section": str, "title": str, "operation": str\|None, "expected_error": <ErrorName>\|None, "multi_operation": bool, "tags": [str]} |
| `suite-test` | `[<Class>::]<test function>` | {"requirements": [ID], "markers": [str], "sections": [str], "checks": [str]} |
| `suite-runner` | `<runner function>` | {"conditions": [Python source], "validates_with": [function]} |
| `suite-helper` | `<task factory>` | {"states": [canonical], "builds_on": [str]} |
| `suite-marker` | `<pytest marker>` | {"level": str\|None, "comment": str, "group": str} |
| `suite-spec-pin` | `specification` | {"repository": str, "branch": str, "commit": sha} the suite copied its spec from |
| `suite-state-map` | `<client function>` | {"mapping": {TASK_STATE_*: word}, "fallback": word\|None (a name not in it), "on_error": word\|None (a number with no name)} |
| `suite-fixed-state` | `<client function>` | {"state": str} a result's status state written as a literal, not read from the reply |
| `suite-schema-state` | `TaskStatus.state` | {<probe>: bool}: whether the suite's bundled JSON Schema accepts each state value probed (the eight names, UNSPECIFIED, 0, 99, an unknown name, "no state") |
| `tck-build` | `<build key>` | {"package": str, "version": str, "transports": [str], "suite_branch": str, "suite_commit": sha} of a suite run record (captures/tck/) |
| `tck-verdict` | `<requirement ID>` | {"level": str, "status": str, <transport>: PASS\|FAIL\|SKIPPED…} the suite's runner gave |
| `tck-test` | `<test id>` | {"outcome": passed\|failed\|xfailed\|skipped, "requirement": str, "transport": str, "reason": str[, "category": str]} |
| `sdk-enum` | `<Enum>` (e.g. `TaskState`) | an SDK's state enum: {"members": [name], "wire": [str\|None], "states": [canonical\|None]} |
| `sdk-flag` | `<Enum>.<parameter>` | canonical states whose constant passes true for that constructor parameter (Java's isFinal) |
| `sdk-scope` | `<Scope>` (e.g. `TaskState.Terminal`) | {"states": [canonical], "names": [identifier]}: the states a function or constant names, and its identifiers with terminal/final/interrupt |
| `sdk-guard` | `<Scope>/<Error>` | {"states", "unless", "names"}: a branch that raises the error, and what its condition tests (unless: tested with != / not in) |
| `sdk-branches` | `<Scope>` | [{"states", "unless", "names", "does"}]: each branch that looks at the lifecycle, in order; does: "raise <Error>", "return" or "other" |
| `sdk-map` | `<Scope>` | {pattern: result} of a switch, match or map literal over states ("default", quoted strings) |
| `sdk-code` | `<Scope>[.<name>]` | an integer in JSON-RPC's error range |
| `sdk-error-map` | `<Error>` (e.g. `TaskNotCancelable`) | {"json-rpc": int\|None, "http": int\|None, "grpc": str\|None} from the file's error tables |
| `sdk-scopes` | `document` | every function and constant the file declares |
| `headings` | `document` or `§<section>` | Markdown: each heading as written after its #s |
| `tables` | `document` or `§<section>` | Markdown: each table's header row, cells joined by " \| " |
| `diagrams` | `document` or `§<section>` | Markdown: "<language>: <first line>" of each fenced block in a diagram language (mermaid, plantuml, dot …); "image: <alt> <src>" |
| `code-blocks` | `document` or `§<section>` | Markdown: "<language>: <first line>" of every code block ("text" when it names none) |
| `normative` | `document` or `§<section>` or `<Declaration>` | sentences with an RFC 2119 keyword in capitals (Markdown prose and table cells, proto comments, schema descriptions) |
| `time-limits` | `document` or `§<section>` or `<Declaration>` | sentences that mention a timeout, time limit, deadline, expiry, idleness, a duration or "indefinitely" |

Notes on reading the table:

- The conformance suite (source kind `test-suite`, a2a-tck) also gives `error-mapping`
  (its `ErrorBinding` table) and `terminal-states` (its `TERMINAL_STATES`). A test's
  `checks` say what its failing conditions look at, strictest first: `error-code
  -32001` (or `error-code` when the code is read but compared with a variable), `state
  canceled` / `state terminal` / `state a|b`, `length`, `field <key>`,
  `error-text`, `any-error` (only that some error came back), `success`, and
  `other: <the condition as written>`. A condition that only leads to `pytest.skip` is
  a precondition, not a check.

- Lines are 1-based and inclusive, and point at the evidence: a JSON member from its key
  to the end of its value, a proto declaration with the comment block above it where the
  comment is what the fact reads (enum values), a Markdown row, paragraph line or section.
- `state-class` and the set facts are emitted only where a source's words classify a
  state: a proto comment ("This is a terminal state"; "not an interrupted or terminal
  state" gives `not-interrupted-or-terminal`, a class of its own that rules groups out
  without naming one), a spec table's `Terminal?` column (`Yes` terminal,
  `No` active, `No (Pause)` interrupted: "paused" is the v0.x word for what v1 calls
  interrupted), a TypeScript comment ("(Terminal state)", "(Task is paused)"), or a list
  in prose. A state a source does not classify has no state-class fact from it. A
  presentation that classifies some values gives both set facts, so an empty
  interrupted-states there means "none", not "not said".
- `enum-value.state` and `states` write a spelling no canonical name matches the
  canonical way (`TASK_STATE_PAUSED` → `paused`), so a state added later still counts.
  `enum-value.number` is
  None outside .proto; `description` is the comment or table text ("" when none).
- `field.type` is written the same way for both bindings: a message or definition by its
  name, `X[]` for repeated/array, `map<K, V>` for a proto map, a nullable JSON type as
  the type itself. `number` is None for JSON; `json_name` is the proto option (None
  when absent, and always None for JSON, where the property name is the JSON name).
- Markdown sources can state one thing in several passages, and not always alike (v0.2.5
  calls `unknown` terminal in its TaskState table but leaves it out of its no-restart
  rule). Each passage's facts carry `@<anchor>` after the subject (the anchor of the
  section holding the passage): `terminal-states:TaskState@61-task-object`; a second
  fact of the same kind and subject in the same section gets `@<anchor>~2`, and so on.
  The plain subject (`terminal-states:TaskState`) repeats the leading passage: the first
  one in the section whose heading names TaskState, else the first in the document.
- `section` is keyed by number for the spec's numbered headings and by anchor for
  the rest (and for every heading of a docs page). Its text runs from the heading to the
  next heading of the same or a higher level, subsections included. The anchor is the
  site's (Python-Markdown toc) id of the heading. A title that repeats (spec v1 has four
  sections titled "Error Handling") gives `section-title:<slug>`, `<slug>~2`, …

- The inventories (`headings` … `time-limits`, `a2a_kb.extract.inventory`) list
  what a file holds so that what it does not hold is a fact: a claim that the spec gives
  no transition table checks `tables:document` with `not-matches`. `document` spans
  the whole file and is always given (an empty list: none in the file). A part is given
  only where its list is not empty, so `op: absent` on it means "none there": a Markdown
  section as `§<number>` or `§<anchor>` (its lines are the section's, subsections
  included), a proto's top-level message, enum or service by name (from its leading
  comment to its closing brace), a JSON schema's definition by name (its member).
  Sentences are whitespace-normalised and keep their Markdown marks (`**MUST**`).

Canonical state names are the lowercase, hyphenated spelling of the v0.2 schema
(`submitted`, `working`, `input-required`, `auth-required`, `completed`,
`canceled`, `failed`, `rejected`, `unknown`) plus `unspecified` for the
proto zero value; [`canonical_state`][a2a_kb.facts.canonical_state] maps every spelling seen in any version.
"""  # noqa: E501 (the table of fact kinds: one row per line, as Markdown wants)

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CANONICAL_STATES = (
    "unspecified",
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
    "unknown",
)

# British spelling of the v0.2.x/v0.3.0 gRPC binding, and the wording of other prose.
_ALIASES = {"cancelled": "canceled", "unrecognized": "unknown"}


def canonical_state(spelling: str) -> str | None:
    """Map any spelling of a state to its canonical name, or None if it names none.

    Examples:
        >>> canonical_state("TASK_STATE_INPUT_REQUIRED")
        'input-required'
        >>> canonical_state("TASK_STATE_CANCELLED")
        'canceled'
        >>> canonical_state("InputRequired")
        'input-required'
    """
    s = spelling.strip()
    if s.upper().startswith("TASK_STATE_"):
        s = s[len("TASK_STATE_") :]
    s = re.sub(r"(?<=[a-z])(?=[A-Z])", "-", s)  # InputRequired → Input-Required
    s = s.replace("_", "-").lower()
    s = _ALIASES.get(s, s)
    return s if s in CANONICAL_STATES else None


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact read from one source, with the lines it was read from."""

    kind: str
    subject: str
    value: Any
    source: str = ""
    path: str = ""
    commit: str = ""
    line_start: int = 0
    line_end: int = 0

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.subject}"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "value": self.value,
            "source": self.source,
            "path": self.path,
            "commit": self.commit,
            "lines": [self.line_start, self.line_end],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fact:
        start, end = data.get("lines", [0, 0])
        return cls(
            kind=data["kind"],
            subject=data["subject"],
            value=data["value"],
            source=data.get("source", ""),
            path=data.get("path", ""),
            commit=data.get("commit", ""),
            line_start=start,
            line_end=end,
        )
