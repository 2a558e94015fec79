"""The a2a-kb command line: parse arguments, call the library, map results to exit codes.

Exit codes: 0 ok, 1 findings, 2 usage or configuration error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__
from .errors import ConfigurationError, KBError

if TYPE_CHECKING:  # annotations only: every import here delays `a2a-kb query`
    from collections.abc import Callable, Sequence

    Command = Callable[[argparse.Namespace], int]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
# The longest value a flag or argument may have: room for any path (PATH_MAX), far from the
# hundreds of kilobytes that would otherwise be echoed back in an error.
MAX_ARGUMENT_CHARS = 4096
VERDICTS = ("verified", "contradicted", "unverifiable", "quote-missing", "stale", "drifted")


def _project(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from .project import Project

    return Project.find(Path(args.root) if args.root else None)


def _kb(args: argparse.Namespace, *, fail_on_errors: bool = True,  # type: ignore[no-untyped-def]
        kinds: Sequence[str] | None = None):
    """Load and validate (the records of ``kinds`` only, when given); print diagnostics and
    stop (exit 1) when those records are broken."""
    from .diagnostics import errors, not_shown, shown
    from .records.validate import validate

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
    from .output import terminal_safe

    text = terminal_safe(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _say(text: str) -> None:
    """A message for the person at the terminal (errors, summaries), on stderr."""
    from .output import terminal_safe

    print(terminal_safe(text), file=sys.stderr)


# --- commands -----------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    from .diagnostics import errors, not_shown, shown
    from .output import dumps, envelope
    from .records.validate import validate

    kb = validate(_project(args))
    problems, left_out = shown(kb.problems)
    if args.format == "json":
        _emit(
            dumps(
                envelope(
                    {
                        "problems": [d.as_json() for d in problems],
                        "problems_not_shown": left_out,
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
        if left_out:
            _emit(not_shown(left_out))
        n_err = len(errors(kb.problems))
        _say(
            f"{len(kb.claims)} claims, {len(kb.sources)} sources, {len(kb.conflicts)} conflicts, "
            f"{len(kb.versions)} versions: "
            + (
                f"{n_err} error(s), {len(kb.problems) - n_err} warning(s)"
                if kb.problems
                else "no problems"
            )
        )
    return EXIT_FINDINGS if errors(kb.problems) else EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from .output import dumps
    from .schemas import KINDS, schema

    if args.kind is None:
        _emit(dumps({kind: schema(kind) for kind in KINDS}))
    else:
        _emit(dumps(schema(args.kind)))
    return EXIT_OK


def cmd_fetch(args: argparse.Namespace) -> int:
    from .cache import Cache
    from .output import dumps, envelope
    from .sources.fetch import fetch

    kb = _kb(args, fail_on_errors=False)  # broken claims must not stop the sources being fetched
    mirror = args.mirror or os.environ.get("A2A_KB_MIRROR") or None
    if mirror and not Path(mirror).is_dir():
        _say(f"a2a-kb: error: the mirror {mirror} is not a directory")
        return EXIT_USAGE
    report = fetch(
        list(kb.sources.values()),
        Cache(kb.project.cache_dir),
        mirror=Path(mirror) if mirror else None,
        refresh=args.refresh,
        offline=args.offline,
        progress=sys.stderr.isatty() and not args.quiet,
    )
    from .knowledge.derived import sweep

    report.derived_removed = sweep(kb.project)
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


def cmd_mutate(args: argparse.Namespace) -> int:
    from .knowledge import mutation
    from .output import dumps, envelope

    kb = _kb(args)
    allowances, problems = mutation.load_allowances(kb)
    report = mutation.run(kb, allowances, problems)
    if args.format == "json":
        _emit(dumps(envelope(report.as_json())))
    else:
        _emit(mutation.format_text(report, verbose=args.verbose))
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_sweep(args: argparse.Namespace) -> int:
    from .knowledge.sweep import as_json, format_text, sweep
    from .output import dumps, envelope

    kb = _kb(args)
    result = sweep(kb, [args.version] if args.version else None)
    if args.format == "json":
        _emit(dumps(envelope(as_json(result))))
    else:
        _emit(format_text(result, listing=args.list))
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


def _usage_of(command: str) -> str:
    """A command's usage line, as argparse prints it above a usage error."""
    sub = next(a for a in parser(command)._actions if isinstance(a, argparse._SubParsersAction))
    return str(sub.choices[command].format_usage()).rstrip()


