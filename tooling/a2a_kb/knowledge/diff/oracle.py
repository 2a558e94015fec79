"""`buf breaking` as the diff's oracle: the same pair of .protos through buf (rules WIRE,
WIRE_JSON and FILE), its findings matched with the diff's changes, element by element.

buf runs offline: each side is a temporary buf module holding the version's .proto at one
path (v0.x keeps it at ``specification/grpc/a2a.proto``, v1 at ``specification/a2a.proto``;
buf compares files by path) and the ``google/api`` protos copied from the
googleapis-common-protos wheel, with no dependency on the Buf Schema Registry.

buf matches elements by fully-qualified name, so across a package rename (v0.3.0 →
v1.0.0) it sees no field at all. The diff matches by name within the package; to hold it to
buf there too, the pair is run a second time with the old side's package statement set to
the new one (the *aligned* run), and both runs' findings count.

*Recall*: every buf finding on an element inside the diff's scope has a change on that
element. *Precision*: every change the diff calls binary-breaking is confirmed by a buf
WIRE finding on one of its elements, or stands on :data:`ALLOWED` with its reason; an
entry that is no longer needed is an error.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .descriptors import ProtoFile, include_dirs
from .model import Change
from .scope import Scope, proto_scope

BUF = Path("tooling/npm/buf/node_modules/.bin/buf")
GOOGLE_API = ("annotations.proto", "http.proto", "client.proto", "field_behavior.proto",
              "launch_stage.proto")
MODULE_PATH = "specification/a2a.proto"
_PACKAGE_LINE = re.compile(r"^package\s+[\w.]+\s*;", re.MULTILINE)


@dataclass(frozen=True)
class Allowed:
    """A change the diff calls binary-breaking that buf does not, and why the diff is right."""

    old: str  # versions
    new: str
    kind: str
    subject: str  # "*": every change of this kind in this pair that buf does not confirm
    reason: str

    def covers(self, old: str, new: str, change: Change) -> bool:
        return (self.old, self.new, self.kind) == (old, new, change.kind) and \
            self.subject in ("*", change.subject)


# Kept short on purpose; the test fails on an entry that no change needs any more.
ALLOWED: tuple[Allowed, ...] = ()


@dataclass(frozen=True)
class Finding:
    rule: str
    message: str
    line: int
    encoding: str  # "binary" (a WIRE rule), "json" (WIRE_JSON), else "source"
    element: str  # "field:Task#2", "rpc:A2AService.GetTask", "package" …
    aligned: bool  # found by the package-aligned run


@dataclass
class PairFigures:
    old: str
    new: str
    findings: list[Finding] = field(default_factory=list)  # in scope, unique by (rule, element)
    unmatched: list[Finding] = field(default_factory=list)
    out_of_scope: int = 0
    calls: list[Change] = field(default_factory=list)  # binary-breaking changes
    confirmed: list[Change] = field(default_factory=list)
    allowed: list[tuple[Change, Allowed]] = field(default_factory=list)
    unconfirmed: list[Change] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return 1.0 if not self.findings else 1 - len(self.unmatched) / len(self.findings)

    @property
    def precision(self) -> float:
        return 1.0 if not self.calls else len(self.confirmed) / len(self.calls)


def buf_path(root: Path) -> Path:
    return root / BUF


def rule_encodings(buf: Path) -> dict[str, str]:
    """Each breaking rule's strongest encoding, from buf's own list of rules and categories."""
    done = subprocess.run([str(buf), "config", "ls-breaking-rules", "--format", "json"],
                          capture_output=True, text=True, check=True)
    found = {}
    for line in done.stdout.splitlines():
        rule = json.loads(line)
        categories = set(rule.get("categories") or [])
        found[rule["id"]] = ("binary" if "WIRE" in categories
                             else "json" if "WIRE_JSON" in categories else "source")
    return found


def _module(root: Path, text: str) -> None:
    (root / MODULE_PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / MODULE_PATH).write_text(text, "utf-8")
    googleapis, _ = include_dirs()
    (root / "google" / "api").mkdir(parents=True)
    for name in GOOGLE_API:
        shutil.copyfile(googleapis / "google" / "api" / name, root / "google" / "api" / name)
    (root / "buf.yaml").write_text("version: v2\nbreaking:\n  use: [WIRE, WIRE_JSON, FILE]\n", "utf-8")


def run_buf(buf: Path, old_text: str, new_text: str) -> list[dict[str, object]]:
    """buf's findings (its JSON lines) for one pair of .proto texts."""
    with tempfile.TemporaryDirectory(prefix="a2a-kb-buf-") as tmp:
        old_root, new_root = Path(tmp) / "old", Path(tmp) / "new"
        _module(old_root, old_text)
        _module(new_root, new_text)
        done = subprocess.run([str(buf), "breaking", str(new_root), "--against", str(old_root),
                               "--error-format", "json"], capture_output=True, text=True, check=False)
        if done.returncode not in (0, 100):  # 100: breaking changes found
            raise RuntimeError(f"buf breaking failed ({done.returncode}): {done.stderr.strip()}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def aligned(old_text: str, new: ProtoFile) -> str:
    """The old .proto with the new one's package, so that buf matches across a rename."""
    return _PACKAGE_LINE.sub(f"package {new.package};", old_text, count=1)


_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), e) for p, e in (
    (r'^File package changed', "package"),
    (r'^File option "(?P<a>[\w.]+)" changed', "option:{a}"),
    (r'field "(?P<n>\d+)" with name "[\w]+" on message "(?P<m>[\w.]+)"', "field:{m}#{n}"),
    (r'^Field "(?P<n>\d+)"( with name "\w+")? on message "(?P<m>[\w.]+)"', "field:{m}#{n}"),
    (r'enum value "(?P<n>-?\d+)"( \(\w+\))? on enum "(?P<m>[\w.]+)"', "value:{m}#{n}"),
    (r'^Enum value "(?P<n>-?\d+)"( with name "\w+")? on enum "(?P<m>[\w.]+)"', "value:{m}#{n}"),
    (r'oneof "(?P<o>\w+)" on message "(?P<m>[\w.]+)"', "oneof:{m}.{o}"),
    (r'reserved (range|name) "[^"]*" on message "(?P<m>[\w.]+)"', "reserved:{m}"),
    (r'reserved (range|name) "[^"]*" on enum "(?P<m>[\w.]+)"', "reserved:{m}"),
    (r'RPC "(?P<r>\w+)" on service "(?P<s>\w+)"', "rpc:{s}.{r}"),
    (r'^Previously present message "(?P<m>[\w.]+)"', "message:{m}"),
    (r'^Previously present enum "(?P<m>[\w.]+)"', "enum:{m}"),
    (r'^Previously present service "(?P<s>\w+)"', "service:{s}"),
))


