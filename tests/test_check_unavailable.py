"""A source whose pinned copy cannot be had stops only the claims that rest on it.

The reproduction of issue 11: a fresh clone whose `github-tags` pin is older than what the
mirror serves. `fetch --refresh` reports the drift; `check` then evaluates every other
claim, names the source, the claims it could not check and the command that re-pins it,
and exits 1 — never "internal error".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_kb import cli
from conftest import MIRROR, REPO, copy_records

OLD_TAGS_PIN = "f235eaf12dae1e67111104597cc285c5e257ac50655274248fe74590aec3c257"


def claims_on_the_tag_list() -> set[str]:
    from a2a_kb.project import Project
    from a2a_kb.records.validate import validate

    kb = validate(Project.at(REPO))
    return {c.id for c in kb.claims.values()
            if c.source == "github-tags" or any(e.source == "github-tags" for e in c.expect)}


TAG_CLAIMS = claims_on_the_tag_list()



def with_old_tags_pin(root: Path) -> None:
    primary = root / "sources" / "primary.yaml"
    text = primary.read_text("utf-8")
    current = "680537252790743d96f586b58c9ac504089b2065b095cd0b8a250b3146bf35ca"
    assert current in text
    text = text.replace(current, OLD_TAGS_PIN).replace("    size: 3042\n", "    size: 2784\n")
    primary.write_text(text, "utf-8")


@pytest.fixture
def stale_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = copy_records(tmp_path / "kb")
    with_old_tags_pin(root)
    monkeypatch.setenv("A2A_KB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("A2A_KB_MIRROR", str(MIRROR))
    return root


def test_check_after_a_refresh_names_the_source_the_claims_and_the_command(
    stale_clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--root", str(stale_clone), "fetch", "--refresh"]) == 1
    assert "github-tags: changed upstream" in capsys.readouterr().out

    code = cli.main(["--root", str(stale_clone), "check"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "internal error" not in out + err
    problem = next(line for line in out.splitlines() if "error[source-unavailable]" in line)
    assert problem.startswith("sources/primary.yaml:")
    assert "source 'github-tags' has no pinned copy" in problem
    assert "upstream now serves 680537252790" in problem
    assert all(claim in problem for claim in TAG_CLAIMS)
    assert "`a2a-kb pin github-tags`" in problem
    # Only those claims went unchecked; each of the rest kept its recorded verdict.
    assert f"{len(TAG_CLAIMS)} verdict(s) changed" in out
    assert {"v101-tag-commit-2026-05-28", "rc-lightweight-tag-on-6292104"} <= TAG_CLAIMS


def test_every_other_claim_is_still_evaluated(
    stale_clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.main(["--root", str(stale_clone), "fetch", "--refresh"])
    capsys.readouterr()
    assert cli.main(["--root", str(stale_clone), "check", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    changed = {c["id"]: c for c in data["claims"] if c["verdict"] != c["expected"]}
    assert set(changed) == TAG_CLAIMS
    assert {c["verdict"] for c in changed.values()} == {"drifted"}
    assert len(data["claims"]) > 200
    rules = [p["rule"] for p in data["problems"] if p["severity"] == "error"]
    assert rules == ["source-unavailable"]


def test_a_source_never_fetched_is_named_with_the_fetch_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_records(tmp_path / "kb")
    monkeypatch.setenv("A2A_KB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("A2A_KB_MIRROR", str(MIRROR))
    assert cli.main(["--root", str(root), "fetch"]) == 0
    cache = tmp_path / "cache"
    index = json.loads((cache / "index.json").read_text("utf-8"))
    blob = index["sources"]["github-tags"]["sha256"]
    (cache / "blobs" / blob[:2] / blob).unlink()
    capsys.readouterr()

    assert cli.main(["--root", str(root), "check"]) == 1
    out, err = capsys.readouterr()
    assert "internal error" not in out + err
    problem = next(line for line in out.splitlines() if "error[source-unavailable]" in line)
    assert "source 'github-tags' is not in the cache" in problem
    assert "run `a2a-kb fetch`" in problem
