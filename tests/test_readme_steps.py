"""The README's steps that regenerate a record file do not break the records.

A step of the form ``python tooling/scripts/X.py … > sources/Y.yaml`` replaces a file
whole, so what the script prints must be that file as committed: a generator that has
fallen behind the file (the v1.0.0-rc sources that add-version registered, say) would
silently drop records from a reader who follows the step.
"""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import MIRROR, REPO

STEP = re.compile(r"`python\s+(tooling/scripts/[\w.-]+\.py)([^`>]*)>\s*([^`\s]+)`")


def _steps() -> list[tuple[str, list[str], str]]:
    text = (REPO / "README.md").read_text("utf-8")
    return [(script, args.split(), target) for script, args, target in STEP.findall(text)]


def test_every_regeneration_step_reproduces_the_committed_file() -> None:
    steps = _steps()
    assert steps, "the README names no regeneration step; the pattern no longer matches it"
    for script, args, target in steps:
        assert (REPO / script).is_file(), f"the README names {script}, which does not exist"
        args = [str(MIRROR / "MANIFEST.tsv") if a.endswith("mirror/MANIFEST.tsv") else a
                for a in args]
        done = subprocess.run([sys.executable, script, *args], cwd=REPO, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 0, f"{script}: {done.stderr[-1000:]}"
        committed = (REPO / target).read_text("utf-8")
        assert done.stdout.rstrip("\n") == committed.rstrip("\n"), (
            f"`python {script} … > {target}` would rewrite {target} differently from the "
            "committed file: the step would lose or change records")
