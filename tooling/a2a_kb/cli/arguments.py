"""The command line's parser: every command, its flags, and the checks every value passes
before a command sees it."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from ..version import __version__
from .common import EXIT_USAGE, VERDICTS

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: see a2a_kb.cli on start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, NoReturn

# The longest value a flag or argument may have: room for any path (PATH_MAX), far from the
# hundreds of kilobytes that would otherwise be echoed back in an error.
MAX_ARGUMENT_CHARS = 4096


def _value(text: str) -> str:
    """Every string flag and argument: never empty (an empty value silently meaning the
    default hid mistakes such as `--mirror "$UNSET"`), never huge, never a control character."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value is not allowed (leave the flag out for its default)")
    if len(text) > MAX_ARGUMENT_CHARS:
        raise argparse.ArgumentTypeError(
            f"the value is {len(text):,} characters long; the limit is {MAX_ARGUMENT_CHARS:,}"
        )
    from ..output import terminal_safe

    if terminal_safe(text) != text:
        raise argparse.ArgumentTypeError("the value holds a control character")
    return text


_value.__name__ = "value"  # what argparse calls the type in its messages


def _folder(text: str) -> Path:
    """A folder to write into (`--out`), as a path."""
    from pathlib import Path

    return Path(_value(text))


_folder.__name__ = "value"


def _shaped(shape: str, example: str) -> Callable[[str], str]:
    """A value that must have the form of a record field (a version, a conflict id): a value
    of another form can match nothing, so it is a usage error, not an empty answer."""

    def check(text: str) -> str:
        import re

        text = _value(text)
        if not re.fullmatch(shape, text):
            raise argparse.ArgumentTypeError(f"not of the form of {example}")
        return text

    check.__name__ = "value"
    return check


_VERSION = _shaped(r"v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?|draft|main",
                   "a version (0.3.0, v1.0.0, draft, main)")
