"""check on the real knowledge base: clean now, and any flipped verdict is caught by name."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from a2a_kb import cli
from a2a_kb.knowledge.check import REPORTERS, check
from a2a_kb.project import Project
from a2a_kb.records.model import VERDICTS
from a2a_kb.records.validate import validate
from conftest import copy_records


def test_real_kb_checks_clean(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--root", str(real_kb_env), "check", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == 1
    assert sum(data["summary"].values()) == len(data["claims"]) >= 90
    for claim in data["claims"]:
        assert claim["verdict"] == claim["expected"]
        assert set(claim) >= {"id", "verdict", "expected", "versions", "origin", "message"}


def test_every_verdict_flip_is_detected(real_kb_env: Path) -> None:
    """Recording any other verdict for any claim makes that claim, and only it, fail."""
    kb = validate(Project.at(real_kb_env))
    baseline = {r.claim.id: r.verdict for r in check(kb).results}
    for claim in kb.claims.values():
        claim.verdict = next(v for v in VERDICTS if v != baseline[claim.id])
    result = check(kb)
    assert {r.claim.id for r in result.changed} == set(baseline)
    assert not result.ok



@pytest.mark.parametrize("fmt", ["text", "github", "junit", "json"])
def test_flipped_verdict_fails_naming_the_claim(
    real_kb_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    root = copy_records(tmp_path)
    target = root / "claims" / "state-set.yaml"
    text = target.read_text()
    match = re.search(r"- id: (\S+)(?:(?!\n  - id:).)*?\n    verdict: verified", text, re.S)
    assert match, "state-set.yaml has a verified claim"
    claim_id = match.group(1)
    start = match.end() - len("verified")
    target.write_text(text[:start] + "contradicted" + text[match.end():])
    line = text[:start].count("\n") + 1

    assert cli.main(["--root", str(root), "check", "--format", fmt]) == 1
    out = capsys.readouterr().out
    assert claim_id in out
    if fmt == "text":
        assert re.search(rf"claims/state-set\.yaml:\d+:\d+: error\[verdict-changed\]: claim '{claim_id}' "
                         r"was recorded contradicted, now verified", out)
    if fmt == "github":
        assert "::error file=claims/state-set.yaml,line=" in out
    if fmt == "junit":
        assert "<failure" in out and f'name="{claim_id}"' in out
    if fmt == "json":
        data = json.loads(out)
        changed = [c for c in data["claims"] if c["verdict"] != c["expected"]]
        assert [c["id"] for c in changed] == [claim_id]
    assert line > 0


def test_reporters_are_registered() -> None:
    assert set(REPORTERS) == {"text", "github", "junit"}


def test_drift_turns_claims_drifted(real_kb_env: Path, real_cache: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A refresh that finds new bytes behind a pinned source marks its claims drifted."""
    from dataclasses import replace

    from a2a_kb.cache import Cache

    cache_dir = tmp_path / "cache"
    shutil.copytree(real_cache, cache_dir)
    monkeypatch.setenv("A2A_KB_CACHE", str(cache_dir))
    cache = Cache(cache_dir)
    entry = cache.entry("proto@v1.0.0")
    assert entry is not None
    cache.record({"proto@v1.0.0": replace(entry, upstream_sha256="0" * 64)})
    result = check(validate(Project.at(real_kb_env)))
    drifted = [r for r in result.results if r.verdict == "drifted"]
    assert drifted and all("proto@v1.0.0" in r.message for r in drifted)
    assert not result.ok


def test_old_secondary_sources_warn_and_fail_when_strict(real_kb_env: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Secondary sources read longer ago than max-age-days warn; --strict makes it an error."""
    root = copy_records(tmp_path)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.a2a-kb]\nmax-age-days = 30\n')

    assert cli.main(["--root", str(root), "check"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"sources/secondary\.yaml:\d+:\d+: warning\[source-age\]: secondary source "
                     r"'atlan-a2a' was read \d+ days ago \(2026-09-21\), over the 30-day limit", out)

    assert cli.main(["--root", str(root), "check", "--strict"]) == 1
    assert "error[source-age]" in capsys.readouterr().out
