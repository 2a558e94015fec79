"""Time and memory budgets: every hostile input finishes within a few seconds and a few
hundred MB, or fails fast with a clear error.

Each case writes its input into a fresh copy of the fixture knowledge base and runs one
`a2a-kb` command on it in a child process, whose CPU time and peak
resident memory (VmHWM, see tests/peak_memory.py) are measured. The figures of the last run go to
test-artifacts/reliability/validate.json for the site's Reliability page.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from a2a_kb.diagnostics import MAX_SHOWN
from a2a_kb.records import yamldoc
from conftest import MIRROR, record_reliability

BUDGET_SECONDS = 8.0
# The wall clock only catches a hang: four workers share two cores in make test, and one CI
# run saw the three 8 MB files still running after 32 s (four budgets) of wall clock.
HANG_SECONDS = BUDGET_SECONDS * 10
BUDGET_MB = 400.0
EIGHT_MB = 8 * 1024 * 1024 - 4096  # just under the limit of one file


def _claims_text(size: int, prefix: str = "bulk") -> str:
    """Valid claims in plain (unquoted) scalars with spaces and no '#': what made reading
    quadratic."""
    out, total, n = ["claims:\n"], 9, 0
    while True:
        claim = (f"  - id: {prefix}-claim-{n}\n    statement: A plain sentence number {n} with several "
                 "words in it and not one quote\n    subject: TaskState in plain words\n"
                 "    versions: ['1.0.0']\n    source: spec@v1.0.0\n    conflicts: []\n"
                 "    verdict: unverifiable\n")
        if total + len(claim) > size:
            return "".join(out)
        out.append(claim)
        total += len(claim)
        n += 1


def _empty_records(values: int) -> str:
    """A claims file of ``values`` empty mappings (a sequence of them is one value more)."""
    return "claims:\n" + "  - {}\n" * values


def _nested_lists(size: int) -> str:
    line = "  - [[[]], [[]], [[]], [[]], [[]], [[]], [[]], [[]], [[]], [[]]]\n"
    return "claims:\n" + line * ((size - 8) // len(line))


@dataclass(frozen=True)
class Case:
    name: str
    write: Callable[[Path], None]  # puts the input into the knowledge base at this root
    command: list[str]  # a2a-kb arguments
    expect_exit: tuple[int, ...]
    expect_text: str  # what the output must say (a rule, a message)
    needs_sources: bool = False
    max_lines: int | None = None  # the most lines the output may have


def _write(name: str, text: str) -> Callable[[Path], None]:
    return lambda root: (root / "claims" / name).write_text(text, "utf-8")


def _many(texts: dict[str, str]) -> Callable[[Path], None]:
    def write(root: Path) -> None:
        for name, text in texts.items():
            (root / "claims" / name).write_text(text, "utf-8")
    return write


def _pattern_claim(root: Path) -> None:
    claim = {"id": "pattern-claim", "statement": "The specification's section holds some text.",
             "versions": ["1.0.0"], "source": "spec@v1.0.0", "conflicts": [], "verdict": "contradicted",
             "expect": {"fact": "section:3.1.5", "op": "matches", "value": "(.*.*)*$$x"}}
    (root / "claims" / "pattern.yaml").write_text(yaml.safe_dump({"claims": [claim]}), "utf-8")


CASES = [
    Case("8 MB of valid claims", _write("bulk.yaml", _claims_text(EIGHT_MB)), ["validate"], (0,),
         "no problems"),
    Case("three 8 MB files of nested empty lists",
         _many({f"lists-{i}.yaml": _nested_lists(EIGHT_MB) for i in range(3)}), ["validate"], (1,),
         "error[too-many-values]"),
    Case("three 8 MB files of valid claims",
         _many({f"bulk-{i}.yaml": _claims_text(EIGHT_MB, f"b{i}") for i in range(3)}), ["validate"], (1,),
         "run's limit"),
    Case("an 8 MB statement on one line",
         _write("line.yaml", "claims:\n  - id: long-line\n    statement: " + "x" * (EIGHT_MB - 64) + "\n"),
         ["validate"], (1,), "error["),
    Case("lists nested 100,000 deep", _write("deep.yaml", "claims: " + "[" * 100_000 + "]" * 100_000 + "\n"),
         ["validate"], (1,), "error[too-deep]"),
    Case("a billion laughs", _write("laughs.yaml", "a: &a [x, x, x, x, x, x, x, x, x]\n"
                                    + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n"
                                              for p, c in zip("abcdefgh", "bcdefghi", strict=True))),
         ["validate"], (1,), "error[yaml-alias]"),
    Case("a catastrophic pattern in a claim", _pattern_claim, ["check", "--format", "json"], (0, 1),
         '"id": "pattern-claim"', needs_sources=True),
    Case("a 120 KB command-line argument", lambda root: None, ["query", "--text", "y" * 120_000], (2,),
         "120,000 characters"),
    # Empty records, each missing every required field: five diagnostics per seven bytes
    # (issue 26: 600 KB gave a million lines of output, 17.7 s and 515 MB). A file stops at
    # its hundredth problem and a run prints at most a thousand.
    Case("empty claims at the limit of values in one file", _write("empty.yaml", _empty_records(
        yamldoc.MAX_NODES - 1000)), ["validate"], (1,), "error[too-many-problems]", max_lines=MAX_SHOWN + 5),
    Case("empty claims in 24 files of 100 KB", _many({f"empty-{i:02}.yaml": _empty_records(14_000)
                                                      for i in range(24)}),
         ["validate"], (1,), "more problem(s) not shown", max_lines=MAX_SHOWN + 5),
    Case("empty claims, as JSON", _write("empty.yaml", _empty_records(200_000)),
         ["validate", "--format", "json"], (1,), '"problems_not_shown"', max_lines=12 * (MAX_SHOWN + 5)),
]


@dataclass(frozen=True)
class Measured:
    seconds: float
    megabytes: float
    code: int
    output: str


def _measure(root: Path, command: list[str], env: dict[str, str], peak_file: Path) -> Measured:
    """CPU time and peak memory of one `a2a-kb` run in a child process.

    CPU time (user + system), not wall time: on a machine shared with other work the wall
    clock measures the neighbours too. A run that hangs is still caught by the wall-clock
    timeout of HANG_SECONDS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.Popen([sys.executable, str(Path(__file__).with_name("peak_memory.py")), str(peak_file),
                              "--root", str(root), *command],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    try:
        output, _ = child.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (used.ru_utime - before.ru_utime) + (used.ru_stime - before.ru_stime)
        pytest.fail(f"still running after {HANG_SECONDS:.0f} s of wall clock ({cpu:.1f} s of CPU)")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = int(peak_file.read_text()) / 1024 if peak_file.exists() else float("nan")
    return Measured(seconds, peak, child.returncode, output.decode("utf-8", "replace"))


FIGURES: dict[str, str] = {}
FAILED: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def figures() -> Iterator[None]:
    yield
    if FIGURES:
        record_reliability({"budget_inputs": dict(sorted(FIGURES.items())), "budget_failures": len(FAILED),
                            "budget_limits": f"{BUDGET_SECONDS:g} s of CPU and {BUDGET_MB:g} MB per input"})


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hostile_input_stays_within_budget(case: Case, fixture_kb: Path) -> None:
    env = dict(os.environ)
    if case.needs_sources:
        done = subprocess.run([sys.executable, "-m", "a2a_kb.cli", "--root", str(fixture_kb), "fetch",
                               "--mirror", str(MIRROR)], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    case.write(fixture_kb)
    FAILED.append(case.name)  # until it passes
    found = _measure(fixture_kb, case.command, env, fixture_kb.parent / "peak-kb")
    FIGURES[case.name] = f"{found.seconds:.1f} s CPU, {found.megabytes:.0f} MB, exit {found.code}"
    assert "Traceback" not in found.output and "internal error" not in found.output, found.output[-2000:]
    assert found.code in case.expect_exit, f"exit {found.code}: {found.output[-2000:]}"
    assert case.expect_text in found.output, found.output[-2000:]
    if case.max_lines is not None:
        lines = found.output.count("\n")
        FIGURES[case.name] += f", {lines:,} lines"
        assert lines <= case.max_lines, f"{lines:,} lines of output"
    assert found.seconds <= BUDGET_SECONDS, f"{found.seconds:.1f} s"
    assert found.megabytes <= BUDGET_MB, f"{found.megabytes:.0f} MB"
    FAILED.remove(case.name)


def _cpu_seconds_to_parse(text: str) -> float:
    """The best of three parses, with the collector paused as the loader pauses it: its
    passes over every live object would otherwise add a cost that grows with the file."""
    import gc

    data = text.encode("utf-8")
    best = float("inf")
    for _ in range(3):
        gc.collect()
        gc.disable()
        try:
            started = time.process_time()
            doc = yamldoc.parse(data, "t.yaml")
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
        assert doc.value is not None, doc.problems
    return best


def test_reading_is_linear_in_the_size_of_the_file() -> None:
    """Four times the claims take about four times as long (quadratic reading took 16×)."""
    small = _cpu_seconds_to_parse(_claims_text(1024 * 1024))
    large = _cpu_seconds_to_parse(_claims_text(4 * 1024 * 1024))
    assert large / small < 7, f"1 MB: {small:.2f}s, 4 MB: {large:.2f}s ({large / small:.1f}×)"
