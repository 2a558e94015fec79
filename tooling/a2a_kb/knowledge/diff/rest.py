"""The HTTP+JSON surface of two .protos compared route by route, as a client sees it.

A route is what an HTTP client sends: a verb, a URL, and a body. Routes are matched by the
URLs they serve, not by the text of their templates: a URL an old client builds from the
old template (`POST /v1/tasks/t1:cancel`) either reaches some route of the new version
or does not. The templates are `google.api.http` path templates, read and matched by
google-api-core's `path_template`, the library Google's own clients
transcode requests with; so `{id}` and `{name=tasks/*}` serve the same URLs, and
`{parent=task/*/pushNotifications}` is a route under `task/`.

When a route still serves its old URLs, its body is compared as the JSON keys it takes:
the whole request minus the fields the path binds (`body: "*"`) or one field's message
(`body: "config"`). A mapping that moves from `config` to `*` with the same keys
breaks nobody.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from google.api_core import path_template

from .descriptors import NO_LINES, Lines, ProtoFile, ProtoMessage
from .grades import BOTH, NEW_CLIENT, OLD_CLIENT, Grade
from .model import Change, Location
from .scope import proto_scope

REST = "rest"
VARIABLE = re.compile(r"\{(?P<name>[\w.]+)(?:=(?P<pattern>[^}]*))?\}")


@dataclass(frozen=True)
class Route:
    rpc: str  # "A2AService.CancelTask"
    verb: str  # "post"
    template: str
    body: str  # "", "*" or a field name
    input: str
    lines: Lines

    @property
    def label(self) -> str:
        return f"{self.verb.upper()} {self.template}"

    def sample(self) -> str:
        """A URL a client builds from the template: each variable filled with segments its
        pattern accepts."""
        def fill(match: re.Match[str]) -> str:
            pattern = match.group("pattern") or "*"
            return pattern.replace("**", "x/y").replace("*", "x")

        return VARIABLE.sub(fill, self.template)

    def bound(self) -> set[str]:
        """The request fields the path binds (their top-level names)."""
        return {m.group("name").split(".")[0] for m in VARIABLE.finditer(self.template)}

    @property
    def custom_verb(self) -> str:
        """The template's custom verb (`:cancel`), which is not part of any segment."""
        match = re.search(r":(\w+)$", VARIABLE.sub("", self.template))
        return match.group(1) if match else ""

    def serves(self, route: Route) -> bool:
        """Whether this route serves the URLs a client builds from `route`."""
        return (route.verb == self.verb and route.custom_verb == self.custom_verb
                and path_template.validate(self.template, route.sample()))

    def segments(self) -> list[tuple[str, str]]:
        """The template's path segments, each with the variable that captures it ('' for none)."""
        found: list[tuple[str, str]] = []
        rest = self.template.rsplit(":", 1)[0] if self.custom_verb else self.template
        for piece in re.split(r"(\{[^}]*\})", rest):
            match = VARIABLE.fullmatch(piece)
            if match:
                found += [(part, match.group("name")) for part in (match.group("pattern") or "*").split("/")]
            else:
                found += [(part, "") for part in piece.split("/") if part]
        return found


def routes(proto: ProtoFile) -> list[Route]:
    """Every route of the task operations (see `scope`)."""
    scope = proto_scope(proto)
    found = []
    for service in proto.services.values():
        for method in service.methods.values():
            rpc = f"{service.name}.{method.name}"
            if rpc not in scope.operations:
                continue
            for rule in method.http:
                found.append(Route(rpc, rule.verb, rule.path, rule.body, method.input, method.lines))
    return found


def body_keys(proto: ProtoFile, route: Route) -> dict[str, str] | None:
    """The JSON keys a route's body takes (key → field type), or None when it has no body."""
    if not route.body:
        return None
    message = proto.messages.get(route.input)
    if message is None:
        return {}
    if route.body != "*":
        field = next((f for f in message.fields.values() if f.name == route.body), None)
        inner = proto.messages.get(field.type_name) if field else None
        return _keys(inner) if inner else {}
    bound = route.bound()
    return {k: v for k, v in _keys(message).items()
            if k not in bound and _proto_name(message, k) not in bound}


