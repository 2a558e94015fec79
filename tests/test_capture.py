"""The capture kit: the real SDK against the committed transcripts, and the capture extractor.

Tests marked ``sdk`` start the SDK's server on 127.0.0.1 and run scenarios against it; the
others read the committed transcripts or synthetic ones and need no server.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from a2a_kb.capture import VARIANT_ENV, run_captures
from a2a_kb.capture.normalize import normalize
from a2a_kb.capture.transcript import (
    Event,
    Note,
    Reply,
    Request,
    StreamEnd,
    Transcript,
    parse,
    render,
)
from a2a_kb.errors import ConfigurationError, ExtractError
from a2a_kb.extract.artifact import Artifact
from a2a_kb.extract.capture import extract
from a2a_kb.facts import Fact

REPO = Path(__file__).resolve().parent.parent
ALL_CAPTURES = REPO / "captures"
MAIN = "a2a-sdk-1.3.0"  # the build in this process: the one with agent variants
CAPTURES = ALL_CAPTURES / MAIN
SCENARIO_COUNT = 24
BUILD_KEYS = ("a2a-sdk-1.3.0", "a2a-sdk-0.3", "a2a-js-sdk-1.3.0")
# The scenarios whose agent asks for input: the transcripts the variant rewrites.
ASKS_INPUT = {"04-input-required", "13-subscribe-input-required", "16-blocking-input-required",
              "18-context-inferred", "19-context-mismatch", "21-history-length",
              "22-cancel-input-required", "24-two-subscribers"}


def facts_of(name: str, build: str = MAIN) -> dict[str, Any]:
    path = ALL_CAPTURES / build / f"{name}.http"
    artifact = Artifact(
        "capture-python-sdk", "capture", f"captures/{build}/{path.name}", "", path.read_bytes()
    )
    return {fact.key: fact for fact in extract(artifact)}


def value(facts: dict[str, Fact], key: str) -> Any:
    assert key in facts, f"no fact {key}; have {sorted(facts)}"
    return facts[key].value


# against the real SDK ----------------------------------------------------------------------


def _committed() -> dict[str, bytes]:
    return {str(p.relative_to(ALL_CAPTURES)): p.read_bytes() for p in ALL_CAPTURES.glob("*/*.http")}


@pytest.mark.serial  # a wall-clock figure: measured with the machine to itself
@pytest.mark.sdk
def test_check_passes_on_every_sdk_build_against_the_committed_transcripts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(VARIANT_ENV, raising=False)
    before = _committed()

    report = run_captures(ALL_CAPTURES, check=True)

    assert report.ok, report.format_text()
    assert [run.key for run in report.runs] == list(BUILD_KEYS)
    assert [run.sdk_version for run in report.runs] == ["1.3.0", "0.3.26", "1.3.0"]
    assert len(report.outcomes) == SCENARIO_COUNT * len(BUILD_KEYS)
    assert {o.status for o in report.outcomes} == {"unchanged"}
    # A hang guard, not a timing (about 25 s on a quiet two-core machine): timings are no gate.
    assert report.seconds < 300, f"the capture run took {report.seconds:.1f} s"
    assert _committed() == before


@pytest.mark.sdk
def test_changing_the_agent_at_input_required_fails_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(VARIANT_ENV, "continue-after-input-required")
    before = _committed()

    report = run_captures(ALL_CAPTURES, check=True, sdks=[MAIN])

    assert not report.ok
    assert report.variant == "continue-after-input-required"
    differing = {o.name: o for o in report.differing}
    assert set(differing) == {f"{MAIN}/{name}" for name in ASKS_INPUT}
    diff = differing[f"{MAIN}/04-input-required"].diff
    assert f"captures/{MAIN}/04-input-required.http" in diff
    closed = "-- stream 1 closed by server after event {} (statusUpdate TASK_STATE_{})"
    assert "-" + closed.format(3, "INPUT_REQUIRED") in diff
    assert "+" + closed.format(6, "COMPLETED") in diff
    text = report.format_text()
    assert f"captures/{MAIN}/04-input-required.http: differs" in text and "tip:" in text
    # check never writes, even when it finds differences
    assert _committed() == before


@pytest.mark.sdk
def test_the_variant_is_refused_for_an_sdk_run_out_of_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIANT_ENV, "continue-after-input-required")
    with pytest.raises(ConfigurationError, match="exists only in the in-process agent"):
        run_captures(ALL_CAPTURES, check=True, sdks=["a2a-js-sdk-1.3.0"])


def test_unknown_sdk_builds_are_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"unknown SDK build\(s\): nope \(tip: one of a2a-sdk-1.3.0"):
        run_captures(tmp_path, check=True, sdks=["nope"])


# The SDK and its HTTP client made unimportable, as on an install without the `sdk` extra.
_WITHOUT_SDK = """
import sys
for name in ("httpx", "a2a", "starlette"):
    sys.modules[name] = None
