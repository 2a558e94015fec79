"""Editing record files in place: comments, order, quoting and layout stay as they were.

`pin` and `add-version` change a few values in sources/*.yaml. They go through ruamel.yaml's
round-trip mode, which keeps every comment, the order of keys and records, flow or block
style and the quoting of each scalar, so a change shows in a diff as the lines it changed
and nothing else. A new value takes the quoting of the value it replaces (a quoted date
stays quoted). Files are replaced atomically.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from ..cache import atomic_write
from ..errors import ConfigurationError


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a long URL or statement
    yaml.indent(mapping=2, sequence=4, offset=2)  # "  - id: …" then "    key: …", as written
    return yaml


class RecordFile:
    """One record file, read for editing; `save` writes it back."""

    def __init__(self, path: Path, display: str = "") -> None:
        self.path = path
        self.display = display or str(path)
        try:
            self.text = path.read_text("utf-8")
            self.tree: Any = _yaml().load(self.text)
        except (OSError, UnicodeDecodeError, YAMLError) as e:
            raise ConfigurationError(f"{self.display}: cannot be edited: {e}") from e
        if not isinstance(self.tree, CommentedMap) or len(self.tree) != 1:
            raise ConfigurationError(f"{self.display}: not a record file (one top-level key)")
        self.key = next(iter(self.tree))
        self.changed = False

    @property
    def records(self) -> CommentedSeq:
        items = self.tree[self.key]
        if not isinstance(items, CommentedSeq):
            raise ConfigurationError(f"{self.display}: '{self.key}' is not a list")
        return items

    def index_of(self, record_id: str) -> int:
        for i, item in enumerate(self.records):
            if isinstance(item, CommentedMap) and str(item.get("id")) == record_id:
                return i
        raise ConfigurationError(f"{self.display}: no record with id '{record_id}'")

    def record(self, record_id: str) -> CommentedMap:
        found: CommentedMap = self.records[self.index_of(record_id)]
        return found

    def set(self, mapping: CommentedMap, key: str, value: Any) -> None:
        """Set `key`, quoted as its old value was; a new key goes at the end."""
        old = mapping.get(key)
        if old == value and type(old) is type(value):
            return
        mapping[key] = _styled_like(old, value)
        self.changed = True

    def insert(self, index: int, record: dict[str, Any]) -> None:
        self.records.insert(index, block(record))
        self.changed = True

    def dumps(self) -> str:
        out = io.StringIO()
        _yaml().dump(self.tree, out)
        return out.getvalue()

    def save(self) -> None:
        if self.changed:
            atomic_write(self.path, self.dumps().encode("utf-8"))


def commit_files(root: Path, files: list[RecordFile]) -> None:
    """Write every changed file of `files` as one change (`a2a_kb.commit.commit`):
    after a kill at any moment they are all old or all new."""
    from ..commit import commit

    commit(root, {f.path: f.dumps().encode("utf-8") for f in files if f.changed})


def _styled_like(old: Any, value: Any) -> Any:
    if isinstance(value, str):
        if isinstance(old, SingleQuotedScalarString):
            return SingleQuotedScalarString(value)
        if isinstance(old, DoubleQuotedScalarString):
            return DoubleQuotedScalarString(value)
    return value


def block(record: dict[str, Any]) -> CommentedMap:
    """A new record in the files' style: block mappings, lists of versions in flow style
    with quoted items (`versions: ['1.0.0']`), dates quoted."""
    mapping = CommentedMap()
    for key, value in record.items():
        if isinstance(value, list):
            seq = CommentedSeq(SingleQuotedScalarString(v) if isinstance(v, str) else v
                               for v in value)
            seq.fa.set_flow_style()
            mapping[key] = seq
        elif key in ("retrieved", "reviewed") and isinstance(value, str):
            mapping[key] = SingleQuotedScalarString(value)
        else:
            mapping[key] = value
    return mapping