def _keys(message: ProtoMessage) -> dict[str, str]:
    return {f.json_name: f.type_text for f in message.fields.values()}


def _proto_name(message: ProtoMessage, json_name: str) -> str:
    return next((f.name for f in message.fields.values() if f.json_name == json_name), json_name)


def compare(old: ProtoFile, new: ProtoFile) -> list[Change]:
    """Every route an old client loses or a new client gains, and every body a served route
    now takes differently."""
    before, after = routes(old), routes(new)
    changes: list[Change] = []

    def at(a: Lines | None, b: Lines | None) -> list[Location]:
        found = []
        if a is not None:
            found.append(Location("old", old.source, a))
        if b is not None:
            found.append(Location("new", new.source, b))
        return found

    def served_by(route: Route, others: list[Route]) -> Route | None:
        """The route that serves an old client's URL: its own RPC's first, then any."""
        serving = [o for o in others if o.serves(route)]
        return next((o for o in serving if o.rpc == route.rpc), serving[0] if serving else None)

    rpcs_old = {r.rpc for r in before}
    rpcs_new = {r.rpc for r in after}
    lost = [r for r in before if served_by(r, after) is None]
    gained = [r for r in after if served_by(r, before) is None]
    for rpc in sorted(rpcs_old | rpcs_new):
        mine_lost = [r for r in lost if r.rpc == rpc]
        mine_gained = [r for r in gained if r.rpc == rpc]
        element = (f"rpc:{rpc}",)
        if rpc in rpcs_old and rpc in rpcs_new and (mine_lost or mine_gained):
            first_old = next(r for r in before if r.rpc == rpc)
            first_new = next(r for r in after if r.rpc == rpc)
            directions = ((OLD_CLIENT,) if mine_lost else ()) + ((NEW_CLIENT,) if mine_gained else ())
            why = []
            if mine_lost:
                why.append(f"an old client's {_urls(mine_lost)} reaches no route of the new server (404)")
            if mine_gained:
                why.append(f"a new client's {_urls(mine_gained)} reaches no route of an old server")
            note = "; ".join(why) + ": serve both URL forms while peers upgrade"
            changes.append(Change(
                "http-route-changed", rpc, [r.label for r in before if r.rpc == rpc],
                [r.label for r in after if r.rpc == rpc], REST, ("json",),
                at(first_old.lines, first_new.lines), note,
                elements=element + tuple(f"route:{r.label}" for r in mine_lost),
                grades=(Grade("http", "breaking", directions, note),)))
            continue
        for r in mine_lost:
            note = (f"an old client's {r.label} reaches no route of the new server (404): "
                    f"{rpc} is gone, or moved to another URL")
            changes.append(Change("http-route-removed", rpc, r.label, None, REST, ("json",),
                                  at(r.lines, NO_LINES), note, elements=(*element, f"route:{r.label}"),
                                  grades=(Grade("http", "breaking", (OLD_CLIENT,), note),)))
        for r in mine_gained:
            note = f"a new route; an old server answers {r.label} with 404, which only a new feature meets"
            changes.append(Change("http-route-added", rpc, None, r.label, REST, (),
                                  at(NO_LINES, r.lines), note, elements=element,
                                  grades=(Grade("http", "compatible", (), note),)))
    for r in before:
        served = served_by(r, after)
        if served is None:
            continue
        changes += _body(old, new, r, served, at)
    return _unique(changes)


def _urls(found: list[Route]) -> str:
    labels = sorted({r.label for r in found})
    return " and ".join(labels[:2]) + (f" (and {len(labels) - 2} more)" if len(labels) > 2 else "")


