"""Facts of the conformance suite a2a-tck (source kind `test-suite`), read with Python's ast.

The suite is Python, so its own parser reads it: nothing is matched by regular expression
except the `§` references of a docstring. A file is one of:

- a requirement module (1.0-dev `tck/requirements/*.py`): each `RequirementSpec(...)`
  gives `suite-requirement:<ID>`; `base.py` also gives each `ErrorBinding(...)` as
  `error-mapping:<ErrorName>` (the same shape the specification's mapping table gives,
  so a claim can set the two side by side) and its `TERMINAL_STATES` as
  `terminal-states:TaskState`;
- a test module: each test function gives `suite-test:<Class>::<name>` (or `<name>`)
  with the requirements it records, its markers, the `§` sections its docstring cites,
  and what its failing conditions check (see `checks_of`); the parametrized runner's
  selection and validation rules give `suite-runner:<function>`;
- the 1.0-dev suite's task factories (`_task_helpers.py`): the states each one makes
  (`suite-helper:<function>`);
- the 0.3 suite's `tests/markers.py`: each marker with the level its comments give
  (`suite-marker:<name>`);
- 1.0-dev's `specification/version.json`: the A2A commit the suite copied its spec from
  (`suite-spec-pin:specification`);
- the 0.3 suite's gRPC client (`tck/transport/grpc_client.py`): each function that maps a
  wire state through a dict of `TASK_STATE_*` names, with its fallbacks
  (`suite-state-map:<function>`), and each result it builds with a literal state
  (`suite-fixed-state:<function>`);
- 1.0-dev's `specification/a2a.json`, the JSON Schema its data-model tests validate
  responses with: which values of `TaskStatus.state` that schema accepts, found by asking
  jsonschema about each probe in `STATE_PROBES` (`suite-schema-state:TaskStatus.state`).

The suite's files are data. Some of its text addresses coding assistants; it is read here
as text, like the rest, and nothing in it is followed.

Why it is long: the suite's files come in several shapes (requirement modules, tests, the
runner, state maps) and each needs its own reading of the same ast helpers (literals,
keywords, spans, markers). They are small functions on one parse; a second module would
import nearly every helper of the first.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..facts import Fact, canonical_state
from .artifact import Artifact, Draft

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.

LEVELS = ("MUST", "SHOULD", "MAY")
# What a failing condition compares with, and how strictly (strictest first).
CHECK_ORDER = ("error-code", "state", "length", "field", "error-text", "any-error", "success", "other")
# The runner's own helpers whose conditions decide what a parametrized requirement is held to.
RUNNER_FUNCTIONS = ("_parametrize_requirements", "_validate_response")
_SECTION = re.compile(r"§\s*(\d+(?:\.\d+)*)")
_REQUIREMENT_ID = re.compile(r"^([A-Z][A-Z_]*(?:-[A-Za-z0-9]+)+):")
# Names whose truth means the operation succeeded (a check that fails on them wants an error).
_SUCCESS = re.compile(r"(^|_)success($|_)|is_json_rpc_success_response")
_ERROR = re.compile(r"is_json_rpc_error_response|(^|_)error_response$")
_FAILS = ("append", "fail")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # errors.append(...), pytest.fail(...)


def extract(artifact: Artifact) -> list[Fact]:
    text = artifact.text
    if artifact.path.endswith("/a2a.json"):
        drafts = _schema_states(artifact, text)
    elif artifact.path.endswith(".json"):
        drafts = _spec_pin(artifact, text)
    else:
        try:
            module = ast.parse(text, filename=artifact.path)
        except SyntaxError as e:
            raise artifact.fail(f"not Python the ast module can parse: line {e.lineno}: {e.msg}") from e
        drafts = [*_requirements(module), *_error_bindings(module), *_terminal_states(module),
                  *_markers(module, text), *_tests(module), *_runner(module), *_helpers(module),
                  *_state_maps(module), *_fixed_states(module)]
    if not drafts:
        raise artifact.fail("no requirement, error binding, marker, test or spec pin in the file")
    return artifact.facts(drafts)


# --- literal values ---------------------------------------------------------------------------


def _name(node: ast.AST) -> str:
    """`a.b.c` of a Name/Attribute chain, or ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _name(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _literal(node: ast.AST | None, constants: dict[str, Any]) -> Any:
    """The value of a literal, joined string, list or known module constant; None otherwise."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_literal(v, constants) or "") if not isinstance(v, ast.Constant) else str(v.value)
                       for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _literal(node.value, constants)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal(node.operand, constants)
        return -inner if isinstance(inner, int | float) else None
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_literal(e, constants) for e in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, constants), _literal(node.right, constants)
        return left + right if isinstance(left, str) and isinstance(right, str) else None
    name = _name(node)
    return constants.get(name.rsplit(".", 1)[-1]) if name else None


def _constants(module: ast.Module) -> dict[str, Any]:
    """Module-level names bound to literals (`_TASK_NOT_FOUND_ERROR_CODE = -32001`)."""
    found: dict[str, Any] = {}
    for node in module.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _literal(node.value, found)
            if isinstance(value, int | str) and not isinstance(value, bool):
                found[node.targets[0].id] = value
    return found


def _calls(module: ast.AST, callee: str) -> Iterator[ast.Call]:
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and _name(node.func).rsplit(".", 1)[-1] == callee:
            yield node


def _keywords(call: ast.Call) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg}


def _span(node: ast.AST) -> tuple[int, int]:
    start = getattr(node, "lineno", 1)
    decorators = getattr(node, "decorator_list", [])
    if decorators:
        start = min(start, *(d.lineno for d in decorators))
    return start, getattr(node, "end_lineno", None) or start


# --- requirement modules --------------------------------------------------------------------


def _requirements(module: ast.Module) -> list[Draft]:
    constants = _constants(module)
    drafts = []
    for call in _calls(module, "RequirementSpec"):
        k = _keywords(call)
        rid = _literal(k.get("id"), constants)
        if not isinstance(rid, str):
            continue
        tags = [str(t) if t is not None else _name(e).rsplit(".", 1)[-1].lower().replace("_", "-")
                for t, e in zip(_literal(k.get("tags"), constants) or [],
                                getattr(k.get("tags"), "elts", []), strict=False)]
        value = {
            "level": _name(k["level"]).rsplit(".", 1)[-1] if "level" in k else None,
            "section": _literal(k.get("section"), constants),
            "title": _literal(k.get("title"), constants),
            "operation": _operation(k.get("operation")),
            "expected_error": _error_name(k.get("expected_error")),
            "multi_operation": "multi-operation" in tags,
            "tags": tags,
        }
        drafts.append(Draft("suite-requirement", rid, value, *_span(call)))
    return drafts


_OPERATIONS = {
    "SEND_MESSAGE": "SendMessage", "SEND_STREAMING_MESSAGE": "SendStreamingMessage",
    "GET_TASK": "GetTask", "LIST_TASKS": "ListTasks", "CANCEL_TASK": "CancelTask",
    "SUBSCRIBE_TO_TASK": "SubscribeToTask",
}


def _operation(node: ast.AST | None) -> str | None:
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return None
    member = _name(node).rsplit(".", 1)[-1]
    return _OPERATIONS.get(member, member or None)


def _error_name(node: ast.AST | None) -> str | None:
    """`TASK_NOT_FOUND_ERROR` → `TaskNotFoundError` (the binding's own `name`)."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return None
    words = _name(node).rsplit(".", 1)[-1].split("_")
    return "".join(w.capitalize() for w in words) if words != [""] else None


def _error_bindings(module: ast.Module) -> list[Draft]:
    constants = _constants(module)
    drafts = []
    for call in _calls(module, "ErrorBinding"):
        k = _keywords(call)
        name = _literal(k.get("name"), constants)
        if not isinstance(name, str):
            continue
        http = _literal(k.get("http_status"), constants)
        grpc = _literal(k.get("grpc_status"), constants)
        value = {
            "json-rpc": _literal(k.get("jsonrpc_code"), constants),
            "http": http or None,  # 0 and "" mean the binding has none
            "grpc": grpc or None,
        }
        drafts.append(Draft("error-mapping", name, value, *_span(call)))
    return drafts


def _terminal_states(module: ast.Module) -> list[Draft]:
    for node in module.body:
        if (isinstance(node, ast.Assign) and [_name(t) for t in node.targets] == ["TERMINAL_STATES"]
                and isinstance(node.value, ast.Call) and node.value.args
                and isinstance(node.value.args[0], ast.Set)):
            names = [canonical_state(_name(e)) for e in node.value.args[0].elts]
            states = [s for s in names if s]
            return [Draft("terminal-states", "TaskState", states, *_span(node))] if states else []
    return []


# --- 0.3 markers ----------------------------------------------------------------------------


def _markers(module: ast.Module, text: str) -> list[Draft]:
    """Each `name = pytest.mark.name` with the level its trailing comment gives, or else the
    comment line that heads its group."""
    trailing: dict[int, str] = {}
    heading: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                words = token.string.lstrip("#").strip()
                own_line = token.line.strip().startswith("#")
                (heading if own_line else trailing)[token.start[0]] = words
    except (tokenize.TokenError, SyntaxError):
        return []
    drafts = []
    for node in module.body:
        if not (isinstance(node, ast.Assign) and _name(node.value).startswith("pytest.mark.")):
            continue
        group = next((heading[n] for n in range(node.lineno - 1, 0, -1) if n in heading), "")
        comment = trailing.get(node.lineno, "")
        level = _level(comment) or _level(group)
        for target in node.targets:
            if isinstance(target, ast.Name):
                drafts.append(Draft("suite-marker", target.id,
                                    {"level": level, "comment": comment, "group": group}, *_span(node)))
    return drafts


def _level(comment: str) -> str | None:
    found = [level for level in LEVELS if re.search(rf"\b{level}\b", comment)]
    return "/".join(found) or None


# --- test modules -----------------------------------------------------------------------------


@dataclass
class _Test:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    owner: ast.ClassDef | None
    markers: list[str] = field(default_factory=list)


def _marker_names(decorators: list[ast.expr]) -> list[str]:
    names = []
    for d in decorators:
        target = d.func if isinstance(d, ast.Call) else d
        name = _name(target).removeprefix("pytest.mark.")
        if name and name not in ("parametrize", "asyncio", "fixture", "pytest.fixture"):
            names.append(name)
    return names


def _test_functions(module: ast.Module) -> Iterator[_Test]:
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            yield _Test(node, None, _marker_names(node.decorator_list))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            inherited = _marker_names(node.decorator_list)
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test_"):
                    yield _Test(item, node, [*inherited, *_marker_names(item.decorator_list)])


def _requirement_names(module: ast.Module) -> dict[str, str]:
    """Module-level `CORE_GET_001 = get_requirement_by_id("CORE-GET-001")` bindings."""
    found = {}
    for node in module.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and _name(node.value.func).endswith("get_requirement_by_id")
                and node.value.args and isinstance(node.value.args[0], ast.Constant)):
            found[node.targets[0].id] = str(node.value.args[0].value)
    return found


def _tests(module: ast.Module) -> list[Draft]:
    constants = _constants(module)
    named = _requirement_names(module)
    drafts = []
    for test in _test_functions(module):
        node = test.node
        doc = ast.get_docstring(node) or ""
        requirements = sorted({named[n.id] for n in ast.walk(node)
                               if isinstance(n, ast.Name) and n.id in named})
        leading = _REQUIREMENT_ID.match(doc)
        if leading and leading.group(1) not in requirements:
            requirements.append(leading.group(1))
        subject = f"{test.owner.name}::{node.name}" if test.owner else node.name
        value = {
            "requirements": requirements,
            "markers": test.markers,
            "sections": list(dict.fromkeys(_SECTION.findall(doc))),
            "checks": checks_of(node, constants),
        }
        drafts.append(Draft("suite-test", subject, value, *_span(node)))
    return drafts


def _runner(module: ast.Module) -> list[Draft]:
    """The conditions of the parametrized runner's helpers, as the suite writes them."""
    drafts = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name in RUNNER_FUNCTIONS:
            conditions = [ast.unparse(c) for n in ast.walk(node)
                          if isinstance(n, ast.comprehension) for c in n.ifs]
            conditions += [ast.unparse(n.test) for n in ast.walk(node) if isinstance(n, ast.If)]
            calls = sorted({_name(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)
                            and _name(n.func).startswith("validate_")})
            drafts.append(Draft("suite-runner", node.name,
                                {"conditions": conditions, "validates_with": calls},
                                *_span(node)))
    return drafts


def _helpers(module: ast.Module) -> list[Draft]:
    """What the suite's task factories (`_task_helpers.py`) make: the states they name and
    the other factories they build on. Only modules without tests have helpers."""
    if any(True for _ in _test_functions(module)):
        return []
    public = {n.name for n in module.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    drafts = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("create_"):
            states = [canonical_state(n.id) for n in ast.walk(node)
                      if isinstance(n, ast.Name) and n.id.startswith("TASK_STATE_")]
            calls = sorted({_name(n.func) for n in ast.walk(node)
                            if isinstance(n, ast.Call) and _name(n.func) in public - {node.name}})
            drafts.append(Draft("suite-helper", node.name,
                                {"states": list(dict.fromkeys(s for s in states if s)), "builds_on": calls},
                                *_span(node)))
    return drafts


# --- how the suite's own clients read a state (0.3 `tck/transport/*_client.py`) --------------


def _functions(module: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _state_maps(module: ast.Module) -> list[Draft]:
    """A function that turns a wire state into the suite's state word through a dict of
    `TASK_STATE_*` names: the dict, what `.get` falls back to for a name not in it, and
    what the function returns when the name cannot be read at all (an `except` branch)."""
    drafts = []
    for function in _functions(module):
        mappings = {}
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and len(node.targets) == 1:
                try:
                    found = ast.literal_eval(node.value)
                except ValueError:
                    continue
                if found and all(isinstance(k, str) and k.startswith("TASK_STATE_") for k in found):
                    mappings[_name(node.targets[0])] = found
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            table = _name(node.func.value)
            if node.func.attr != "get" or table not in mappings:
                continue
            fallback = _literal(node.args[1], {}) if len(node.args) > 1 else None
            on_error = [_literal(r.value, {}) for h in ast.walk(function) if isinstance(h, ast.ExceptHandler)
                        for r in ast.walk(h) if isinstance(r, ast.Return) and r.value is not None]
            drafts.append(Draft("suite-state-map", function.name,
                                {"mapping": mappings[table], "fallback": fallback,
                                 "on_error": on_error[0] if on_error else None}, *_span(function)))
    return drafts


def _is(node: ast.AST | None, text: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == text


def _fixed_states(module: ast.Module) -> list[Draft]:
    """A client method that builds its result's `status` with a literal state instead of
    the one the server answered (`{"status": {"state": "canceled"}}`)."""
    drafts = []
    for function in _functions(module):
        for node in ast.walk(function):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if not (_is(key, "status") and isinstance(value, ast.Dict)):
                    continue
                literal = [v.value for k, v in zip(value.keys, value.values, strict=True)
                           if _is(k, "state") and isinstance(v, ast.Constant)]
                if literal:
                    state = {"state": literal[0]}
                    drafts.append(Draft("suite-fixed-state", function.name, state, *_span(node)))
    return drafts


# --- what a test checks -----------------------------------------------------------------------


def _fails(body: list[ast.stmt]) -> bool:
    """Whether a branch records a failure (errors.append, pytest.fail, raise, assert False)."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and _name(node.func).rsplit(".", 1)[-1] in _FAILS:
                return True
            if isinstance(node, ast.Raise):
                return True
    return False


def _skips(body: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Call) and _name(n.func).endswith("skip")
               for stmt in body for n in ast.walk(stmt))


def checks_of(function: ast.FunctionDef | ast.AsyncFunctionDef, constants: dict[str, Any]) -> list[str]:
    """What the failing conditions of a test look at, strictest first, each once.

    A condition fails the test when it is asserted, or when it guards a branch that records
    a failure; a branch that only skips is a precondition and does not count. Each
    condition is read for what it compares: an A2A error code (`error-code -32001`), a
    task state (`state canceled`, `state terminal`), a length bound, a field's
    presence, the mere presence of an error (`any-error`), or success (`success`).
    A local name stands for the expression last assigned to it.
    """
    assigned: dict[str, ast.expr] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    found: list[str] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            found += _read(node.test, assigned, constants, wants_true=True)
        elif isinstance(node, ast.If) and _fails(node.body) and not _skips(node.body):
            found += _read(node.test, assigned, constants, wants_true=False)
        elif isinstance(node, ast.If) and node.orelse and _fails(node.orelse) and not _skips(node.orelse):
            found += _read(node.test, assigned, constants, wants_true=True)
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=lambda c: (CHECK_ORDER.index(c.split(" ", 1)[0].rstrip(":")), c))


def _read(test: ast.expr, assigned: dict[str, ast.expr], constants: dict[str, Any],
          wants_true: bool, depth: int = 0) -> list[str]:
    """The checks in one condition; `wants_true` is whether the test passes when it holds."""
    if depth > 4:
        return []
    checks = _classify(test, assigned, constants, wants_true, depth)
    # A failing condition this reader cannot name still counts, written as the suite wrote it.
    return checks or [f"other: {ast.unparse(test)[:80]}"] if depth == 0 else checks


def _classify(test: ast.expr, assigned: dict[str, ast.expr], constants: dict[str, Any],
              wants_true: bool, depth: int) -> list[str]:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _read(test.operand, assigned, constants, not wants_true, depth + 1)
    if isinstance(test, ast.BoolOp):
        return [c for v in test.values for c in _read(v, assigned, constants, wants_true, depth + 1)]
    if isinstance(test, ast.Name) and test.id in assigned:
        return _read(assigned[test.id], assigned, constants, wants_true, depth + 1)
    checks: list[str] = []
    if isinstance(test, ast.Compare):
        checks += _compare(test, assigned, constants)
    name = _name(test.func) if isinstance(test, ast.Call) else _name(test)
    leaf = name.rsplit(".", 1)[-1]
    if _SUCCESS.search(leaf):
        checks.append("success" if wants_true else "any-error")
    elif _ERROR.search(leaf):
        checks.append("any-error" if wants_true else "success")
    elif "terminal" in leaf:
        checks.append("state terminal")
    return checks


def _compare(test: ast.Compare, assigned: dict[str, ast.expr], constants: dict[str, Any]) -> list[str]:
    checks = []
    sides = [test.left, *test.comparators]
    values = [_literal(s, constants) for s in sides]
    for side, value in zip(sides, values, strict=True):
        if isinstance(value, int) and not isinstance(value, bool) and -32999 <= value <= -32000:
            checks.append(f"error-code {value}")
        elif isinstance(value, str) and canonical_state(value) and value not in ("unknown",):
            checks.append(f"state {canonical_state(value)}")
        elif isinstance(value, list) and value and all(
                isinstance(v, str) and canonical_state(v) for v in value):
            checks.append("state " + "|".join(sorted({str(canonical_state(v)) for v in value})))
        elif "TERMINAL" in _name(side).upper():
            checks.append("state terminal")
        elif isinstance(side, ast.Call) and _name(side.func) == "len":
            checks.append("length")
    if any(isinstance(op, ast.In | ast.NotIn) for op in test.ops) and isinstance(values[0], str):
        key = values[0]
        if key == "error":
            checks.append("any-error")
        else:  # a key of a body, or words looked for in an error's text
            checks.append(f"field {key}" if _IDENTIFIER.fullmatch(key) else "error-text")
    # a comparison with a name whose value was read from a response's error code
    for side in sides:
        read_code = (isinstance(side, ast.Name) and side.id in assigned
                     and "code" in ast.unparse(assigned[side.id]))
        if read_code and not any(c.startswith("error-code") for c in checks):
            checks.append("error-code")
    return checks


# --- the spec pin -----------------------------------------------------------------------------


# What a TaskStatus may carry as its state, named as a fact's keys: every state of the v1.0
# proto, the zero value spelled and as a number, a number no state has, a name no version
# has, and no state at all.
STATE_PROBES: dict[str, Any] = {
    **{name: name for name in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
                               "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED",
                               "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_UNSPECIFIED")},
    "0": 0, "99": 99, "TASK_STATE_PAUSED": "TASK_STATE_PAUSED",
}
_STATUS_DEFINITION = "Task Status"


def _schema_states(artifact: Artifact, text: str) -> list[Draft]:
    from jsonschema.validators import validator_for

    from .json_positions import locate

    try:
        schema = json.loads(text)
    except ValueError as e:
        raise artifact.fail(f"not valid JSON: {e}") from e
    status = (schema.get("definitions") or {}).get(_STATUS_DEFINITION) if isinstance(schema, dict) else None
    if not isinstance(status, dict) or "state" not in (status.get("properties") or {}):
        raise artifact.fail(f"no definition '{_STATUS_DEFINITION}' with a state property")
    # The state property alone: the definition's other members refer to files of the bundle.
    only_state = {"type": "object", "properties": {"state": status["properties"]["state"]},
                  "required": status.get("required", [])}
    validator = validator_for(only_state)(only_state)
    accepts = {key: validator.is_valid({"state": value}) for key, value in STATE_PROBES.items()}
    accepts["no state"] = validator.is_valid({})
    start, end = locate(text).get(("definitions", _STATUS_DEFINITION, "properties", "state"), (1, 1))
    return [Draft("suite-schema-state", "TaskStatus.state", accepts, start, end)]


def _spec_pin(artifact: Artifact, text: str) -> list[Draft]:
    try:
        pin = json.loads(text)
    except ValueError as e:
        raise artifact.fail(f"not valid JSON: {e}") from e
    if not isinstance(pin, dict) or "commitHash" not in pin:
        raise artifact.fail("no commitHash: not the suite's specification/version.json")
    lines = text.splitlines()

    def line_of(key: str) -> int:
        return next((i for i, line in enumerate(lines, 1) if f'"{key}"' in line), 1)

    value = {"repository": f"{pin.get('organization', '')}/{pin.get('repository', '')}",
             "branch": pin.get("branch"), "commit": pin["commitHash"]}
    start = min(line_of("repository"), line_of("branch"), line_of("commitHash"))
    end = max(line_of("repository"), line_of("branch"), line_of("commitHash"))
    return [Draft("suite-spec-pin", "specification", value, start, end)]
