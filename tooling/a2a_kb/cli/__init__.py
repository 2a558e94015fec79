"""The a2a-kb command line: parse arguments, call the library, map results to exit codes.

Exit codes: 0 ok, 1 findings, 2 usage or configuration error, 130 interrupted. The parser is
in `arguments`, the commands in `commands`; a command is found by its name when
it runs, so the parser imports none of them.
"""

from __future__ import annotations

import os
import sys

from ..errors import KBError
from . import commands
from .arguments import COMMANDS, parser
from .common import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _say

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: see a2a_kb.cli on start-up
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["COMMANDS", "main", "parser"]


def _command_in(argv: Sequence[str]) -> str | None:
    """The command `argv` names, as far as a plain reading tells (None when unsure)."""
    after_root = False
    for arg in argv:
        if after_root:
            after_root = False
        elif arg == "--root":
            after_root = True
        elif not arg.startswith("-"):
            return arg
    return None


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    given = list(sys.argv[1:] if argv is None else argv)
    only = _command_in(given)
    if only not in COMMANDS:
        only = None
    args = parser(only).parse_args(given)
    if only is not None and args.command != only:  # argparse read it otherwise: parse again
        args = parser().parse_args(given)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parse(argv)
        code: int = getattr(commands, "cmd_" + args.command.replace("-", "_"))(args)
        return code
    except KBError as e:
        _say(f"a2a-kb: error: {e}")
        return e.exit_code
    except KeyboardInterrupt:
        _say("a2a-kb: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except SystemExit as e:
        return int(e.code or 0)
    except OSError as e:  # a read-only or full disk is the machine's state, not a bug
        from ..errors import disk_error

        problem = disk_error(e)
        if problem is None:
            return _internal_error(e)
        _say(f"a2a-kb: error: {problem}")
        return problem.exit_code
    except Exception as e:
        return _internal_error(e)


def _internal_error(e: Exception) -> int:
    """A bug, not bad input: say so briefly; A2A_KB_DEBUG shows the trace."""
    if os.environ.get("A2A_KB_DEBUG"):
        raise e
    _say(
        f"a2a-kb: internal error: {type(e).__name__}: {e} "
        "(set A2A_KB_DEBUG=1 for the traceback, and please report it)"
    )
    return EXIT_USAGE
