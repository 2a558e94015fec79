"""The SDK builds the capture kit runs, one adapter each, and how each one is started.

Every build runs the same scenarios with an equivalent scripted agent inside the SDK's own
JSON-RPC server on 127.0.0.1, and writes its transcripts to `captures/<key>/`:

- `a2a-sdk-1.3.0`: the Python SDK of the main environment, in this process
  (`server`, `agent`);
- `a2a-sdk-0.3`: a release of the Python SDK's 0.3 line, in its own virtual environment
  (`.cache/sdk/a2a-sdk-0.3`), running `tooling/capture-agents/a2a_sdk_03_agent.py`;
- `a2a-js-sdk-1.3.0`: `@a2a-js/sdk`, installed pinned in `tooling/npm/a2a-js-sdk` and
  run by Node with the `scripted-agent.mjs` beside it.

An out-of-process agent prints `LISTENING <port> <sdk version>` when it is ready and opens
a gate on `POST /_capture/gates/<name>`. The version it reports goes into each
transcript's header, so a different release fails `capture --check`.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigurationError
from .dialect import V0_3, V1_0, Dialect

if TYPE_CHECKING:
    from .wire import Wire

LOCAL_HOST = "127.0.0.1"  # the one host the agents listen on and wire.py talks to
_START_SECONDS = 30.0


@dataclass(frozen=True)
class Build:
    """One SDK release the scenarios run against."""

    key: str  # the folder under captures/, and the name `--sdk` takes
    package: str  # as its registry names it
    repository: str  # the SDK's repository (a2a-python, a2a-js): its column in the matrix
    pinned: str  # the release the project installs
    dialect: Dialect
    server: tuple[str, ...]  # what serves the agent, for the transcript header
    command: tuple[str, ...] = ()  # for an agent run out of process: the argv, from the root
    setup: str = ""  # the make target that installs it

    @property
    def in_process(self) -> bool:
        return not self.command

    def describe(self, version: str) -> str:
        binding = (f"A2A-Version {self.dialect.version}" if self.dialect.version != "0.3"
                   else "protocol 0.3 (no A2A-Version header)")
        return f"{self.package} {version}, JSON-RPC binding, {binding}"


BUILDS: tuple[Build, ...] = (
    Build(
        "a2a-sdk-1.3.0", "a2a-sdk", "a2a-python", "1.3.0", V1_0,
        ("the SDK's JSON-RPC routes, DefaultRequestHandler and InMemoryTaskStore,",
         "  served by uvicorn on 127.0.0.1; the agent is a2a_kb.capture.agent.ScriptedAgent"),
        setup="setup",
    ),
    Build(
        "a2a-sdk-0.3", "a2a-sdk", "a2a-python", "0.3.26", V0_3,
        ("the SDK's A2AStarletteApplication, DefaultRequestHandler and InMemoryTaskStore,",
         "  served by uvicorn on 127.0.0.1; the agent is tooling/capture-agents/a2a_sdk_03_agent.py"),
        (".cache/sdk/a2a-sdk-0.3/bin/python", "tooling/capture-agents/a2a_sdk_03_agent.py"),
        setup="capture-sdks",
    ),
    Build(
        "a2a-js-sdk-1.3.0", "@a2a-js/sdk", "a2a-js", "1.3.0", V1_0,
        ("the SDK's jsonRpcHandler, DefaultRequestHandler and InMemoryTaskStore,",
         "  served by Express on 127.0.0.1; the agent is tooling/npm/a2a-js-sdk/scripted-agent.mjs"),
        ("node", "tooling/npm/a2a-js-sdk/scripted-agent.mjs"),
        setup="capture-sdks",
    ),
)


def select_builds(keys: list[str] | None) -> list[Build]:
    """The builds `keys` names (all when None); an unknown key is a usage error."""
    if not keys:
        return list(BUILDS)
    known = {b.key: b for b in BUILDS}
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ConfigurationError(
            f"unknown SDK build(s): {', '.join(unknown)} (tip: one of {', '.join(known)})"
        )
    return [b for b in BUILDS if b.key in keys]


class RemoteGates:
    """Gates of an agent in another process, opened over its control route."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def open(self, name: str) -> None:
        self.wire.control(f"_capture/gates/{name}")

    def settle(self, task_id: str) -> None:
        """Wait until the agent's SDK has released the task's last run (see the agents)."""
        self.wire.control(f"_capture/settle/{task_id}")


@dataclass
class Running:
    """A started agent: where it listens, which SDK release it runs, what it wrote to stderr."""

    base_url: str
    version: str
    log: list[str] = field(default_factory=list)


@contextlib.contextmanager
def run_out_of_process(build: Build, root: Path) -> Iterator[Running]:
    """Start the build's agent, wait for its `LISTENING` line, stop it on the way out."""
    program = build.command[0]
    executable = root / program if "/" in program else program
    script = root / build.command[1]
    if "/" in program and not Path(executable).is_file():
        raise ConfigurationError(
            f"{build.package} {build.pinned} is not installed at {program} "
            f"(tip: make {build.setup})"
        )
    if build.key.startswith("a2a-js") and not (script.parent / "node_modules").is_dir():
        raise ConfigurationError(
            f"{build.package} is not installed in {script.parent.relative_to(root)} (tip: make {build.setup})"
        )
    try:
        process = subprocess.Popen(
            [str(executable), str(script)], cwd=script.parent, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
    except OSError as e:
        raise ConfigurationError(f"cannot start {program}: {e} (tip: make {build.setup})") from e
    lines: queue.Queue[str] = queue.Queue()
    log: list[str] = []

    def pump(stream: object, into: queue.Queue[str] | None) -> None:
        for line in stream:  # type: ignore[attr-defined]
            (into.put(line) if into is not None else log.append(line.rstrip("\n")))

    threading.Thread(target=pump, args=(process.stdout, lines), daemon=True).start()
    threading.Thread(target=pump, args=(process.stderr, None), daemon=True).start()
    try:
        try:
            first = lines.get(timeout=_START_SECONDS)
        except queue.Empty:
            first = ""
        words = first.split()
        if len(words) != 3 or words[0] != "LISTENING":
            raise ConfigurationError(
                f"the {build.package} agent did not start within {_START_SECONDS:.0f} s "
                f"(it said {first.strip() or 'nothing'!r}; stderr: {' | '.join(log[-3:]) or 'empty'})"
            )
        yield Running(f"http://{LOCAL_HOST}:{int(words[1])}/", words[2], log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
