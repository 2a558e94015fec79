"""validate: JSON Schema and cross-record rules → a typed knowledge base and diagnostics.

Each record is checked against the schema of its kind (a compiled check first; jsonschema
describes what that check rejects), records that pass become typed records, and then
every rule of [`a2a_kb.records.rules`][a2a_kb.records.rules] runs over the whole knowledge
base, so one run reports every problem. Records that break their schema are left out of
the typed knowledge base (their ids still count for uniqueness) so that no rule trips on a
half-formed record.

A command that reads some kinds of records only validates those:
`validate(project, kinds={"version", "source"})` reads the files that hold them, checks
their schemas and runs the rules that read nothing else
([`rules_for`][a2a_kb.records.rules.rules_for]), so a broken claim does not stop
`a2a-kb diff`, and a broken source still does, reported as `validate` reports it.

Why it is long: schema validation and the typed build of records are one step: what a
failing record's schema error says (the field, the tip, the expected type) is written from
the same schema the build reads, and the partial load of some kinds only has to leave out
the same records in both.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING, Any

from ..cache import Cache
from ..diagnostics import MAX_PER_FILE, Diagnostic, too_many
from ..project import Project
from ..schemas import KINDS, schema
from . import sweep_ledger
from .compiled_schema import Check, compile_schema
from .kb import KnowledgeBase
from .loader import LoadResult, RawRecord, collector_paused, load
from .model import (
    Branch,
    Claim,
    Conflict,
    Expectation,
    Side,
    Source,
    TrackedFile,
    Upstream,
    Version,
)
from .rules import Context, rules_for
from .rules import shown as _shown
from .yamldoc import pointer_escape

if TYPE_CHECKING:  # jsonschema is imported when a record needs its errors described
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

_ID_TIPS = {
    "claim": "claim ids are kebab-case: lowercase letters, digits and single hyphens",
    "source": "source ids are lowercase '<name>@<ref>', e.g. spec@v1.0.0: letters, digits, "
    "'.', '-' and one '@'",
    "conflict": "conflict ids look like D1, D1a or D12",
    "version": "versions are written 0.3.0, v0.3.0, 1.0.0-rc, draft or main",
    "upstream": "upstream ids are lowercase letters, digits, '.' and '-'",
}
_FIELD_TIPS = {
    "versions": "versions are written 0.3.0, v0.3.0, 1.0.0-rc, draft or main",
    "resolved_in": "versions are written 0.3.0, v0.3.0, 1.0.0-rc, draft or main",
    "claims": "claim ids are kebab-case: lowercase letters, digits and single hyphens",
    "related": "claim ids are kebab-case: lowercase letters, digits and single hyphens",
    "source": "name a source id such as spec@v1.0.0, or '<kind>@latest'",
    "conflicts": "conflict ids look like D1, D1a or D12",
    "origin": "write '<report file>#<anchor>:<n>', e.g. rabbithole-synthesis.md#c-groups-of-states:21",
    "reviewed": "dates are written YYYY-MM-DD",
    "retrieved": "dates are written YYYY-MM-DD",
    "sha256": "a sha256 is 64 lowercase hex digits",
    "commit": "a commit is the full 40-digit sha",
    "fact": "write '<kind>:<subject>', e.g. enum-values:TaskState",
}


def _record_schema(kind: str) -> dict[str, Any]:
    """The schema of one record of `kind` (the file schema's definition of it)."""
    root = schema(kind)
    return {"$ref": f"#/$defs/{kind}", "$defs": root["$defs"]}


@functools.cache
def validator(kind: str) -> Draft202012Validator:
    """jsonschema's validator of one record of `kind`, built when a record of that kind
    first fails its compiled check."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_record_schema(kind))


@functools.cache
def quick_check(kind: str) -> Check | None:
    """The schema of `kind` compiled to a predicate that accepts only valid records (None
    for a schema the compiler does not handle: then jsonschema sees every record)."""
    return compile_schema(_record_schema(kind))


@collector_paused()
def validate(project: Project, loaded: LoadResult | None = None,
             kinds: Collection[str] = KINDS) -> KnowledgeBase:
    """Load (unless given) and validate every record of `kinds` (default: every kind);
    the result carries all problems.

    Pick `kinds` closed under what their records name (a source names versions; a claim
    names sources, conflicts, versions and claims): a rule that reads a kind not given
    does not run."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown record kinds: {', '.join(sorted(unknown))}")
    every = set(kinds) == set(KINDS)
    loaded = loaded if loaded is not None else load(project, kinds=None if every else kinds)
    kb = KnowledgeBase(project=project)
    kb.problems += loaded.problems
    valid: dict[str, list[RawRecord]] = {kind: [] for kind in KINDS}
    per_file: dict[str, int] = {}  # schema problems so far, by file
    unchecked: dict[str, int] = {}  # records left unchecked once a file reached the cap
    for kind in (k for k in KINDS if k in kinds):
        accepts = quick_check(kind)
        for record in loaded.records[kind]:
            # The compiled check passes most records at a fraction of jsonschema's cost; a
            # record it rejects gets jsonschema's errors, which make the diagnostics.
            if accepts is not None and accepts(record.data):
                valid[kind].append(record)
                continue
            path = record.doc.path
            if per_file.get(path, 0) >= MAX_PER_FILE:
                unchecked[path] = unchecked.get(path, 0) + 1  # left out, as a broken record is
                continue
            found = list(_schema_problems(record, validator(kind)))
            kb.problems += found
            per_file[path] = per_file.get(path, 0) + len(found)
            if not found:
                valid[kind].append(record)
    kb.problems += [too_many(path, per_file[path], n) for path, n in unchecked.items()]
    _build(kb, valid)
    today = dt.date.fromisoformat(project.today) if project.today else dt.date.today()
    ctx = Context(project, loaded, kb, today, functools.partial(_dossier_text, project, kb))
    for rule in rules_for(kinds):
        kb.problems += rule(ctx)
    return kb