def _body(old: ProtoFile, new: ProtoFile, r: Route, served: Route, at: object) -> list[Change]:
    """What a route that still serves an old client's URL does with it: a literal segment
    now read as a variable, and the body it takes."""
    # the RPC that serves the URL now, the one that did, and the old client's route
    element = tuple(dict.fromkeys((f"rpc:{served.rpc}", f"rpc:{r.rpc}", f"route:{r.label}")))
    old_text = f"{r.label} body={r.body or '(none)'} ({r.input})"
    new_text = f"{served.label} body={served.body or '(none)'} ({served.input})"
    where = at(r.lines, served.lines)  # type: ignore[operator]
    found = []
    captured = _captured(r, served)
    if captured:
        note = (f"an old client's {r.label} still reaches {served.rpc}, but the new server reads "
                + ", ".join(captured) + " from the URL: the request means something else")
        found.append(Change("http-route-changed", served.rpc, r.label, served.label, REST, ("behaviour",),
                            where, note, elements=element,
                            grades=(Grade("http", "behavioural", (OLD_CLIENT,), note),)))
    if (r.body, r.input) == (served.body, served.input) and r.bound() == served.bound():
        return found  # the same mapping of the same message: message changes are reported as such
    if not r.body and not served.body:
        return found  # no body on either side: the request's fields travel as query parameters
    keys_old, keys_new = body_keys(old, r), body_keys(new, served)
    if keys_old == keys_new or (keys_old is not None and keys_new is not None
                                and all(keys_new.get(k) == t for k, t in keys_old.items())):
        added = sorted(set(keys_new or {}) - set(keys_old or {}))
        if (r.body, r.input) == (served.body, served.input):
            return found  # the same body of the same message, under a path that binds other fields
        note = ("the URL is the same and the body takes the same JSON keys"
                + (f" (and now also {', '.join(added)})" if added else "")
                + "; only the request field the server fills changed")
        found.append(Change("http-body-changed", served.rpc, old_text, new_text, REST, (), where, note,
                            elements=element, grades=(Grade("http", "compatible", (), note),)))
        return found
    # a key the old body carried that the new path binds is still read, from the URL
    gone = sorted(set(keys_old or {}) - set(keys_new or {}) - served.bound())
    retyped = sorted(k for k in set(keys_old or {}) & set(keys_new or {}) if keys_old[k] != keys_new[k])  # type: ignore[index]
    parts = []
    if keys_old is None or keys_new is None:
        parts.append("one side takes no body")
    if gone:
        parts.append(f"keys {', '.join(gone)} are no longer read")
    if retyped:
        parts.append(f"keys {', '.join(retyped)} changed type")
    note = ("the URL is the same but the body differs: " + "; ".join(parts or ["its keys differ"])
            + ": an old client's body is misread or refused")
    if not parts:
        note = ("the URL is the same and every key the old body carried is still read (from the body "
                "or the URL); only the request field the server fills changed")
        found.append(Change("http-body-changed", served.rpc, old_text, new_text, REST, (), where, note,
                            elements=element, grades=(Grade("http", "compatible", (), note),)))
        return found
    found.append(Change("http-body-changed", served.rpc, old_text, new_text, REST, ("json",), where,
                        note, elements=element, grades=(Grade("http", "breaking", BOTH, note),)))
    return found


def _captured(old: Route, new: Route) -> list[str]:
    """Literal segments of the old URL that a variable of the new template captures
    (`/v1/message:send` served by `/{tenant}/message:send`: "v1" as the tenant)."""
    a, b = old.segments(), new.segments()
    if len(a) != len(b):
        return []
    return [f"'{text}' as {variable}" for (text, was), (pattern, variable) in zip(a, b, strict=True)
            if variable and not was and pattern in ("*", "**")]


def _unique(changes: list[Change]) -> list[Change]:
    seen: set[tuple[str, str, str, str]] = set()
    found = []
    for c in changes:
        key = (c.kind, c.subject, str(c.old), str(c.new))
        if key not in seen:
            seen.add(key)
            found.append(c)
    return found