from a2a_kb import cli
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize(("argv", "said"), [
    (["--sdk", "bogus", "--check"], "unknown SDK build(s): bogus"),
    (["--check"], "the capture kit needs the SDK and its HTTP client"),
])
def test_capture_without_the_sdk_is_a_usage_error_not_an_internal_one(argv: list[str], said: str) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _WITHOUT_SDK, "capture", *argv], cwd=ALL_CAPTURES.parent,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "internal error" not in done.stderr, done.stderr


@pytest.mark.sdk
def test_writing_reproduces_the_committed_files_and_flags_missing_and_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(VARIANT_ENV, raising=False)
    missing = run_captures(tmp_path, check=True, only=["06"], sdks=[MAIN])
    assert [(o.name, o.status) for o in missing.outcomes] == [(f"{MAIN}/06-rejected", "missing")]
    assert "+### 1 SendMessage (call)" in missing.outcomes[0].diff
    assert not list(tmp_path.iterdir()), "check wrote a file"

    written = run_captures(tmp_path, check=False, only=["01-blocking-complete", "06"], sdks=[MAIN])
    assert [(o.name, o.status) for o in written.outcomes] == [
        (f"{MAIN}/01-blocking-complete", "written"), (f"{MAIN}/06-rejected", "written"),
    ]
    for name in ("01-blocking-complete", "06-rejected"):
        fresh, committed = tmp_path / MAIN / f"{name}.http", CAPTURES / f"{name}.http"
        assert fresh.read_bytes() == committed.read_bytes()
    again = run_captures(tmp_path, check=False, only=["06"], sdks=[MAIN])
    assert [o.status for o in again.outcomes] == ["unchanged"]
    leftovers = [p.name for p in (tmp_path / MAIN).iterdir() if p.name.startswith(".")]
    assert not leftovers, "a temporary file was left"

    for path in CAPTURES.glob("*.http"):
        shutil.copy(path, tmp_path / MAIN / path.name)
    (tmp_path / MAIN / "99-retired.http").write_text("# a2a-kb capture 99-retired (format 1)\n")
    stale = run_captures(tmp_path, check=True, sdks=[MAIN])
    assert [(o.name, o.status) for o in stale.differing] == [(f"{MAIN}/99-retired", "stale")]


@pytest.mark.sdk
def test_unknown_scenario_names_are_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"unknown capture scenario\(s\): 42-nope"):
        run_captures(tmp_path, check=True, only=["42-nope"])


# the extractor, on the committed transcripts -----------------------------------------------


@pytest.mark.parametrize("build", BUILD_KEYS)
def test_every_committed_transcript_yields_the_scenario_facts(build: str) -> None:
    paths = sorted((ALL_CAPTURES / build).glob("*.http"))
    assert len(paths) == SCENARIO_COUNT
    releases = {"a2a-sdk-1.3.0": ("a2a-sdk", "1.3.0"), "a2a-sdk-0.3": ("a2a-sdk", "0.3.26"),
                "a2a-js-sdk-1.3.0": ("@a2a-js/sdk", "1.3.0")}
    package, version = releases[build]
    for path in paths:
        facts = facts_of(path.stem, build)
        sdk = value(facts, f"capture-sdk:{path.stem}")
        assert sdk == {"package": package, "version": version}
        if path.stem == "20-unknown-task":  # only errors: no task is ever made
            assert value(facts, f"capture-error:{path.stem}/1")["code"] == -32001
            continue
        for kind in ("capture-states", "capture-final-state", "capture-final-artifacts"):
            fact = facts[f"{kind}:{path.stem}"]
            assert 0 < fact.line_start <= fact.line_end
            assert fact.source == "capture-python-sdk" and fact.path == f"captures/{build}/{path.name}"


