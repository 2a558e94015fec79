"""The content-addressed cache of fetched sources.

Layout under the cache directory (sources/cache/ by default, gitignored)::

    blobs/<aa>/<sha256>     the bytes of one fetched copy, named by their sha256
    index.json              source id → the blob it last resolved to, with HTTP validators
    lock                    held (flock) by a process that writes the index

Blobs are written to a temporary file in the same directory and published with
`os.replace`, so a reader sees either no blob or a whole one; a blob whose bytes do not
hash to its name is never trusted. The index is replaced the same way, under a lock, so
two fetches at once leave it consistent. A failed fetch never touches the last good copy.

Data derived from the cache (the facts of each blob, the query index, the site's reuse
records) is written *sealed* (`write_sealed`): the file starts with the sha256 of
its payload, and `read_sealed` hands back the payload only while it still hashes to
that seal. One flipped byte makes a derived file unreadable, so it is rebuilt from its
inputs instead of being believed.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .seal import mac

INDEX_VERSION = 1


@dataclass
class CacheEntry:
    """What the cache knows of one source's last good copy."""

    sha256: str
    url: str
    size: int
    fetched_at: str
    etag: str = ""
    last_modified: str = ""
    # What the source's URL served at the last refresh when that no longer matched the pin
    # (the source drifted); empty while the URL still serves the pinned copy. A moving
    # source that drifted before any good copy was stored has an entry with an empty
    # sha256: no blob, only this news.
    upstream_sha256: str = ""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old file or the new one, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # The writer's pid in the name lets a later run tell an orphan (its writer was killed)
    # from a write still in progress; see Cache.sweep().
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename2 is None and e.filename in (None, tmp):
            # A write or fsync that failed names no file, and a failed rename the temporary
            # one: say the file the caller asked for, which is where the space or the right
            # is missing.
            e.filename = str(path)
        raise


# The first line of a sealed file: this tag, then the keyed MAC of everything after the line
# (a2a_kb.seal: a plain sha256 could be recomputed by whatever rewrote the file).
SEAL_TAG = b"a2a-kb-sealed-v2"
_SEAL_LINE = len(SEAL_TAG) + 1 + 64 + 1


def sealed(payload: bytes) -> bytes:
    """`payload` behind a first line that carries its keyed seal."""
    return SEAL_TAG + b" " + mac(payload).encode("ascii") + b"\n" + payload


def unsealed(data: bytes) -> bytes | None:
    """The payload of sealed `data`, or None when the seal is missing or does not match
    (written by another machine or tool, damaged, or of the old unkeyed kind)."""
    if len(data) < _SEAL_LINE or not data.startswith(SEAL_TAG + b" "):
        return None
    if data[_SEAL_LINE - 1:_SEAL_LINE] != b"\n":
        return None
    payload = data[_SEAL_LINE:]
    return payload if hmac.compare_digest(mac(payload).encode("ascii"),
                                          data[len(SEAL_TAG) + 1:_SEAL_LINE - 1]) else None


def write_sealed(path: Path, payload: bytes) -> None:
    """Write derived data so that any later change to it is noticed (see `read_sealed`)."""
    atomic_write(path, sealed(payload))


