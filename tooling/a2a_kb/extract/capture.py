"""Facts from a capture transcript (source kind `capture`): what the real SDK did.

The transcript is read with `a2a_kb.capture.transcript.parse`, the twin of the code
that writes it. Facts about the whole scenario have the scenario's name as subject
(`04-input-required`); facts about one request have `<scenario>/<n>`, where `n` is the
request's number in the transcript (`### n`), so `04-input-required/1` is its first.

States are canonical names (`input-required`). A task's state is seen wherever a Task or
a status update shows it: a reply, a stream event, a GetTask or ListTasks result. The
scenario's final state and artifacts are those of the task the last sighting was about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..capture.transcript import (
    KIND_KEYS,
    Event,
    Located,
    ParsedTranscript,
    Reply,
    Request,
    StreamEnd,
    error_of,
    parse,
    result_of,
)
from ..facts import Fact
from .artifact import Artifact, Draft
from .lifecycle import state_name

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.

_WRAPPERS = ("task", "statusUpdate", "artifactUpdate", "message")


@dataclass
class _Artifacts:
    """The artifacts the wire has shown of one task (artifactId → name, in order)."""

    names: dict[str, str] = field(default_factory=dict)
    lines: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class _Sighting:
    """One view of a task's state, and the lines that show it."""

    task_id: str
    state: str
    lines: tuple[int, int]


@dataclass
class _Exchange:
    """One request and everything that came back for it, wherever it sits in the text."""

    method: str
    kind: str
    lines: tuple[int, int]
    sightings: list[_Sighting] = field(default_factory=list)
    error: dict[str, Any] | None = None
    context: str | None = None  # the contextId of the first task or update it showed
    history: int | None = None  # how many messages the history of a Task reply held

    def extend(self, located: Located) -> None:
        self.lines = (self.lines[0], max(self.lines[1], located.line_end))


def _state(obj: Any) -> str:
    status = obj.get("status") if isinstance(obj, dict) else None
    if isinstance(status, dict) and status.get("state"):
        return state_name(str(status["state"]))
    return ""


class _Reading:
    """What the facts are made of, gathered in one walk over the located entries."""

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.artifacts: dict[str, _Artifacts] = {}
        self.exchanges: dict[int, _Exchange] = {}
        self.drafts: list[Draft] = []

    def walk(self, entries: list[Located]) -> None:
        number = 0
        for located in entries:
            entry = located.entry
            if isinstance(entry, Request):
                number = entry.number
                self.exchanges[number] = _Exchange(
                    entry.method, "stream" if entry.stream else "call",
                    (located.line_start, located.line_end),
                )
            elif isinstance(entry, Reply) and number in self.exchanges:
                self._body(entry.body, number, located)
            elif isinstance(entry, Event):
                self._body(entry.data, entry.stream, located)
            elif isinstance(entry, StreamEnd):
                self._stream_end(entry, located)

    def _body(self, body: Any, number: int, where: Located) -> None:
        exchange = self.exchanges.get(number)
        if exchange is not None:
            exchange.extend(where)
        error = error_of(body)
        if error is not None:
            value = {"code": error.get("code"), "message": error.get("message")}
            if exchange is not None and exchange.error is None:
                exchange.error = value
            self.drafts.append(Draft("capture-error", f"{self.scenario}/{number}", value,
                                     where.line_start, where.line_end))
            return
        result = result_of(body)
        if not isinstance(result, dict):
            return
        wrapped = [key for key in _WRAPPERS if key in result]
        if wrapped:
            for key in wrapped:
                self._observe(result[key], key, exchange, where)
        elif result.get("kind") in KIND_KEYS:  # protocol 0.3: the result names its own kind
            self._observe(result, KIND_KEYS[str(result["kind"])], exchange, where)
        elif isinstance(result.get("tasks"), list):  # ListTasks
            for task in result["tasks"]:
                self._observe(task, "task", exchange, where)
        elif "status" in result:  # a bare Task: GetTask, CancelTask
            self._observe(result, "task", exchange, where)

    def _observe(self, obj: Any, kind: str, exchange: _Exchange | None, where: Located) -> None:
        if not isinstance(obj, dict):
            return
        task_id = str(obj.get("id") if kind == "task" else obj.get("taskId", ""))
        if not task_id:
            return
        lines = (where.line_start, where.line_end)
        known = self.artifacts.setdefault(task_id, _Artifacts())
        if kind == "task":  # a whole Task lists every artifact it has
            known.names = {
                str(a.get("artifactId", "")): str(a.get("name", ""))
                for a in obj.get("artifacts", []) if isinstance(a, dict)
            }
            known.lines = lines
        elif kind == "artifactUpdate" and isinstance(obj.get("artifact"), dict):
            artifact_id = str(obj["artifact"].get("artifactId", ""))
            if not (obj.get("append") and artifact_id in known.names):
                known.names[artifact_id] = str(obj["artifact"].get("name", ""))
            known.lines = lines
        state = _state(obj) if kind in ("task", "statusUpdate") else ""
        if state and exchange is not None:
            exchange.sightings.append(_Sighting(task_id, state, lines))
        if exchange is not None and exchange.context is None and obj.get("contextId"):
            exchange.context = str(obj["contextId"])
        if exchange is not None and kind == "task" and exchange.kind == "call" and exchange.history is None:
            history = obj.get("history")
            exchange.history = len(history) if isinstance(history, list) else 0

    def _stream_end(self, end: StreamEnd, where: Located) -> None:
        exchange = self.exchanges.get(end.stream)
        if exchange is not None:
            exchange.extend(where)
        result = result_of(end.last)
        state = ""
        if isinstance(result, dict):
            state = next((_state(result[k]) for k in ("task", "statusUpdate") if k in result), "")
            if not state and result.get("kind") in ("task", "status-update"):  # protocol 0.3
                state = _state(result)
        self.drafts.append(Draft(
            "capture-stream-close", f"{self.scenario}/{end.stream}",
            {"after_event": end.after_event, "after_state": state or None, "by": end.by},
            where.line_start, where.line_end,
        ))

    def sightings(self) -> list[_Sighting]:
        """Every sighting, taking exchanges in the order their requests were sent.

        Each exchange's own sightings are in wire order, and a stream's events all follow
        its request, so this puts a subscription's events before the reply of a call made
        while it was open, which is the order they happened in.
        """
        return [s for _, exchange in sorted(self.exchanges.items()) for s in exchange.sightings]

    def news(self) -> list[_Sighting]:
        """The sightings that are news: a task's repeat of the state it was last in is not."""
        last: dict[str, str] = {}
        news: list[_Sighting] = []
        for sighting in self.sightings():
            if last.get(sighting.task_id) != sighting.state:
                news.append(sighting)
            last[sighting.task_id] = sighting.state
        return news


