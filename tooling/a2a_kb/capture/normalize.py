"""Make a transcript the same on every run: stable names for generated ids, no clock times.

The server and the agent mint UUIDs for tasks, contexts, messages and artifacts. Each
distinct UUID gets a placeholder named for the role it first appears in (the JSON key it is
the value of) and numbered in order of first appearance: `task-1`, `context-1`,
`message-1`, `artifact-1`; a UUID first met inside prose is `id-1`. Every later
occurrence, in any string, gets the same placeholder, so an error message that names a
task still points at the right one. Timestamps become `<timestamp>` and a port of
127.0.0.1 becomes `<port>`. Ids the client chose itself are left alone.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .transcript import Event, Reply, Request, StreamEnd, Transcript

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_PORT = re.compile(r"127\.0\.0\.1:\d+")

# The JSON key a UUID is the value of → the role its placeholder is named after.
_ROLE_OF_KEY = {
    "id": "task",  # in A2A 1.x payloads a bare "id" that holds a UUID is a task's
    "taskId": "task",
    "referenceTaskIds": "task",
    "contextId": "context",
    "messageId": "message",
    "artifactId": "artifact",
}


class Normalizer:
    """Rewrites JSON values in document order, remembering each UUID's placeholder."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    def _name(self, uuid: str, role: str) -> str:
        key = uuid.lower()
        if key not in self._names:
            self._counts[role] = self._counts.get(role, 0) + 1
            self._names[key] = f"{role}-{self._counts[role]}"
        return self._names[key]

    def text(self, value: str, key: str = "") -> str:
        if key == "timestamp":
            return "<timestamp>"
        role = _ROLE_OF_KEY.get(key, "id")
        value = _UUID.sub(lambda m: self._name(m.group(0), role), value)
        value = _TIMESTAMP.sub("<timestamp>", value)
        return _PORT.sub("127.0.0.1:<port>", value)

    def value(self, value: Any, key: str = "") -> Any:
        if isinstance(value, str):
            return self.text(value, key)
        if isinstance(value, list):
            return [self.value(item, key) for item in value]
        if isinstance(value, dict):
            # Walk keys in sorted order: the order the rendered JSON shows them in, so
            # "first appearance" means first on the page.
            return {k: self.value(value[k], k) for k in sorted(value)}
        return value


def normalize(transcript: Transcript) -> Transcript:
    """A copy of `transcript` with generated ids, timestamps and ports made stable."""
    names = Normalizer()
    entries = []
    for entry in transcript.entries:
        if isinstance(entry, Request | Reply):
            entry = replace(entry, body=names.value(entry.body))
        elif isinstance(entry, Event):
            entry = replace(entry, data=names.value(entry.data))
        elif isinstance(entry, StreamEnd):
            entry = replace(entry, last=names.value(entry.last))
        entries.append(entry)
    return replace(transcript, entries=entries)
