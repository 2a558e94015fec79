"""The recording client a scenario drives: JSON-RPC calls and streams, written down in order.

Every call goes through `Session`, which numbers it (the number is also its JSON-RPC
id), sends it over the `wire`, and appends the request and what came
back to the scenario's transcript exactly when the scenario observes it. A poll records
only its last reply: how many polls it takes depends on timing, what it ends on does not.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Collection
from typing import Any, Protocol

from ..facts import canonical_state
from .dialect import V1_0, Dialect
from .transcript import Event, Note, Reply, Request, StreamEnd, Transcript, result_of
from .wire import NO_REPLY, EventStream, HttpReply, Wire

# States in their canonical spelling, so that both protocols' spellings compare.
TERMINAL = frozenset({"completed", "canceled", "failed", "rejected"})
_POLL_INTERVAL = 0.01


class Gates(Protocol):
    """What a scenario opens to let a held agent go on: in-process or over HTTP."""

    def open(self, name: str) -> None: ...


class Stream:
    """An open stream of one request, with the events read from it so far."""

    def __init__(self, number: int, events: EventStream) -> None:
        self.number = number
        self.events = events
        self.count = 0
        self.last: Any = None
        self.ended = False


def _parsed(text: str) -> Any:
    with contextlib.suppress(ValueError):
        return json.loads(text)
    return text


def inner_result(body: Any) -> dict[str, Any]:
    """The object a body is about: SendMessage's `task`, an event's update, or a bare Task."""
    result = result_of(body)
    if not isinstance(result, dict):
        return {}
    for key in ("task", "statusUpdate", "artifactUpdate", "message"):
        if isinstance(result.get(key), dict):
            inner: dict[str, Any] = result[key]
            return inner
    return result  # a bare Task (GetTask, CancelTask), or a 0.3 result tagged with its kind


def task_ids(body: Any) -> tuple[str, str]:
    """(taskId, contextId) of whatever task a body or event is about."""
    about = inner_result(body)
    return str(about.get("taskId") or about.get("id") or ""), str(about.get("contextId", ""))


def _state(body: Any) -> str:
    """The canonical state a body shows (`input-required`), or ''."""
    status = inner_result(body).get("status")
    raw = str(status.get("state", "")) if isinstance(status, dict) else ""
    return canonical_state(raw) or raw


class Session:
    """One scenario's conversation with the server, recorded into a transcript."""

    def __init__(self, wire: Wire, gates: Gates, transcript: Transcript, dialect: Dialect = V1_0) -> None:
        self.wire = wire
        self.gates = gates
        self.transcript = transcript
        self.dialect = dialect
        self._requests = 0
        self._messages = 0

    # building requests ------------------------------------------------------------------

    def message(
        self,
        text: str,
        *,
        task_id: str = "",
        context_id: str = "",
        reference_task_ids: Collection[str] = (),
    ) -> dict[str, Any]:
        """A user message whose id the client chose, so it is the same on every run."""
        self._messages += 1
        return self.dialect.message(
            text, f"client-message-{self._messages}", task_id=task_id, context_id=context_id,
            reference_task_ids=reference_task_ids,
        )

    def supports(self, operation: str) -> bool:
        return self.dialect.method(operation) is not None

    def _request(
        self, operation: str, params: dict[str, Any], stream: bool, note: str = ""
    ) -> dict[str, Any]:
        method = self.dialect.method(operation)
        if method is None:
            raise ValueError(f"protocol {self.dialect.version} has no {operation}; ask supports() first")
        self._requests += 1
        body = {"jsonrpc": "2.0", "id": self._requests, "method": method, "params": params}
        self.transcript.entries.append(Request(self._requests, method, body, stream, note))
        return body

    def _reply(self, reply: HttpReply) -> Any:
        if reply.status == NO_REPLY:
            self.note(f"no reply within {self.wire.wait_seconds:g} s; the client gave up")
            return None
        body = _parsed(reply.body)
        self.transcript.entries.append(Reply(reply.status, reply.content_type, body))
        return body

    # calls ------------------------------------------------------------------------------

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """A unary call; returns the parsed body (or its text when it is not JSON)."""
        return self._reply(self.wire.post(self._request(method, params, False)))

    def _settle(self, message: dict[str, Any]) -> None:
        """Before a message resumes a task, let an out-of-process SDK release its last run.

        Invisible in the transcript: a2a-sdk 0.3 releases a run after replying, and a message
        that races that release gets -32603; the wait keeps the transcript from depending on
        who wins (captures/README.md says so).
        """
        settle = getattr(self.gates, "settle", None)
        if message.get("taskId") and settle is not None:
            settle(str(message["taskId"]))

    def send(self, text: str, *, return_immediately: bool = False, **message: Any) -> Any:
        params: dict[str, Any] = {"message": self.message(text, **message)}
        self._settle(params["message"])
        if return_immediately:
            params["configuration"] = self.dialect.non_blocking()
        return self.call("SendMessage", params)

    def get_task(self, task_id: str, history_length: int | None = None) -> Any:
        params: dict[str, Any] = {"id": task_id}
        if history_length is not None:
            params["historyLength"] = history_length
        return self.call("GetTask", params)

    def cancel_task(self, task_id: str) -> Any:
        return self.call("CancelTask", {"id": task_id})

    def poll_task(self, task_id: str, until: Collection[str]) -> Any:
        """GetTask until the task's state is one of `until`; only the last reply is kept."""
        wanted = " or ".join(sorted(self.dialect.state_name(s) for s in until))
        number = self._requests + 1
        body = {"jsonrpc": "2.0", "id": number, "method": self.dialect.method("GetTask"),
                "params": {"id": task_id}}
        deadline = time.monotonic() + self.wire.wait_seconds
        reply = self.wire.post(body)
        while _state(_parsed(reply.body)) not in until and time.monotonic() < deadline:
            time.sleep(_POLL_INTERVAL)
            reply = self.wire.post(body)
        if _state(_parsed(reply.body)) in until:
            note = f"GetTask repeated until the state was {wanted}; the last reply is shown"
        else:
            note = f"GetTask repeated for {self.wire.wait_seconds:g} s; it never showed {wanted}"
        self._request("GetTask", {"id": task_id}, False, note)
        return self._reply(reply)

    # streams ----------------------------------------------------------------------------

    def stream(self, method: str, params: dict[str, Any]) -> Stream | None:
        """Start a streaming call; None when the server answered with a whole body instead."""
        opened = self.wire.open_stream(self._request(method, params, True))
        if isinstance(opened, HttpReply):
            self._reply(opened)
            return None
        self.transcript.entries.append(Reply(opened.status, opened.content_type, None))
        return Stream(self._requests, opened)

    def stream_message(self, text: str, **message: Any) -> Stream | None:
        params = {"message": self.message(text, **message)}
        self._settle(params["message"])
        return self.stream("SendStreamingMessage", params)

    def read(self, stream: Stream | None, count: int | None = None) -> list[Any]:
        """Read `count` more events (all of them when None), record and return them."""
        if stream is None or stream.ended:
            return []
        received = []
        for event in stream.events.next_events(count, self.wire.wait_seconds):
            stream.count += 1
            stream.last = _parsed(event.data)
            received.append(stream.last)
            self.transcript.entries.append(
                Event(stream.number, stream.count, event.kind, stream.last)
            )
        if stream.events.ended_by:
            stream.ended = True
            self.transcript.entries.append(
                StreamEnd(stream.number, stream.count, stream.last, stream.events.ended_by)
            )
        return received

    # off the wire -----------------------------------------------------------------------

    def open_gate(self, name: str) -> None:
        self.gates.open(name)
        self.transcript.entries.append(Note(f"opened gate {name!r}; the agent goes on"))

    def note(self, text: str) -> None:
        self.transcript.entries.append(Note(text))
