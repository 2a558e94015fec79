"""What one scenario put on the wire, as values, and its text form (the golden file).

A transcript is a list of entries in the order the scenario observed them: each request,
its reply (a whole JSON body, or the head of an event stream), the stream's events, the
line that says when and by whom a stream was closed, and notes for what the runner did
off the wire (opening a gate the agent waits on). `render` writes the text and
`parse` reads it back, with the lines each entry came from; the two live together
so the format has one definition. The format, line by line::

    # <header lines: scenario name and format, SDK version, what the scenario does>
    ### <n> <Method> (call|stream)          a request; <n> is also its JSON-RPC id
    # <note>                                 (optional) how the request was repeated
    POST <url>, headers, a blank line, the JSON body
    <<< <status> <content type> (<summary>) the reply; a JSON body follows unless a stream
    --- stream <n>, event <k>[, SSE type <type>] (<summary>)   one event; its JSON follows
    -- stream <n> closed by <server|client …> after event <k> (<summary>)
    # runner: <what the runner did off the wire>
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

FORMAT_VERSION = 1
EVENT_STREAM = "text/event-stream"


@dataclass(frozen=True)
class Request:
    number: int
    method: str
    body: Any
    stream: bool
    note: str = ""


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    body: Any  # parsed JSON; the raw text when it is not JSON; None for a stream's head


@dataclass(frozen=True)
class Event:
    stream: int  # the number of the request whose stream carried it
    index: int
    kind: str  # the SSE event type: "message" unless the server named another
    data: Any


@dataclass(frozen=True)
class StreamEnd:
    stream: int
    after_event: int
    last: Any  # the last event's data (None when there was none)
    by: str  # "server", or "client" when the server went silent past the wait bound


@dataclass(frozen=True)
class Note:
    text: str


Entry = Request | Reply | Event | StreamEnd | Note


@dataclass
class Transcript:
    scenario: str
    title: str
    entries: list[Entry] = field(default_factory=list)


# The `kind` of a 0.3 result → the key a 1.0 result wraps the same object in.
KIND_KEYS = {"task": "task", "status-update": "statusUpdate", "artifact-update": "artifactUpdate",
              "message": "message"}


# one-line summaries -------------------------------------------------------------------------


def result_of(body: Any) -> Any:
    return body["result"] if isinstance(body, dict) and "result" in body else None


def error_of(body: Any) -> dict[str, Any] | None:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error: dict[str, Any] = body["error"]
        return error
    return None


def state_of(obj: Any) -> str:
    if isinstance(obj, dict) and isinstance(obj.get("status"), dict):
        return str(obj["status"].get("state", ""))
    return ""


def describe(body: Any) -> str:
    """What a JSON-RPC body carries, in a few words (`task TASK_STATE_WORKING`)."""
    error = error_of(body)
    if error is not None:
        return f"error {error.get('code')}"
    result = result_of(body)
    if not isinstance(result, dict):
        return "no JSON-RPC result" if body is not None else "event stream"
    for key in ("task", "statusUpdate", "artifactUpdate", "message"):
        if key in result:
            return f"{key} {state_of(result[key])}".rstrip()
    if result.get("kind") in KIND_KEYS:  # a 0.3 result names its own kind
        return f"{KIND_KEYS[result['kind']]} {state_of(result)}".rstrip()
    if "status" in result and "id" in result:  # a bare Task, as GetTask and CancelTask return
        return f"task {state_of(result)}"
    if isinstance(result.get("tasks"), list):
        return f"{len(result['tasks'])} task(s)"
    return "result"


# rendering ---------------------------------------------------------------------------------


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def _closer(by: str) -> str:
    return "server" if by == "server" else "client (the server sent nothing more in time)"


def render(
    transcript: Transcript, header: list[str], url: str, headers: dict[str, str]
) -> str:
    """The transcript as the text of a `NN-name.http` file."""
    lines = [f"# {line}".rstrip() for line in header]
    for entry in transcript.entries:
        if isinstance(entry, Request):
            kind = "stream" if entry.stream else "call"
            lines += ["", f"### {entry.number} {entry.method} ({kind})"]
            if entry.note:
                lines.append(f"# {entry.note}")
            lines.append(f"POST {url}")
            lines += [f"{name}: {value}" for name, value in sorted(headers.items())]
            lines += ["", _json(entry.body)]
        elif isinstance(entry, Reply):
            lines += ["", f"<<< {entry.status} {entry.content_type} ({describe(entry.body)})"]
            if entry.body is not None:
                lines.append(_json(entry.body))
        elif isinstance(entry, Event):
            sse = "" if entry.kind == "message" else f", SSE type {entry.kind}"
            summary = describe(entry.data)
            lines.append(f"--- stream {entry.stream}, event {entry.index}{sse} ({summary})")
            lines.append(_json(entry.data))
        elif isinstance(entry, StreamEnd):
            where = (f"after event {entry.after_event} ({describe(entry.last)})"
                     if entry.after_event else "before any event")
            lines.append(f"-- stream {entry.stream} closed by {_closer(entry.by)} {where}")
        else:
            lines += ["", f"# runner: {entry.text}"]
    return "\n".join(lines) + "\n"


# parsing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Located:
    """An entry with the 1-based lines (inclusive) it occupies in the text."""

    entry: Entry
    line_start: int
    line_end: int


@dataclass
class ParsedTranscript:
    scenario: str = ""
    format_version: int = 0
    sdk_package: str = ""
    sdk_version: str = ""
    title: str = ""
    title_line: int = 0  # the line of `# scenario:`, 1-based (0: none)
    entries: list[Located] = field(default_factory=list)


_TITLE = re.compile(r"^# a2a-kb capture (\S+) \(format (\d+)\)$")
_SDK = re.compile(r"^# sdk: (\S+) (\S+?),")
_SCENARIO = re.compile(r"^# scenario: (.*)$")
_REQUEST = re.compile(r"^### (\d+) (\S+) \((call|stream)\)$")
_REPLY = re.compile(r"^<<< (\d+) (.*?) \([^()]*\)$")
_EVENT = re.compile(r"^--- stream (\d+), event (\d+)(?:, SSE type (\S+))? \(")
_END = re.compile(
    r"^-- stream (\d+) closed by (server|client)\b.*?(?:after event (\d+)|before any event)"
)
_NOTE = re.compile(r"^# runner: (.*)$")
_MARKER = re.compile(r"^(### |<<< |--- stream |-- stream |# runner: )")


def _body(lines: list[str]) -> Any:
    text = "\n".join(lines).strip()
    if not text:
        return ""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse(text: str) -> ParsedTranscript:
    """Read a transcript's text back into entries with their line numbers.

    Lines that fit no part of the format are ignored; a caller that expected entries and
    got none decides whether that is an error.
    """
    parsed = ParsedTranscript()
    lines = text.splitlines()
    i = 0
    while i < len(lines) and not _MARKER.match(lines[i]):
        line = lines[i]
        if m := _TITLE.match(line):
            parsed.scenario, parsed.format_version = m.group(1), int(m.group(2))
        elif m := _SDK.match(line):
            parsed.sdk_package, parsed.sdk_version = m.group(1), m.group(2)
        elif m := _SCENARIO.match(line):
            parsed.title, parsed.title_line = m.group(1), i + 1
        i += 1

    def take_body(start: int) -> tuple[Any, int]:
        """The body from `start` up to the next marker line, and where that line is."""
        end = start
        while end < len(lines) and not _MARKER.match(lines[end]):
            end += 1
        return _body(lines[start:end]), end

    while i < len(lines):
        line, start = lines[i], i + 1
        if m := _REQUEST.match(line):
            i += 1
            note = ""
            while i < len(lines) and lines[i].startswith("# "):
                note = lines[i][2:]
                i += 1
            while i < len(lines) and lines[i].strip():  # the request line and headers
                i += 1
            body, i = take_body(i)
            entry: Entry = Request(int(m.group(1)), m.group(2), body, m.group(3) == "stream", note)
        elif m := _REPLY.match(line):
            content_type = m.group(2)
            if content_type.startswith(EVENT_STREAM):
                i += 1
                entry = Reply(int(m.group(1)), content_type, None)
            else:
                body, i = take_body(i + 1)
                entry = Reply(int(m.group(1)), content_type, body)
        elif m := _EVENT.match(line):
            data, i = take_body(i + 1)
            entry = Event(int(m.group(1)), int(m.group(2)), m.group(3) or "message", data)
        elif m := _END.match(line):
            i += 1
            after = int(m.group(3) or 0)
            last = next(
                (e.entry.data for e in reversed(parsed.entries)
                 if isinstance(e.entry, Event) and e.entry.stream == int(m.group(1))),
                None,
            )
            entry = StreamEnd(int(m.group(1)), after, last, m.group(2))
        elif m := _NOTE.match(line):
            i += 1
            entry = Note(m.group(1))
        else:
            i += 1
            continue
        end = i
        while end > start and not lines[end - 1].strip():
            end -= 1
        parsed.entries.append(Located(entry, start, max(start, end)))
    return parsed