# --- schema -------------------------------------------------------------------------------


def _schema_problems(record: RawRecord, checker: Draft202012Validator) -> Iterator[Diagnostic]:
    rid = str(record.data.get("id", ""))
    what = f"{record.kind} {_shown(rid)}" if rid else record.kind
    # Paths mix list indexes and keys, so compare them as text.
    errors = sorted(
        checker.iter_errors(record.data), key=lambda e: [str(p) for p in e.absolute_path]
    )
    for error in errors:
        for leaf in _branch_errors(error):
            yield from _describe(leaf, record, what, rid)


def _branch_errors(error: ValidationError) -> Iterator[ValidationError]:
    """For a value that must match one of several forms (a claim's `expect` is one check or
    a list of checks), the errors of the form it was meant to have, not "matches none"."""
    if error.validator != "oneOf" or not error.context:
        yield error
        return
    depth = len(error.absolute_path)
    # A branch that fails only because the value is not of its type was not the one meant.
    meant = [
        e for e in error.context if not (e.validator == "type" and len(e.absolute_path) == depth)
    ]
    if not meant:
        yield error
        return
    for e in meant:
        yield from _branch_errors(e)


def _field_tip(kind: str, field: str, default: str) -> str:
    if field == "id":
        return _ID_TIPS.get(kind, default)
    return _FIELD_TIPS.get(field, default)


