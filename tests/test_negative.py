"""Every broken input in tests/negative/ gives the diagnostic it declares.

Each case is one file. Its leading comment lines say what `a2a-kb validate` must report:

    # expect: 7:5 error[unknown-source]    line:column and rule of the diagnostic
    # target: sources                      the folder it goes in (default: claims)
    # body: huge                           written by the test instead of the file's bytes
                                           (huge, empty, bom-only: inputs that cannot hold
                                           this header or are too big to keep in git)

The case is copied into a fresh copy of the fixture knowledge base (tests/fixtures/kb) and
validated in-process. Its diagnostic must name the file, line, column and rule, carry a tip,
exit 1 within a second, and come without a traceback. Line numbers count the header lines.
"""

from __future__ import annotations

import codecs
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from a2a_kb.cli import main
from a2a_kb.records.yamldoc import MAX_BYTES
from conftest import record_reliability

CORPUS = Path(__file__).resolve().parent / "negative"
CASES = sorted(CORPUS.glob("*.yaml"))
TIME_LIMIT_SECONDS = 1.0

_HEADER = re.compile(r"^#\s*(expect|target|body):\s*(.*?)\s*$")
_EXPECT = re.compile(r"^(\d+):(\d+) error\[([a-z0-9-]+)\]$")
# What every line of `validate` output must look like: place, severity[rule], message, tip.
_DIAGNOSTIC = re.compile(
    r"^(?P<path>[^\s:]+):(?P<line>[1-9]\d*):(?P<col>[1-9]\d*): (?:error|warning)"
    r"\[[a-z0-9-]+\]: \S.* \(tip: \S.*\)$"
)
_LONGEST_LINE = 600  # a diagnostic never echoes a huge value in full


@dataclass(frozen=True)
class Case:
    path: Path
    line: int
    column: int
    rule: str
    target: str = "claims"
    body: str = ""

    @property
    def written_as(self) -> str:
        return f"{self.target}/{self.path.name}"

    @property
    def expected(self) -> str:
        return f"{self.written_as}:{self.line}:{self.column}: error[{self.rule}]"


