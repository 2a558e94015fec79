"""HTTP exchanges between the capture scenarios and the local SDK server.

STYLE keeps every network *fetch* in one module (a2a_kb.sources.http). This module is not a fetch:
it talks only to the server the capture kit itself started on 127.0.0.1, the way a test
harness talks to the code under test, and it refuses any other host. It is the one place in
the capture package that does HTTP, so the kit's traffic can be read in one file.

A stream is read by a background thread that hands each server-sent event over a queue, so
a scenario can act (cancel, answer, poll) while a stream stays open and then read on.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..errors import ConfigurationError

LOCAL_HOST = "127.0.0.1"
NO_REPLY = 0  # the status of an HttpReply when the server sent nothing within the wait bound


@dataclass(frozen=True)
class HttpReply:
    """A whole HTTP response: status, media type and body text."""

    status: int
    content_type: str
    body: str

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass(frozen=True)
class ServerEvent:
    """One server-sent event: its type (`message` unless the server named one) and data."""

    kind: str
    data: str


# Sentinels the reader thread puts on the queue after the last event.
_CLOSED_BY_SERVER = "closed-by-server"
_SILENT = "silent"


class EventStream:
    """An open SSE response whose events arrive on a queue as the server sends them."""

    def __init__(self, status: int, content_type: str) -> None:
        self.status = status
        self.content_type = content_type
        self._events: queue.Queue[ServerEvent | str] = queue.Queue()
        self.ended_by = ""  # "server", or "client" when the server went silent

    def next_events(self, count: int | None, wait_seconds: float) -> list[ServerEvent]:
        """Up to `count` more events (all, when None), stopping early if the stream ends.

        `wait_seconds` bounds each wait for one event; the reader thread enforces the same
        bound as a read timeout, so a stream that goes quiet ends as closed by the client.
        """
        events: list[ServerEvent] = []
        while not self.ended_by and (count is None or len(events) < count):
            try:
                item = self._events.get(timeout=wait_seconds + 1)
            except queue.Empty:
                self.ended_by = "client"
                break
            if isinstance(item, ServerEvent):
                events.append(item)
            else:
                self.ended_by = "server" if item == _CLOSED_BY_SERVER else "client"
        return events

    def _put(self, item: ServerEvent | str) -> None:
        self._events.put(item)


class Wire:
    """JSON-RPC over HTTP to one local server, with a bound on every wait."""

    def __init__(self, base_url: str, headers: dict[str, str], wait_seconds: float) -> None:
        host = urlsplit(base_url).hostname
        if host != LOCAL_HOST:
            raise ConfigurationError(
                f"the capture kit only talks to {LOCAL_HOST}, not {host!r}"
            )
        self.base_url = base_url
        self.headers = dict(headers)
        self.wait_seconds = wait_seconds
        # A new connection per call: a pooled one that the server closed while it sat idle
        # (its keep-alive timeout) fails the next call with "Server disconnected without
        # sending a response", and a retry could send a call twice. On loopback, a
        # connection costs nothing worth keeping it for.
        self._client = httpx.Client(timeout=wait_seconds, trust_env=False,
                                    limits=httpx.Limits(max_keepalive_connections=0))

    def close(self) -> None:
        self._client.close()

    def post(self, body: dict[str, Any]) -> HttpReply:
        """One unary call. A server that stays silent past the bound is an answer too
        (NO_REPLY); one that cannot be reached at all means the run is broken."""
        try:
            response = self._client.post(self.base_url, json=body, headers=self.headers)
        except httpx.TimeoutException:
            return HttpReply(NO_REPLY, "", "")
        except httpx.HTTPError as e:
            raise ConfigurationError(f"the capture server stopped answering: {e}") from e
        content_type = response.headers.get("content-type", "")
        return HttpReply(response.status_code, content_type, response.text)

    def control(self, path: str) -> None:
        """POST to an out-of-process agent's control route (opening a gate), beside its RPC URL."""
        try:
            response = self._client.post(self.base_url.rstrip("/") + "/" + path)
        except httpx.HTTPError as e:
            raise ConfigurationError(f"the capture agent's control route failed: {e}") from e
        if response.status_code >= 300:
            raise ConfigurationError(f"the capture agent refused {path}: HTTP {response.status_code}")

    def open_stream(self, body: dict[str, Any]) -> EventStream | HttpReply:
        """Start a streaming call; a reply that is not an event stream comes back whole."""
        opened: queue.Queue[EventStream | HttpReply | BaseException] = queue.Queue()
        reader = threading.Thread(
            target=self._read_stream, args=(body, opened), name="a2a-kb-capture-stream", daemon=True
        )
        reader.start()
        try:
            head = opened.get(timeout=self.wait_seconds + 1)
        except queue.Empty:
            return HttpReply(NO_REPLY, "", "")
        if isinstance(head, BaseException):
            raise ConfigurationError(f"the capture server stopped answering: {head}") from head
        return head

    def _read_stream(
        self, body: dict[str, Any], opened: queue.Queue[EventStream | HttpReply | BaseException]
    ) -> None:
        # Each stream gets its own client: the reader thread and the scenario's thread must
        # never share a connection pool.
        stream: EventStream | None = None
        try:
            with (
                httpx.Client(timeout=self.wait_seconds, trust_env=False) as client,
                client.stream("POST", self.base_url, json=body, headers=self.headers) as response,
            ):
                content_type = response.headers.get("content-type", "")
                if not content_type.startswith("text/event-stream"):
                    text = response.read().decode()
                    opened.put(HttpReply(response.status_code, content_type, text))
                    return
                stream = EventStream(response.status_code, content_type)
                opened.put(stream)
                for event in _server_events(response.iter_lines()):
                    stream._put(event)
                stream._put(_CLOSED_BY_SERVER)
        except httpx.TimeoutException:
            if stream is not None:
                stream._put(_SILENT)
            else:
                opened.put(HttpReply(NO_REPLY, "", ""))
        except httpx.HTTPError as e:
            if stream is None:
                opened.put(e)
            else:
                stream._put(_SILENT)


def _server_events(lines: Iterator[str]) -> Iterator[ServerEvent]:
    """Parse SSE lines into events (the text/event-stream format; comments are keep-alives)."""
    kind, data = "", list[str]()
    for line in lines:
        if line == "":
            if data:
                yield ServerEvent(kind or "message", "\n".join(data))
            kind, data = "", list[str]()
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                kind = value
            elif field == "data":
                data.append(value)
    if data:
        yield ServerEvent(kind or "message", "\n".join(data))
