"""a2a_kb.commit: the records' write lock and changes of several files, whole or not at all.

The processes here are real (a second writer is another Python process); the crash is a
rename that fails after the journal was written, as a kill at that moment would leave it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from a2a_kb import commit
from a2a_kb.errors import ConfigurationError


def _files(root: Path) -> dict[str, str]:
    return {p.name: p.read_text("utf-8") for p in sorted((root / "sources").glob("*.yaml"))}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "sources").mkdir()
    for name in ("versions.yaml", "primary.yaml"):
        (tmp_path / "sources" / name).write_text(f"{name}: old\n", "utf-8")
    return tmp_path


def test_a_change_interrupted_after_its_journal_is_finished_by_the_next_reader(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_replace = os.replace
    calls: list[str] = []

    def crash_after_one(src: object, dst: object) -> None:
        calls.append(str(dst))
        if len(calls) == 3:  # the journal, then one file: the process dies before the second
            raise KeyboardInterrupt
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", crash_after_one)
    with pytest.raises(KeyboardInterrupt), commit.records_lock(root, "test"):
        commit.commit(root, {root / "sources" / "versions.yaml": b"versions.yaml: new\n",
                             root / "sources" / "primary.yaml": b"primary.yaml: new\n"})
    monkeypatch.setattr(os, "replace", real_replace)
    assert (root / commit.JOURNAL).exists()
    assert sorted(_files(root).values()) == ["primary.yaml: old\n", "versions.yaml: new\n"]  # half
    commit.recover(root)  # what loading the records does first
    assert _files(root) == {"primary.yaml": "primary.yaml: new\n", "versions.yaml": "versions.yaml: new\n"}
    assert not (root / commit.JOURNAL).exists()
    assert not list((root / "sources").glob(".a2a-kb-commit.*"))


def test_a_change_interrupted_before_its_journal_leaves_the_old_files_and_no_strays(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = open
    opened: list[str] = []

    def fail_on_second(path: object, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        if len(opened) == 2:
            raise KeyboardInterrupt
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", fail_on_second)
    with pytest.raises(KeyboardInterrupt), commit.records_lock(root, "test"):
        commit.commit(root, {root / "sources" / "versions.yaml": b"new\n",
                             root / "sources" / "primary.yaml": b"new\n"})
    monkeypatch.setattr("builtins.open", real_open)
    assert _files(root) == {"primary.yaml": "primary.yaml: old\n", "versions.yaml": "versions.yaml: old\n"}
    assert not (root / commit.JOURNAL).exists()
    with commit.records_lock(root, "test"):  # and a temporary file a kill left is swept
        pass
    assert not list((root / "sources").glob(".a2a-kb-commit.*"))


HOLD = """
import sys, time
from pathlib import Path
from a2a_kb.commit import records_lock
with records_lock(Path(sys.argv[1]), "pin"):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _holding(root: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process, holding the lock for ``seconds`` once it has said so."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(root), str(seconds)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_writer_waits_and_says_for_whom(root: Path) -> None:
    holder = _holding(root, 1.0)
    told: list[str] = []
    started = time.monotonic()
    with commit.records_lock(root, "add-version", on_wait=told.append):
        waited = time.monotonic() - started
    holder.wait(timeout=30)
    assert waited > 0.3, waited
    assert len(told) == 1 and f"pid {holder.pid} (pin)" in told[0], told


def test_a_writer_that_waits_too_long_gives_up_with_a_clear_message(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    holder = _holding(root, 5.0)
    try:
        monkeypatch.setenv(commit.WAIT_ENV, "0.2")
        gave_up = rf"being written by pid {holder.pid} \(pin\); gave up"
        with pytest.raises(ConfigurationError, match=gave_up), commit.records_lock(root, "add-version"):
            pass
        monkeypatch.setenv(commit.WAIT_ENV, "soon")
        with pytest.raises(ConfigurationError, match="not a number of seconds"), \
                commit.records_lock(root, "add-version"):
            pass
    finally:
        holder.kill()
        holder.wait()