def _header_text(data: bytes) -> str:
    """The case's comment lines, whatever encoding the case itself is saved in."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    # The header is ASCII; a UTF-16 case without a byte-order mark adds zero bytes to it.
    return data.replace(b"\x00", b"").decode("latin-1")


def read_case(path: Path) -> Case:
    declared: dict[str, str] = {}
    for line in _header_text(path.read_bytes()).splitlines():
        if not line.startswith("#"):
            break
        m = _HEADER.match(line)
        if m:
            declared[m[1]] = m[2]
    expect = _EXPECT.match(declared.get("expect", ""))
    if expect is None:
        raise ValueError(f"{path.name}: the first lines need '# expect: <line>:<col> error[<rule>]'")
    target = declared.get("target", "claims")
    if target not in ("claims", "sources"):
        raise ValueError(f"{path.name}: target must be claims or sources, not {target!r}")
    body = declared.get("body", "")
    if body and body not in BODIES:
        raise ValueError(f"{path.name}: unknown body {body!r} (known: {', '.join(BODIES)})")
    return Case(path, int(expect[1]), int(expect[2]), expect[3], target, body)


def _huge(header: bytes) -> bytes:
    """The header followed by valid claims until the file is over the size limit."""
    claim = (
        "  - id: filler-claim-{n}\n"
        "    statement: Filler claim number {n}, one of many that make this file too big.\n"
        "    versions: ['1.0.0']\n"
        "    source: spec@v1.0.0\n"
        "    conflicts: []\n"
        "    verdict: verified\n"
    )
    parts, size, n = [header], len(header), 0
    while size <= MAX_BYTES:
        piece = claim.format(n=n).encode()
        parts.append(piece)
        size += len(piece)
        n += 1
    return b"".join(parts)


BODIES: dict[str, Callable[[bytes], bytes]] = {
    "huge": _huge,
    "empty": lambda header: b"",
    "bom-only": lambda header: codecs.BOM_UTF8,
}


def case_bytes(case: Case) -> bytes:
    data = case.path.read_bytes()
    return BODIES[case.body](data) if case.body else data


def run_validate(root: Path, *extra: str) -> tuple[int, float]:
    """Run `a2a-kb validate` in-process: exit code and CPU seconds (output goes to capsys).
    CPU time, not wall time: the suite runs in parallel, and a busy machine must not fail
    a case that does its own work in time."""
    started = time.process_time()
    code = main(["--root", str(root), "validate", *extra])
    return code, time.process_time() - started


@dataclass
class Tally:
    """How many cases ran, and how many of them passed, for the Reliability page."""

    started: set[str] = field(default_factory=set)
    passed: set[str] = field(default_factory=set)


@pytest.fixture(scope="module")
def tally() -> Iterator[Tally]:
    counts = Tally()
    yield counts
    if counts.started:
        record_reliability({
            "negative_inputs": len(counts.started),
            "negative_failures": len(counts.started - counts.passed),
        })


# --- the corpus ---------------------------------------------------------------------------


def test_corpus_has_at_least_70_cases() -> None:
    assert len(CASES) >= 70
    names = [read_case(p).path.name for p in CASES]
    assert all(re.fullmatch(r"\d{2,}-[a-z0-9-]+\.yaml", n) for n in names), names  # 100 and on too


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_broken_input_gives_its_diagnostic(
    path: Path, fixture_kb: Path, capsys: pytest.CaptureFixture[str], tally: Tally
) -> None:
    tally.started.add(path.name)
    case = read_case(path)
    (fixture_kb / case.target / path.name).write_bytes(case_bytes(case))

    code, elapsed = run_validate(fixture_kb)
    out, err = capsys.readouterr()

    assert "Traceback" not in out + err and "internal error" not in out + err, err
    assert code == 1, f"exit {code}\n{out}{err}"
    found = [line for line in out.splitlines() if line.startswith(case.expected + ": ")]
    assert found, f"expected '{case.expected}' in:\n{out}"
    assert "(tip: " in found[0]
    for line in out.splitlines():
        m = _DIAGNOSTIC.match(line)
        assert m, f"not a well-formed diagnostic: {line[:300]}"
        # The fixture is valid, so every problem is in the case's own file.
        assert m["path"] == case.written_as, line
        assert len(line) <= _LONGEST_LINE, f"{len(line)} characters: {line[:200]}…"
    assert elapsed < TIME_LIMIT_SECONDS, f"{path.name} took {elapsed:.2f} s"
    tally.passed.add(path.name)


def test_every_case_is_reported_in_one_run(
    fixture_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """All broken files side by side: one run reports each one's diagnostic."""
    cases = [read_case(p) for p in CASES]
    for case in cases:
        (fixture_kb / case.target / case.path.name).write_bytes(case_bytes(case))
    code, _ = run_validate(fixture_kb)
    out, err = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in out + err and "internal error" not in out + err
    missing = [c.expected for c in cases if f"\n{c.expected}: " not in "\n" + out]
    assert not missing, "\n".join(missing)


# --- the valid fixture --------------------------------------------------------------------


def test_fixture_knowledge_base_is_valid(
    fixture_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run_validate(fixture_kb)
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert out == ""
    assert "no problems" in err
    assert err.startswith("4 claims, 5 sources, 1 conflicts, 3 versions")


def test_fixture_validates_as_json(fixture_kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run_validate(fixture_kb, "--format", "json")
    out, _ = capsys.readouterr()
    report = json.loads(out)
    assert code == 0
    assert report["schema_version"] >= 1
    assert report["problems"] == []
    assert report["counts"] == {"claims": 4, "sources": 5, "conflicts": 1, "versions": 3}


def test_problems_as_json_carry_place_rule_and_tip(
    fixture_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = read_case(CORPUS / "44-unknown-source.yaml")
    (fixture_kb / case.target / case.path.name).write_bytes(case_bytes(case))
    code, _ = run_validate(fixture_kb, "--format", "json")
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    [problem] = report["problems"]
    assert problem["path"] == case.written_as
    assert (problem["line"], problem["column"]) == (case.line, case.column)
    assert problem["rule"] == case.rule
    assert problem["severity"] == "error"
    assert problem["tip"] == "did you mean 'spec@v1.0.0'?"
