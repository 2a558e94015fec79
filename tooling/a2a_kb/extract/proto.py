"""Facts of a .proto file: the gRPC binding of v0.2.2–v0.3.0 and the normative v1 proto.

proto-schema-parser gives the structure (names, numbers, options, comments) but no
positions. Its parser takes a set-up hook, through which a listener records the first and
last line of every declaration and comment of the same parse, so the lines are exact and
never guessed from the text. The hook also swaps ANTLR's default error listener (which
prints to stderr and carries on) for one that stops with the position of the error.

Read: the TaskState enum (numbers, comments, and the class each comment gives its value),
every message's fields (number, type, required through `(google.api.field_behavior) =
REQUIRED`, `json_name`), reserved numbers and names, every service's methods, the
comment of every message, field, service and method (`comment` facts: what the
sweep's claims about the proto's words are checked against), and the inventories
(`inventory`) of the comments' normative and time-limit sentences, for the file
and for each top-level declaration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from antlr4.error.ErrorListener import ErrorListener
from antlr4.tree.Tree import ParseTreeListener
from proto_schema_parser import ast
from proto_schema_parser.parser import Parser

from ..facts import Fact
from .artifact import Artifact, Draft
from .inventory import DOCUMENT, PROSE_KINDS, Inventory
from .lifecycle import TASK_STATE, EnumEntry, class_in_words, enum_drafts

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.

Span = tuple[int, int]

# Parse-tree rules whose position is recorded, with the child that holds their name.
_NAMED_RULES = {
    "MessageDeclContext": ("message", "messageName"),
    "EnumDeclContext": ("enum", "enumName"),
    "ServiceDeclContext": ("service", "serviceName"),
    "EnumValueDeclContext": ("value", "enumValueName"),
    "MessageFieldDeclContext": ("field", "fieldName"),
    "FieldDeclWithCardinalityContext": ("field", "fieldName"),
    "OneofFieldDeclContext": ("field", "fieldName"),
    "MapFieldDeclContext": ("field", "fieldName"),
    "MethodDeclContext": ("method", "methodName"),
}
_SCOPES = ("MessageDeclContext", "EnumDeclContext", "ServiceDeclContext")


class _SyntaxError(Exception):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"line {line}:{column + 1}: {message}")


class _Raise(ErrorListener):
    def syntaxError(self, recognizer: Any, offending: Any, line: int, column: int,
                    msg: str, e: Any) -> None:
        raise _SyntaxError(line, column, msg)


@dataclass
class _Positions(ParseTreeListener):
    """Lines of each declaration, keyed by (what, scope…, name), and of each comment."""

    spans: dict[tuple[str, ...], Span] = field(default_factory=dict)
    reserved: dict[str, list[Span]] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)  # line → text, whole-line comments only
    trailing: dict[int, str] = field(default_factory=dict)  # line → text, after a declaration

    def exitEveryRule(self, ctx: Any) -> None:
        rule = type(ctx).__name__
        if ctx.stop is None:
            return  # an empty rule, such as the file rule of an empty file
        span = (ctx.start.line, ctx.stop.line)
        if rule == "CommentDeclContext":
            self._comment(ctx)
        elif rule in ("MessageReservedDeclContext", "EnumReservedDeclContext"):
            self.reserved.setdefault(".".join(_scope(ctx)), []).append(span)
        elif rule in _NAMED_RULES:
            what, child = _NAMED_RULES[rule]
            name_ctx = getattr(ctx, child)()
            if name_ctx is not None:
                self.spans.setdefault((what, *_scope(ctx), name_ctx.getText()), span)

    def _comment(self, ctx: Any) -> None:
        text = ctx.getText()
        line = ctx.start.line
        column = ctx.start.column
        before = ctx.start.getInputStream().getText(ctx.start.start - column, ctx.start.start - 1)
        for offset, part in enumerate(text.splitlines()):
            if before.strip() and offset == 0:
                self.trailing[line] = _comment_text(part)
            else:
                self.comments[line + offset] = _comment_text(part)


def _scope(ctx: Any) -> list[str]:
    """Names of the messages, enums and services that enclose `ctx`, outermost first."""
    names: list[str] = []
    parent = ctx.parentCtx
    while parent is not None:
        rule = type(parent).__name__
        if rule in _SCOPES:
            names.append(getattr(parent, _NAMED_RULES[rule][1])().getText())
        parent = parent.parentCtx
    return names[::-1]


def _comment_text(line: str) -> str:
    text = line.strip()
    for marker in ("//", "/*", "*/", "*"):
        text = text.removeprefix(marker).removesuffix("*/").strip()
    return text


def parse(artifact: Artifact) -> tuple[ast.File, _Positions]:
    positions = _Positions()

    def set_up_lexer(lexer: Any) -> None:
        lexer.removeErrorListeners()
        lexer.addErrorListener(_Raise())

    def set_up_parser(parser: Any) -> None:
        parser.removeErrorListeners()
        parser.addErrorListener(_Raise())
        parser.addParseListener(positions)

    try:
        tree = Parser(setup_lexer=set_up_lexer, setup_parser=set_up_parser).parse(artifact.text)
    except _SyntaxError as e:
        raise artifact.fail(f"not a valid .proto file: {e}") from e
    return tree, positions


def extract(artifact: Artifact) -> list[Fact]:
    tree, positions = parse(artifact)
    drafts: list[Draft] = []
    enums = 0
    for element, scope in _walk(tree.file_elements, []):
        if isinstance(element, ast.Enum) and element.name == TASK_STATE and not scope:
            drafts += _task_state(element, positions)
            enums += 1
        elif isinstance(element, ast.Message):
            drafts += _message(element, scope, positions)
        elif isinstance(element, ast.Service):
            drafts += _service(element, positions)
    if not enums:
        raise artifact.fail("no top-level `enum TaskState` in the file")
    for kind, what in (("message-fields", "message"), ("rpc-methods", "service")):
        if not any(d.kind == kind for d in drafts):
            raise artifact.fail(f"no {what} declarations in the file")
    drafts += _inventories(positions, len(artifact.text.splitlines()))
    return artifact.facts(drafts)


def _comment_blocks(positions: _Positions) -> list[tuple[int, int, str]]:
    """Runs of whole-line comments on consecutive lines, and each trailing comment, as
    (first line, last line, text): a sentence never runs from one block into another."""
    blocks: list[tuple[int, int, str]] = []
    for line in sorted(positions.comments):
        text = positions.comments[line]
        if blocks and blocks[-1][1] == line - 1 and (blocks[-1][0], line - 1) not in positions.trailing:
            first, _, words = blocks[-1]
            blocks[-1] = (first, line, f"{words} {text}".strip())
        else:
            blocks.append((line, line, text))
    blocks += [(line, line, text) for line, text in positions.trailing.items()]
    return sorted(blocks)


def _inventories(positions: _Positions, line_count: int) -> list[Draft]:
    """What the comments say that is normative or about time limits, for the whole file
    and for each top-level message, enum and service (its leading comment included)."""
    declarations = []
    for key, (start, end) in positions.spans.items():
        if len(key) == 2 and key[0] in ("message", "enum", "service"):
            declarations.append((key[1], _leading_comment(positions, start)[1], end))
    document = Inventory()
    by_name = {name: Inventory() for name, _, _ in declarations}
    for first, last, text in _comment_blocks(positions):
        document.add_prose(text)
        for name, start, end in declarations:
            if start <= first and last <= end:
                by_name[name].add_prose(text)
    drafts = document.drafts(DOCUMENT, 1, max(line_count, 1), PROSE_KINDS, always=True)
    for name, start, end in sorted(declarations, key=lambda d: d[1]):
        drafts += by_name[name].drafts(name, start, end, PROSE_KINDS, always=False)
    return drafts


def _walk(elements: list[Any], scope: list[str]) -> list[tuple[Any, list[str]]]:
    """Every declaration with the names of the messages enclosing it, in file order."""
    found: list[tuple[Any, list[str]]] = []
    for element in elements:
        found.append((element, scope))
        if isinstance(element, ast.Message):
            found += _walk(element.elements, [*scope, element.name])
    return found


def _leading_comment(positions: _Positions, line: int) -> tuple[str, int]:
    """The comment block right above `line` (joined) and its first line."""
    first = line
    while first - 1 in positions.comments:
        first -= 1
    words = [positions.comments[n] for n in range(first, line)]
    return " ".join(w for w in words if w), first


def _task_state(enum: ast.Enum, positions: _Positions) -> list[Draft]:
    entries = []
    for value in enum.elements:
        if not isinstance(value, ast.EnumValue):
            continue
        start, end = positions.spans[("value", enum.name, value.name)]
        comment, first = _leading_comment(positions, start)
        trailing = positions.trailing.get(end, "")
        description = " ".join(p for p in (comment, trailing) if p)
        entries.append(EnumEntry(spelling=value.name, number=value.number, description=description,
                                 state_class=class_in_words(description),
                                 line_start=first, line_end=end))
    span = positions.spans[("enum", enum.name)]
    return enum_drafts(entries, *span) + _comment(positions, enum.name, span)


def _fields(elements: list[Any]) -> list[ast.Field | ast.MapField]:
    found: list[ast.Field | ast.MapField] = []
    for element in elements:
        if isinstance(element, ast.Field | ast.MapField):
            found.append(element)
        elif isinstance(element, ast.OneOf):
            found += _fields(element.elements)
    return found


def _message(message: ast.Message, scope: list[str], positions: _Positions) -> list[Draft]:
    name = ".".join([*scope, message.name])
    fields = _fields(message.elements)
    span = positions.spans[("message", *scope, message.name)]
    drafts = [Draft("message-fields", name, [f.name for f in fields], *span)]
    drafts += _comment(positions, name, span)
    for item in fields:
        value = {"number": item.number, "type": field_type(item),
                 "required": _option(item.options, "(google.api.field_behavior)") == "REQUIRED",
                 "json_name": _option(item.options, "json_name")}
        field_span = positions.spans[("field", *scope, message.name, item.name)]
        drafts.append(Draft("field", f"{name}.{item.name}", value, *field_span))
        drafts += _comment(positions, f"{name}.{item.name}", field_span)
    reserved = [e for e in message.elements if isinstance(e, ast.Reserved)]
    if reserved:
        spans = positions.reserved.get(name, [])
        numbers: list[int | str] = [n for r in reserved for n in _reserved_numbers(r.ranges)]
        names = [n for r in reserved for n in r.names]
        drafts.append(Draft("reserved", name, {"numbers": numbers, "names": names},
                            min(s[0] for s in spans), max(s[1] for s in spans)))
    return drafts


def field_type(item: ast.Field | ast.MapField) -> str:
    """The field's type as written, with `X[]` for repeated and `map<K, V>` for maps,
    the same notation as the JSON schema extractor's."""
    if isinstance(item, ast.MapField):
        return f"map<{item.key_type}, {item.value_type}>"
    if item.cardinality == ast.FieldCardinality.REPEATED:
        return f"{item.type}[]"
    return item.type


