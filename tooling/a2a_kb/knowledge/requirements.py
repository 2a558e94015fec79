"""The conformance suite's requirements and its verdicts on each SDK build, as the KB reads them.

The registry is a2a-tck's own (`tck/requirements/*.py` on 1.0-dev, read into
`suite-requirement:<ID>` facts); the verdicts are those its runner reported for each build
(`captures/tck/`, read into `tck-verdict:<ID>` facts). This module says which
requirements are about the task lifecycle and how a verdict reads in words; the claims in
`claims/tck-verdicts.yaml` and the requirement matrix are made from both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..facts import Fact
from ..output import listed
from ..records.model import Source

# The operations that create, move, read or end a task (the A2A service's task methods).
TASK_OPERATIONS = ("SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask",
                   "SubscribeToTask")
# The tag that puts a requirement without an operation on a task or its status (DM-TASK-*,
# DM-STATUS-001); "status" alone also tags HTTP status codes (HTTP_JSON-STATUS-001).
TASK_TAGS = ("task",)
TRANSPORT_TITLES = {"jsonrpc": "JSON-RPC", "grpc": "gRPC", "http_json": "HTTP+JSON",
                    "agent_card": "agent card"}
# The suite's verdict words (compatibility.json) → what a cell says.
VERDICT_WORDS = {"PASS": "passes", "FAIL": "fails", "SKIPPED": "skipped", "NOT_TESTED": "not tested",
                 "PARTIAL": "partly passes"}


def registry(sources: list[Source], facts_of: Callable[[Source], dict[str, list[Fact]]],
             branch: str = "1.0-dev") -> dict[str, dict[str, Any]]:
    """The suite's requirements on `branch`: each `suite-requirement` fact of its pinned
    `tck/requirements/` files, by id. `facts_of` is the fact book's (or the site data's)."""
    found: dict[str, dict[str, Any]] = {}
    for source in sources:
        in_registry = source.path.startswith("tck/requirements/")
        if source.kind == "test-suite" and source.branch == branch and in_registry:
            for key, facts in facts_of(source).items():
                if key.startswith("suite-requirement:"):
                    found[key.split(":", 1)[1]] = facts[0].value
    return found


def is_lifecycle(rid: str, requirement: Mapping[str, Any]) -> bool:
    """Whether a registry requirement is about the task lifecycle: it names a task operation,
    it is one of the suite's streaming requirements (`STREAM-`, events of a task), or it is
    tagged as about a task (DM-TASK-*, DM-STATUS-001)."""
    if requirement.get("operation") in TASK_OPERATIONS or rid.startswith("STREAM-"):
        return True
    return any(t in TASK_TAGS for t in requirement.get("tags") or [])


def transports_of(verdict: Mapping[str, Any]) -> dict[str, str]:
    """The per-transport verdicts of a `tck-verdict` fact, in the suite's transport order."""
    return {t: str(verdict[t]) for t in TRANSPORT_TITLES if t in verdict}


def in_words(verdict: Mapping[str, Any]) -> str:
    """A verdict as a cell reads it: "passes over JSON-RPC, gRPC and HTTP+JSON", "fails over
    gRPC; passes over JSON-RPC and HTTP+JSON", "not tested"."""
    by_word: dict[str, list[str]] = {}
    for transport, status in transports_of(verdict).items():
        by_word.setdefault(VERDICT_WORDS.get(status, status.lower()), []).append(TRANSPORT_TITLES[transport])
    if not by_word:
        return VERDICT_WORDS.get(str(verdict.get("status")), str(verdict.get("status", "")).lower())
    order = sorted(by_word, key=lambda w: list(VERDICT_WORDS.values()).index(w)
                   if w in VERDICT_WORDS.values() else 99)
    order = [w for w in order if w == "fails"] + [w for w in order if w != "fails"]
    return "; ".join(f"{w} over {listed(by_word[w])}" for w in order)
