"""`buf breaking` as the diff's oracle: the same pair of .protos through buf (rules WIRE,
WIRE_JSON and FILE), its findings matched with the diff's changes, element by element.

buf runs offline: each side is a temporary buf module holding the version's .proto at one
path (v0.x keeps it at `specification/grpc/a2a.proto`, v1 at `specification/a2a.proto`;
buf compares files by path) and the `google/api` protos copied from the
googleapis-common-protos wheel, with no dependency on the Buf Schema Registry.

buf matches elements by fully-qualified name, so across a package rename (v0.3.0 →
v1.0.0) it sees no field at all. The diff matches by name within the package; to hold it to
buf there too, the pair is run a second time with the old side's package statement set to
the new one (the *aligned* run), and both runs' findings count.

Held per encoding: binary protobuf to buf's WIRE category, ProtoJSON to WIRE_JSON.
*Recall*: every buf finding of the category on an element inside the diff's scope has a
change on that element graded breaking in the encoding. *Precision*: every change graded
breaking in the encoding has a finding of the category on one of its elements. Where the
diff is right and buf is not (a renumbering whose bytes still parse; a ProtoJSON payload a
package rename does not touch), the disagreement is kept in `disagreements.yaml` with
its reason; an entry nothing needs any more is an error.
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
class Finding:
    rule: str
    message: str
    line: int
    categories: frozenset[str]  # buf's categories of the rule: WIRE, WIRE_JSON, FILE …
    element: str  # "field:Task#2", "rpc:A2AService.GetTask", "package" …
    aligned: bool  # found by the package-aligned run

    @property
    def encoding(self) -> str:
        """The strongest encoding the rule guards (kept for the older reports)."""
        if "WIRE" in self.categories:
            return "binary"
        return "json" if "WIRE_JSON" in self.categories else "source"


# Which buf category holds each of the diff's encodings to account.
CATEGORY = {"binary": "WIRE", "protojson": "WIRE_JSON"}


@dataclass
class PairFigures:
    """One pair of versions through buf, with the diff's changes for the same pair."""

    old: str
    new: str
    findings: list[Finding] = field(default_factory=list)  # in scope, unique by (rule, element)
    changes: list[Change] = field(default_factory=list)  # the diff's gRPC changes
    out_of_scope: int = 0
    unparsed: list[str] = field(default_factory=list)


@dataclass
class Agreement:
    """The diff against buf in one encoding over some pairs."""

    encoding: str
    findings: int = 0  # buf findings in the encoding's category
    matched: int = 0  # … that the diff grades breaking in the encoding
    calls: int = 0  # changes the diff grades breaking in the encoding
    confirmed: int = 0  # … that a finding of the category confirms
    missed: list[str] = field(default_factory=list)  # unexplained buf-only findings
    extra: list[str] = field(default_factory=list)  # unexplained diff-only calls
    kept: dict[int, int] = field(default_factory=dict)  # disagreement index → times used

    @property
    def recall(self) -> float:
        return self.matched / self.findings if self.findings else 1.0

    @property
    def precision(self) -> float:
        return self.confirmed / self.calls if self.calls else 1.0


def buf_path(root: Path) -> Path:
    return root / BUF


def rule_categories(buf: Path) -> dict[str, frozenset[str]]:
    """Each breaking rule's categories, from buf's own list of rules."""
    done = subprocess.run([str(buf), "config", "ls-breaking-rules", "--format", "json"],
                          capture_output=True, text=True, check=True)
    found = {}
    for line in done.stdout.splitlines():
        rule = json.loads(line)
        found[rule["id"]] = frozenset(rule.get("categories") or [])
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
            new_text: str, changes: Iterable[Change], buf: Path,
            categories: dict[str, frozenset[str]]) -> PairFigures:
    """One pair through buf: its findings in scope, beside the diff's gRPC changes."""
    result = PairFigures(old_version, new_version, changes=[c for c in changes if c.binding == "grpc"])
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
                                           categories.get(rule, frozenset()), element, is_aligned))
    return result