def read_sealed(path: Path) -> bytes | None:
    """The payload of a sealed file; None when it is missing, unreadable or damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return unsealed(data)


def sweep_damaged(paths: Iterator[Path] | list[Path]) -> list[Path]:
    """Delete the sealed files among `paths` whose seal no longer matches; return them.

    A missing or unreadable file is not damage. What is removed is derived data: the next
    reader rebuilds it from its inputs.
    """
    removed: list[Path] = []
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if unsealed(data) is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(path)
    return removed


_TEMPORARY = re.compile(r"\..+\.(?P<pid>\d+)\.[^.]+\.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


class Cache:
    """A content-addressed store of source copies with an index by source id."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # blobs ----------------------------------------------------------------------------

    def blob_path(self, sha256: str) -> Path:
        return self.root / "blobs" / sha256[:2] / sha256

    def has_blob(self, sha256: str) -> bool:
        return self.blob_path(sha256).is_file()

    def read_blob(self, sha256: str) -> bytes | None:
        """The blob's bytes, or None when it is missing or does not match its name."""
        try:
            data = self.blob_path(sha256).read_bytes()
        except OSError:
            return None
        return data if sha256_of(data) == sha256 else None

    def damaged(self, sha256: str) -> bool:
        """Whether a blob of this name is present but its bytes no longer hash to it."""
        return self.has_blob(sha256) and self.read_blob(sha256) is None

    def blob_names(self) -> set[str]:
        """The sha256 of every blob present, by name only (nothing is read or verified)."""
        blobs = self.root / "blobs"
        if not blobs.is_dir():
            return set()
        return {p.name for p in blobs.glob("*/*") if not p.name.startswith(".")}

    def put_blob(self, data: bytes) -> str:
        sha = sha256_of(data)
        path = self.blob_path(sha)
        if not path.is_file() or sha256_of(path.read_bytes()) != sha:
            atomic_write(path, data)
        return sha

    # index ----------------------------------------------------------------------------

    @property
    def index_path(self) -> Path:
        return self.root / "index.json"

    def entries(self) -> dict[str, CacheEntry]:
        try:
            raw = json.loads(self.index_path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        result: dict[str, CacheEntry] = {}
        for sid, item in raw.get("sources", {}).items():
            with contextlib.suppress(TypeError):
                result[sid] = CacheEntry(**item)
        return result

    def entry(self, source_id: str) -> CacheEntry | None:
        return self.entries().get(source_id)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the cache's write lock (an flock, released if the process dies)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / "lock", "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def record(self, updates: dict[str, CacheEntry]) -> None:
        """Merge entries into the index atomically, under the lock."""
        if not updates:
            return
        with self.locked():
            current = self.entries()
            current.update(updates)
            payload: dict[str, Any] = {
                "version": INDEX_VERSION,
                "sources": {sid: asdict(e) for sid, e in sorted(current.items())},
            }
            atomic_write(self.index_path, (json.dumps(payload, indent=1) + "\n").encode())

    # reading a source -------------------------------------------------------------------

    def content(self, source_id: str, pinned_sha256: str = "") -> bytes | None:
        """The verified bytes of a source: its pinned blob, else its last good copy."""
        if pinned_sha256:
            data = self.read_blob(pinned_sha256)
            if data is not None:
                return data
        found = self.entry(source_id)
        if found is None or not found.sha256:
            return None
        return self.read_blob(found.sha256)

    def sweep(self) -> list[Path]:
        """Delete the temporary files of writers that died mid-write; return what went.

        A kill -9 between `mkstemp` and `os.replace` leaves a hidden temporary file
        that nothing reads. One whose writer is still running is left alone. (Pids are only
        meaningful on one machine: a cache is not shared between machines.)
        """
        removed: list[Path] = []
        if not self.root.is_dir():
            return removed
        for path in self.root.rglob(".*.tmp"):
            found = _TEMPORARY.fullmatch(path.name)
            if found is None or _alive(int(found["pid"])):
                continue
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
        return removed

    def verify(self) -> list[str]:
        """Every problem in the cache: blobs that do not hash to their name, dangling entries."""
        problems: list[str] = []
        blobs = self.root / "blobs"
        if blobs.is_dir():
            for path in sorted(blobs.glob("*/*")):
                if path.name.startswith("."):
                    continue  # a temporary file of a write in progress or killed; never read
                if sha256_of(path.read_bytes()) != path.name:
                    problems.append(f"{path}: content does not match its sha256 name")
        for sid, e in self.entries().items():
            if e.sha256 and not self.has_blob(e.sha256):
                problems.append(f"index entry {sid} points at missing blob {e.sha256[:12]}")
        return problems
