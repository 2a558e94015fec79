"""Run the scenarios against the real SDK and write, or compare, their transcripts.

One server serves every scenario of a run (each scenario starts its own tasks). Each
transcript is normalized, rendered, then either written atomically (only when its text
changed) or compared with the file on disk, with a unified diff when they differ.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.metadata
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cache import atomic_write
from ..errors import ConfigurationError
from .builds import BUILDS, Build, RemoteGates, Running, run_out_of_process, select_builds
from .transcript import FORMAT_VERSION, Transcript, render

if TYPE_CHECKING:
    from .scenarios import Scenario

SDK_PACKAGE = "a2a-sdk"
VARIANT_ENV = "A2A_KB_CAPTURE_AGENT_VARIANT"
WAIT_SECONDS = 5.0  # the longest any one read, poll or stream event may take
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
class BuildRun:
    """What one SDK build did: its release, its transcripts' outcomes, its server's log."""

    key: str
    sdk_version: str
    seconds: float = 0.0
    outcomes: list[ScenarioOutcome] = field(default_factory=list)
    server_log: list[str] = field(default_factory=list)


@dataclass
class CaptureReport:
    """The result of one capture run over one or more SDK builds, for the CLI to print."""

    variant: str
    checked: bool
    seconds: float = 0.0
    runs: list[BuildRun] = field(default_factory=list)

    @property
    def outcomes(self) -> list[ScenarioOutcome]:
        return [o for run in self.runs for o in run.outcomes]

    @property
    def sdk_version(self) -> str:
        """The release of the first build run (the main environment's a2a-sdk by default)."""
        return self.runs[0].sdk_version if self.runs else ""

    @property
    def server_log(self) -> list[str]:
        return [line for run in self.runs for line in run.server_log]

    @property
    def ok(self) -> bool:
        return not any(o.failed for o in self.outcomes)

    @property
    def differing(self) -> list[ScenarioOutcome]:
        return [o for o in self.outcomes if o.failed]

    def format_text(self) -> str:
        """The report as the CLI prints it: one line per transcript, diffs, a summary per build."""
        lines: list[str] = []
        for run in self.runs:
            for outcome in run.outcomes:
                shown = f"{outcome.path.parent.parent.name}/{outcome.path.parent.name}/{outcome.path.name}"
                lines.append(f"{shown}: {outcome.status}")
                if outcome.diff:
                    lines.append(outcome.diff.rstrip("\n"))
            counts: dict[str, int] = {}
            for outcome in run.outcomes:
                counts[outcome.status] = counts.get(outcome.status, 0) + 1
            tally = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
            lines.append(f"{run.key}: {len(run.outcomes)} transcript(s), SDK release {run.sdk_version}, "
                         f"{run.seconds:.1f} s: {tally}")
        lines.append(f"{len(self.runs)} SDK build(s), agent variant {self.variant}, {self.seconds:.1f} s")
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


def header(scenario: str, title: str, build: Build, version: str) -> list[str]:
    return [
        f"a2a-kb capture {scenario} (format {FORMAT_VERSION})",
        f"sdk: {build.describe(version)}",
        f"server: {build.server[0]}",
        *build.server[1:],
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
            tofile=f"captures/{name}{SUFFIX} (this run)",  # name is <build>/<scenario>
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


def run_captures(
    captures_dir: Path, check: bool, only: list[str] | None = None, sdks: list[str] | None = None,
) -> CaptureReport:
    """Drive each SDK build through the scenarios; write transcripts, or compare when `check`.

    Each build's transcripts are in `captures_dir/<build key>/`. `only` limits the run to
    some scenarios (full names like `04-input-required` or numbers like `04`), `sdks`
    to some builds (their keys). The in-process agent's variant comes from
    $A2A_KB_CAPTURE_AGENT_VARIANT (unset means `standard`); any other variant exists to
    show that `check` notices a change in behaviour. Raises ConfigurationError when an SDK
    is missing, a name is unknown, or a server cannot start; differences are outcomes.
    """
    builds = select_builds(sdks)  # a usage error is said before anything needs the SDK
    try:
        from .scenarios import SCENARIOS, select
    except ImportError as e:
        raise ConfigurationError(
            f"the capture kit needs the SDK and its HTTP client, and {e.name or e} does not "
            "import (tip: `make setup` installs the project with its `sdk` extra)") from e
    chosen, unknown = select(only)
    if unknown:
        raise ConfigurationError(
            f"unknown capture scenario(s): {', '.join(unknown)} "
            f"(tip: one of {', '.join(sc.name for sc in SCENARIOS)})"
        )
    variant = os.environ.get(VARIANT_ENV, "").strip() or "standard"
    report = CaptureReport(variant=variant, checked=check)
    started = time.monotonic()
    root = captures_dir.resolve().parent
    for build in builds:
        run = _run_build(build, root, captures_dir / build.key, chosen, check, variant)
        if only is None:
            run.outcomes += _stale(captures_dir / build.key, {sc.name for sc in SCENARIOS})
        report.runs.append(run)
    report.seconds = time.monotonic() - started
    return report


def _stale(folder: Path, known: set[str]) -> list[ScenarioOutcome]:
    return [
        ScenarioOutcome(
            f"{folder.name}/{path.stem}", path, "stale",
            f"{path.name}: no scenario of that name (tip: delete it, or restore the scenario that wrote it)",
        )
        for path in sorted(folder.glob(f"*{SUFFIX}"))
        if _TRANSCRIPT_NAME.match(path.name) and path.stem not in known
    ]


def _run_build(
    build: Build, root: Path, folder: Path, chosen: list[Scenario], check: bool, variant: str
) -> BuildRun:
    """Start the build's server, play every chosen scenario against it, settle each transcript."""
    # Imported here: the HTTP client comes with the optional SDK extra.
    from .normalize import normalize
    from .session import Session
    from .wire import Wire

    started = time.monotonic()
    with _started(build, root, variant) as (running, gates):
        run = BuildRun(build.key, running.version)
        wire = Wire(running.base_url, build.dialect.headers, WAIT_SECONDS)
        try:
            for scenario in chosen:
                transcript = Transcript(scenario.name, scenario.title)
                scenario.play(Session(wire, gates or RemoteGates(wire), transcript, build.dialect))
                text = render(
                    normalize(transcript), header(scenario.name, scenario.title, build, running.version),
                    URL_SHOWN, build.dialect.headers,
                )
                path = folder / f"{scenario.name}{SUFFIX}"
                run.outcomes.append(_settle(path, f"{build.key}/{scenario.name}", text, check))
        finally:
            wire.close()
    run.server_log = running.log
    run.seconds = time.monotonic() - started
    return run


@contextlib.contextmanager
def _started(build: Build, root: Path, variant: str) -> Iterator[tuple[Running, Any]]:
    """The build's server, running: in this process (the main environment's SDK) or not."""
    if not build.in_process:
        if variant != "standard":
            raise ConfigurationError(
                f"the agent variant {variant!r} exists only in the in-process agent "
                f"(tip: add --sdk {BUILDS[0].key})"
            )
        with run_out_of_process(build, root) as running:
            yield running, None
        return
    version = sdk_version()
    # Imported here: these modules import the SDK, which is an optional extra.
    from .agent import Gates, ScriptedAgent
    from .server import LocalServer, build_app, captured_server_log

    agent = ScriptedAgent(Gates(), variant)
    with captured_server_log() as log, LocalServer(build_app(agent)) as server:
        running = Running(server.base_url, version, log.lines)
        yield running, agent.gates
