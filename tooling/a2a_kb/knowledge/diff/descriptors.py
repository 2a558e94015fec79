"""A .proto compiled by protoc into descriptors, and read back into a plain model.

protoc comes from the `grpcio-tools` wheel and the `google/api` imports from the
`googleapis-common-protos` wheel, so nothing is downloaded. `--include_source_info`
keeps each element's lines, for permalinks. The compiled `FileDescriptorSet` is cached
by the source's sha256 (and protoc's version) in the cache directory, written atomically;
a damaged copy is compiled again. What the diff reads from it (a `ProtoFile`) is
kept too (`kept`), so that a diff of sources compiled before needs neither protoc
nor protobuf's runtime.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ...cache import read_sealed, sha256_of, write_sealed
from ...errors import ConfigurationError, ExtractError
from ...records.model import Source
from .kept import kept

Lines = tuple[int, int]
NO_LINES: Lines = (0, 0)

# Paths in SourceCodeInfo: the field numbers of FileDescriptorProto and its children.
_PACKAGE, _MESSAGE, _ENUM, _SERVICE, _FILE_OPTIONS = 2, 4, 5, 6, 8
_M_FIELD, _M_NESTED, _M_ENUM, _M_ONEOF, _M_RESERVED, _M_RESERVED_NAME = 2, 3, 4, 8, 9, 10
_E_VALUE, _E_RESERVED, _E_RESERVED_NAME = 2, 4, 5
_S_METHOD = 2


@dataclass(frozen=True)
class ProtoField:
    number: int
    name: str
    json_name: str
    kind: str  # the scalar type (int32, string …), or "message" / "enum"
    type_name: str  # kind for a scalar; the message or enum, relative to the package
    cardinality: str  # "repeated" or "singular"
    presence: str  # "explicit", "implicit", or "" for a repeated field
    oneof: str  # the real oneof it belongs to ('' when none; proto3 optional is not one)
    required: bool  # (google.api.field_behavior) = REQUIRED
    map_entry: str  # "map<K, V>" when the field is a map, else ''
    lines: Lines

    @property
    def type_text(self) -> str:
        if self.map_entry:
            return self.map_entry
        return f"repeated {self.type_name}" if self.cardinality == "repeated" else self.type_name


@dataclass
class ProtoMessage:
    name: str  # relative to the package, nested with dots: "Security.SchemesEntry"
    lines: Lines
    fields: dict[int, ProtoField] = field(default_factory=dict)
    oneofs: dict[str, Lines] = field(default_factory=dict)
    reserved_ranges: list[tuple[int, int]] = field(default_factory=list)  # inclusive
    reserved_names: set[str] = field(default_factory=set)
    map_entry: bool = False

    def reserves(self, number: int) -> bool:
        return any(lo <= number <= hi for lo, hi in self.reserved_ranges)


@dataclass
class ProtoEnum:
    name: str
    lines: Lines
    values: dict[int, tuple[str, Lines]] = field(default_factory=dict)
    reserved_ranges: list[tuple[int, int]] = field(default_factory=list)
    reserved_names: set[str] = field(default_factory=set)

    def reserves(self, number: int) -> bool:
        return any(lo <= number <= hi for lo, hi in self.reserved_ranges)


@dataclass(frozen=True)
class HttpRule:
    verb: str
    path: str
    body: str

    def __str__(self) -> str:
        return f"{self.verb.upper()} {self.path}" + (f" body={self.body}" if self.body else "")


@dataclass(frozen=True)
class ProtoMethod:
    name: str
    input: str
    output: str
    client_streaming: bool
    server_streaming: bool
    http: tuple[HttpRule, ...]
    lines: Lines

    @property
    def signature(self) -> str:
        def side(streaming: bool, name: str) -> str:
            return f"stream {name}" if streaming else name

        return (f"({side(self.client_streaming, self.input)}) returns "
                f"({side(self.server_streaming, self.output)})")


@dataclass
class ProtoService:
    name: str
    lines: Lines
    methods: dict[str, ProtoMethod] = field(default_factory=dict)


@dataclass
class ProtoFile:
    """One compiled .proto: what the diff compares, each element with its lines."""

    source: Source
    package: str
    package_lines: Lines
    options: dict[str, tuple[str, Lines]]
    messages: dict[str, ProtoMessage]
    enums: dict[str, ProtoEnum]
    services: dict[str, ProtoService]


# --- compiling -------------------------------------------------------------------------------


@cache
def include_dirs() -> tuple[Path, Path]:
    """Where protoc finds `google/api/*.proto` and `google/protobuf/*.proto`."""
    spec = importlib.util.find_spec("google.api.annotations_pb2")
    tools = importlib.util.find_spec("grpc_tools")
    if spec is None or spec.origin is None or tools is None or tools.origin is None:
        raise ConfigurationError(
            "protoc or the google/api protos are missing (tip: install the project again: "
            "`make setup`, which brings grpcio-tools and googleapis-common-protos)"
        )
    googleapis = Path(spec.origin).parents[2]
    well_known = Path(tools.origin).parent / "_proto"
    return googleapis, well_known


@cache
def protoc_version() -> str:
    # The version grpcio-tools records in itself, which is its distribution's: read from
    # there, not through importlib.metadata, whose import costs a diff a tenth of its time.
    from grpc_tools.grpc_version import VERSION

    return str(VERSION)


DESCRIPTORS = "descriptors"  # under the cache; knowledge.derived sweeps it


def compile_proto(source: Source, text: str, cache_root: Path) -> bytes:
    """The serialized FileDescriptorSet of `text` (the source's .proto), from the cache
    when this text was compiled before.

    Kept by the text's sha256 and protoc's version, and sealed with this machine's key
    (`a2a_kb.seal`): a descriptor that was edited, or written by anything but this
    function here, is not believed but compiled again (a renamed enum value in a cached
    descriptor used to become a change the diff reported and the site published)."""
    digest = sha256_of(text.encode("utf-8"))
    cached = cache_root / DESCRIPTORS / f"{digest}.protoc-{protoc_version()}.binpb.sealed"
    data = read_sealed(cached)
    if data is not None and _readable(data):
        return data
    data = _protoc(source, text)
    with contextlib.suppress(OSError):  # a cache that cannot be written costs time, not correctness
        write_sealed(cached, data)
    return data


def _readable(data: bytes) -> bool:
    from google.protobuf import descriptor_pb2
    from google.protobuf.message import DecodeError

    try:
        return len(descriptor_pb2.FileDescriptorSet.FromString(data).file) == 1
    except DecodeError:
        return False


def _protoc(source: Source, text: str) -> bytes:
    import subprocess
    import tempfile

    googleapis, well_known = include_dirs()
    relative = source.path or "a2a.proto"
    with tempfile.TemporaryDirectory(prefix="a2a-kb-protoc-") as tmp:
        root = Path(tmp)
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, "utf-8")
        out = root / "descriptors.binpb"
        done = subprocess.run(
            [sys.executable, "-m", "grpc_tools.protoc", f"-I{root}", f"-I{googleapis}",
             f"-I{well_known}", "--include_source_info", f"--descriptor_set_out={out}", relative],
            capture_output=True, text=True, check=False,
        )
        if done.returncode != 0 or not out.is_file():
            message = (done.stderr or done.stdout).strip().replace(str(root) + "/", "")
            raise ExtractError(f"source '{source.id}': protoc cannot compile {relative}: {message}")
        return out.read_bytes()


# --- reading the descriptors -------------------------------------------------------------------


# Bump when ProtoFile or what read() puts in it changes: kept models are then read again.
MODEL_FORMAT = 1


def load(source: Source, text: str, cache_root: Path) -> ProtoFile:
    """Compile (or take from the cache) and read one source's .proto."""
    return kept(cache_root, text, f"protoc-{protoc_version()}.model-{MODEL_FORMAT}",
                lambda: read(source, compile_proto(source, text, cache_root)),
                _dump, lambda model: _undump(source, model))


def read(source: Source, data: bytes) -> ProtoFile:
    from google.api import annotations_pb2, field_behavior_pb2
    from google.protobuf import descriptor_pb2

    fd = descriptor_pb2.FileDescriptorSet.FromString(data).file[0]
    spans: dict[tuple[int, ...], Lines] = {}
    for loc in fd.source_code_info.location:
        span = list(loc.span)
        end = span[2] if len(span) == 4 else span[0]
        spans.setdefault(tuple(loc.path), (span[0] + 1, end + 1))
    prefix = f".{fd.package}." if fd.package else "."
    FDP = descriptor_pb2.FieldDescriptorProto

    def relative(type_name: str) -> str:
        return type_name[len(prefix):] if type_name.startswith(prefix) else type_name.lstrip(".")

    messages: dict[str, ProtoMessage] = {}
    enums: dict[str, ProtoEnum] = {}

    def read_enum(enum: descriptor_pb2.EnumDescriptorProto, name: str, path: tuple[int, ...]) -> None:
        found = ProtoEnum(name, spans.get(path, NO_LINES))
        for i, value in enumerate(enum.value):
            found.values.setdefault(value.number, (value.name, spans.get((*path, _E_VALUE, i), NO_LINES)))
        found.reserved_ranges = [(r.start, r.end) for r in enum.reserved_range]
        found.reserved_names = set(enum.reserved_name)
        enums[name] = found

    def read_message(message: descriptor_pb2.DescriptorProto, name: str, path: tuple[int, ...]) -> None:
        found = ProtoMessage(name, spans.get(path, NO_LINES), map_entry=message.options.map_entry)
        entries = {f"{name}.{n.name}": n for n in message.nested_type if n.options.map_entry}
        for i, oneof in enumerate(message.oneof_decl):
            members = [f for f in message.field if f.HasField("oneof_index") and f.oneof_index == i]
            if members and not all(f.proto3_optional for f in members):
                found.oneofs[oneof.name] = spans.get((*path, _M_ONEOF, i), NO_LINES)
        for i, f in enumerate(message.field):
            scalar = FDP.Type.Name(f.type).removeprefix("TYPE_").lower()
            kind = scalar if scalar not in ("message", "group") else "message"
            type_name = relative(f.type_name) if f.type_name else kind
            repeated = f.label == FDP.LABEL_REPEATED
            oneof = ""
            if f.HasField("oneof_index") and not f.proto3_optional:
                oneof = message.oneof_decl[f.oneof_index].name
            explicit = f.proto3_optional or kind == "message" or bool(oneof) or fd.syntax == "proto2"
            entry = entries.get(type_name) if repeated else None
            map_text = ""
            if entry is not None:
                key, value = entry.field[0], entry.field[1]
                value_type = relative(value.type_name) if value.type_name else \
                    FDP.Type.Name(value.type).removeprefix("TYPE_").lower()
                map_text = f"map<{FDP.Type.Name(key.type).removeprefix('TYPE_').lower()}, {value_type}>"
            behaviours = list(f.options.Extensions[field_behavior_pb2.field_behavior])
            found.fields[f.number] = ProtoField(
                number=f.number, name=f.name, json_name=f.json_name, kind=kind, type_name=type_name,
                cardinality="repeated" if repeated else "singular",
                presence="" if repeated else ("explicit" if explicit else "implicit"),
                oneof=oneof, required=field_behavior_pb2.REQUIRED in behaviours,
                map_entry=map_text, lines=spans.get((*path, _M_FIELD, i), NO_LINES),
            )
        found.reserved_ranges = [(r.start, r.end - 1) for r in message.reserved_range]
        found.reserved_names = set(message.reserved_name)
        messages[name] = found
        for i, nested in enumerate(message.nested_type):
            read_message(nested, f"{name}.{nested.name}", (*path, _M_NESTED, i))
        for i, enum in enumerate(message.enum_type):
            read_enum(enum, f"{name}.{enum.name}", (*path, _M_ENUM, i))

    for i, message in enumerate(fd.message_type):
        read_message(message, message.name, (_MESSAGE, i))
    for i, enum in enumerate(fd.enum_type):
        read_enum(enum, enum.name, (_ENUM, i))

    services: dict[str, ProtoService] = {}
    for i, service in enumerate(fd.service):
        found_service = ProtoService(service.name, spans.get((_SERVICE, i), NO_LINES))
        for j, method in enumerate(service.method):
            rule = method.options.Extensions[annotations_pb2.http]
            rules = [rule, *rule.additional_bindings] if rule.WhichOneof("pattern") else []
            http = tuple(
                HttpRule(str(r.WhichOneof("pattern")), getattr(r, str(r.WhichOneof("pattern")))
                         if r.WhichOneof("pattern") != "custom" else r.custom.path, r.body)
                for r in rules
            )
            found_service.methods[method.name] = ProtoMethod(
                method.name, relative(method.input_type), relative(method.output_type),
                method.client_streaming, method.server_streaming, http,
                spans.get((_SERVICE, i, _S_METHOD, j), NO_LINES),
            )
        services[service.name] = found_service

    options: dict[str, tuple[str, Lines]] = {}
    for descriptor, value in fd.options.ListFields():
        if not descriptor.is_extension:
            options[descriptor.name] = (str(value), spans.get((_FILE_OPTIONS, descriptor.number), NO_LINES))
    return ProtoFile(source, fd.package, spans.get((_PACKAGE,), NO_LINES), options, messages, enums,
                     services)


# --- the kept model (see .kept) -------------------------------------------------------------
# JSON has no tuples, sets or integer keys: lines and ranges are written as lists, reserved
# names as sorted lists, numbered fields and values as lists of [number, …].


_FIELD_KEYS = ("name", "json_name", "kind", "type_name", "cardinality", "presence", "oneof",
               "required", "map_entry", "lines")  # a field's row after its number, as _field reads it


def _dump(proto_file: ProtoFile) -> dict[str, Any]:
    return {
        "package": proto_file.package,
        "package_lines": proto_file.package_lines,
        "options": proto_file.options,
        "messages": [
            [m.name, m.lines, [[n, *(getattr(f, k) for k in _FIELD_KEYS)] for n, f in m.fields.items()],
             m.oneofs, m.reserved_ranges, sorted(m.reserved_names), m.map_entry]
            for m in proto_file.messages.values()
        ],
        "enums": [
            [e.name, e.lines, [[n, name, lines] for n, (name, lines) in e.values.items()],
             e.reserved_ranges, sorted(e.reserved_names)]
            for e in proto_file.enums.values()
        ],
        "services": [
            [s.name, s.lines,
             [[m.name, m.input, m.output, m.client_streaming, m.server_streaming,
               [[r.verb, r.path, r.body] for r in m.http], m.lines] for m in s.methods.values()]]
            for s in proto_file.services.values()
        ],
    }


def _lines(value: Any) -> Lines:
    start, end = value
    return (int(start), int(end))


def _field(number: int, row: list[Any]) -> ProtoField:
    name, json_name, kind, type_name, cardinality, presence, oneof, required, map_entry, lines = row
    return ProtoField(number, name, json_name, kind, type_name, cardinality, presence, oneof,
                      required, map_entry, _lines(lines))


def _undump(source: Source, model: dict[str, Any]) -> ProtoFile:
    messages: dict[str, ProtoMessage] = {}
    for name, lines, fields, oneofs, ranges, names, map_entry in model["messages"]:
        messages[name] = ProtoMessage(
            name, _lines(lines),
            {n: _field(n, rest) for n, *rest in fields},
            {k: _lines(v) for k, v in oneofs.items()}, [_lines(r) for r in ranges], set(names),
            map_entry)
    enums = {
        name: ProtoEnum(name, _lines(lines), {n: (value, _lines(at)) for n, value, at in values},
                        [_lines(r) for r in ranges], set(names))
        for name, lines, values, ranges, names in model["enums"]
    }
    services = {
        name: ProtoService(name, _lines(lines), {
            m[0]: ProtoMethod(m[0], m[1], m[2], m[3], m[4], tuple(HttpRule(*r) for r in m[5]),
                              _lines(m[6]))
            for m in methods})
        for name, lines, methods in model["services"]
    }
    options = {k: (str(text), _lines(at)) for k, (text, at) in model["options"].items()}
    return ProtoFile(source, model["package"], _lines(model["package_lines"]), options,
                     messages, enums, services)
