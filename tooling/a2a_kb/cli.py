"""The a2a-kb command line: parse arguments, call the library, map results to exit codes.

Exit codes: 0 ok, 1 findings, 2 usage or configuration error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .errors import KBError

if TYPE_CHECKING:  # annotations only: every import here delays `a2a-kb query`
    from collections.abc import Callable, Sequence

    Command = Callable[[argparse.Namespace], int]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _project(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from .project import Project

    return Project.find(Path(args.root) if args.root else None)


def _kb(args: argparse.Namespace, *, fail_on_errors: bool = True):  # type: ignore[no-untyped-def]
    """Load and validate; print diagnostics and stop (exit 1) when the records are broken."""
    from .diagnostics import errors
    from .records.validate import validate

    kb = validate(_project(args))
    if fail_on_errors and errors(kb.problems):
        for d in kb.problems:
            print(d.format(), file=sys.stderr)
        print(
            f"{len(errors(kb.problems))} error(s) in the records; run `a2a-kb validate`",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_FINDINGS)
    return kb


def _emit(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


# --- commands -----------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    from .diagnostics import errors, sort_key
    from .output import dumps, envelope
    from .records.validate import validate

    kb = validate(_project(args))
    problems = sorted(kb.problems, key=sort_key)
    if args.format == "json":
        _emit(
            dumps(
                envelope(
                    {
                        "problems": [d.as_json() for d in problems],
                        "counts": {
                            "claims": len(kb.claims),
                            "sources": len(kb.sources),
                            "conflicts": len(kb.conflicts),
                            "versions": len(kb.versions),
                        },
                    }
                )
            )
        )
    else:
        for d in problems:
            _emit(d.format())
        n_err = len(errors(problems))
        print(
            f"{len(kb.claims)} claims, {len(kb.sources)} sources, {len(kb.conflicts)} conflicts, "
            f"{len(kb.versions)} versions: "
            + (
                f"{n_err} error(s), {len(problems) - n_err} warning(s)"
                if problems
                else "no problems"
            ),
            file=sys.stderr,
        )
    return EXIT_FINDINGS if errors(problems) else EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from .output import dumps
    from .schemas import KINDS, schema

    if args.kind is None:
        _emit(dumps({kind: schema(kind) for kind in KINDS}))
    else:
        _emit(dumps(schema(args.kind)))
    return EXIT_OK


def cmd_fetch(args: argparse.Namespace) -> int:
    from .output import dumps, envelope
    from .sources.cache import Cache
    from .sources.fetch import fetch

    kb = _kb(args, fail_on_errors=False)  # broken claims must not stop the sources being fetched
    mirror = args.mirror or os.environ.get("A2A_KB_MIRROR") or None
    if mirror and not Path(mirror).is_dir():
        print(f"a2a-kb: error: the mirror {mirror} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    report = fetch(
        list(kb.sources.values()),
        Cache(kb.project.cache_dir),
        mirror=Path(mirror) if mirror else None,
        refresh=args.refresh,
        offline=args.offline,
        progress=sys.stderr.isatty() and not args.quiet,
    )
    if args.format == "json":
        _emit(dumps(envelope(report.as_json())))
    else:
        _emit(report.format_text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_check(args: argparse.Namespace) -> int:
    from .knowledge.check import REPORTERS, as_json, check
    from .output import dumps, envelope

    kb = _kb(args)
    result = check(kb, strict=args.strict)
    if args.format == "json":
        _emit(dumps(envelope(as_json(result))))
    else:
        _emit(REPORTERS[args.format](result))
    return EXIT_OK if result.ok else EXIT_FINDINGS


def cmd_states(args: argparse.Namespace) -> int:
    from .knowledge import states
    from .output import dumps, envelope

    kb = _kb(args)
    if args.resolve:
        answer = states.resolve(kb, args.resolve)
        _emit(
            dumps(envelope(answer)) if args.format == "json" else states.format_resolution(answer)
        )
        return EXIT_OK if any(v["state"] for v in answer["versions"]) else EXIT_FINDINGS
    table = states.state_table(kb, args.version or "latest")
    _emit(dumps(envelope(table)) if args.format == "json" else states.format_table(table))
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from .knowledge import diff
    from .output import dumps, envelope

    kb = _kb(args)
    result = diff.diff(kb, args.old, args.new)
    if args.format == "json":
        _emit(dumps(envelope(result.as_json())))
    elif args.format == "markdown":
        _emit(diff.format_markdown(result))
    else:
        _emit(diff.format_text(result))
    if args.fail_on and result.at_least(args.fail_on):
        return EXIT_FINDINGS
    return EXIT_OK


def cmd_query(args: argparse.Namespace) -> int:
    from .knowledge import query

    filters = query.Filters(
        ids=args.id or [],
        subject=args.subject,
        version=args.version,
        conflict=args.conflict,
        verdict=args.verdict,
        authority=args.authority,
        source=args.source,
        origin=args.origin,
        text=args.text,
    )
    rows = None if args.computed else query.from_index(args.root, filters)
    if rows is None:
        rows = query.run(_project(args), filters, computed=args.computed)
    _emit(query.render(rows, args.format))
    return EXIT_OK if rows else EXIT_FINDINGS


def cmd_conflicts(args: argparse.Namespace) -> int:
    from .knowledge import conflicts
    from .output import dumps, envelope

    kb = _kb(args)
    register = conflicts.register(kb)
    _emit(dumps(envelope(register)) if args.format == "json" else conflicts.format_text(register))
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    from .site.build import build

    project = _project(args)
    build(project, strict=args.strict, quiet=args.quiet)
    print(f"built {project.site_dir}", file=sys.stderr)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from .site.build import serve

    serve(_project(args), address=args.address)
    return EXIT_OK


def cmd_capture(args: argparse.Namespace) -> int:
    from .capture import run_captures

    project = _project(args)
    report = run_captures(project.captures_dir, check=args.check, only=args.only or None,
                          sdks=args.sdk or None)
    _emit(report.format_text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


# --- parser -------------------------------------------------------------------------------


class _Unused(argparse.ArgumentParser):
    """Stands in for the parsers of the commands not run: their arguments go nowhere."""

    def add_argument(self, *args: object, **kwargs: object) -> argparse.Action:
        return argparse.Action([], "unused")


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With ``only``, the arguments of the other commands are
    left out (their names stay): describing every option of eleven commands is a tenth of
    what a warm `a2a-kb query` costs."""
    unused = _Unused(add_help=False) if only is not None else None
    p = argparse.ArgumentParser(
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
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True, prog=p.prog)

    def add(name: str, func: Command, help_text: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(func=func)
        return unused if unused is not None and name != only else sp

    sp = add(
        "validate", cmd_validate, "Load every record and check schemas and cross-record rules."
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add(
        "schema", cmd_schema, "Print the JSON Schema of a record kind (all kinds without KIND)."
    )
    sp.add_argument("kind", nargs="?", choices=["claim", "source", "conflict", "version"])

    sp = add("fetch", cmd_fetch, "Fill and verify the source cache from the network or a mirror.")
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
        "check", cmd_check, "Compute every claim's verdict and compare it with the recorded one."
    )
    sp.add_argument(
        "--format",
        choices=["text", "json", "junit", "github"],
        default="text",
        help="text, JSON, JUnit XML, or GitHub workflow annotations",
    )
    sp.add_argument(
        "--strict", action="store_true", help="old secondary sources are errors, not warnings"
    )

    sp = add("states", cmd_states, "The state set of a version, per binding and per source.")
    sp.add_argument("--version", help="0.3.0, v0.3.0, latest, main or draft (default: latest)")
    sp.add_argument(
        "--resolve", metavar="NAME", help="map any spelling to the state it names in each version"
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add(
        "diff", cmd_diff, "Every lifecycle change between two versions (or two bindings of one)."
    )
    sp.add_argument("old")
    sp.add_argument("new")
    sp.add_argument(
        "--format", choices=["text", "json", "markdown"], default="text", help="output format"
    )
    sp.add_argument(
        "--fail-on",
        choices=["wire-breaking", "source-breaking", "behavioural", "editorial"],
        help="exit 1 when a change of this severity or worse is found",
    )

    sp = add("query", cmd_query, "Claims as data, filtered.")
    sp.add_argument("--id", action="append", help="a claim id (repeatable)")
    sp.add_argument("--subject", help="words in the claim's subject, e.g. TaskState")
    sp.add_argument("--version", help="claims about this version")
    sp.add_argument("--conflict", help="claims on a side of this conflict, e.g. D3")
    sp.add_argument(
        "--verdict", help="verified, contradicted, unverifiable, quote-missing, stale or drifted"
    )
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

    sp = add("conflicts", cmd_conflicts, "The conflict register.")
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add("build", cmd_build, "Build the site with mkdocs (strict by default).")
    sp.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fail on any mkdocs warning (default: on)",
    )
    sp.add_argument("--quiet", action="store_true", help="print only problems")

    sp = add("serve", cmd_serve, "Preview the site with live reload.")
    sp.add_argument("--address", default="127.0.0.1:8000", help="host:port to serve on")

    sp = add("capture", cmd_capture, "Run the real SDK scenarios; write or compare transcripts.")
    sp.add_argument(
        "--check", action="store_true", help="compare with captures/ instead of writing"
    )
    sp.add_argument("--only", action="append", help="run only this scenario (repeatable)")
    sp.add_argument("--sdk", action="append",
                    help="run only this SDK build: a2a-sdk-1.3.0, a2a-sdk-0.3, a2a-js-sdk-1.3.0 (repeatable)")
    return p


def _command_in(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, as far as a plain reading tells (None when unsure)."""
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
    args = parser(only).parse_args(given)
    if only is not None and args.command != only:  # argparse read it otherwise: parse again
        args = parser().parse_args(given)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parse(argv)
        code: int = args.func(args)
        return code
    except KBError as e:
        print(f"a2a-kb: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("a2a-kb: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except SystemExit as e:
        return int(e.code or 0)
    except Exception as e:  # a bug, not bad input: say so briefly; A2A_KB_DEBUG shows the trace
        if os.environ.get("A2A_KB_DEBUG"):
            raise
        print(
            f"a2a-kb: internal error: {type(e).__name__}: {e} "
            "(set A2A_KB_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