def test_rejected_before_any_work_ends_rejected_without_artifacts() -> None:
    facts = facts_of("06-rejected")
    assert value(facts, "capture-states:06-rejected") == ["rejected"]
    assert value(facts, "capture-final-state:06-rejected") == "rejected"
    assert value(facts, "capture-final-artifacts:06-rejected") == {"count": 0, "names": []}


def test_streams_close_at_input_required_and_at_terminal_states() -> None:
    facts = facts_of("04-input-required")
    assert value(facts, "capture-states:04-input-required") == [
        "submitted", "working", "input-required", "working", "completed",
    ]
    assert value(facts, "capture-stream-close:04-input-required/1") == {
        "after_event": 3, "after_state": "input-required", "by": "server",
    }
    assert value(facts, "capture-stream-close:04-input-required/2") == {
        "after_event": 3, "after_state": "completed", "by": "server",
    }
    auth = facts_of("05-auth-required")
    assert value(auth, "capture-stream-close:05-auth-required/1")["after_state"] == "auth-required"


def test_errors_for_cancel_message_and_subscribe_on_a_completed_task() -> None:
    cancel = facts_of("10-cancel-completed")
    assert value(cancel, "capture-error:10-cancel-completed/2") == {
        "code": -32002, "message": "Task cannot be canceled",
    }
    assert value(cancel, "capture-final-state:10-cancel-completed") == "completed"
    terminal = {"code": -32004, "message": "Task task-1 is in terminal state: TASK_STATE_COMPLETED"}
    message = facts_of("11-message-to-completed")
    assert value(message, "capture-error:11-message-to-completed/2") == terminal
    assert value(message, "capture-error:11-message-to-completed/3") == terminal
    assert value(message, "capture-exchange:11-message-to-completed/3")["kind"] == "stream"
    subscribe = facts_of("12-subscribe-completed")
    assert value(subscribe, "capture-error:12-subscribe-completed/2") == terminal
    assert "capture-stream-close:12-subscribe-completed/2" not in subscribe


def test_a_subscription_to_a_waiting_task_stays_open_until_the_task_ends() -> None:
    facts = facts_of("13-subscribe-input-required")
    assert value(facts, "capture-exchange:13-subscribe-input-required/2")["states"] == [
        "input-required", "working", "completed",
    ]
    assert value(facts, "capture-stream-close:13-subscribe-input-required/2") == {
        "after_event": 4, "after_state": "completed", "by": "server",
    }
    assert value(facts, "capture-states:13-subscribe-input-required") == [
        "submitted", "working", "input-required", "working", "completed",
    ]


def test_a_status_after_a_terminal_one_overwrites_it() -> None:
    facts = facts_of("15-status-after-terminal")
    assert value(facts, "capture-states:15-status-after-terminal")[-2:] == ["completed", "working"]
    assert value(facts, "capture-final-state:15-status-after-terminal") == "working"


def test_an_agent_that_raises_leaves_a_failed_task_and_an_internal_error() -> None:
    facts = facts_of("08-failed-raises")
    crash = {"code": -32603, "message": "scripted crash in the second step"}
    assert value(facts, "capture-error:08-failed-raises/1") == crash
    assert value(facts, "capture-stream-close:08-failed-raises/1")["after_state"] is None
    assert value(facts, "capture-final-state:08-failed-raises") == "failed"
    assert value(facts, "capture-final-artifacts:08-failed-raises") == {
        "count": 1, "names": ["partial"],
    }


def test_a_transcript_without_its_parts_is_an_extract_error() -> None:
    def extract_text(text: str) -> list[Fact]:
        return extract(Artifact("c", "capture", "captures/x.http", "", text.encode()))

    with pytest.raises(ExtractError, match="header line"):
        extract_text("### 1 SendMessage (call)\n")
    header = "# a2a-kb capture 99-x (format 1)\n# sdk: a2a-sdk 9.9.9, JSON-RPC\n"
    with pytest.raises(ExtractError, match="no `### <n>"):
        extract_text(header)
    with pytest.raises(ExtractError, match="no task state"):
        extract_text(
            header + "\n### 1 GetTask (call)\nPOST x\n\n{}\n\n<<< 200 application/json (x)\n{}\n"
        )


