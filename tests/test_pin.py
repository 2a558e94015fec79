"""pin: upstream's current copy becomes the pin, and the record file changes only there."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from a2a_kb import cli
from conftest import MIRROR, copy_records

OLD = {"sha256": "f235eaf12dae1e67111104597cc285c5e257ac50655274248fe74590aec3c257",
       "size": "2784", "retrieved": "'2026-11-29'"}
NEW = {"sha256": "680537252790743d96f586b58c9ac504089b2065b095cd0b8a250b3146bf35ca",
       "size": "3042"}



def tags_entry(text: str) -> tuple[int, int]:
    start = text.index("  - id: github-tags\n")
    return start, text.index("\n  - id:", start) + 1


@pytest.fixture
def kb_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("A2A_KB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("A2A_KB_MIRROR", str(MIRROR))
    monkeypatch.delenv("A2A_KB_UPSTREAM", raising=False)
    monkeypatch.setenv("A2A_KB_ALLOW_LOOPBACK", "1")  # the URL policy's escape hatch
    return copy_records(tmp_path / "kb")


def test_pin_reproduces_the_committed_tag_list_entry(
    kb_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    primary = kb_copy / "sources" / "primary.yaml"
    committed = primary.read_text("utf-8")
    start, end = tags_entry(committed)
    entry = committed[start:end]
    assert f"sha256: {NEW['sha256']}" in entry and f"size: {NEW['size']}" in entry
    old_entry = (entry.replace(NEW["sha256"], OLD["sha256"])
                 .replace(f"size: {NEW['size']}", f"size: {OLD['size']}")
                 .replace("retrieved: '2026-12-01'", f"retrieved: {OLD['retrieved']}"))
    primary.write_text(committed[:start] + old_entry + committed[end:], "utf-8")

    assert cli.main(["--root", str(kb_copy), "pin", "github-tags"]) == 0
    out = capsys.readouterr().out
    assert "github-tags: sha256 f235eaf12dae… → 680537252790…, size 2784 → 3042" in out

    today = dt.date.today().isoformat()
    expected = committed.replace(entry, entry.replace("retrieved: '2026-12-01'",
                                                      f"retrieved: '{today}'"))
    assert primary.read_text("utf-8") == expected  # comments, order, quoting: untouched
    # The copy it pinned is in the cache, under its new pin.
    index = json.loads((kb_copy.parent / "cache" / "index.json").read_text("utf-8"))
    assert index["sources"]["github-tags"]["sha256"] == NEW["sha256"]


def test_pin_then_check_passes_on_a_stale_clone(
    kb_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    primary = kb_copy / "sources" / "primary.yaml"
    primary.write_text(primary.read_text("utf-8").replace(NEW["sha256"], OLD["sha256"]), "utf-8")
    assert cli.main(["--root", str(kb_copy), "fetch", "--refresh"]) == 1
    assert cli.main(["--root", str(kb_copy), "check"]) == 1
    assert cli.main(["--root", str(kb_copy), "pin", "--all-drifted"]) == 0
    assert cli.main(["--root", str(kb_copy), "check"]) == 0
    capsys.readouterr()


def test_nothing_drifted_means_nothing_written(
    kb_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p.name: p.read_bytes() for p in (kb_copy / "sources").glob("*.yaml")}
    assert cli.main(["--root", str(kb_copy), "pin", "--all-drifted", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["changes"] == [] and data["problems"] == [] and not data["written"]
    assert "github-tags" in data["current"] and "proto@main" in data["current"]
    assert before == {p.name: p.read_bytes() for p in (kb_copy / "sources").glob("*.yaml")}


def test_a_file_pinned_to_a_tag_cannot_be_re_pinned(
    kb_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (kb_copy / "sources" / "primary.yaml").read_bytes()
    assert cli.main(["--root", str(kb_copy), "pin", "proto@v1.0.0", "github-tags"]) == 1
    out = capsys.readouterr().out
    assert "error[pin-failed]: source 'proto@v1.0.0' is pinned to commit 1736957" in out
    assert "nothing written" in out
    assert (kb_copy / "sources" / "primary.yaml").read_bytes() == before


def test_a_page_read_again_gets_todays_date(
    kb_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secondary = kb_copy / "sources" / "secondary.yaml"
    before = secondary.read_text("utf-8")
    assert cli.main(["--root", str(kb_copy), "pin", "atlan-a2a"]) == 0
    after = secondary.read_text("utf-8")
    today = dt.date.today().isoformat()
    assert after == before.replace("    retrieved: '2026-09-21'\n", f"    retrieved: '{today}'\n", 1)
    capsys.readouterr()


@pytest.mark.parametrize(("argv", "message"), [
    (["pin"], "name a source to pin"),
    (["pin", "github-tag"], "unknown source 'github-tag' (tip: did you mean 'github-tags'?)"),
    (["pin", "github-tags", "--upstream", "gitlab=https://x"], "unknown upstream endpoint"),
    (["pin", "github-tags", "--upstream", "github-api"], "is not NAME=URL"),
])
def test_usage_errors_exit_2_with_a_tip(
    kb_copy: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert cli.main(["--root", str(kb_copy), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_all_drifted_passes_over_what_it_cannot_consult(
    kb_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A mirror without the dossier's page: the tag list is read, the dossier is not.
    partial = tmp_path / "partial-mirror"
    shutil.copytree(MIRROR / "api.github.com", partial / "api.github.com")
    shutil.copytree(MIRROR / "raw.githubusercontent.com", partial / "raw.githubusercontent.com")
    assert cli.main(["--root", str(kb_copy), "pin", "--all-drifted", "--mirror", str(partial)]) == 0
    out = capsys.readouterr().out
    assert "dossier not consulted: the mirror does not hold" in out
    assert cli.main(["--root", str(kb_copy), "pin", "dossier", "--mirror", str(partial)]) == 1
    assert "error[pin-failed]: source 'dossier': upstream is unreachable" in capsys.readouterr().out
