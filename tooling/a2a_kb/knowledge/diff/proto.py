"""Two compiled .protos compared element by element: package, file options, enums (by
number), messages and their fields (by number), reserved numbers and names, oneofs,
services and their RPCs. The RPCs' REST routes are compared as URLs by `rest`.

Elements are matched by their name relative to the package, so that a package rename is
reported once (and every message's changes still show) rather than as every message
deleted and added. Each change says which encodings it breaks (see `encodings`).
"""

from __future__ import annotations

from ...extract.lifecycle import state_name  # a state added upstream is a change, not skipped
from .descriptors import NO_LINES, Lines, ProtoEnum, ProtoField, ProtoFile, ProtoMessage
from .encodings import binary_compatible, json_compatible
from .model import Change, Location
from .scope import TASK_STATE, proto_scope

GRPC = "grpc"


class _Pair:
    """The two files, with the helpers every comparison below needs."""

    def __init__(self, old: ProtoFile, new: ProtoFile) -> None:
        self.old, self.new = old, new
        self.scope = proto_scope(old) | proto_scope(new)
        self.changes: list[Change] = []

    def at(self, old: Lines | None, new: Lines | None) -> list[Location]:
        found = []
        if old is not None:
            found.append(Location("old", self.old.source, old))
        if new is not None:
            found.append(Location("new", self.new.source, new))
        return found

    def add(self, kind: str, subject: str, old: object, new: object, breaks: tuple[str, ...],
            where: list[Location], elements: tuple[str, ...], *, binding: str = GRPC,
            note: str = "") -> None:
        self.changes.append(Change(kind, subject, old, new, binding, breaks, where, note,
                                   elements=elements))


def compare(old: ProtoFile, new: ProtoFile) -> list[Change]:
    """Every change in scope between two compiled .protos."""
    pair = _Pair(old, new)
    _package(pair)
    for name in sorted((old.enums.keys() | new.enums.keys()) & pair.scope.types):
        _enum(pair, name, old.enums.get(name), new.enums.get(name))
    for name in sorted((old.messages.keys() | new.messages.keys()) & pair.scope.types):
        _message(pair, name, old.messages.get(name), new.messages.get(name))
    _services(pair)
    return pair.changes


def _package(pair: _Pair) -> None:
    old, new = pair.old, pair.new
    if old.package != new.package:
        pair.add("package-renamed", "package", old.package, new.package, ("binary", "source"),
                 pair.at(old.package_lines, new.package_lines), ("package",),
                 note=f"every gRPC method path changes, e.g. /{old.package}.A2AService/SendMessage "
                      f"becomes /{new.package}.A2AService/SendMessage; JSON payloads keep their shape")
    for option in sorted(old.options.keys() | new.options.keys()):
        before, after = old.options.get(option), new.options.get(option)
        if (before and before[0]) != (after and after[0]):
            pair.add("file-option-changed", f"option {option}", before and before[0], after and after[0],
                     ("source",), pair.at(before[1] if before else NO_LINES,
                                          after[1] if after else NO_LINES), (f"option:{option}",))


# --- enums -------------------------------------------------------------------------------------


def _enum(pair: _Pair, name: str, old: ProtoEnum | None, new: ProtoEnum | None) -> None:
    element = f"enum:{name}"
    if old is None or new is None:
        present = new or old
        assert present is not None
        kind = "message-added" if old is None else "message-removed"
        pair.add(kind, name, old and name, new and name, () if old is None else ("source",),
                 pair.at((old and old.lines) or NO_LINES, (new and new.lines) or NO_LINES), (element,))
        return
    is_state = name == TASK_STATE
    by_name_old = {v[0]: n for n, v in old.values.items()}
    by_name_new = {v[0]: n for n, v in new.values.items()}

    def subject(value: str) -> str:
        state = state_name(value) if is_state else None
        return f"{name}.{state}" if state else f"{name}.{value}"

    renumbered = {v for v in by_name_old.keys() & by_name_new.keys() if by_name_old[v] != by_name_new[v]}
    for value in sorted(renumbered):
        a, b = by_name_old[value], by_name_new[value]
        pair.add("state-renumbered" if is_state else "enum-value-renamed", subject(value), a, b,
                 ("binary", "source"), pair.at(old.values[a][1], new.values[b][1]),
                 (f"value:{name}#{a}", f"value:{name}#{b}"),
                 note="the same name now has another number: binary peers disagree")
    for number in sorted(old.values.keys() | new.values.keys()):
        before, after = old.values.get(number), new.values.get(number)
        element_value = f"value:{name}#{number}"
        if before and after:
            if before[0] != after[0]:
                pair.add("state-renamed" if is_state else "enum-value-renamed", subject(after[0]),
                         before[0], after[0], ("json", "source"), pair.at(before[1], after[1]),
                         (element_value,),
                         note="same number: binary protobuf is unchanged; ProtoJSON writes the new name")
        elif before and before[0] not in renumbered:
            breaks = ["source"]
            if not new.reserves(number):
                breaks.append("binary")
            if before[0] not in new.reserved_names:
                breaks.append("json")
            pair.add("state-removed" if is_state else "enum-value-removed", subject(before[0]),
                     f"{before[0]} = {number}", None, tuple(breaks), pair.at(before[1], new.lines),
                     (element_value,))
        elif after and after[0] not in renumbered:
            pair.add("state-added" if is_state else "enum-value-added", subject(after[0]), None,
                     f"{after[0]} = {number}", (), pair.at(old.lines, after[1]), (element_value,))
    _reserved(pair, name, old.reserved_ranges, new.reserved_ranges, old.reserved_names,
              new.reserved_names, old.lines, new.lines)


