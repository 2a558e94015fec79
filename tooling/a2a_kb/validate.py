"""validate: JSON Schema and cross-record rules → a typed knowledge base and diagnostics.

Every rule sees the whole knowledge base and yields diagnostics; all of them run, so one
run reports every problem. Records that break their schema are left out of the typed
knowledge base (their ids still count for uniqueness) so that later rules never trip on
a half-formed record.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from . import dossier
from .cache import Cache
from .compiled_schema import Check, compile_schema
from .diagnostics import Diagnostic, Mark, Severity
from .kb import KnowledgeBase
from .loader import LoadResult, RawRecord, collector_paused, load
from .project import Project
from .records import Claim, Conflict, Expectation, Side, Source, Version
from .schemas import KINDS, schema
from .yamldoc import excerpt, pointer_escape

if TYPE_CHECKING:  # jsonschema is imported when a record needs its errors described
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

_ID_TIPS = {
    "claim": "claim ids are kebab-case: lowercase letters, digits and single hyphens",
    "source": "source ids are lowercase '<name>@<ref>', e.g. spec@v1.0.0: letters, digits, "
    "'.', '-' and one '@'",
    "conflict": "conflict ids look like D1, D1a or D12",
    "version": "versions are written 0.3.0, v0.3.0, draft or main",
}
_FIELD_TIPS = {
    "versions": "versions are written 0.3.0, v0.3.0, draft or main",
    "resolved_in": "versions are written 0.3.0, v0.3.0, draft or main",
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


@dataclass
class _Context:
    project: Project
    loaded: LoadResult
    kb: KnowledgeBase
    today: dt.date
    dossier_text: str | None
    # The raw record a typed record was built from, by the identity of its data: rules look
    # places up here, once per record, so a file of many records stays linear.
    raw_records: dict[int, RawRecord] = dataclass_field(default_factory=dict)

    def __post_init__(self) -> None:
        for records in self.loaded.records.values():
            for record in records:
                self.raw_records[id(record.data)] = record


def _record_schema(kind: str) -> dict[str, Any]:
    """The schema of one record of ``kind`` (the file schema's definition of it)."""
    root = schema(kind)
    return {"$ref": f"#/$defs/{kind}", "$defs": root["$defs"]}


def _validators() -> dict[str, Draft202012Validator]:
    from jsonschema import Draft202012Validator

    return {kind: Draft202012Validator(_record_schema(kind)) for kind in KINDS}


_VALIDATORS: dict[str, Draft202012Validator] | None = None
_QUICK_CHECKS: dict[str, Check | None] | None = None


def validators() -> dict[str, Draft202012Validator]:
    global _VALIDATORS
    if _VALIDATORS is None:
        _VALIDATORS = _validators()
    return _VALIDATORS


def quick_checks() -> dict[str, Check | None]:
    """Each kind's schema compiled to a predicate that accepts only valid records (None for
    a schema the compiler does not handle: then jsonschema sees every record)."""
    global _QUICK_CHECKS
    if _QUICK_CHECKS is None:
        _QUICK_CHECKS = {kind: compile_schema(_record_schema(kind)) for kind in KINDS}
    return _QUICK_CHECKS


@collector_paused()
def validate(project: Project, loaded: LoadResult | None = None) -> KnowledgeBase:
    """Load (unless given) and validate every record; the result carries all problems."""
    loaded = loaded if loaded is not None else load(project)
    kb = KnowledgeBase(project=project)
    kb.problems += loaded.problems
    valid: dict[str, list[RawRecord]] = {kind: [] for kind in KINDS}
    quick = quick_checks()
    for kind in KINDS:
        accepts = quick[kind]
        for record in loaded.records[kind]:
            # The compiled check passes most records at a fraction of jsonschema's cost; a
            # record it rejects gets jsonschema's errors, which make the diagnostics.
            if accepts is not None and accepts(record.data):
                valid[kind].append(record)
                continue
            found = list(_schema_problems(record, validators()[kind]))
            kb.problems += found
            if not found:
                valid[kind].append(record)
    _build(kb, valid)
    today = dt.date.fromisoformat(project.today) if project.today else dt.date.today()
    ctx = _Context(project, loaded, kb, today, _dossier_text(project, kb))
    for rule in RULES:
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


def _shown(value: Any, limit: int = 60) -> str:
    """A value quoted for a message, cut short so that one huge value cannot flood it."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]  # as YAML writes them
    if isinstance(value, str):
        return f"'{excerpt(value, limit - 2)}'"
    return excerpt(repr(value), limit)


def _field_tip(kind: str, field: str, default: str) -> str:
    if field == "id":
        return _ID_TIPS.get(kind, default)
    return _FIELD_TIPS.get(field, default)


def _describe(error: ValidationError, record: RawRecord, what: str, rid: str) -> list[Diagnostic]:
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
                file=r.doc.path,
                raw=d,
            ),
        )
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


def _dossier_text(project: Project, kb: KnowledgeBase) -> str | None:
    source = next((s for s in kb.sources.values() if s.kind == "dossier"), None)
    if source is None:
        return None
    data = Cache(project.cache_dir).content(source.id, source.sha256)
    return data.decode("utf-8", "replace") if data is not None else None


# --- cross-record rules -------------------------------------------------------------------

Rule = Callable[[_Context], Iterable[Diagnostic]]


_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def unique_ids(ctx: _Context) -> Iterator[Diagnostic]:
    """Ids are unique within their kind, also after case folding."""
    for kind in KINDS:
        seen: dict[str, RawRecord] = {}
        for record in ctx.loaded.records[kind]:
            rid = record.data.get("id")
            if not isinstance(rid, str):
                continue
            key = rid.casefold().removeprefix("v") if kind == "version" else rid.casefold()
            first = seen.get(key)
            if first is None:
                seen[key] = record
                continue
            first_mark, first_id = first.mark("id"), str(first.data.get("id"))
            if first_id == rid:
                clash = f"has the same id as the {kind} at {first_mark}"
            elif kind == "version":
                clash = f"names the same version as {_shown(first_id)} at {first_mark}"
            else:
                clash = f"differs only in case from {_shown(first_id)} at {first_mark}"
            yield Diagnostic(
                record.mark("id"),
                "duplicate-id",
                f"{kind} {_shown(rid)} {clash}",
                "give each record its own id; ids are compared ignoring case",
                record_id=rid,
            )


def claim_references(ctx: _Context) -> Iterator[Diagnostic]:
    """Every source, conflict, version and related claim a claim names exists."""
    kb = ctx.kb
    for claim in kb.claims.values():
        raw = claim.raw
        rec_mark = _claim_marks(ctx, claim)
        # Source ids have no ':', so anything with a scheme (http:, javascript:) is a URL.
        if claim.source not in kb.sources and _URL_SCHEME.match(claim.source):
            if not claim.source.startswith("https://"):
                yield Diagnostic(
                    rec_mark("source"),
                    "https-only",
                    f"claim '{claim.id}': source URL {_shown(claim.source)} is not https",
                    "cite the https address of the page, or a source id",
                    record_id=claim.id,
                )
            registered = next((s.id for s in kb.sources.values() if s.url == claim.source), None)
            if registered:
                yield Diagnostic(
                    rec_mark("source"),
                    "source-by-url",
                    f"claim '{claim.id}': source URL is registered as source '{registered}'",
                    f"write 'source: {registered}'",
                    Severity.WARNING,
                    claim.id,
                )
        elif claim.source not in kb.sources:
            yield Diagnostic(
                rec_mark("source"),
                "unknown-source",
                f"claim '{claim.id}' names source {_shown(claim.source)}, which is not in sources/",
                _suggest(claim.source, kb.sources)
                or "add it to sources/secondary.yaml or cite its https URL",
                record_id=claim.id,
            )
        # The lists of ids a claim names, each checked against the records of its kind.
        references: tuple[tuple[str, Collection[str], str, str, str], ...] = (
            ("conflicts", kb.conflicts, "unknown-conflict",
             "names conflict '{}', which is not in the register", "add it to claims/conflicts.yaml"),
            ("versions", kb.versions, "unknown-version", "is about version '{}', which does not exist",
             f"known versions: {', '.join(kb.versions)}"),
            ("related", kb.claims, "unknown-claim", "is related to '{}', which is not a claim",
             "check the id, or remove it from 'related'"),
        )
        for field, known, rule, says, fallback in references:
            for i, ref in enumerate(getattr(claim, field)):
                if ref not in known:
                    yield Diagnostic(
                        rec_mark(f"{field}/{i}"),
                        rule,
                        f"claim '{claim.id}' " + says.format(raw[field][i]),
                        _suggest(ref, known) or fallback,
                        record_id=claim.id,
                    )
        for e in claim.expect:
            ref = e.source or claim.source
            if e.source and kb.resolve_source(e.source) is None:
                yield Diagnostic(
                    e.mark or claim.mark,
                    "unknown-source",
                    f"claim '{claim.id}': expect names source '{e.source}', which does not resolve",
                    _suggest(e.source, kb.sources) or "use a source id, or '<kind>@latest'",
                    record_id=claim.id,
                )
            elif not e.source and ref in kb.sources and not kb.sources[ref].checkable:
                yield Diagnostic(
                    e.mark or claim.mark,
                    "unpinned-source",
                    f"claim '{claim.id}': expect checks source '{ref}', which has no pinned copy",
                    "name a pinned primary source in the expect's 'source:'",
                    record_id=claim.id,
                )
            if e.op not in ("present", "absent") and e.value is None:
                yield Diagnostic(
                    e.mark or claim.mark,
                    "expect-value",
                    f"claim '{claim.id}': the '{e.op}' check needs a 'value'",
                    "add 'value:'",
                    record_id=claim.id,
                )
            if e.op == "count" and (isinstance(e.value, bool) or not isinstance(e.value, int)):
                yield Diagnostic(
                    e.mark or claim.mark,
                    "expect-value",
                    f"claim '{claim.id}': 'count' takes a whole number, not {_shown(e.value)}",
                    "write e.g. 'value: 9'",
                    record_id=claim.id,
                )
            if e.op == "matches" and isinstance(e.value, str):
                try:
                    re.compile(e.value)
                except re.error as err:
                    yield Diagnostic(
                        e.mark or claim.mark,
                        "expect-value",
                        f"claim '{claim.id}': the regular expression is invalid: {err}",
                        "fix the pattern",
                        record_id=claim.id,
                    )
        if not claim.verdict:
            yield Diagnostic(
                rec_mark("id"),
                "no-verdict",
                f"claim '{claim.id}' has no recorded verdict",
                "run `a2a-kb check` and record the verdict it computes after review",
                Severity.WARNING,
                claim.id,
            )


def _claim_marks(ctx: _Context, claim: Claim) -> Callable[[str], Mark]:
    record = ctx.raw_records.get(id(claim.raw))
    if record is None:
        return lambda key: claim.mark
    return lambda key: record.mark(key)


def source_rules(ctx: _Context) -> Iterator[Diagnostic]:
    """Sources use https, name real versions, and keep paths inside their repository."""
    for record in ctx.loaded.records["source"]:
        d = record.data
        sid = str(d.get("id", ""))
        url = d.get("url")
        if isinstance(url, str):
            try:
                parts = urlsplit(url)
            except ValueError as e:  # e.g. an unclosed '[' of an IPv6 host
                yield Diagnostic(
                    record.mark("url"),
                    "bad-url",
                    f"source {_shown(sid)}: url {_shown(url)} is not a valid URL ({e})",
                    "write the full https address",
                    record_id=sid,
                )
                parts = None
            if parts is not None and (parts.scheme != "https" or not parts.netloc):
                yield Diagnostic(
                    record.mark("url"),
                    "https-only",
                    f"source {_shown(sid)}: url {_shown(url)} is not an https URL",
                    "sources are fetched over https only",
                    record_id=sid,
                )
        path = d.get("path")
        if isinstance(path, str) and (
            path.startswith(("/", "\\")) or ".." in path.split("/") or "\\" in path
        ):
            yield Diagnostic(
                record.mark("path"),
                "path-traversal",
                f"source {_shown(sid)}: path {_shown(path)} leaves the repository",
                "give the path relative to the repository root, without '..'",
                record_id=sid,
            )
        if "/" in sid or "\\" in sid or ".." in sid:
            yield Diagnostic(
                record.mark("id"),
                "path-traversal",
                f"source id {_shown(sid)} could name a file outside the cache",
                "use letters, digits, '-', '.' and one '@'",
                record_id=sid,
            )
        versions = d.get("versions")
        for i, v in enumerate(versions if isinstance(versions, list) else []):
            if isinstance(v, str) and v.removeprefix("v") not in ctx.kb.versions:
                yield Diagnostic(
                    record.mark(f"versions/{i}"),
                    "unknown-version",
                    f"source {_shown(sid)} belongs to version {_shown(v)}, which does not exist",
                    _suggest(v.removeprefix("v"), ctx.kb.versions)
                    or f"known versions: {', '.join(ctx.kb.versions)}",
                    record_id=sid,
                )


def dates(ctx: _Context) -> Iterator[Diagnostic]:
    """Dates are real calendar dates and not in the future."""
    for kind, key in (("claim", "reviewed"), ("source", "retrieved")):
        for record in ctx.loaded.records[kind]:
            value = record.data.get(key)
            if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                continue  # the schema reports the form
            rid = str(record.data.get("id", ""))
            try:
                day = dt.date.fromisoformat(value)
            except ValueError:
                yield Diagnostic(
                    record.mark(key),
                    "bad-date",
                    f"{kind} '{rid}': {key} {value} is not a date in the calendar",
                    "check the day and month",
                    record_id=rid,
                )
                continue
            if day > ctx.today:
                yield Diagnostic(
                    record.mark(key),
                    "future-date",
                    f"{kind} '{rid}': {key} {value} is in the future",
                    f"use a date on or before {ctx.today}",
                    record_id=rid,
                )


def origins(ctx: _Context) -> Iterator[Diagnostic]:
    """Each origin names a block and an item of the fetched research dossier."""
    with_origin = [c for c in ctx.kb.claims.values() if c.origin]
    with_origin_conflicts = [c for c in ctx.kb.conflicts.values() if c.origin]
    if not with_origin and not with_origin_conflicts:
        return
    if ctx.dossier_text is None:
        source = next((s for s in ctx.kb.sources.values() if s.kind == "dossier"), None)
        yield Diagnostic(
            source.mark if source else Mark("sources/secondary.yaml", 1, 1),
            "dossier-missing",
            "origins cannot be checked: the research dossier is not in the cache",
            "run `a2a-kb fetch`",
            Severity.WARNING,
        )
        return
    index = dossier.blocks(ctx.dossier_text)
    records: list[Claim | Conflict] = [*with_origin, *with_origin_conflicts]
    for rec in records:
        problem = dossier.check_origin(rec.origin, index)
        if problem:
            key = rec.origin.rsplit(":", 1)[0]
            close = dossier.closest(key, index)
            if key in index:
                tip = "use the number of an item of that section"
            elif close:
                tip = f"did you mean '{close}'?"
            else:
                tip = "copy the anchor from the dossier's '— source:' trailer"
            mark = rec.mark
            record = ctx.raw_records.get(id(rec.raw))
            if record is not None:
                mark = record.mark("origin")
            yield Diagnostic(
                mark,
                "unknown-origin",
                f"'{rec.id}': origin {rec.origin} {problem}",
                tip,
                record_id=rec.id,
            )


def conflict_sides(ctx: _Context) -> Iterator[Diagnostic]:
    """Each side names real claims, and each of those claims lists the conflict."""
    for record in ctx.loaded.records["conflict"]:
        conflict = ctx.kb.conflicts.get(str(record.data.get("id")))
        if conflict is None or conflict.raw is not record.data:
            continue
        for si, side in enumerate(conflict.sides):
            for ci, cid in enumerate(side.claims):
                mark = record.mark(f"sides/{si}/claims/{ci}")
                claim = ctx.kb.claims.get(cid)
                if claim is None:
                    yield Diagnostic(
                        mark,
                        "unknown-claim",
                        f"conflict {conflict.id} names claim '{cid}', which does not exist",
                        _suggest(cid, ctx.kb.claims) or "check the id, or write the claim",
                        record_id=conflict.id,
                    )
                elif conflict.id not in claim.conflicts:
                    yield Diagnostic(
                        mark,
                        "conflict-not-listed",
                        f"conflict {conflict.id} names claim '{cid}', "
                        f"but that claim does not list {conflict.id}",
                        f"add {conflict.id} to the claim's conflicts",
                        record_id=conflict.id,
                    )
        if conflict.status == "resolved-in-version" and not conflict.resolved_in:
            yield Diagnostic(
                record.mark("status"),
                "resolved-in",
                f"conflict {conflict.id} is resolved in a version but names none",
                "add 'resolved_in: <version>'",
                record_id=conflict.id,
            )
        if conflict.resolved_in and conflict.resolved_in not in ctx.kb.versions:
            yield Diagnostic(
                record.mark("resolved_in"),
                "unknown-version",
                f"conflict {conflict.id} is resolved in '{conflict.resolved_in}', which does not exist",
                _suggest(conflict.resolved_in, ctx.kb.versions)
                or f"known versions: {', '.join(ctx.kb.versions)}",
                record_id=conflict.id,
            )
    for claim in ctx.kb.claims.values():
        for cid in claim.conflicts:
            conflict = ctx.kb.conflicts.get(cid)
            if conflict and not any(claim.id in s.claims for s in conflict.sides):
                yield Diagnostic(
                    claim.mark,
                    "conflict-not-listed",
                    f"claim '{claim.id}' lists conflict {cid}, but no side of {cid} names it",
                    f"add '{claim.id}' to a side of {cid}, or drop {cid} from the claim",
                    Severity.WARNING,
                    claim.id,
                )


def pinned_sources(ctx: _Context) -> Iterator[Diagnostic]:
    """A source pinned to a commit says where in the repository it lives; a capture's
    transcript exists in captures/."""
    for source in ctx.kb.sources.values():
        if source.local and not (
            source.path.startswith("captures/") and (ctx.project.root / source.path).is_file()
        ):
            yield Diagnostic(
                source.mark,
                "missing-capture",
                f"capture source '{source.id}' names {source.path!r}, which is not a transcript in captures/",
                "run `a2a-kb capture` or fix the path",
                record_id=source.id,
            )
        if source.commit and not source.path:
            yield Diagnostic(
                source.mark,
                "pinned-path",
                f"source '{source.id}' has a commit but no path",
                "add the file's path in the repository",
                record_id=source.id,
            )
        if source.commit and source.commit not in source.url:
            yield Diagnostic(
                source.mark,
                "pinned-url",
                f"source '{source.id}' is pinned to {source.commit[:7]} "
                "but its url does not name that commit",
                "use the raw URL of the pinned commit",
                record_id=source.id,
            )


RULES: list[Rule] = [
    unique_ids,
    claim_references,
    source_rules,
    dates,
    origins,
    conflict_sides,
    pinned_sources,
]
