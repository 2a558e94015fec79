"""A read-only or full disk is a clear error (or, where the work can go on, a clear
warning), never an "internal error" and never a traceback.

The disks are real: each command runs in a mount namespace of its own (``unshare -m``),
where the cache is bind-mounted read-only, or is a tmpfs too small for the sources. Nothing
outside that namespace sees the mounts. Needs root (as CI has); skipped where the kernel
refuses the namespace.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MIRROR, REPO


def _namespace_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                          capture_output=True)
    return done.returncode == 0


pytestmark = pytest.mark.skipif(not _namespace_works(), reason="mount namespaces are not available here")


def _kb_in_namespace(setup: str, root: Path, *args: str, env: dict[str, str]
                     ) -> subprocess.CompletedProcess[str]:
    """Run `a2a-kb ARGS` after the shell commands ``setup``, in a private mount namespace."""
    argv = [sys.executable, "-m", "a2a_kb.cli", "--root", str(root), *args]
    command = " ".join(shlex.quote(a) for a in argv)
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-ec",
                           f"{setup}\nexec {command}"], capture_output=True, text=True, env=env, timeout=120)


def _read_only(path: Path) -> str:
    where = shlex.quote(str(path))
    return f"mount --bind {where} {where}\nmount -o remount,bind,ro {where}"


def _fetched(fixture_kb: Path) -> Path:
    cache = fixture_kb.parent / "cache"
    done = subprocess.run([sys.executable, "-m", "a2a_kb.cli", "--root", str(fixture_kb), "fetch", "--mirror",
                           str(MIRROR)], capture_output=True, text=True, env=os.environ, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return cache


def _clear(done: subprocess.CompletedProcess[str]) -> None:
    both = done.stdout + done.stderr
    assert "internal error" not in both and "Traceback" not in both, both


def test_fetch_refresh_into_a_read_only_cache(fixture_kb: Path) -> None:
    cache = _fetched(fixture_kb)
    (cache / "index.json").unlink()  # so that the refresh has entries to write
    done = _kb_in_namespace(_read_only(cache), fixture_kb, "fetch", "--refresh", "--mirror", str(MIRROR),
                            env=dict(os.environ))
    _clear(done)
    assert done.returncode == 2, done.stderr
    assert "Read-only file system" in done.stderr and "A2A_KB_CACHE" in done.stderr, done.stderr


def test_check_with_a_read_only_cache(fixture_kb: Path) -> None:
    cache = _fetched(fixture_kb)
    shutil.rmtree(cache / "facts", ignore_errors=True)  # the check must extract, and cannot keep
    (cache / "facts").mkdir()
    done = _kb_in_namespace(_read_only(cache), fixture_kb, "check", env=dict(os.environ))
    _clear(done)
    assert "warning[cache-unwritable]" in done.stdout + done.stderr, done.stdout
    assert "verdict(s) changed" in done.stdout or "no verdict changed" in done.stdout


def test_fetch_into_a_full_disk(fixture_kb: Path) -> None:
    cache = fixture_kb.parent / "cache"
    dossier = list((cache / "blobs").glob("*/*"))
    setup = "\n".join([
        f"mkdir -p {shlex.quote(str(cache))}",
        f"mount -t tmpfs -o size=64k tmpfs {shlex.quote(str(cache))}",
    ])
    assert dossier  # the fixture's dossier is not needed here: the tmpfs hides it
    done = _kb_in_namespace(setup, fixture_kb, "fetch", "--mirror", str(MIRROR), env=dict(os.environ))
    _clear(done)
    assert done.returncode in (1, 2), done.stdout + done.stderr
    assert "No space left on device" in done.stdout + done.stderr, done.stdout + done.stderr
    # The message names the file the disk refused, in the cache, not only the record's place.
    assert str(cache / "blobs") in done.stdout + done.stderr, done.stdout + done.stderr


def test_a_refused_copy_or_rename_names_its_destination(tmp_path: Path) -> None:
    import errno

    from a2a_kb.errors import disk_error

    refused = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "from"), None,
                      str(tmp_path / "to"))
    found = disk_error(refused)
    assert found is not None and str(tmp_path / "to") in str(found), found
    assert str(tmp_path / "from") not in str(found), found


def test_a_read_only_checkout_still_validates_and_answers_queries(fixture_kb: Path) -> None:
    cache = _fetched(fixture_kb)
    setup = f"{_read_only(fixture_kb)}\n{_read_only(cache)}"
    for args in (["validate"], ["query", "--id", "v1-terminal-states"]):
        done = _kb_in_namespace(setup, fixture_kb, *args, env=dict(os.environ))
        _clear(done)
        assert done.returncode == 0, done.stdout + done.stderr


def test_build_with_a_read_only_checkout(fixture_kb: Path) -> None:
    shutil.copy2(REPO / "mkdocs.yml", fixture_kb / "mkdocs.yml")
    done = _kb_in_namespace(_read_only(fixture_kb), fixture_kb, "build", "--quiet", env=dict(os.environ))
    _clear(done)
    assert done.returncode == 2, done.stderr
    assert "Read-only file system" in done.stderr
