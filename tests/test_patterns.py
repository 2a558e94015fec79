"""Patterns written in claims (``op: matches``, ``op: not-matches``) run in linear time.

A catastrophic pattern must neither pass validation and then hang the check, nor hang it:
it runs on RE2, and what RE2 cannot run in linear time is refused at validation with the
claim's place (tests/negative/100–103 hold those cases).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import MIRROR

# Python's `re` backtracks on this for longer than any test run (the review's example).
CATASTROPHIC = "(.*.*)*$$x"
CHECK_SECONDS = 20.0


def _kb(root: Path) -> list[str]:
    return [sys.executable, "-m", "a2a_kb.cli", "--root", str(root)]


def _fetched(fixture_kb: Path) -> None:
    done = subprocess.run([*_kb(fixture_kb), "fetch", "--mirror", str(MIRROR)], capture_output=True,
                          text=True, env=os.environ, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _add_claim(root: Path, expect: dict[str, object], verdict: str) -> None:
    claim = {"id": "pattern-claim", "statement": "The overview of v1.0.0 says what a task is.",
             "versions": ["1.0.0"], "source": "spec@v1.0.0", "conflicts": [], "verdict": verdict,
             "expect": expect}
    (root / "claims" / "patterns.yaml").write_text(yaml.safe_dump({"claims": [claim]}), "utf-8")


def _a_section(root: Path) -> str:
    from a2a_kb.cache import Cache
    from a2a_kb.knowledge.check import FactBook
    from a2a_kb.project import Project
    from a2a_kb.records.validate import validate

    kb = validate(Project.at(root))
    book = FactBook(kb, Cache(kb.project.cache_dir))
    facts = book.facts(kb.sources["spec@v1.0.0"])
    return max((k for k in facts if k.startswith("section:")), key=lambda k: len(str(facts[k][0].value)))


def test_a_catastrophic_pattern_neither_hangs_validate_nor_check(fixture_kb: Path) -> None:
    _fetched(fixture_kb)
    _add_claim(fixture_kb, {"fact": _a_section(fixture_kb), "op": "matches", "value": CATASTROPHIC},
               "contradicted")
    started = time.monotonic()
    for command in ("validate", "check"):
        try:
            done = subprocess.run([*_kb(fixture_kb), command, "--format", "json"], capture_output=True,
                                  text=True, env=os.environ, timeout=CHECK_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`a2a-kb {command}` still running after {CHECK_SECONDS:.0f}s on {CATASTROPHIC!r}")
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
        if command == "validate":
            assert done.returncode == 0, done.stdout
        else:
            assert _verdict(done.stdout) == "contradicted"
    assert time.monotonic() - started < CHECK_SECONDS


def _verdict(report: str) -> str:
    found = {c["id"]: c["verdict"] for c in json.loads(report)["claims"]}
    return str(found["pattern-claim"])


def test_not_matches_says_that_text_is_absent(fixture_kb: Path) -> None:
    _fetched(fixture_kb)
    section = _a_section(fixture_kb)
    for op, value, verdict in [("not-matches", "NO SUCH WORDS ANYWHERE", "verified"),
                               ("not-matches", "(?i)task", "contradicted"),
                               ("matches", "(?i)task", "verified")]:
        _add_claim(fixture_kb, {"fact": section, "op": op, "value": value}, verdict)
        done = subprocess.run([*_kb(fixture_kb), "check", "--format", "json"], capture_output=True,
                              text=True, env=os.environ, timeout=CHECK_SECONDS)
        assert _verdict(done.stdout) == verdict, f"{op} {value!r}: {done.stderr}"
