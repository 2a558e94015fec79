"""The JSON Schemas of the record kinds, shipped with the package."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

KINDS = ("claim", "source", "conflict", "version", "upstream", "sweep")

# The top-level key of a record file names its kind.
FILE_KEYS = {
    "claims": "claim",
    "sources": "source",
    "conflicts": "conflict",
    "versions": "version",
    "upstream": "upstream",
    "sweep": "sweep",
}


@cache
def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (2020-12) of a record file of `kind`."""
    if kind not in KINDS:
        raise KeyError(kind)
    # Beside this module, read as a file: the package is installed unzipped (pip always
    # unpacks a wheel), and importlib.resources' readers cost a diff 9 ms to import.
    text = Path(__file__).with_name(f"{kind}.schema.json").read_text("utf-8")
    result: dict[str, Any] = json.loads(text)
    return result
