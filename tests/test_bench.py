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



def test_a_score_row_is_met_at_or_above_its_target_and_a_ratio_row_at_or_below() -> None:
    assert bench.Row("score", 90, unit="score", at_least=True, ratio=90).met
    assert not bench.Row("score", 90, unit="score", at_least=True, ratio=89).met
    assert bench.Row("ratio", 1.0, ratio=0.9).met and not bench.Row("ratio", 1.0, ratio=1.1).met
    assert bench._target(bench.Row("score", 90, unit="score", at_least=True)) == "≥ 90"


def test_a_run_of_some_rows_keeps_the_others_with_their_own_dates(tmp_path: Path) -> None:
    import json

    legacy = {"machine": {"date": "2026-12-03T12:38:52Z"},
              "rows": [{"name": f"row at {i}", "ratio": 0.5, "target": 1.0} for i in range(10)]}
    (tmp_path / "results.json").write_text(json.dumps(legacy), "utf-8")
    fresh = bench.Row("lighthouse", 90, unit="score", at_least=True, ratio=93, number=12,
                      measured="2026-12-05T09:00:00Z")
    rows = bench._with_earlier([fresh], tmp_path / "results.json")
    assert sorted(r.number for r in rows) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12]
    assert {r.measured for r in rows if r.number != 12} == {"2026-12-03T12:38:52Z"}
    # Written in the new layout and read back, a row keeps its number and date; a row this run
    # measured replaces the earlier one.
    (tmp_path / "results.json").write_text(json.dumps({"machine": {}, "rows": [r.as_json() for r in rows]}),
                                           "utf-8")
    again = bench.Row("validate", 0.5, ratio=0.2, number=1, measured="2026-12-06T00:00:00Z")
    rows = bench._with_earlier([again], tmp_path / "results.json")
    assert [r.measured for r in rows if r.number == 1] == ["2026-12-06T00:00:00Z"]
    assert [r.ratio for r in rows if r.number == 12] == [93]