def _describe(error: ValidationError, record: RawRecord, what: str, rid: str) -> list[Diagnostic]:
    import difflib  # for the tips of a broken record only

    path = [str(p) for p in error.absolute_path]
    field = next((p for p in reversed(path) if not p.isdigit()), "")
    mark = record.mark("/".join(pointer_escape(p) for p in path))
    value = error.instance

    def problem(message: str, tip: str) -> list[Diagnostic]:
        return [Diagnostic(mark, "schema", f"{what}: {message}", tip, record_id=rid)]

    properties = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    if error.validator == "additionalProperties":
        found = []
        for name in (k for k in value if k not in properties):
            place = record.mark("/".join(pointer_escape(p) for p in [*path, name]))
            close = difflib.get_close_matches(name, list(properties), n=1)
            tip = (
                f"did you mean '{close[0]}'?"
                if close
                else f"allowed fields: {', '.join(properties)}"
            )
            found.append(
                Diagnostic(
                    place, "schema", f"{what}: unknown field {_shown(name)}", tip, record_id=rid
                )
            )
        return found
    if error.validator == "required":
        missing = str(error.message).split("'")[1] if "'" in error.message else "?"
        return problem(f"the required field '{missing}' is missing", f"add '{missing}:'")
    if error.validator == "enum":
        choices = [str(v) for v in error.validator_value]
        close = difflib.get_close_matches(str(value), choices, n=1)
        tip = f"did you mean '{close[0]}'?" if close else f"use one of: {', '.join(choices)}"
        return problem(f"'{field}' is {_shown(value)}, not one of {', '.join(choices)}", tip)
    if error.validator == "type":
        tip = _field_tip(record.kind, field, "fix the value's type")
        if error.validator_value == "string" and isinstance(value, bool | int | float):
            read_as = _article(_json_type(value))
            tip = f"put the value in quotes: unquoted, YAML reads it as {read_as}"
        return problem(
            f"'{field}' must be {_article(error.validator_value)}, "
            f"not {_article(_json_type(value))}",
            tip,
        )
    if error.validator == "pattern":
        return problem(
            f"'{field}' value {_shown(value)} has the wrong form",
            _field_tip(record.kind, field, f"it must match {error.validator_value}"),
        )
    if error.validator in ("minLength", "maxLength"):
        size, limit = len(value), error.validator_value
        if error.validator == "minLength":
            return problem(
                f"'{field}' is {size} characters long; it needs at least {limit}", "say it in full"
            )
        return problem(
            f"'{field}' is {size:,} characters long; at most {limit:,} are allowed",
            "shorten it, or split it into several records",
        )
    if error.validator in ("minItems", "maxItems"):
        size, limit = len(value), error.validator_value
        if error.validator == "minItems":
            tip = (
                "remove 'expect:', or add a check" if field == "expect" else "add the missing items"
            )
            return problem(f"'{field}' has {size} item(s); it needs at least {limit}", tip)
        return problem(f"'{field}' has {size} items; at most {limit} are allowed", "remove some")
    if error.validator == "uniqueItems":
        repeated = next((v for i, v in enumerate(value) if v in value[:i]), None)
        return problem(
            f"'{field}' lists {_shown(repeated)} more than once", "remove the repeated entry"
        )
    if error.validator == "anyOf" and record.kind == "source":
        return problem(
            "a source needs either 'sha256' (pinned) or 'retrieved' (a page that moves)",
            "add the sha256 of the pinned copy, or the date it was read",
        )
    if error.validator == "oneOf" and field == "expect":
        return problem(
            f"'expect' must be a check (a mapping with 'fact' and 'op') or a list of "
            f"checks, not {_article(_json_type(value))}",
            "write 'expect:' then '  fact: <kind>:<subject>' and '  op: <operation>'",
        )
    message = " ".join(error.message.split())
    message = message if len(message) <= 200 else message[:199] + "…"
    return problem(
        f"{field or 'record'}: {message}", _field_tip(record.kind, field, "see `a2a-kb schema`")
    )


