"""What every command shares: exit codes, where output goes, and the project and knowledge
base a command works on. Record text reaches a terminal only through
`output.terminal_safe`."""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: see a2a_kb.cli on start-up
if TYPE_CHECKING:  # annotations only: every import here delays `a2a-kb query`
    from collections.abc import Sequence

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
VERDICTS = ("verified", "contradicted", "unverifiable", "quote-missing", "stale", "drifted")


def _project(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from pathlib import Path

    from ..project import Project

    return Project.find(Path(args.root) if args.root else None)


def _kb(args: argparse.Namespace, *, fail_on_errors: bool = True,  # type: ignore[no-untyped-def]
        kinds: Sequence[str] | None = None):
    """Load and validate (the records of `kinds` only, when given); print diagnostics and
    stop (exit 1) when those records are broken."""
    from ..diagnostics import errors, not_shown, shown
    from ..records.validate import validate

    kb = validate(_project(args)) if kinds is None else validate(_project(args), kinds=kinds)
    if fail_on_errors and errors(kb.problems):
        printed, left_out = shown(kb.problems)
        for d in printed:
            _say(d.format())
        if left_out:
            _say(not_shown(left_out))
        _say(f"{len(errors(kb.problems))} error(s) in the records; run `a2a-kb validate`")
        raise SystemExit(EXIT_FINDINGS)
    return kb


# Every line a command writes goes through one of these two, and so through
# output.terminal_safe: record text never reaches a terminal raw.


def _emit(text: str) -> None:
    """A command's result, on stdout."""
    from ..output import terminal_safe

    text = terminal_safe(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _say(text: str) -> None:
    """A message for the person at the terminal (errors, summaries), on stderr."""
    from ..output import terminal_safe

    print(terminal_safe(text), file=sys.stderr)