# --- messages ----------------------------------------------------------------------------------


def _message(pair: _Pair, name: str, old: ProtoMessage | None, new: ProtoMessage | None) -> None:
    if (old or new) and (old or new).map_entry:  # type: ignore[union-attr]
        return  # a map's entry type changes with its field, where it is reported
    element = f"message:{name}"
    if old is None or new is None:
        pair.add("message-added" if old is None else "message-removed", name, old and name,
                 new and name, () if old is None else ("source",),
                 pair.at(old.lines if old else pair.old.package_lines,
                         new.lines if new else pair.new.package_lines), (element,))
        return
    renamed_oneofs = _oneofs(pair, name, old, new)
    moved = _renumbered(old, new)
    for left, arrived in moved:
        move_breaks, note = _move_breaks(left, arrived, old, new)
        pair.add("field-renumbered", f"{name}.{arrived.name}", left.number, arrived.number,
                 move_breaks, pair.at(left.lines, arrived.lines),
                 (f"field:{name}#{left.number}", f"field:{name}#{arrived.number}"), note=note)
    skip = {f.number for f, _ in moved}, {f.number for _, f in moved}
    for number in sorted(old.fields.keys() | new.fields.keys()):
        before, after = old.fields.get(number), new.fields.get(number)
        if before and number in skip[0] and not (after and number not in skip[1]):
            before = None
        if after and number in skip[1] and not (before and number not in skip[0]):
            after = None
        if before and after:
            _field(pair, name, old, new, before, after, renamed_oneofs)
        elif before:
            breaks = ["source"]
            if not new.reserves(number):
                breaks.append("binary")
            if before.name not in new.reserved_names:
                breaks.append("json")
            reserved = "reserved" if new.reserves(number) else None
            pair.add("field-removed", f"{name}.{before.name}", f"{before.type_text} {before.name} = {number}",
                     reserved, tuple(breaks), pair.at(before.lines, new.lines), (f"field:{name}#{number}",),
                     note="" if reserved else "the number is not reserved: a later field may reuse it")
        elif after:
            note = ""
            if old.reserves(number) or after.name in old.reserved_names:
                note = f"{name} reserved this number or name in the old version"
            pair.add("field-added", f"{name}.{after.name}", None,
                     f"{after.type_text} {after.name} = {number}",
                     ("behaviour",) if after.required else (), pair.at(old.lines, after.lines),
                     (f"field:{name}#{number}",),
                     note=note or ("required (field_behavior): a peer may reject a message without it"
                                   if after.required else ""))
    _reserved(pair, name, old.reserved_ranges, new.reserved_ranges, old.reserved_names,
              new.reserved_names, old.lines, new.lines)


def _renumbered(old: ProtoMessage, new: ProtoMessage) -> list[tuple[ProtoField, ProtoField]]:
    """Fields that left one number and came back under another with the same name, type and
    cardinality (v1.0.0-rc's metadata = 5 became metadata = 4 in v1.0.0): one move, not a
    removal and an addition."""
    gone = {f.name: f for n, f in old.fields.items()
            if n not in new.fields or new.fields[n].name != f.name}
    pairs = []
    for number, after in sorted(new.fields.items()):
        before = gone.get(after.name)
        if (before is not None and before.number != number
                and (number not in old.fields or old.fields[number].name != after.name)
                and _type_key(before) == _type_key(after) and before.cardinality == after.cardinality):
            pairs.append((before, after))
    return pairs


