"""add-version: v1.0.0-rc, registered from the mirror, is exactly what is committed."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from a2a_kb import cli
from a2a_kb.sources.yamledit import RecordFile
from conftest import MIRROR, REPO, copy_records

RC_COMMIT = "6292104e359efca05bd8703174517b6f961ae4e1"


@pytest.fixture(scope="module")
def _before_rc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project as it was before v1.0.0-rc was added, made once for the module (rewriting
    every record file takes a while); each test edits a copy."""
    root = copy_records(tmp_path_factory.mktemp("before-rc") / "kb")
    primary = RecordFile(root / "sources" / "primary.yaml")
    for i in reversed(range(len(primary.records))):
        record = primary.records[i]
        if record.get("ref") == "v1.0.0-rc" or record["id"] == f"github-commit-{RC_COMMIT[:7]}":
            del primary.records[i]
            primary.changed = True
    primary.save()
    versions = RecordFile(root / "sources" / "versions.yaml")
    del versions.records[versions.index_of("1.0.0-rc")]
    versions.changed = True
    versions.save()
    # Claims about the release candidate would name a version that is not there yet, and
    # the conflicts they take sides in would name missing claims.
    (root / "claims" / "release-candidate.yaml").unlink()
    conflicts = RecordFile(root / "claims" / "conflicts.yaml")
    for conflict_id in ("D60", "D61", "D62", "D63", "D64"):
        del conflicts.records[conflicts.index_of(conflict_id)]
    conflicts.changed = True
    conflicts.save()
    observing = root / "claims" / "observing.yaml"
    observing.write_text(observing.read_text("utf-8").replace("conflicts: [D60]", "conflicts: []"),
                         "utf-8")
    _forget_the_release_candidate(root)
    return root