# transcript text and normalization, without a server ---------------------------------------

UUID_A = "0f8fad5b-d9cb-469f-a165-70867728950e"
UUID_B = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
UUID_C = "16fd2706-8baf-433b-82eb-8c7fada847da"


def synthetic() -> Transcript:
    task = {"id": UUID_A, "contextId": UUID_B,
            "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-01-02T03:04:05.678Z"}}
    error = {"jsonrpc": "2.0", "id": 2,
             "error": {"code": -32004, "message": f"Task {UUID_A} is in terminal state"}}
    return Transcript("99-synthetic", "made up", [
        Request(1, "SendStreamingMessage", {"jsonrpc": "2.0", "id": 1, "params": {}}, True),
        Reply(200, "text/event-stream; charset=utf-8", None),
        Event(1, 1, "message", {"jsonrpc": "2.0", "id": 1, "result": {"task": task}}),
        Note("opened gate '99'; the agent goes on"),
        Request(2, "GetTask", {"jsonrpc": "2.0", "id": 2, "params": {"id": UUID_A}}, False,
                "GetTask repeated until the state was X; the last reply is shown"),
        Reply(200, "application/json", error),
        Event(1, 2, "error", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603,
                                                                    "message": f"see {UUID_C}"}}),
        StreamEnd(1, 2, None, "server"),
    ])


def test_normalization_names_ids_by_role_in_order_and_drops_clock_times() -> None:
    text = render(normalize(synthetic()), ["a2a-kb capture 99-synthetic (format 1)"],
                  "http://127.0.0.1:<port>/", {"A2A-Version": "1.0"})
    assert UUID_A not in text and UUID_B not in text and UUID_C not in text
    assert '"contextId": "context-1"' in text and '"id": "task-1"' in text
    assert "Task task-1 is in terminal state" in text  # the same id inside prose
    assert "see id-1" in text  # an id first met in prose
    assert '"timestamp": "<timestamp>"' in text


def test_render_and_parse_agree() -> None:
    transcript = normalize(synthetic())
    text = render(transcript, ["a2a-kb capture 99-synthetic (format 1)", "sdk: a2a-sdk 1.3.0, x"],
                  "http://127.0.0.1:<port>/", {"A2A-Version": "1.0"})
    parsed = parse(text)
    assert parsed.scenario == "99-synthetic" and parsed.sdk_version == "1.3.0"
    entries = [located.entry for located in parsed.entries]
    # The stream's end is parsed with its last event's data, which render does not repeat.
    expected = [*transcript.entries[:-1], StreamEnd(1, 2, entries[-2].data, "server")]  # type: ignore[union-attr]
    assert entries == expected
    lines = text.splitlines()
    for located in parsed.entries:
        assert lines[located.line_start - 1].strip(), "an entry starts on a blank line"


def _answer_then_drop_the_next_call(conn: Any, head: bytes) -> None:
    """Answers a call and keeps the connection open; takes the next call sent on it and
    closes without a word, as a server whose keep-alive timeout ran out at that moment does."""
    length = int(next((line.split(b":", 1)[1] for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), b"0"))
    body = head.split(b"\r\n\r\n", 1)[1]
    while len(body) < length:
        body += conn.recv(65536)
    reply = b'{"jsonrpc": "2.0", "id": 1, "result": {}}'
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(reply), reply))
    conn.recv(65536)  # the next call on this connection: read, never answered


def test_every_call_takes_a_fresh_connection_so_a_dropped_idle_one_is_never_reused(
        scripted_server: Any) -> None:
    from a2a_kb.capture.wire import Wire

    scripted_server.script = _answer_then_drop_the_next_call
    wire = Wire(scripted_server.url("/"), {}, wait_seconds=2)
    try:
        replies = [wire.post({"jsonrpc": "2.0", "id": i, "method": "tasks/get"}) for i in range(3)]
    finally:
        wire.close()
    assert [r.status for r in replies] == [200, 200, 200]
    assert len(scripted_server.requests) == 3
