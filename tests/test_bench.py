"""The benchmark's own plumbing: row 11 runs against the tests' local upstream as it is
(plain http on 127.0.0.1, which the URL policy refuses unless asked), and a row that cannot
be measured is written as not met, with its error, while the other rows still run; bad
arguments are refused before anything is measured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_kb.errors import ConfigurationError
from conftest import MIRROR, REPO

sys.path.insert(0, str(REPO / "bench"))
import run as bench  # bench/ is not a package: its modules are found by path
import watch_upstream


def test_the_watch_row_reads_the_local_upstream_and_leaves_the_environment_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch_upstream, "DELAY", 0.0)
    monkeypatch.delenv("A2A_KB_ALLOW_LOOPBACK", raising=False)
    monkeypatch.setenv("A2A_KB_CACHE", "/nonexistent/kept-as-it-was")
    found = watch_upstream.measure(REPO, MIRROR)
    assert found["requests"] > 0 and found["upstream_items"] > 0
    assert found["serial"] > 0 and found["parallel"] > 0
    assert found["mirror_findings"] == 0
    assert "A2A_KB_ALLOW_LOOPBACK" not in os.environ
    assert os.environ["A2A_KB_CACHE"] == "/nonexistent/kept-as-it-was"


def test_a_row_that_cannot_be_measured_is_kept_as_not_met_and_the_rest_still_run(
        capsys: pytest.CaptureFixture[str]) -> None:
    def refused() -> bench.Row:
        raise ConfigurationError("nothing upstream could be consulted")

    def fine() -> bench.Row:
        return bench.Row("fine", 1.0, ratio=0.5)

    rows, failed = bench.measure_rows([(11, refused), (12, fine), (13, fine)], {11, 12})
    assert failed == 1
    assert [(r.number, r.met) for r in rows] == [(11, False), (12, True)]
    assert "could not be measured: nothing upstream could be consulted" in rows[0].note
    assert "row 11 could not be measured" in capsys.readouterr().err
    assert bench.notes(rows) == [f"- Row 11: {rows[0].note}"]



def test_bad_arguments_are_refused_before_anything_is_measured(tmp_path: Path) -> None:
    for argv, words in (
        (["--rows", "x"], "is not a comma-separated list of rows"),
        (["--rows", "2,10"], "the rows are 1, 2"),
        (["--out", str(tmp_path / "file" / "below")], "cannot write there"),
    ):
        if argv[0] == "--out":
            (tmp_path / "file").write_text("", "utf-8")  # a file where a folder must be made
        done = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), *argv], capture_output=True,
                              text=True, check=False, timeout=60)
        assert done.returncode == 2, (argv, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert "generating synthetic KBs" not in done.stderr

