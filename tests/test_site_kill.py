"""kill -9 during a build: site/ is always one whole build, the previous one or the new one.

Two tests. The swap itself (``publish``) is killed at many random moments, since a kill can
only hurt between a complete staging folder and the site; each try costs milliseconds. A
real build of the site is then killed at fewer moments, most of them late, where staging is
complete and publishing is under way (a kill early in the build only throws staging away).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from a2a_kb.project import Project
from conftest import REPO, record_reliability
from test_site import _manifest, copy_project, site_env  # noqa: F401 - site_env is a fixture used below

_BUILD = """
import sys
from pathlib import Path
from a2a_kb.project import Project
from a2a_kb.site.build import build
build(Project.at(Path(sys.argv[1])), strict=True, quiet=True)
"""

# Publishes, over and over, a staged folder of 200 files, all of which name the build
# (an odd or an even one), into site/; prints "ready" once the site holds the first.
_PUBLISH = """
import sys
from pathlib import Path
from a2a_kb.site.build import publish
root = Path(sys.argv[1])
n = 0
while True:
    staging = root / f".site-build-{n}"
    (staging / "a" / "b").mkdir(parents=True)
    for i in range(200):
        (staging / ("a/b" if i % 3 == 0 else "a") / f"{i}.html").write_text(f"build {n % 2}")
    publish(staging, root / "site")
    if n == 0:
        print("ready", flush=True)
    n += 1
"""


def _env(**extra: str) -> dict[str, str]:
    """The environment as the test has set it, now (site_env sets the cache and vendor)."""
    return {**os.environ, "PYTHONPATH": str(REPO / "tooling"), **extra}


def test_a_killed_publish_leaves_one_whole_build(tmp_path: Path) -> None:
    rng = random.Random(20261202)
    kills = 0
    for i in range(30):
        root = tmp_path / str(i)
        root.mkdir()
        proc = subprocess.Popen([sys.executable, "-c", _PUBLISH, str(root)], env=_env(),
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        kills += 1
        contents = {p.read_text() for p in (root / "site").rglob("*.html")}
        assert len(list((root / "site").rglob("*.html"))) == 200, f"kill {i}: files missing from site/"
        assert contents in ({"build 0"}, {"build 1"}), f"kill {i}: site/ is a mix of two builds"
    record_reliability({"publish_kills": kills, "publish_kill_failures": 0})


@pytest.mark.slow
def test_killed_builds_leave_a_whole_site(tmp_path: Path, site_env: None) -> None:  # noqa: F811
    root = copy_project(tmp_path / "kb", prose=False)
    project = Project.at(root)

    def run(epoch: int, kill_after: float | None = None) -> None:
        proc = subprocess.Popen([sys.executable, "-c", _BUILD, str(root)],
                                env=_env(SOURCE_DATE_EPOCH=str(epoch)),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kill_after is None:
            assert proc.wait(timeout=180) == 0
            return
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)

    run(1_700_000_000)
    complete = {"old": _manifest(project.site_dir)}
    started = time.monotonic()
    run(1_800_000_000)
    duration = time.monotonic() - started  # a build that differs from the one on disk
    complete["new"] = _manifest(project.site_dir)
    assert complete["old"] != complete["new"]
    run(1_700_000_000)
    assert _manifest(project.site_dir) == complete["old"], "builds must be reproducible for this test"

    rng = random.Random(20260924)
    moments = [rng.uniform(0.05, duration) for _ in range(2)]
    moments += [rng.uniform(0.75 * duration, 1.15 * duration) for _ in range(6)]
    for i, moment in enumerate(moments):
        run(1_800_000_000 if i % 2 == 0 else 1_700_000_000, kill_after=moment)
        now = _manifest(project.site_dir)
        assert now in (complete["old"], complete["new"]), f"kill {i}: site/ is a mix of two builds"
    run(1_800_000_000)
    assert _manifest(project.site_dir) == complete["new"]
    assert not list(root.glob(".site-build-*"))
    record_reliability({"build_kills": len(moments), "build_kill_failures": 0})