def cmd_diff(args: argparse.Namespace) -> int:
    from .knowledge import diff
    from .output import dumps, envelope

    given = args.old is not None or args.new is not None
    if args.all == given or not (args.all or args.new is not None) or (args.out and not args.all):
        _say(_usage_of("diff"))
        raise ConfigurationError("give OLD and NEW, or --all (and --out DIR) for every pair of versions "
                                 "(tip: a2a-kb diff 0.3.0 1.0.0, or a2a-kb diff --all --out diffs/)")
    kb = _kb(args, kinds=diff.READS)  # a broken claim does not stop a diff, which reads none
    if args.all:
        return _diff_all(kb, args)
    result = diff.diff(kb, args.old, args.new)
    if args.format == "json":
        _emit(dumps(envelope(result.as_json())))
    elif args.format == "markdown":
        _emit(diff.format_markdown(result))
    else:
        _emit(diff.format_text(result))
    return EXIT_FINDINGS if _fails(result, args.fail_on) else EXIT_OK


def _fails(result: Any, limits: list[str] | None) -> bool:
    for limit in limits or []:
        encoding, _, level = limit.partition("=")
        if result.at_least(limit) if not level else result.reaches(encoding, level):
            return True
    return False


def _diff_all(kb: Any, args: argparse.Namespace) -> int:
    """Every ordered pair: a line per pair (or one JSON document), and with --out a report
    per pair, written whole or not at all."""
    from .cache import atomic_write
    from .knowledge import diff
    from .output import dumps, envelope
    from .sources.fetch import TerminalProgress

    progress = TerminalProgress(title="diff") if sys.stderr.isatty() and not args.quiet else None
    suffix = {"json": "json", "markdown": "md", "text": "txt"}[args.format]
    failed, rows, lines = False, [], []
    for result in diff.diff_all(kb, progress=progress):
        failed = failed or _fails(result, args.fail_on)
        data = result.as_json()
        if args.out is not None:
            text = (dumps(envelope(data)) if args.format == "json" else diff.format_markdown(result)
                    if args.format == "markdown" else diff.format_text(result))
            atomic_write(args.out / f"{result.old}-to-{result.new}.{suffix}", text.encode("utf-8"))
        rows.append(data)
        counts = "; ".join(f"{e} {n['breaking']}" for e, n in data["encodings"].items() if n["breaking"])
        lines.append(f"{result.old} → {result.new}: {len(result.changes)} change(s), breaking: "
                     f"{counts or 'none'}")
    if args.format == "json" and args.out is None:
        _emit(dumps(envelope({"pairs": rows})))
    else:
        head = f"{len(rows)} pairs" + (f", a report each in {args.out}" if args.out else "")
        _emit("\n".join([head, *lines]))
    return EXIT_FINDINGS if failed else EXIT_OK


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
    _say(f"built {project.site_dir}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from .site.serve import exposure, serve, serve_address

    host, _ = serve_address(args.address)  # before the build: a busy port costs no build
    warning = exposure(host)
    if warning:
        _say(f"a2a-kb: warning: {warning}")
    serve(_project(args), address=args.address)
    return EXIT_OK


def _writing(args: argparse.Namespace, command: str):  # type: ignore[no-untyped-def]
    """The project's write lock (a2a_kb.commit), held by a command that writes records."""
    from .commit import records_lock

    return records_lock(_project(args).root, command, on_wait=lambda m: _say(f"a2a-kb: {m} …"))


def cmd_capture(args: argparse.Namespace) -> int:
    import contextlib

    from .capture import run_captures

    project = _project(args)
    with contextlib.nullcontext() if args.check else _writing(args, "capture"):
        report = run_captures(project.captures_dir, check=args.check, only=args.only or None,
                              sdks=args.sdk or None)
    _emit(report.format_text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_tck(args: argparse.Namespace) -> int:
    import contextlib

    from .capture import tck

    project = _project(args)
    mirror = args.mirror or os.environ.get("A2A_KB_MIRROR") or ""
    if not mirror or not Path(mirror).is_dir():
        raise ConfigurationError("the conformance suite is read from the source mirror: set A2A_KB_MIRROR "
                                 "or pass --mirror DIR")
    from .sources.fetch import TerminalProgress

    progress = TerminalProgress(title="tck") if sys.stderr.isatty() and not args.quiet else None
    with contextlib.nullcontext() if args.check else _writing(args, "tck"):
        lines, ok = tck.run_all(project.root, project.captures_dir, Path(mirror), check=args.check,
                                only=args.build or None, progress=progress)
    _emit("\n".join(lines))
    return EXIT_OK if ok else EXIT_FINDINGS


def _reader(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Upstream as it is now: the network, a mirror, or endpoints pointed elsewhere."""
    from .sources.upstream import Endpoints, Reader

    mirror = args.mirror or os.environ.get("A2A_KB_MIRROR") or None
    if mirror and not Path(mirror).is_dir():
        raise ConfigurationError(f"the mirror {mirror} is not a directory")
    return Reader(Endpoints.parse(args.upstream or []), mirror=Path(mirror) if mirror else None)


def cmd_pin(args: argparse.Namespace) -> int:
    from .output import dumps, envelope
    from .sources.pin import pin

    with _writing(args, "pin"):  # read, decide and write with no other writer in between
        kb = _kb(args)
        with _reader(args) as reader:
            report = pin(kb, reader, args.sources, all_drifted=args.all_drifted)
    _emit(dumps(envelope(report.as_json())) if args.format == "json" else report.format_text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_watch(args: argparse.Namespace) -> int:
    from .knowledge.flips import predict
    from .output import dumps, envelope
    from .sources.watch import REPORTERS, observe

    kb = _kb(args)
    with _reader(args) as reader:
        report = observe(kb, reader, strict=args.strict,
                         progress=sys.stderr.isatty() and not args.quiet)
    report.flips = predict(kb, report)
    if args.format == "json":
        _emit(dumps(envelope(report.as_json())))
    else:
        _emit(REPORTERS[args.format](report))
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_add_version(args: argparse.Namespace) -> int:
    from .output import dumps, envelope
    from .sources.add_version import add_version

    with _writing(args, "add-version"):
        kb = _kb(args)
        with _reader(args) as reader:
            found = add_version(kb, reader, args.tag)
    _emit(dumps(envelope(found.as_json())) if args.format == "json" else found.format_text())
    return EXIT_OK


# --- parser -------------------------------------------------------------------------------


def _value(text: str) -> str:
    """Every string flag and argument: never empty (an empty value silently meaning the
    default hid mistakes such as `--mirror "$UNSET"`), never huge, never a control character."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value is not allowed (leave the flag out for its default)")
    if len(text) > MAX_ARGUMENT_CHARS:
        raise argparse.ArgumentTypeError(
            f"the value is {len(text):,} characters long; the limit is {MAX_ARGUMENT_CHARS:,}"
        )
    from .output import terminal_safe

    if terminal_safe(text) != text:
        raise argparse.ArgumentTypeError("the value holds a control character")
    return text


_value.__name__ = "value"  # what argparse calls the type in its messages


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


class _Parser(argparse.ArgumentParser):
    """argparse, with a type check on every value (see :func:`_value`) and errors that echo
    nothing raw and nothing long."""

    def add_argument(self, *args: object, **kwargs: object) -> argparse.Action:
        action = kwargs.get("action")
        takes_value = action in (None, "store", "append") and kwargs.get("nargs") != 0
        if takes_value and "type" not in kwargs:
            kwargs["type"] = _value
        return super().add_argument(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        from .output import terminal_safe

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
    """The command line's parser. With ``only``, one of :data:`COMMANDS`, the other commands
    are left out: building a parser for each of seventeen commands was a quarter of what a
    warm `a2a-kb query` costs. :func:`_parse` gives ``only`` just when the arguments name a
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

    def add(name: str, func: Command, help_text: str) -> argparse.ArgumentParser:
        if unused is not None and name != only:
            return unused
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(func=func)
        return sp

    sp = add(
        "validate", cmd_validate, "Load every record and check schemas and cross-record rules."
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add(
        "schema", cmd_schema, "Print the JSON Schema of a record kind (all kinds without KIND)."
    )
    sp.add_argument("kind", nargs="?",
                    choices=["claim", "source", "conflict", "version", "upstream", "sweep"])

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
        "--strict", action="store_true",
        help="old secondary sources are errors, not warnings, and so is a verified claim whose "
             "statement names a state, code or quoted phrase its check does not read"
    )

    sp = add(
        "mutate", cmd_mutate,
        "Perturb the facts each verified claim's check reads; report checks that survive.",
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    sp.add_argument("--verbose", action="store_true",
                    help="also list the weak claims the allow-list accepts")

    sp = add(
        "sweep", cmd_sweep,
        "Sweep the primary sources for lifecycle sentences and hold them to the ledger "
        "(sources/sweep.yaml): every sentence of a swept section accounted for, no stale account.",
    )
    sp.add_argument("--version", help="sweep only this version (0.3.0, latest, main, draft)")
    sp.add_argument("--list", action="store_true",
                    help="list every swept section and candidate sentence with its account")
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add("states", cmd_states, "The state set of a version, per binding and per source.")
    sp.add_argument("--version", help="0.3.0, v0.3.0, latest, main or draft (default: latest)")
    sp.add_argument(
        "--resolve", metavar="NAME", help="map any spelling to the state it names in each version"
    )
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add(
        "diff", cmd_diff, "Every lifecycle change between two versions (or two bindings of one)."
    )
    sp.add_argument("old", nargs="?", help="the older version, e.g. 0.3.0 (or 0.3.0:grpc for one binding)")
    sp.add_argument("new", nargs="?", help="the newer version, e.g. 1.0.0")
    sp.add_argument("--all", action="store_true",
                    help="every ordered pair of versions (old before new), in one process")
    sp.add_argument("--out", type=lambda text: Path(_value(text)), metavar="DIR",
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

    sp = add("query", cmd_query, "Claims as data, filtered.")
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
        "watch", cmd_watch,
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
        "pin", cmd_pin,
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
        "add-version", cmd_add_version,
        "Add a version from its tag: sources/versions.yaml, and its primary sources from "
        "the tag's files (those sources/upstream.yaml tracks).",
    )
    sp.add_argument("tag", metavar="TAG", help="the tag, e.g. v1.1.0 or 1.0.0-rc")
    upstream_options(sp)
    sp.add_argument("--format", choices=["text", "json"], default="text", help="output format")

    sp = add("capture", cmd_capture, "Run the real SDK scenarios; write or compare transcripts.")
    sp.add_argument(
        "--check", action="store_true", help="compare with captures/ instead of writing"
    )
    sp.add_argument("--only", action="append", help="run only this scenario (repeatable)")
    sp.add_argument("--sdk", action="append",
                    help="run only this SDK build: a2a-sdk-1.3.0, a2a-sdk-0.3, a2a-js-sdk-1.3.0 (repeatable)")
    sp = add("tck", cmd_tck, "Run the official conformance suite (a2a-tck) against each SDK build; write or "
                             "compare its verdicts under captures/tck/.")
    sp.add_argument("--check", action="store_true", help="compare with captures/tck/ instead of writing")
    sp.add_argument("--build", action="append", metavar="BUILD",
                    help="run only this build (repeatable; a name it does not know gets the list)")
    sp.add_argument("--mirror", help="the source mirror the suite is read from (default: $A2A_KB_MIRROR)")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
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
    if only not in COMMANDS:
        only = None
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
        from .errors import disk_error

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

if __name__ == "__main__":
    sys.exit(main())
