"""Writing the records: one writer at a time, and every change whole or not at all.

`pin`, `add-version` and `capture` read record files, decide, and write some back. Two of
them at once used to lose a write: each read `sources/primary.yaml`, changed its copy and
replaced the file, so the second replacement dropped the first one's change while both
said they had written it. And `add-version` writes two files (`versions.yaml` and
`primary.yaml`): a kill between the two left a version with no sources.

So every command that writes `sources/`, `claims/` or `captures/` does its whole
read-decide-write inside `records_lock`, an exclusive `flock` on
`.cache/records.lock`; a second writer waits for it (and says so), or gives up after
`A2A_KB_LOCK_WAIT` seconds with a message naming the holder. The files of one change go
through `commit`:

1. each new file is written beside its target as a temporary file and flushed to disk;
2. a journal (`.cache/records.journal`) lists the renames, written atomically;
3. the temporary files are renamed over their targets;
4. the journal is removed.

A process killed before step 2 leaves only temporary files, which the next writer removes;
killed after it, the journal names renames whose files are all complete, and the next
writer, or the next command that loads the records (`recover`), finishes them. Either
way the records are the old set or the new set, never a mix.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import ConfigurationError, DiskError

LOCK = Path(".cache") / "records.lock"
JOURNAL = Path(".cache") / "records.journal"
WRITTEN_FOLDERS = ("sources", "claims", "captures")
TEMP_PREFIX = ".a2a-kb-commit."
DEFAULT_WAIT = 600.0  # seconds; a pin over a slow network can take minutes
WAIT_ENV = "A2A_KB_LOCK_WAIT"


def _wait_limit() -> float:
    raw = os.environ.get(WAIT_ENV, "")
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_WAIT
    except ValueError:
        raise ConfigurationError(f"{WAIT_ENV}={raw!r} is not a number of seconds "
                                 "(tip: A2A_KB_LOCK_WAIT=60, or leave it unset)") from None


def _holder(handle: int) -> str:
    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = os.pread(handle, 200, 0).decode("utf-8").strip()
        if text:
            return text
    return "another a2a-kb command"


@contextlib.contextmanager
def records_lock(root: Path, command: str,
                 on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the project's write lock for the block; finish or clear what a killed writer left.

    `command` names the holder in another writer's message. `on_wait` is told, once,
    who holds the lock when this call has to wait for it."""
    path = root / LOCK
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise DiskError(path, e.strerror or str(e)) from e
    try:
        deadline = time.monotonic() + _wait_limit()
        told = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _holder(handle)
                if time.monotonic() >= deadline:
                    raise ConfigurationError(
                        f"the records are being written by {holder}; gave up waiting "
                        f"(tip: let it finish and run this again, or raise {WAIT_ENV})") from None
                if not told and on_wait is not None:
                    on_wait(f"waiting for {holder} to finish writing the records")
                    told = True
                time.sleep(0.05)
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"pid {os.getpid()} ({command})\n".encode(), 0)
        _finish(root)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(handle, 0)
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


def recover(root: Path) -> None:
    """Finish a change a killed writer left half done, if no writer is at work now.

    Called before the records are read: a reader then never sees the half of a change.
    Best effort: a checkout that cannot be written has nothing to finish."""
    if not (root / JOURNAL).exists():
        return
    path = root / LOCK
    try:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        return  # a writer is at work; it finishes the journal itself
    try:
        _finish(root)
    except OSError:
        pass
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        os.close(handle)


def _finish(root: Path) -> None:
    """Under the lock: complete a journal's renames, then remove stray temporary files."""
    journal = root / JOURNAL
    if journal.exists():
        try:
            renames = json.loads(journal.read_text("utf-8"))
        except (OSError, ValueError):
            renames = []  # written atomically, so unreadable means not ours: nothing to do
        for temp, target in renames if isinstance(renames, list) else []:
            if (root / temp).exists():
                os.replace(root / temp, root / target)
        journal.unlink()
        _sync_folder(journal.parent)
    for folder in WRITTEN_FOLDERS:
        base = root / folder
        if base.is_dir():
            for stray in base.rglob(f"{TEMP_PREFIX}*"):
                with contextlib.suppress(OSError):
                    stray.unlink()


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _write_temp(target: Path, data: bytes) -> Path:
    temp = target.with_name(f"{TEMP_PREFIX}{os.getpid()}.{target.name}.tmp")
    try:
        with open(temp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        with contextlib.suppress(OSError):
            temp.unlink()
        if e.errno in (errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.EPERM):
            raise DiskError(target, e.strerror or str(e)) from e
        raise
    return temp


def commit(root: Path, changes: dict[Path, bytes]) -> None:
    """Replace every file of `changes` (paths under `root`) together: after a kill at any
    moment the next writer or reader finds all of them old or all of them new. Call it
    inside `records_lock`."""
    if not changes:
        return
    temps: list[tuple[Path, Path]] = []
    try:
        for target, data in changes.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            temps.append((_write_temp(target, data), target))
    except BaseException:
        for temp, _ in temps:
            with contextlib.suppress(OSError):
                temp.unlink()
        raise
    renames = [[str(t.relative_to(root)), str(p.relative_to(root))] for t, p in temps]
    journal = root / JOURNAL
    journal.parent.mkdir(parents=True, exist_ok=True)
    staged = journal.with_name(journal.name + ".new")
    with open(staged, "w", encoding="utf-8") as f:
        json.dump(renames, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(staged, journal)  # from here on, the change happens whatever becomes of us
    _sync_folder(journal.parent)
    for temp, target in temps:
        os.replace(temp, target)
    for folder in {target.parent for _, target in temps}:
        _sync_folder(folder)
    journal.unlink()