def _json_type(value: Any) -> str:
    return {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "integer",
        float: "number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _article(kind: Any) -> str:
    kind = kind if isinstance(kind, str) else " or ".join(kind)
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


# --- typed records ------------------------------------------------------------------------


def _build(kb: KnowledgeBase, valid: dict[str, list[RawRecord]]) -> None:
    for i, r in enumerate(valid["version"]):
        d = r.data
        vid = str(d["id"]).removeprefix("v")
        kb.versions.setdefault(
            vid,
            Version(
                vid,
                d["title"],
                d["ref"],
                d["commit"],
                d["released"],
                r.mark(),
                order=i,
                notes=d.get("notes", ""),
            ),
        )
    for r in valid["source"]:
        d = r.data
        kb.sources.setdefault(
            d["id"],
            Source(
                id=d["id"],
                kind=d["kind"],
                authority=d["authority"],
                url=d["url"],
                title=d["title"],
                versions=[str(v).removeprefix("v") for v in d["versions"]],
                mark=r.mark(),
                ref=d.get("ref", ""),
                commit=d.get("commit", ""),
                path=d.get("path", ""),
                sha256=d.get("sha256", ""),
                size=d.get("size", 0),
                retrieved=d.get("retrieved", ""),
                moving=d.get("moving", False),
                binding=d.get("binding", ""),
                notes=d.get("notes", ""),
                repository=d.get("repository", ""),
                branch=d.get("branch", ""),
                raw=d,
            ),
        )
    for r in valid["claim"]:
        d = r.data
        raw_expect = d.get("expect", [])
        items = raw_expect if isinstance(raw_expect, list) else [raw_expect]
        pointer = "expect" if not isinstance(raw_expect, list) else None
        expect = [
            Expectation(
                fact=e["fact"],
                op=e["op"],
                value=e.get("value"),
                source=e.get("source", ""),
                mark=r.mark(pointer or f"expect/{n}"),
            )
            for n, e in enumerate(items)
        ]
        kb.claims.setdefault(
            d["id"],
            Claim(
                id=d["id"],
                statement=d["statement"],
                versions=[str(v).removeprefix("v") for v in d["versions"]],
                source=d["source"],
                conflicts=list(d["conflicts"]),
                mark=r.mark(),
                subject=d.get("subject", ""),
                locator=d.get("locator", ""),
                quote=d.get("quote", ""),
                expect=expect,
                verdict=d.get("verdict", ""),
                reviewed=d.get("reviewed", ""),
                origin=d.get("origin", ""),
                rank=d.get("rank", "normal"),
                tracks=d.get("tracks", ""),
                related=list(d.get("related", [])),
                note=d.get("note", ""),
                answer=d.get("answer", ""),
                file=r.doc.path,
                raw=d,
            ),
        )
    _build_upstream(kb, valid["upstream"])
    sweep_ledger.build(kb, valid["sweep"])
    for r in valid["conflict"]:
        d = r.data
        kb.conflicts.setdefault(
            d["id"],
            Conflict(
                id=d["id"],
                question=d["question"],
                sides=[Side(s["position"], list(s["claims"])) for s in d["sides"]],
                status=d["status"],
                advice=d["advice"],
                mark=r.mark(),
                title=d.get("title", ""),
                resolved_in=str(d.get("resolved_in", "")).removeprefix("v"),
                origin=d.get("origin", ""),
                raw=d,
            ),
        )


def _build_upstream(kb: KnowledgeBase, records: list[RawRecord]) -> None:
    for r in records:
        d = r.data
        branches = [
            Branch(b["name"], r.mark(f"branches/{n}"), str(b.get("version", "")).removeprefix("v"),
                   b.get("commit", ""))
            for n, b in enumerate(d.get("branches", []))
        ]
        files = [TrackedFile(f["path"], f["source"], f["kind"], f["title"], f.get("binding", ""))
                 for f in d.get("files", [])]
        kb.upstream.setdefault(d["id"], Upstream(
            id=d["id"], kind=d["kind"], mark=r.mark(), repository=d.get("repository", ""),
            tags=d.get("tags", ""), branches=branches,
            untracked=[str(b) for b in d.get("untracked", [])], files=files,
            package=d.get("package", ""),
            releases=[str(v) for v in d.get("releases", [])], notes=d.get("notes", ""), raw=d))


def _dossier_text(project: Project, kb: KnowledgeBase) -> str | None:
    source = next((s for s in kb.sources.values() if s.kind == "dossier"), None)
    if source is None:
        return None
    data = Cache(project.cache_dir).content(source.id, source.sha256)
    return data.decode("utf-8", "replace") if data is not None else None