def _move_breaks(before: ProtoField, after: ProtoField, old: ProtoMessage,
                 new: ProtoMessage) -> tuple[tuple[str, ...], str]:
    """What a field's move from one number to another breaks, seen from both peers.

    An old peer writes the field at its old number, where a new peer now reads whatever the
    new version keeps there; a new peer writes at the new number, where an old peer reads the
    old version's field. Bytes read as an incompatible type, or a number left neither used
    nor reserved (buf's FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED), break the binary encoding.
    Otherwise every byte still parses, and the value is dropped as unknown or read into
    another field of a compatible type: peers disagree on meaning, not on encoding.
    """
    def compatible(a: ProtoField, b: ProtoField) -> bool:
        if _type_key(a) == _type_key(b):
            return True
        if a.map_entry or b.map_entry or "message" in (a.kind, b.kind):
            return False
        return binary_compatible(a.kind, b.kind)

    there_now = new.fields.get(before.number)  # what a new peer reads an old peer's value as
    there_then = old.fields.get(after.number)  # what an old peer reads a new peer's value as
    if there_now is None and not new.reserves(before.number):
        return ("binary",), (f"number {before.number} is left neither used nor reserved: "
                             "a later field may reuse it")
    for other in (there_now, there_then):
        if other is not None and not compatible(other, after):
            return ("binary",), (f"the bytes at number {other.number} are read as "
                                 f"{other.type_text} {other.name}")
    misread = [f"{after.name} is read as {other.name}" for other in (there_now, there_then)
               if other is not None and other.name != after.name]
    if misread:
        # buf's WIRE rules only ask whether the bytes parse, and they do: the diff says more.
        return ("binary",), ("every byte still parses, so buf's WIRE rules are silent, but a peer's "
                             "value lands in another field: " + "; ".join(misread))
    return ("behaviour",), "every byte still parses, but each peer drops the other's value as unknown"


def _type_key(f: ProtoField) -> str:
    return f.map_entry or f.type_name


def _type_breaks(before: ProtoField, after: ProtoField) -> list[str]:
    scalar = {"message"}
    if before.kind in scalar or after.kind in scalar or before.map_entry or after.map_entry:
        return ["binary", "json"]  # another message type: its fields mean other things
    old_kind = "enum" if before.kind == "enum" else before.kind
    new_kind = "enum" if after.kind == "enum" else after.kind
    breaks = []
    if not binary_compatible(old_kind, new_kind):
        breaks.append("binary")
    if not json_compatible(old_kind, new_kind) and before.type_name != after.type_name:
        breaks.append("json")
    return breaks


def _field(pair: _Pair, message: str, old_message: ProtoMessage, new_message: ProtoMessage,
           before: ProtoField, after: ProtoField, renamed_oneofs: dict[str, str]) -> None:
    number = before.number
    element = (f"field:{message}#{number}",)
    where = pair.at(before.lines, after.lines)
    type_changed = _type_key(before) != _type_key(after)
    if before.name != after.name and type_changed:
        breaks = {*_type_breaks(before, after), "source"}
        if before.json_name != after.json_name:
            breaks.add("json")
        if before.cardinality != after.cardinality:
            breaks |= {"binary", "json"}
        pair.add("field-number-reused", f"{message}#{number}", f"{before.type_text} {before.name}",
                 f"{after.type_text} {after.name}", tuple(breaks), where, element,
                 note="the number now carries another field: old peers read the bytes as the old field")
        return
    if before.name != after.name:
        pair.add("field-renamed", f"{message}#{number}", before.name, after.name, ("source",), where,
                 element, note=("the JSON name stays " + repr(after.json_name) + "; only a peer that "
                                "writes the proto field name in JSON would notice")
                 if before.json_name == after.json_name else "")
    if before.json_name != after.json_name:
        pair.add("field-json-name-changed", f"{message}.{after.name}", before.json_name, after.json_name,
                 ("json",), where, element)
    if type_changed:
        pair.add("field-type-changed", f"{message}.{after.name}", before.type_text, after.type_text,
                 (*_type_breaks(before, after), "source"), where, element)
    if before.cardinality != after.cardinality and not type_changed:
        pair.add("field-cardinality-changed", f"{message}.{after.name}", before.cardinality,
                 after.cardinality, ("binary", "json", "source"), where, element)
    elif before.presence != after.presence and before.presence and after.presence:
        pair.add("field-presence-changed", f"{message}.{after.name}", f"{before.presence} presence",
                 f"{after.presence} presence", ("source",), where, element,
                 note="the bytes are the same; generated code gains or loses has-accessors")
    if before.oneof != after.oneof and renamed_oneofs.get(before.oneof) != after.oneof:
        pair.add("field-oneof-changed", f"{message}.{after.name}", before.oneof or None,
                 after.oneof or None, ("binary", "json", "source"), where, element,
                 note="a field moved into, out of or between oneofs: setting it may clear another")
    if before.required != after.required:
        pair.add("field-required-changed", f"{message}.{after.name}",
                 "required" if before.required else "optional", "required" if after.required else "optional",
                 ("behaviour",), where, element,
                 note="(google.api.field_behavior) is an annotation: the encoding is unchanged, "
                      "a peer may now reject or accept a message without the field")