@pytest.fixture
def without_rc(_before_rc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the project from before v1.0.0-rc was added, with an empty cache."""
    root = tmp_path / "kb"
    shutil.copytree(_before_rc, root)
    monkeypatch.setenv("A2A_KB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("A2A_KB_MIRROR", str(MIRROR))
    return root


def _forget_the_release_candidate(root: Path) -> None:
    """The claims the sweep wrote name 1.0.0-rc among their versions: take it out of each,
    drop the claims it was the only version of, and every account and reference to them
    (the sweep ledger's entry for the version goes too: sweep is not what is tested here)."""
    gone: set[str] = set()
    files = [RecordFile(p) for p in sorted((root / "claims").glob("*.yaml")) if p.name != "conflicts.yaml"]
    for file in files:
        for i in reversed(range(len(file.records))):
            versions = file.records[i].get("versions") or []
            if "1.0.0-rc" in versions:
                versions.remove("1.0.0-rc")
                file.changed = True
                if not versions:
                    gone.add(file.records[i]["id"])
                    del file.records[i]
    kept = {r["id"] for file in files for r in file.records}
    gone |= {r["id"] for p in (REPO / "claims").glob("*.yaml") if p.name != "conflicts.yaml"
             for r in RecordFile(p).records} - kept  # release-candidate.yaml's, for one
    conflicts = RecordFile(root / "claims" / "conflicts.yaml")
    ledger = RecordFile(root / "sources" / "sweep.yaml")
    for file in [*files, conflicts, ledger]:
        for i in reversed(range(len(file.records))):
            record = file.records[i]
            about_rc = record.get("version") == "1.0.0-rc" or "v1.0.0-rc" in str(record.get("in", ""))
            if file is ledger and about_rc:
                del file.records[i]
                file.changed = True
                continue
            lists = [record.get("related"), record.get("claims"),
                     *(side.get("claims") for side in record.get("sides") or [])]
            for names in lists:
                for name in [n for n in names or [] if n in gone]:
                    names.remove(name)
                    file.changed = True
            if file is ledger and "claims" in record and not record["claims"]:
                del file.records[i]
        file.save()


def test_add_version_reproduces_the_committed_release_candidate(
    without_rc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--root", str(without_rc), "add-version", "v1.0.0-rc", "--format",
                     "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == {"id": "1.0.0-rc", "title": "v1.0.0-rc", "ref": "v1.0.0-rc",
                               "commit": RC_COMMIT, "released": False}
    assert data["absent"] == ["specification/json/a2a.json", "specification/grpc/a2a.proto",
                              "docs/whats-new-v1.md"]
    today = dt.date.today().isoformat()
    for name in ("versions.yaml", "primary.yaml"):
        committed = (REPO / "sources" / name).read_text("utf-8")
        sha = "4ca462306a8fa163491f727a7b179f30f1fc33726dcee8d7c7d148e9348d027e"
        entry = f"commits/{RC_COMMIT}\n    sha256: {sha}\n    size: 436\n    retrieved: "
        committed = committed.replace(entry + "'2026-12-01'", entry + f"'{today}'")
        assert (without_rc / "sources" / name).read_text("utf-8") == committed, name


def test_the_new_version_sorts_before_its_release_and_is_not_latest(
    without_rc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--root", str(without_rc), "add-version", "1.0.0-rc"]) == 0
    assert cli.main(["--root", str(without_rc), "fetch"]) == 0
    assert cli.main(["--root", str(without_rc), "validate"]) == 0
    assert cli.main(["--root", str(without_rc), "check"]) == 0
    capsys.readouterr()
    assert cli.main(["--root", str(without_rc), "states", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == "1.0.1"
    assert cli.main(["--root", str(without_rc), "states", "--version", "v1.0.0-rc"]) == 0
    assert "v1.0.0-rc (6292104): 9 values" in capsys.readouterr().out


@pytest.mark.parametrize(("tag", "message"), [
    ("v1.0.1", "version 1.0.1 is already in sources/versions.yaml"),
    ("v9.9.9", "a2aproject/A2A has no tag v9.9.9"),
    ("main", "'main' is not a version tag"),
])
def test_bad_tags_are_usage_errors(
    without_rc: Path, capsys: pytest.CaptureFixture[str], tag: str, message: str
) -> None:
    before = (without_rc / "sources" / "versions.yaml").read_bytes()
    assert cli.main(["--root", str(without_rc), "add-version", tag]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert (without_rc / "sources" / "versions.yaml").read_bytes() == before


# --- two writers at once, and a writer killed at any moment (issue 26) ------------------------

OLD_TAGS = "f235eaf12dae1e67111104597cc285c5e257ac50655274248fe74590aec3c257"
NEW_TAGS = "680537252790743d96f586b58c9ac504089b2065b095cd0b8a250b3146bf35ca"


def _stale_tags_copy(before: Path, root: Path) -> Path:
    """A copy of the project before v1.0.0-rc whose tag list is pinned to its older copy, so
    that both `pin github-tags` and `add-version v1.0.0-rc` have something to write, and
    both to sources/primary.yaml."""
    shutil.copytree(before, root)
    primary = root / "sources" / "primary.yaml"
    primary.write_text(primary.read_text("utf-8").replace(NEW_TAGS, OLD_TAGS), "utf-8")
    return root


def _kb_process(root: Path, cache: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "A2A_KB_CACHE": str(cache), "A2A_KB_MIRROR": str(MIRROR)}
    return subprocess.Popen([sys.executable, "-m", "a2a_kb.cli", "--root", str(root), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _state(root: Path) -> tuple[bool, bool, bool]:
    """(tag list re-pinned, version registered, its sources registered)."""
    primary = (root / "sources" / "primary.yaml").read_text("utf-8")
    versions = (root / "sources" / "versions.yaml").read_text("utf-8")
    return NEW_TAGS in primary, "id: 1.0.0-rc" in versions, "ref: v1.0.0-rc" in primary


ROUNDS = int(os.environ.get("A2A_KB_LOCK_ROUNDS", "20"))


def test_pin_and_add_version_at_once_lose_no_write(_before_rc: Path, tmp_path: Path) -> None:
    """The round that lost writes: both commands at once, twenty times. Each must find the
    other's change in the files it writes (one waits for the other)."""
    lost = []
    for n in range(ROUNDS):
        root = _stale_tags_copy(_before_rc, tmp_path / f"round-{n}" / "kb")
        cache = tmp_path / f"round-{n}" / "cache"
        first, second = (("pin", "github-tags"), ("add-version", "v1.0.0-rc"))[::1 if n % 2 else -1]
        both = [_kb_process(root, cache, *first), _kb_process(root, cache, *second)]
        outputs = [p.communicate(timeout=300) for p in both]
        for process, (_, err) in zip(both, outputs, strict=True):
            assert process.returncode == 0, (n, process.args[-2:], err)
        if _state(root) != (True, True, True):
            lost.append(f"round {n}: tags re-pinned, version, sources = {_state(root)}")
        assert not list((root / "sources").glob(".a2a-kb-commit.*")), n
    assert not lost, lost


def test_a_writer_killed_at_any_moment_leaves_the_old_records_or_the_new(_before_rc: Path,
                                                                        tmp_path: Path) -> None:
    """pin and add-version killed (SIGKILL) at random moments of their run: the records are
    then whole, old or new (validate passes, and a version never comes without its sources),
    and the command run again finishes the job."""
    rng = random.Random(26)
    cases = [("add-version", "v1.0.0-rc"), ("pin", "github-tags")]
    durations = {}
    for command in cases:  # how long each takes uninterrupted, so that kills fall within it
        root = _stale_tags_copy(_before_rc, tmp_path / f"timed-{command[0]}" / "kb")
        started = time.monotonic()
        done = _kb_process(root, tmp_path / f"timed-{command[0]}" / "cache", *command)
        assert done.wait(timeout=300) == 0, done.communicate()
        durations[command] = time.monotonic() - started
    seen: list[tuple[str, bool]] = []
    for n in range(ROUNDS // 2):
        command = cases[n % 2]
        root = _stale_tags_copy(_before_rc, tmp_path / f"kill-{n}" / "kb")
        cache = tmp_path / f"kill-{n}" / "cache"
        process = _kb_process(root, cache, *command)
        # Spread over the run (start-up, loading, reading upstream, writing), jittered.
        time.sleep((0.1 + 0.9 * (n // 2) / max(1, ROUNDS // 4 - 1) + rng.uniform(-0.05, 0.05))
                   * durations[command])
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        tags, version, sources = _state(root)
        seen.append((command[0], tags if command[0] == "pin" else version))
        assert version == sources, f"kill {n} ({command[0]}): version without its sources, or the reverse"
        check = _kb_process(root, cache, "validate")
        out, err = check.communicate(timeout=300)
        assert check.returncode == 0, f"kill {n} ({command[0]}): the records do not validate:\n{out}{err}"
        again = _kb_process(root, cache, *command)
        out, err = again.communicate(timeout=300)
        done_before = (command[0] == "pin" and tags) or (command[0] == "add-version" and version)
        if done_before and command[0] == "add-version":
            assert again.returncode == 2 and "already in sources/versions.yaml" in err, err
        else:
            assert again.returncode == 0, err
        assert _state(root)[:1] == (True,) if command[0] == "pin" else _state(root)[1:] == (True, True)
        assert not list((root / "sources").glob(".a2a-kb-commit.*")), n
    print(f"kills: {len(seen)}, of which after the write: {sum(done for _, done in seen)}")