_CONFLICT = _shaped(r"D\d+[a-z]?", "a conflict id (D3, D1a)")
_CLAIM_ID = _shaped(r"[a-z0-9]+(?:-[a-z0-9]+)*", "a claim id (v1-terminal-states)")


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` reads it ($COLUMNS, then the
    terminal, then 80), without importing shutil, which brings bz2 and lzma along."""
    with contextlib.suppress(KeyError, ValueError):
        if (columns := int(os.environ["COLUMNS"])) > 0:
            return columns
    with contextlib.suppress(AttributeError, ValueError, OSError):
        if (columns := os.get_terminal_size(sys.__stdout__.fileno()).columns) > 0:  # type: ignore[union-attr]
            return columns
    return 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, told the width: argparse builds one for every argument it
    adds, and left to itself each asks shutil (2 ms of a warm `a2a-kb query`)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """argparse, with a type check on every value (see `_value`) and errors that echo
    nothing raw and nothing long."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: object, **kwargs: object) -> argparse.Action:
        action = kwargs.get("action")
        takes_value = action in (None, "store", "append") and kwargs.get("nargs") != 0
        if takes_value and "type" not in kwargs:
            kwargs["type"] = _value
        return super().add_argument(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        from ..output import terminal_safe

        if len(message) > 500:
            message = message[:499] + "…"
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {terminal_safe(message)}\n")


class _Unused(argparse.ArgumentParser):
    """Stands in for the parsers of the commands not run: their arguments go nowhere."""

    def add_argument(self, *args: object, **kwargs: object) -> argparse.Action:
        return argparse.Action([], "unused")


# Every command, in the order `--help` lists them (a test holds this to the parser).
COMMANDS = ("validate", "schema", "fetch", "check", "mutate", "sweep", "states", "diff", "query",
            "conflicts", "build", "serve", "watch", "pin", "add-version", "capture", "tck")


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With `only`, one of `COMMANDS`, the other commands
    are left out: building a parser for each of seventeen commands was a quarter of what a
    warm `a2a-kb query` costs. `_parse` gives `only` just when the arguments name a
    command, so a wrong name still gets the list of every command."""
    unused = _Unused(add_help=False) if only is not None else None
    p = _Parser(
        prog="a2a-kb",
        description="A source-anchored knowledge base about the A2A task lifecycle: "
        "validate claims, fetch and check sources, answer questions, build the site.",
        epilog="Exit codes: 0 ok, 1 findings, 2 usage or configuration error, 130 interrupted.",
    )
    p.add_argument("--version", action="version", version=f"a2a-kb {__version__}")
    p.add_argument(
        "--root", help="the knowledge base checkout (default: found from the current directory)"
    )
    # prog given, as argparse would compute it, so that no help formatter is built here.
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True, prog=p.prog,
                           parser_class=_Parser)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        if unused is not None and name != only:
            return unused
        sp = sub.add_parser(name, help=help_text, description=help_text)
        return sp

    sp = add(
        "validate", "Load every record and check schemas and cross-record rules."
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add(
        "schema", "Print the JSON Schema of a record kind (all kinds without KIND)."
    )
    sp.add_argument("kind", nargs="?",
                    choices=["claim", "source", "conflict", "version", "upstream", "sweep"])

    sp = add("fetch", "Fill and verify the source cache from the network or a mirror.")
    sp.add_argument(
        "--mirror",
        metavar="DIR",
        help="read sources from a mirror laid out as <host>/<path> (default: $A2A_KB_MIRROR)",
    )
    sp.add_argument(
        "--refresh", action="store_true", help="re-fetch moving sources and report which changed"
    )
    sp.add_argument("--offline", action="store_true", help="use only the cache")
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")

    sp = add(
        "check", "Compute every claim's verdict and compare it with the recorded one."
    )
    sp.add_argument(
        "--format",
        choices=["text", "json", "junit", "github"],
        default="text",
        help="text, JSON, JUnit XML, or GitHub workflow annotations",
    )
    sp.add_argument(
        "--strict", action="store_true",
        help="old secondary sources are errors, not warnings, and so is a verified claim whose "
             "statement names a state, code or quoted phrase its check does not read"
    )

    sp = add(
        "mutate",
        "Perturb the facts each verified claim's check reads; report checks that survive.",
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    sp.add_argument("--verbose", action="store_true",
                    help="also list the weak claims the allow-list accepts")

    sp = add(
        "sweep",
        "Sweep the primary sources for lifecycle sentences and hold them to the ledger "
        "(sources/sweep.yaml): every sentence of a swept section accounted for, no stale account.",
    )
    sp.add_argument("--version", help="sweep only this version (0.3.0, latest, main, draft)")
    sp.add_argument("--list", action="store_true",
                    help="list every swept section and candidate sentence with its account")
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add("states", "The state set of a version, per binding and per source.")
    sp.add_argument("--version", help="0.3.0, v0.3.0, latest, main or draft (default: latest)")
    sp.add_argument(
        "--resolve", metavar="NAME", help="map any spelling to the state it names in each version"
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add(
        "diff", "Every lifecycle change between two versions (or two bindings of one)."
    )
    sp.add_argument("old", nargs="?", help="the older version, e.g. 0.3.0 (or 0.3.0:grpc for one binding)")
    sp.add_argument("new", nargs="?", help="the newer version, e.g. 1.0.0")
    sp.add_argument("--all", action="store_true",
                    help="every ordered pair of versions (old before new), in one process")
    sp.add_argument("--out", type=_folder, metavar="DIR",
                    help="with --all: write each pair's report to DIR/OLD-to-NEW.{json,md,txt}")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    sp.add_argument(
        "--format", choices=["text", "json", "markdown"], default="text", help="output format"
    )
    sp.add_argument(
        "--fail-on", action="append", type=_FAIL_ON, metavar="[ENCODING=]LEVEL",
        help="exit 1 when a change reaches LEVEL (breaking or behavioural) in ENCODING (binary, "
             "protojson, http, jsonrpc, or any), e.g. any=breaking for a CI gate; or a change's "
             "severity is SEVERITY or worse (wire-breaking, source-breaking, behavioural, editorial); "
             "repeatable",
    )

    sp = add("query", "Claims as data, filtered.")
    sp.add_argument("--id", action="append", type=_CLAIM_ID, help="a claim id (repeatable)")
    sp.add_argument("--subject", help="words in the claim's subject, e.g. TaskState")
    sp.add_argument("--version", type=_VERSION, help="claims about this version")
    sp.add_argument("--conflict", type=_CONFLICT, help="claims on a side of this conflict, e.g. D3")
    sp.add_argument("--verdict", choices=VERDICTS,
                    help="the recorded (or, with --computed, computed) verdict")
    sp.add_argument(
        "--authority", choices=["primary", "secondary"], help="the authority of the claim's source"
    )
    sp.add_argument("--source", help="claims citing this source id")
    sp.add_argument("--origin", help="a dossier origin or its prefix (report#anchor)")
    sp.add_argument("--text", help="words that must appear in the statement")
    sp.add_argument(
        "--computed", action="store_true", help="compute verdicts instead of using recorded ones"
    )
    sp.add_argument(
        "--format", choices=["json", "yaml", "csv", "table"], default="json", help="output format"
    )

    sp = add("conflicts", "The conflict register.")
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add("build", "Build the site with mkdocs (strict by default).")
    sp.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fail on any mkdocs warning (default: on)",
    )
    sp.add_argument("--quiet", action="store_true", help="print only problems")

    sp = add("serve", "Preview the site with live reload.")
    sp.add_argument("--address", default="127.0.0.1:8000", help="host:port to serve on")

    def upstream_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--mirror", metavar="DIR",
            help="read upstream from a mirror laid out as <host>/<path> (default: $A2A_KB_MIRROR)",
        )
        sp.add_argument(
            "--upstream", action="append", metavar="NAME=URL",
            help="read an upstream service from URL: github-api, github-raw, pypi, npm, or "
            "pages (every other page, at URL/<host>/<path>); repeatable; also $A2A_KB_UPSTREAM",
        )

    sp = add(
        "watch",
        "Upstream as it is now against the pins: new tags and releases, moved branches, "
        "vanished quotes, claims whose verdict would flip. Changes nothing.",
    )
    sp.add_argument(
        "--format", choices=["text", "json", "junit", "github"], default="text",
        help="text, JSON, JUnit XML, or GitHub workflow annotations",
    )
    sp.add_argument(
        "--strict", action="store_true",
        help="upstream that cannot be reached counts as a finding too",
    )
    upstream_options(sp)
    sp.add_argument("--quiet", action="store_true", help="no progress bar")

    sp = add(
        "pin",
        "Take upstream's current copy of sources as their new pins (sha256, commit, "
        "retrieved), keeping the YAML's comments and layout.",
    )
    sp.add_argument("sources", nargs="*", metavar="SOURCE", help="the id of a source to re-pin")
    sp.add_argument(
        "--all-drifted", action="store_true",
        help="re-pin every pinned source whose upstream copy no longer matches its pin",
    )
    upstream_options(sp)
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add(
        "add-version",
        "Add a version from its tag: sources/versions.yaml, and its primary sources from "
        "the tag's files (those sources/upstream.yaml tracks).",
    )
    sp.add_argument("tag", metavar="TAG", help="the tag, e.g. v1.1.0 or 1.0.0-rc")
    upstream_options(sp)
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add("capture", "Run the real SDK scenarios; write or compare transcripts.")
    sp.add_argument(
        "--check", action="store_true", help="compare with captures/ instead of writing"
    )
    sp.add_argument("--only", action="append", help="run only this scenario (repeatable)")
    sp.add_argument("--sdk", action="append",
                    help="run only this SDK build: a2a-sdk-1.3.0, a2a-sdk-0.3, a2a-js-sdk-1.3.0 (repeatable)")
    sp = add("tck", "Run the official conformance suite (a2a-tck) against each SDK build; write or "
                             "compare its verdicts under captures/tck/.")
    sp.add_argument("--check", action="store_true", help="compare with captures/tck/ instead of writing")
    sp.add_argument("--build", action="append", metavar="BUILD",
                    help="run only this build (repeatable; a name it does not know gets the list)")
    sp.add_argument("--mirror", help="the source mirror the suite is read from (default: $A2A_KB_MIRROR)")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    return p




def _FAIL_ON(value: str) -> str:
    value = _value(value)
    severities = ("wire-breaking", "source-breaking", "behavioural", "editorial")
    encodings = ("any", "binary", "protojson", "http", "jsonrpc")
    encoding, sep, level = value.partition("=")
    if (not sep and value in severities) or (encoding in encodings and level in ("breaking", "behavioural")):
        return value
    raise argparse.ArgumentTypeError(
        f"'{value}' is neither ENCODING=LEVEL ({'|'.join(encodings)}=breaking|behavioural) nor a "
        f"severity ({', '.join(severities)}); a CI gate uses any=breaking")
