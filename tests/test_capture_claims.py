"""Changing the scripted agent changes the verdicts of the claims about the SDK.

The captures are golden files, and the claims in claims/sdk-behaviour.yaml check
themselves against them. Here the agent is switched to the variant that carries on past
INPUT_REQUIRED, its transcripts are regenerated into a private copy of the project (never
into the real captures/), and `a2a-kb check` on that copy must notice: the claims that the
stream closes at INPUT_REQUIRED flip, and nothing resting on an untouched capture does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_kb.capture import VARIANT_ENV, run_captures
from a2a_kb.cli import main
from a2a_kb.project import Project
from a2a_kb.records.model import Claim
from a2a_kb.records.validate import validate
from conftest import copy_records

REPO = Path(__file__).resolve().parent.parent
VARIANT = "continue-after-input-required"
# The scenarios whose agent asks for input: the only transcripts the variant rewrites.
INPUT_REQUIRED = {"04-input-required", "13-subscribe-input-required", "16-blocking-input-required",
                  "18-context-inferred", "19-context-mismatch", "21-history-length",
                  "22-cancel-input-required", "24-two-subscribers"}
MAIN = "a2a-sdk-1.3.0"  # the in-process build, the one with agent variants
STREAM_CLOSES_AT_INPUT_REQUIRED = "a2a-sdk-130-stream-closes-at-input-required"


def sources_of(claim: Claim) -> set[str]:
    """Every source a claim's verdict rests on: its own and those its expectations name."""
    return {claim.source} | {e.source for e in claim.expect if e.source}


@pytest.mark.serial  # a wall-clock figure: measured with the machine to itself
@pytest.mark.sdk
def test_the_input_required_variant_changes_the_stream_closing_claims(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    real_cache: Path,
) -> None:
    real_captures = {str(p): p.read_bytes() for p in (REPO / "captures").glob("*/*.http")}
    root = copy_records(tmp_path / "kb")
    monkeypatch.setenv(VARIANT_ENV, VARIANT)
    monkeypatch.setenv("A2A_KB_CACHE", str(real_cache))

    report = run_captures(root / "captures", check=False, sdks=[MAIN])

    written = {o.name for o in report.outcomes if o.status == "written"}
    assert written == {f"{MAIN}/{name}" for name in INPUT_REQUIRED}, report.format_text()
    assert report.seconds < 120, f"the capture run took {report.seconds:.1f} s"  # a hang guard

    code = main(["--root", str(root), "check", "--format", "json"])
    output = json.loads(capsys.readouterr().out)

    assert code == 1
    results = {c["id"]: c for c in output["claims"]}
    changed = {cid for cid, c in results.items() if c["verdict"] != c["expected"]}
    closing = results[STREAM_CLOSES_AT_INPUT_REQUIRED]
    assert (closing["expected"], closing["verdict"]) == ("verified", "contradicted")
    assert "capture-stream-close:04-input-required/1" in closing["message"]
    assert "'after_state': 'completed'" in closing["message"]
    # the subscription that starts at INPUT_REQUIRED loses its stream too: the task is
    # already COMPLETED when it is opened
    assert results["a2a-sdk-130-subscription-stays-open-through-input-required"]["verdict"] == (
        "contradicted"
    )
    # AUTH_REQUIRED is untouched by the variant, so its claim keeps its verdict
    auth = results["a2a-sdk-130-stream-closes-at-auth-required"]
    assert auth["verdict"] == auth["expected"] == "verified"

    rewritten = {f"capture-{name}@{MAIN}" for name in INPUT_REQUIRED}
    claims = validate(Project.at(root)).claims
    for cid in changed:
        assert sources_of(claims[cid]) & rewritten, f"{cid} changed but rests on no rewritten capture"
    reported = {p["record"] for p in output["problems"] if p["rule"] == "verdict-changed"}
    assert reported == changed

    # the project's own transcripts are left alone
    assert {str(p): p.read_bytes() for p in (REPO / "captures").glob("*/*.http")} == real_captures