def _option(options: list[ast.Option], name: str) -> str | None:
    for option in options:
        if option.name == name:
            value = option.value
            if isinstance(value, ast.Identifier):
                return value.name
            if isinstance(value, list):  # field_behavior may list several behaviours
                names = [v.name for v in value if isinstance(v, ast.Identifier)]
                return "REQUIRED" if "REQUIRED" in names else (names[0] if names else None)
            return str(value)
    return None


def _reserved_numbers(ranges: list[str]) -> list[int | str]:
    """`5`, `9 to 11` → 5, 9, 10, 11; an open range (`20 to max`) is kept as written."""
    numbers: list[int | str] = []
    for item in ranges:
        low, _, high = (p.strip() for p in item.partition("to"))
        if not high:
            numbers.append(int(low))
        elif high.isdigit():
            numbers += list(range(int(low), int(high) + 1))
        else:
            numbers.append(" ".join(item.split()))
    return numbers


def _service(service: ast.Service, positions: _Positions) -> list[Draft]:
    methods = [m for m in service.elements if isinstance(m, ast.Method)]
    span = positions.spans[("service", service.name)]
    drafts = [Draft("rpc-methods", service.name, [m.name for m in methods], *span)]
    drafts += _comment(positions, service.name, span)
    for method in methods:
        value = {"request": method.input_type.type, "response": method.output_type.type,
                 "streaming": method.input_type.stream or method.output_type.stream}
        method_span = positions.spans[("method", service.name, method.name)]
        drafts.append(Draft("rpc-method", f"{service.name}.{method.name}", value, *method_span))
        drafts += _comment(positions, f"{service.name}.{method.name}", method_span)
    return drafts


def _comment(positions: _Positions, subject: str, span: Span) -> list[Draft]:
    """The comment of a declaration: the block right above it, and a comment trailing its
    first line (a field's `// …` after the semicolon); nothing when it has none."""
    above, first = _leading_comment(positions, span[0])
    trailing = positions.trailing.get(span[0], "") if span[0] == span[1] else ""
    text = " ".join(p for p in (above, trailing) if p)
    if not text:
        return []
    return [Draft("comment", subject, text, first, span[0])]