@dataclass(frozen=True)
class Disagreement:
    """A disagreement with an oracle kept on purpose: where the diff is right, and why."""

    encoding: str
    side: str  # "buf-only"/"oracle-only": the oracle flags, the diff does not grade breaking;
    #            "diff-only": the reverse
    kind: str  # the diff's change kind on the element ("" for none)
    rule: str  # the oracle's rule or code ("" for a diff-only call that no finding touches)
    reason: str
    oracle: str = "buf"  # buf, openapi-diff or json-schema-diff


KEPT = Path(__file__).with_name("disagreements.yaml")


def load_disagreements(path: Path = KEPT) -> list[Disagreement]:
    import yaml

    rows = yaml.safe_load(path.read_text("utf-8")) or []
    return [Disagreement(str(r["encoding"]), str(r["side"]), str(r.get("kind") or ""),
                         str(r.get("rule") or ""), " ".join(str(r["reason"]).split()),
                         str(r.get("oracle") or "buf")) for r in rows]


def _covers(d: Disagreement, encoding: str, side: str, kinds: set[str], rules: set[str]) -> bool:
    same_kind = d.kind in kinds or (not d.kind and not kinds)
    same_rule = d.rule in rules or (not d.rule and not rules)
    return (d.oracle, d.encoding, d.side) == ("buf", encoding, side) and same_kind and same_rule


def agreement(pairs: Iterable[PairFigures], encoding: str, kept: list[Disagreement]) -> Agreement:
    """The diff's grades in `encoding` held to buf's findings in the matching category:
    every finding has a change on its element graded breaking, every breaking grade has a
    finding on one of its elements, or the disagreement is on `kept` with its reason."""
    category = CATEGORY[encoding]
    result = Agreement(encoding)
    for pair in pairs:
        findings = [f for f in pair.findings if category in f.categories]
        breaking = [c for c in pair.changes if c.level(encoding) == "breaking"]
        on: dict[str, list[Change]] = {}
        for c in pair.changes:
            for e in c.elements:
                on.setdefault(e, []).append(c)
        by_element: dict[str, list[Finding]] = {}
        for f in findings:
            by_element.setdefault(f.element, []).append(f)
        for f in findings:
            result.findings += 1
            mine = on.get(f.element, []) + on.get(_entry_of(f.element), [])
            if any(c.level(encoding) == "breaking" for c in mine):
                result.matched += 1
                continue
            kinds = {c.kind for c in mine}
            index = next((i for i, d in enumerate(kept)
                          if _covers(d, encoding, "buf-only", kinds, {f.rule})), None)
            if index is None:
                result.missed.append(f"{pair.old}→{pair.new} {f.rule} {f.element} (diff: "
                                     f"{', '.join(sorted(kinds)) or 'no change'}): {f.message}")
            else:
                result.kept[index] = result.kept.get(index, 0) + 1
        for c in breaking:
            result.calls += 1
            rules = {f.rule for e in c.elements for f in by_element.get(e, [])}
            if rules:
                result.confirmed += 1
                continue
            rules_any = {f.rule for e in c.elements for f in pair.findings if f.element == e}
            index = next((i for i, d in enumerate(kept)
                          if _covers(d, encoding, "diff-only", {c.kind}, rules_any)), None)
            if index is None:
                result.extra.append(f"{pair.old}→{pair.new} {c.kind} {c.subject} {c.elements} "
                                    f"(buf: {', '.join(sorted(rules_any)) or 'nothing'})")
            else:
                result.kept[index] = result.kept.get(index, 0) + 1
    return result


def _entry_of(element: str) -> str:
    """A map entry message's finding is covered by a change on its message."""
    return "message:" + element.removeprefix("message:").rsplit(".", 1)[0]


def unused(kept: list[Disagreement], agreements: Iterable[Agreement]) -> list[Disagreement]:
    """The kept disagreements that none of `agreements` needed."""
    used = {i for a in agreements for i in a.kept}
    return [d for i, d in enumerate(kept) if d.oracle == "buf" and i not in used]