def _scenario_drafts(parsed: ParsedTranscript, reading: _Reading) -> list[Draft]:
    scenario = parsed.scenario
    header_end = max(1, parsed.entries[0].line_start - 1) if parsed.entries else 1
    drafts = [Draft("capture-sdk", scenario,
                    {"package": parsed.sdk_package, "version": parsed.sdk_version},
                    1, header_end)]
    if parsed.title_line:
        drafts.append(Draft("capture-scenario", scenario, parsed.title, parsed.title_line, parsed.title_line))
    news = reading.news()
    if not news:
        return drafts
    drafts.append(Draft("capture-states", scenario, [s.state for s in news],
                        min(s.lines[0] for s in news), max(s.lines[1] for s in news)))
    final = reading.sightings()[-1]
    drafts.append(Draft("capture-final-state", scenario, final.state, *final.lines))
    known = reading.artifacts.get(final.task_id, _Artifacts())
    drafts.append(Draft(
        "capture-final-artifacts", scenario,
        {"count": len(known.names), "names": list(known.names.values())},
        *(known.lines if known.lines[0] else final.lines),
    ))
    return drafts


def read(parsed: ParsedTranscript) -> list[Draft]:
    """Every fact draft of one parsed transcript: the scenario's, then each request's."""
    reading = _Reading(parsed.scenario)
    reading.walk(parsed.entries)
    exchanges = [
        Draft("capture-exchange", f"{parsed.scenario}/{number}",
              {"method": ex.method, "kind": ex.kind, "states": [s.state for s in ex.sightings],
               "error": ex.error, "context": ex.context, "history": ex.history},
              *ex.lines)
        for number, ex in sorted(reading.exchanges.items())
    ]
    return _scenario_drafts(parsed, reading) + reading.drafts + exchanges


def extract(artifact: Artifact) -> list[Fact]:
    parsed = parse(artifact.text)
    if not parsed.scenario:
        raise artifact.fail("no `# a2a-kb capture <scenario> (format N)` header line")
    if not parsed.sdk_version:
        raise artifact.fail("no `# sdk: <package> <version>,` header line")
    if not any(isinstance(e.entry, Request) for e in parsed.entries):
        raise artifact.fail("no `### <n> <Method> (call|stream)` request in the transcript")
    drafts = read(parsed)
    if not any(d.kind in ("capture-final-state", "capture-error") for d in drafts):
        raise artifact.fail("no task state and no error anywhere in the transcript")
    return artifact.facts(drafts)
