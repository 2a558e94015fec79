"""The recording client a scenario drives: JSON-RPC calls and streams, written down in order.

Every call goes through :class:`Session`, which numbers it (the number is also its JSON-RPC
id), sends it over the :mod:`~a2a_kb.capture.wire`, and appends the request and what came
back to the scenario's transcript exactly when the scenario observes it. A poll records
only its last reply: how many polls it takes depends on timing, what it ends on does not.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Collection
from typing import Any

from .agent import Gates
from .transcript import Event, Note, Reply, Request, StreamEnd, Transcript, result_of
from .wire import NO_REPLY, EventStream, HttpReply, Wire

TERMINAL = frozenset(
    {"TASK_STATE_COMPLETED", "TASK_STATE_CANCELED", "TASK_STATE_FAILED", "TASK_STATE_REJECTED"}
)
_POLL_INTERVAL = 0.01


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
    """The object a body is about: SendMessage's ``task``, an event's update, or a bare Task."""
    result = result_of(body)
    if not isinstance(result, dict):
        return {}
    for key in ("task", "statusUpdate", "artifactUpdate", "message"):
        if isinstance(result.get(key), dict):
            inner: dict[str, Any] = result[key]
            return inner
    return result


def task_ids(body: Any) -> tuple[str, str]:
    """(taskId, contextId) of whatever task a body or event is about."""
    about = inner_result(body)
    return str(about.get("taskId") or about.get("id") or ""), str(about.get("contextId", ""))


def _state(body: Any) -> str:
    status = inner_result(body).get("status")
    return str(status.get("state", "")) if isinstance(status, dict) else ""


class Session:
    """One scenario's conversation with the server, recorded into a transcript."""

    def __init__(self, wire: Wire, gates: Gates, transcript: Transcript) -> None:
        self.wire = wire
        self.gates = gates
        self.transcript = transcript
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
        message: dict[str, Any] = {
            "messageId": f"client-message-{self._messages}",
            "role": "ROLE_USER",
            "parts": [{"text": text}],
        }
        if task_id:
            message["taskId"] = task_id
        if context_id:
            message["contextId"] = context_id
        if reference_task_ids:
            message["referenceTaskIds"] = list(reference_task_ids)
        return message

    def _request(
        self, method: str, params: dict[str, Any], stream: bool, note: str = ""
    ) -> dict[str, Any]:
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

    def send(self, text: str, *, return_immediately: bool = False, **message: Any) -> Any:
        params: dict[str, Any] = {"message": self.message(text, **message)}
        if return_immediately:
            params["configuration"] = {"returnImmediately": True}
        return self.call("SendMessage", params)

    def get_task(self, task_id: str) -> Any:
        return self.call("GetTask", {"id": task_id})

    def cancel_task(self, task_id: str) -> Any:
        return self.call("CancelTask", {"id": task_id})

    def poll_task(self, task_id: str, until: Collection[str]) -> Any:
        """GetTask until the task's state is one of ``until``; only the last reply is kept."""
        wanted = " or ".join(sorted(until))
        number = self._requests + 1
        body = {"jsonrpc": "2.0", "id": number, "method": "GetTask", "params": {"id": task_id}}
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
        return self.stream("SendStreamingMessage", {"message": self.message(text, **message)})

    def read(self, stream: Stream | None, count: int | None = None) -> list[Any]:
        """Read ``count`` more events (all of them when None), record and return them."""
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
