"""The key that seals derived data, so that only this machine's own writes are believed.

Derived data (facts, what the diff read from a schema, compiled descriptors, the query
index, the site's page reuse records) used to carry the sha256 of its contents. That finds a
torn write or a flipped bit, but anything that can write the file can also write a new
sha256: a facts file rewritten with its seal recomputed was used as it was. Each seal is now
a keyed BLAKE2b MAC (`mac`) under a secret that lives outside the cache, in
`$XDG_STATE_HOME/a2a-kb/seal.key` (`~/.local/state/a2a-kb/seal.key`; `A2A_KB_SEAL_KEY`
names another file), made once per user and machine with 32 random bytes.

What that covers: a derived file written anywhere but by a2a-kb on this machine — a cache
restored by CI from another run (cache poisoning), copied from another machine, edited by
hand or by another tool — fails its seal and is derived again from its inputs. What it does
not cover: a process that can read the key, which can run a2a-kb's own code anyway. Where
the key cannot be kept (no writable home), a key for this process alone is used: nothing
derived is then reused across runs, and nothing is believed that this run did not write.
"""

from __future__ import annotations

import contextlib
import os
from functools import cache

try:  # the very class hashlib.blake2b names, without hashlib, which also loads OpenSSL (2 ms a query)
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b

KEY_BYTES = 32
KEY_ENV = "A2A_KB_SEAL_KEY"


def key_path() -> str:
    """Where this user's key is: $A2A_KB_SEAL_KEY, else a2a-kb/seal.key in the state
    folder ($XDG_STATE_HOME, else ~/.local/state). A string: every warm query reads it,
    and it needs no `pathlib` (see a2a_kb.layout)."""
    if os.environ.get(KEY_ENV):
        return os.environ[KEY_ENV]
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "a2a-kb", "seal.key")


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(KEY_BYTES + 1)
    except OSError:
        return None
    return data if len(data) == KEY_BYTES else None


@cache
def key() -> bytes:
    """This user's sealing key: read, or made once (two processes making it at the same
    moment agree: the key is linked into place, and the one that loses reads the winner's)."""
    path = key_path()
    found = _read(path)
    if found is not None:
        return found
    fresh = os.urandom(KEY_BYTES)
    with contextlib.suppress(OSError):
        folder = os.path.dirname(path) or "."  # a bare file name: the working folder
        os.makedirs(folder, mode=0o700, exist_ok=True)
        temp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}")
        handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(handle, fresh)
            os.fsync(handle)
        finally:
            os.close(handle)
        try:
            os.link(temp, path)  # fails if another process made the key first
        except FileExistsError:
            pass
        finally:
            os.unlink(temp)
        found = _read(path)
        if found is not None:
            return found
    return fresh  # no key can be kept: this process's own


def mac(data: bytes) -> str:
    """The keyed seal of `data`: 64 hex digits."""
    return blake2b(data, key=key(), digest_size=32).hexdigest()
