"""How one protocol version spells the JSON-RPC calls the scenarios make.

Scenarios speak in the operations of A2A 1.0 (`SendMessage`, `GetTask`, `CancelTask`,
`SubscribeToTask` …). A `Dialect` turns each into the method name, parameters and
message shape of the protocol an SDK build serves: 1.0 as is, or 0.3 (`message/send`,
`tasks/get`, `kind`-tagged parts, `blocking: false` for a non-blocking send).
Replies are read the same way for both: a task is found by its `id`, an update by its
`taskId`, and a state is compared in its canonical spelling.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Dialect:
    """The JSON-RPC spelling of one A2A protocol version."""

    version: str
    headers: dict[str, str]
    methods: dict[str, str] = field(default_factory=dict)  # 1.0 operation → method; absent: same

    def method(self, operation: str) -> str | None:
        """The method that carries `operation`, or None when the protocol has none."""
        if not self.methods:
            return operation
        return self.methods.get(operation)

    def message(
        self, text: str, message_id: str, *, task_id: str = "", context_id: str = "",
        reference_task_ids: Collection[str] = (),
    ) -> dict[str, Any]:
        if self.version == "0.3":
            message: dict[str, Any] = {"kind": "message", "messageId": message_id, "role": "user",
                                       "parts": [{"kind": "text", "text": text}]}
        else:
            message = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}
        if task_id:
            message["taskId"] = task_id
        if context_id:
            message["contextId"] = context_id
        if reference_task_ids:
            message["referenceTaskIds"] = list(reference_task_ids)
        return message

    def state_name(self, canonical: str) -> str:
        """How this protocol spells a state on the wire (`TASK_STATE_INPUT_REQUIRED` or
        `input-required`), for notes that name one."""
        if self.version == "0.3":
            return canonical
        return "TASK_STATE_" + canonical.upper().replace("-", "_")

    def non_blocking(self) -> dict[str, Any]:
        """The configuration of a SendMessage that returns at once."""
        return {"blocking": False} if self.version == "0.3" else {"returnImmediately": True}


# Without A2A-Version the 1.x SDKs take a request for protocol 0.3.
V1_0 = Dialect("1.0", {"A2A-Version": "1.0", "Content-Type": "application/json"})
V0_3 = Dialect(
    "0.3",
    {"Content-Type": "application/json"},
    {
        "SendMessage": "message/send",
        "SendStreamingMessage": "message/stream",
        "GetTask": "tasks/get",
        "CancelTask": "tasks/cancel",
        "SubscribeToTask": "tasks/resubscribe",
    },
)