def element_of(message: str) -> str:
    """The element a buf finding is about, from its message; '' when no pattern knows it."""
    for pattern, element in _PATTERNS:
        match = pattern.search(message)
        if match:
            return element.format(**{k: v for k, v in match.groupdict().items() if v is not None})
    return ""


def in_scope(element: str, scope: Scope) -> bool:
    kind, _, name = element.partition(":")
    if kind in ("package", "option"):
        return True
    if kind == "rpc":
        return name in scope.operations
    if kind == "service":
        return name in scope.services
    owner = re.split(r"[#]", name)[0]
    if kind in ("oneof",):
        owner = name.rsplit(".", 1)[0]
    if owner in scope.types:
        return True
    # a map's entry type (Security.SchemesEntry) belongs to its message
    return kind == "message" and name.rsplit(".", 1)[0] in scope.types and "." in name


def figures(old_version: str, new_version: str, old: ProtoFile, new: ProtoFile, old_text: str,
            new_text: str, changes: Iterable[Change], buf: Path, encodings: dict[str, str]) -> PairFigures:
    """Hold one pair's changes to buf's findings."""
    result = PairFigures(old_version, new_version)
    scope = proto_scope(old) | proto_scope(new)
    runs = [(False, run_buf(buf, old_text, new_text))]
    if old.package != new.package:
        runs.append((True, run_buf(buf, aligned(old_text, new), new_text)))
    seen: set[tuple[str, str]] = set()
    for is_aligned, found in runs:
        for raw in found:
            rule, message = str(raw["type"]), str(raw["message"])
            element = element_of(message)
            if not element:
                result.unparsed.append(f"{rule}: {message}")
                continue
            if not in_scope(element, scope):
                result.out_of_scope += 1
                continue
            if (rule, element) in seen:
                continue
            seen.add((rule, element))
            result.findings.append(Finding(rule, message, int(str(raw.get("start_line", 0))),
                                           encodings.get(rule, "source"), element, is_aligned))
    grpc = [c for c in changes if c.binding in ("grpc", "rest")]
    covered = {e for c in grpc for e in c.elements}
    result.unmatched = [f for f in result.findings if f.element not in covered
                        and not (f.element.startswith("message:") and _entry_of(f.element) in covered)]
    binary = {f.element for f in result.findings if f.encoding == "binary"}
    for change in grpc:
        if "binary" not in change.breaks:
            continue
        result.calls.append(change)
        if binary & set(change.elements):
            result.confirmed.append(change)
            continue
        entry = next((a for a in ALLOWED if a.covers(old_version, new_version, change)), None)
        if entry is not None:
            result.allowed.append((change, entry))
        else:
            result.unconfirmed.append(change)
    return result


def _entry_of(element: str) -> str:
    """A map entry message's finding is covered by a change on its message."""
    return "message:" + element.removeprefix("message:").rsplit(".", 1)[0]


def stale_allowances(all_figures: Iterable[PairFigures]) -> list[Allowed]:
    used = {id(a) for f in all_figures for _, a in f.allowed}
    return [a for a in ALLOWED if id(a) not in used]
