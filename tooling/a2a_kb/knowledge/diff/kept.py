"""What the diff reads from a source's text, kept in the cache as sealed JSON.

Reading a .proto takes protoc and protobuf's runtime; reading a JSON schema takes a walk
over its text for the line of every member. Both are pure functions of the text, so what
they give is kept by the text's sha256 and the reader's version in `<cache>/diff/`,
sealed (`a2a_kb.cache.write_sealed`). A copy whose seal or shape is wrong is
read again from the text; `a2a-kb fetch` sweeps damaged ones with the other derived data.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...cache import read_sealed, sha256_of, write_sealed

T = TypeVar("T")
FOLDER = "diff"


def kept(cache_root: Path, text: str, reader: str, read: Callable[[], T],
         dump: Callable[[T], Any], undump: Callable[[Any], T]) -> T:
    """What `read()` gives for `text`: the kept copy when there is a good one, else read
    and kept. `reader` names the reader and its version (bump it when what `read` gives,
    or how `dump` writes it, changes); `dump` makes the result plain JSON values and
    `undump` makes them the result again."""
    path = cache_root / FOLDER / f"{sha256_of(text.encode('utf-8'))}.{reader}.json"
    payload = read_sealed(path)
    if payload is not None:
        try:
            return undump(json.loads(payload))
        except (ValueError, TypeError, KeyError, AttributeError):
            pass  # written by another version: read the text again
    found = read()
    with contextlib.suppress(OSError):  # a cache that cannot be written costs time, not correctness
        write_sealed(path, json.dumps(dump(found), separators=(",", ":")).encode("utf-8"))
    return found