def _oneofs(pair: _Pair, message: str, old: ProtoMessage, new: ProtoMessage) -> dict[str, str]:
    """Oneofs renamed with the same members (among the fields both versions have): old
    name → new name, each reported once as a source change."""
    shared = old.fields.keys() & new.fields.keys()

    def members(m: ProtoMessage, oneof: str) -> frozenset[int]:
        return frozenset(n for n in shared if m.fields[n].oneof == oneof)

    renamed: dict[str, str] = {}
    for before in old.oneofs:
        group = members(old, before)
        for after in new.oneofs:
            if after != before and after not in old.oneofs and group and members(new, after) == group:
                renamed[before] = after
                pair.add("oneof-renamed", f"{message}.{after}", before, after, ("source",),
                         pair.at(old.oneofs[before], new.oneofs[after]),
                         (f"oneof:{message}.{before}", *(f"field:{message}#{n}" for n in sorted(group))),
                         note="the same fields, under another oneof name: the bytes are the same")
    return renamed


def _reserved(pair: _Pair, name: str, old_ranges: list[tuple[int, int]], new_ranges: list[tuple[int, int]],
              old_names: set[str], new_names: set[str], old_lines: Lines, new_lines: Lines) -> None:
    def numbers(ranges: list[tuple[int, int]]) -> set[int]:
        return {n for lo, hi in ranges for n in range(lo, min(hi, lo + 1000) + 1)}

    gone, came = numbers(old_ranges) - numbers(new_ranges), numbers(new_ranges) - numbers(old_ranges)
    where = pair.at(old_lines, new_lines)
    if gone or old_names - new_names:
        breaks = (("binary",) if gone else ()) + (("json",) if old_names - new_names else ())
        pair.add("reserved-removed", name, sorted(gone) + sorted(old_names - new_names), None, breaks, where,
                 (f"reserved:{name}",),
                 note="a number or name no longer reserved can be reused for another field")
    if came or new_names - old_names:
        pair.add("reserved-added", name, None, sorted(came) + sorted(new_names - old_names), (), where,
                 (f"reserved:{name}",))


# --- services ----------------------------------------------------------------------------------


def _services(pair: _Pair) -> None:
    old, new = pair.old, pair.new
    for service in sorted(pair.scope.services):
        old_service, new_service = old.services.get(service), new.services.get(service)
        old_methods = old_service.methods if old_service else {}
        new_methods = new_service.methods if new_service else {}
        service_lines = (old_service.lines if old_service else NO_LINES,
                         new_service.lines if new_service else NO_LINES)
        for name in sorted(old_methods.keys() | new_methods.keys()):
            if f"{service}.{name}" not in pair.scope.operations:
                continue
            before, after = old_methods.get(name), new_methods.get(name)
            element = (f"rpc:{service}.{name}",)
            subject = f"{service}.{name}"
            if before and not after:
                pair.add("method-removed", subject, f"{name}{before.signature}", None,
                         ("source", "behaviour"),
                         pair.at(before.lines, service_lines[1]), element,
                         note="a client that calls it gets UNIMPLEMENTED")
                continue
            if after and not before:
                pair.add("method-added", subject, None, f"{name}{after.signature}", (),
                         pair.at(service_lines[0], after.lines), element)
                continue
            assert before and after
            where = pair.at(before.lines, after.lines)
            if (before.input, before.output) != (after.input, after.output):
                pair.add("method-signature-changed", subject, before.signature, after.signature,
                         ("binary", "json", "source"), where, element,
                         note="another request or response message: the peers read each other's "
                              "bytes as the wrong type")
            elif (before.client_streaming, before.server_streaming) != (after.client_streaming,
                                                                         after.server_streaming):
                pair.add("method-signature-changed", subject, before.signature, after.signature,
                         ("binary", "source"), where, element)
