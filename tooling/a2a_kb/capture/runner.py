"""Run the scenarios against the real SDK and write, or compare, their transcripts.

One server serves every scenario of a run (each scenario starts its own tasks). Each
transcript is normalized, rendered, then either written atomically (only when its text
changed) or compared with the file on disk, with a unified diff when they differ.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigurationError
from ..sources.cache import atomic_write
from .transcript import FORMAT_VERSION, Transcript, render

SDK_PACKAGE = "a2a-sdk"
VARIANT_ENV = "A2A_KB_CAPTURE_AGENT_VARIANT"
WAIT_SECONDS = 5.0  # the longest any one read, poll or stream event may take
# What every request carries: without A2A-Version the SDK takes a request for protocol 0.3.
REQUEST_HEADERS = {"A2A-Version": "1.0", "Content-Type": "application/json"}
URL_SHOWN = "http://127.0.0.1:<port>/"
SUFFIX = ".http"
_TRANSCRIPT_NAME = re.compile(r"^\d\d-[a-z0-9-]+\.http$")


@dataclass(frozen=True)
class ScenarioOutcome:
    """What happened to one transcript: unchanged, written, differs, missing or stale."""

    name: str
    path: Path
    status: str
    diff: str = ""

    @property
    def failed(self) -> bool:
        return self.status in ("differs", "missing", "stale")


@dataclass
class CaptureReport:
    """The result of one capture run, for the CLI to print and map to an exit code."""

    sdk_version: str
    variant: str
    checked: bool
    seconds: float = 0.0
    outcomes: list[ScenarioOutcome] = field(default_factory=list)
    server_log: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(o.failed for o in self.outcomes)

    @property
    def differing(self) -> list[ScenarioOutcome]:
        return [o for o in self.outcomes if o.failed]

    def format_text(self) -> str:
        """The report as the CLI prints it: one line per transcript, diffs, a summary."""
        lines: list[str] = []
        for outcome in self.outcomes:
            shown = f"{outcome.path.parent.name}/{outcome.path.name}"
            lines.append(f"{shown}: {outcome.status}")
            if outcome.diff:
                lines.append(outcome.diff.rstrip("\n"))
        counts: dict[str, int] = {}
        for outcome in self.outcomes:
            counts[outcome.status] = counts.get(outcome.status, 0) + 1
        tally = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        lines.append(
            f"{len(self.outcomes)} transcript(s), {SDK_PACKAGE} {self.sdk_version}, "
            f"agent variant {self.variant}, {self.seconds:.1f} s: {tally}"
        )
        if self.checked and not self.ok:
            lines.append(
                "tip: if the SDK or the scenarios changed on purpose, run `a2a-kb capture` "
                "to rewrite the transcripts, then review and commit the diff"
            )
        return "\n".join(lines)


def sdk_version() -> str:
    try:
        return importlib.metadata.version(SDK_PACKAGE)
    except importlib.metadata.PackageNotFoundError as e:
        raise ConfigurationError(
            f"{SDK_PACKAGE} is not installed, so there is nothing to capture "
            "(tip: pip install -e '.[sdk]')"
        ) from e


def header(scenario: str, title: str, version: str) -> list[str]:
    return [
        f"a2a-kb capture {scenario} (format {FORMAT_VERSION})",
        f"sdk: {SDK_PACKAGE} {version}, JSON-RPC binding, A2A-Version 1.0",
        "server: the SDK's JSON-RPC routes, DefaultRequestHandler and InMemoryTaskStore,",
        "  served by uvicorn on 127.0.0.1; the agent is a2a_kb.capture.agent.ScriptedAgent",
        f"scenario: {title}",
        "",
        "Generated ids are placeholders numbered in order of first appearance (task-1,",
        "context-1, message-1, artifact-1), timestamps are <timestamp>, the port is <port>.",
        "Regenerate with `a2a-kb capture`; `a2a-kb capture --check` compares.",
    ]


def _diff(name: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"captures/{name}{SUFFIX} (on disk)",
            tofile=f"captures/{name}{SUFFIX} (this run)",
        )
    )


def _settle(path: Path, name: str, text: str, check: bool) -> ScenarioOutcome:
    old = path.read_text("utf-8") if path.is_file() else None
    if old == text:
        return ScenarioOutcome(name, path, "unchanged")
    if check:
        return ScenarioOutcome(name, path, "missing" if old is None else "differs",
                               _diff(name, old or "", text))
    atomic_write(path, text.encode("utf-8"))
    path.chmod(0o644)  # a committed file like any other; the temporary file was private
    return ScenarioOutcome(name, path, "written")


def run_captures(captures_dir: Path, check: bool, only: list[str] | None = None) -> CaptureReport:
    """Drive the real SDK through the scenarios; write transcripts, or compare when ``check``.

    ``only`` limits the run to some scenarios (full names like ``04-input-required`` or
    numbers like ``04``). The scripted agent's variant comes from $A2A_KB_CAPTURE_AGENT_VARIANT
    (unset means ``standard``); any other variant exists to show that ``check`` notices a
    change in behaviour. Raises ConfigurationError when the SDK is missing, a name is
    unknown, or the server cannot start; differences are outcomes in the report.
    """
    version = sdk_version()
    # Imported here: these modules import the SDK, which is an optional extra.
    from .agent import STANDARD, Gates, ScriptedAgent
    from .normalize import normalize
    from .scenarios import SCENARIOS, select
    from .server import LocalServer, build_app, captured_server_log
    from .session import Session
    from .wire import Wire

    chosen, unknown = select(only)
    if unknown:
        raise ConfigurationError(
            f"unknown capture scenario(s): {', '.join(unknown)} "
            f"(tip: one of {', '.join(sc.name for sc in SCENARIOS)})"
        )
    variant = os.environ.get(VARIANT_ENV, "").strip() or STANDARD
    agent = ScriptedAgent(Gates(), variant)
    report = CaptureReport(sdk_version=version, variant=variant, checked=check)
    started = time.monotonic()
    with captured_server_log() as log, LocalServer(build_app(agent)) as server:
        wire = Wire(server.base_url, REQUEST_HEADERS, WAIT_SECONDS)
        try:
            for scenario in chosen:
                transcript = Transcript(scenario.name, scenario.title)
                scenario.play(Session(wire, agent.gates, transcript))
                text = render(
                    normalize(transcript), header(scenario.name, scenario.title, version),
                    URL_SHOWN, REQUEST_HEADERS,
                )
                path = captures_dir / f"{scenario.name}{SUFFIX}"
                report.outcomes.append(_settle(path, scenario.name, text, check))
        finally:
            wire.close()
    report.server_log = log.lines
    if only is None:
        known = {sc.name for sc in SCENARIOS}
        for path in sorted(captures_dir.glob(f"*{SUFFIX}")):
            if _TRANSCRIPT_NAME.match(path.name) and path.stem not in known:
                report.outcomes.append(ScenarioOutcome(
                    path.stem, path, "stale",
                    f"{path.name}: no scenario of that name (tip: delete it, or restore the "
                    "scenario that wrote it)",
                ))
    report.seconds = time.monotonic() - started
    return report
