"""Two `make` runs at once on a fresh clone set the project up once, and both succeed.

The set-up (a virtual environment, the project installed into it with pip) used to run
twice in the same folder at the same time, and one of the two could fail with a pip
traceback, depending on timing. The real Makefile runs here, twice at once, on a fresh copy
of the tracked files, with the real Python and pip (packages come from pip's local cache
and indexes); pip's own log (PIP_LOG, appended to by every pip run) shows how many times
the project was installed: once, whatever the timing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def _fresh_clone(dest: Path) -> Path:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    return dest


def test_two_setups_at_once_make_one_venv(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    clone = _fresh_clone(tmp_path / "clone")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "MAKE"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_LOG"] = str(tmp_path / "pip.log")
    python = shutil.which("python3") or sys.executable
    runs = [subprocess.Popen(["make", "--no-print-directory", "setup", f"PYTHON={python}"], cwd=clone,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            for _ in range(2)]
    outputs = [run.communicate(timeout=900)[0] for run in runs]
    for run, output in zip(runs, outputs, strict=True):
        assert run.returncode == 0, output[-3000:]
        assert "Traceback" not in output, output[-3000:]
    version = subprocess.run([str(clone / ".venv" / "bin" / "a2a-kb"), "--version"], capture_output=True,
                             text=True, cwd=clone)
    assert version.returncode == 0 and version.stdout.startswith("a2a-kb "), version.stderr
    assert (clone / ".venv" / ".installed-stamp").is_file()
    installs = (tmp_path / "pip.log").read_text("utf-8").count(f"Obtaining file://{clone}")
    assert installs == 1, f"the project was installed {installs} times"
