"""What the command line takes and what it gives back to a terminal.

* Every flag and argument that takes a value refuses an empty one (it used to mean the
  default, silently), an oversized one (it used to be echoed back whole) and one with a
  control character; a value of the wrong form (`--verdict nonsense`) is a usage error (2)
  like everywhere else, not an empty answer.
* Nothing a command prints carries a raw terminal control or bidirectional override, in any
  format, on stdout or stderr, whatever the records hold; JSON still reads back exactly.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from a2a_kb.cli import parser

RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
HOSTILE_STATEMENT = "Clears \x1b[2J\x1b[H the screen, \x1b]0;owned\x07 retitles, \x9b31m and \u202eesrever."


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "a2a_kb.cli", "--root", str(root), *args],
                          capture_output=True, env=os.environ, timeout=60)


def _value_flags() -> list[tuple[str, str]]:
    """(command, flag) for every option of every command that takes a value."""
    found = []
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        for action in command._actions:
            if action.option_strings and action.nargs != 0 and not isinstance(
                    action, argparse._HelpAction | argparse._VersionAction):
                found.append((name, action.option_strings[-1]))
    return found


VALUE_FLAGS = _value_flags()


def test_every_value_flag_is_found() -> None:
    assert ("fetch", "--mirror") in VALUE_FLAGS and ("query", "--verdict") in VALUE_FLAGS
    assert len(VALUE_FLAGS) >= 20


@pytest.mark.parametrize(("command", "flag"), VALUE_FLAGS, ids=lambda v: str(v))
def test_an_empty_value_is_a_usage_error(command: str, flag: str, fixture_kb: Path) -> None:
    args = [command, flag, ""]
    if command == "diff":
        args = ["diff", "0.3.0", "1.0.0", flag, ""]
    done = _run(fixture_kb, *args)
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-500:])
    assert b"empty value" in done.stderr, done.stderr[-500:]


@pytest.mark.parametrize("args", [["diff", "", "1.0.0"], ["--root", "", "validate"]], ids=str)
def test_an_empty_argument_is_a_usage_error(args: list[str], fixture_kb: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "a2a_kb.cli", *args], capture_output=True,
                          env=os.environ, timeout=60, cwd=fixture_kb)
    assert done.returncode == 2, done.stderr
    assert b"empty value" in done.stderr


WRONG_FORM = [["query", "--verdict", "nonsense"], ["query", "--version", "nonsense"],
              ["query", "--conflict", "nonsense"], ["query", "--id", "Not An Id"]]


@pytest.mark.parametrize("args", WRONG_FORM, ids=str)
def test_a_value_of_the_wrong_form_is_a_usage_error(args: list[str], fixture_kb: Path) -> None:
    done = _run(fixture_kb, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert b"error: argument" in done.stderr


def test_a_huge_argument_is_refused_without_being_echoed(fixture_kb: Path) -> None:
    done = _run(fixture_kb, "query", "--text", "y" * 120_000)
    assert done.returncode == 2
    assert len(done.stderr) < 2_000, len(done.stderr)
    assert b"120,000 characters" in done.stderr


def test_a_control_character_in_an_argument_is_refused_and_not_echoed(fixture_kb: Path) -> None:
    done = _run(fixture_kb, "states", "--resolve", "\x1b]0;owned\x07")
    assert done.returncode == 2, done.stderr
    assert not RAW_CONTROL.search(done.stdout + done.stderr), done.stderr


@pytest.fixture
def hostile_claims(fixture_kb: Path) -> Path:
    claim = {"id": "hostile-terminal", "statement": HOSTILE_STATEMENT, "subject": "TaskState \x1b[5m",
             "versions": ["1.0.0"], "source": "spec@v1.0.0", "conflicts": [], "verdict": "verified"}
    (fixture_kb / "claims" / "terminal.yaml").write_text(yaml.safe_dump({"claims": [claim]}), "utf-8")
    return fixture_kb


@pytest.mark.parametrize("fmt", ["table", "csv", "yaml", "json"])
def test_query_output_carries_no_raw_terminal_control(hostile_claims: Path, fmt: str) -> None:
    done = _run(hostile_claims, "query", "--id", "hostile-terminal", "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert not RAW_CONTROL.search(done.stdout), done.stdout
    if fmt == "json":
        [row] = json.loads(done.stdout)
        assert row["statement"] == HOSTILE_STATEMENT  # the data is intact, only escaped


@pytest.mark.parametrize("command", [["validate"], ["validate", "--format", "json"], ["check"],
                                     ["conflicts"], ["states", "--resolve", "working"]], ids=str)
def test_no_command_passes_a_raw_terminal_control_on(hostile_claims: Path, command: list[str]) -> None:
    done = _run(hostile_claims, *command)
    assert b"Traceback" not in done.stderr
    assert not RAW_CONTROL.search(done.stdout + done.stderr), (done.stdout + done.stderr)[-1500:]
    if command[0] == "validate":
        assert b"control-character" in done.stdout
