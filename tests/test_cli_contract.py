"""The command line's contract: every command has help, the README documents it, and bad
usage exits 2 with a message instead of a traceback."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from a2a_kb import cli

ROOT = Path(__file__).resolve().parents[1]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_command_has_help_text() -> None:
    for name, sub in subcommands().items():
        assert sub.description and len(sub.description) > 20, name
        for action in sub._actions:
            if action.option_strings and action.dest not in ("help",) and not action.choices:
                assert action.help or action.dest in ("format",), f"{name} {action.option_strings}"


def test_readme_documents_every_command_and_flag() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, sub in subcommands().items():
        assert f"`a2a-kb {name}" in readme, f"README does not document `a2a-kb {name}`"
        for action in sub._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag not in (
                    "--help",
                    "--no-strict",
                    "--quiet",
                    "--computed",
                ):
                    assert flag in readme, f"README does not mention {name} {flag}"


def test_design_commands_exist() -> None:
    design = [
        "validate",
        "schema",
        "fetch",
        "check",
        "states",
        "diff",
        "query",
        "conflicts",
        "build",
        "serve",
        "capture",
        "pin",
        "watch",
        "add-version",
        "sweep",
    ]
    # Beyond DESIGN.md's table: `mutate`, the claim mutation testing of issue 13, and `tck`,
    # the official conformance suite run against each SDK build (issue 28; `make capture`
    # and `make capture-check` run it after `capture`).
    extensions = ["mutate", "tck"]
    assert sorted(subcommands()) == sorted(design + extensions)


@pytest.mark.parametrize("argv", [["nonsense"], ["check", "--format", "xml"], ["diff", "0.3.0"]])
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "Traceback" not in err


def test_unknown_version_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["--root", str(ROOT), "states", "--version", "9.9.9"])
    err = capsys.readouterr().err
    assert code == 2
    assert re.search(r"unknown version '9\.9\.9' \(known: .*latest\)", err)


def test_no_project_is_a_configuration_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--root", str(tmp_path), "validate"]) == 2
    assert "no knowledge base found" in capsys.readouterr().err
