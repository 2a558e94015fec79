"""What the diff covers: TaskState, the task operations, and every type they reach.

Computed from each description, never from a list of names. An operation is a *task
operation* when its request or response reaches `TaskState` through their types, or
when it addresses a task resource (a REST route under `tasks/`, a JSON-RPC method in
the `tasks/` namespace): that takes in sending messages, getting, listing and cancelling
tasks, subscribing to them and their push-notification configs, and leaves out the agent
card. The scope is every message and enum those operations reach, and their service.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .descriptors import ProtoFile, ProtoMethod

TASK_STATE = "TaskState"
# `tasks/…`, and `task/…` as v0.2–v0.3 spell the push-notification routes
_TASK_ROUTE = re.compile(r"(^|[/=])tasks?(/|:|\}|$)")


@dataclass
class Scope:
    types: set[str] = field(default_factory=set)  # messages, enums or definitions
    operations: set[str] = field(default_factory=set)  # "Service.Method" or JSON-RPC methods
    services: set[str] = field(default_factory=set)

    def __or__(self, other: Scope) -> Scope:
        return Scope(self.types | other.types, self.operations | other.operations,
                     self.services | other.services)


def closure(roots: Iterable[str], edges: Callable[[str], Iterable[str]]) -> set[str]:
    """Every name reachable from `roots` along `edges`."""
    seen: set[str] = set()
    todo = [r for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(edges(name))
    return seen


def proto_scope(proto: ProtoFile) -> Scope:
    def edges(name: str) -> list[str]:
        message = proto.messages.get(name)
        if message is None:
            return []
        return [f.type_name for f in message.fields.values()
                if f.type_name in proto.messages or f.type_name in proto.enums]

    def is_task(method: ProtoMethod) -> bool:
        reached = closure([method.input, method.output], edges)
        return TASK_STATE in reached or any(_TASK_ROUTE.search(r.path) for r in method.http)

    scope = Scope(types={TASK_STATE} if TASK_STATE in proto.enums else set())
    for service in proto.services.values():
        for method in service.methods.values():
            if is_task(method):
                scope.operations.add(f"{service.name}.{method.name}")
                scope.services.add(service.name)
                scope.types |= closure([method.input, method.output], edges)
    scope.types &= set(proto.messages) | set(proto.enums)
    return scope
