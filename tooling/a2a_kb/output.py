"""Shared output shapes: the JSON envelope and plain-text tables."""

from __future__ import annotations

import datetime as dt
import json
import os
from typing import Any

SCHEMA_VERSION = 1


def generated_at() -> str:
    """Now in UTC, or $SOURCE_DATE_EPOCH when set, so builds can be reproduced."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (
        dt.datetime.fromtimestamp(int(epoch), dt.UTC)
        if epoch and epoch.isdigit()
        else dt.datetime.now(dt.UTC)
    )
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def envelope(payload: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "generated_at": generated_at(), **payload}


def dumps(payload: Any) -> str:
    return json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=False)


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain-text table, columns padded to their widest cell."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)
