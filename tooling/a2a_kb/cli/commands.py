"""The commands: each reads its parsed arguments, calls the library and returns an exit code.
A command imports what it uses when it runs, so that `a2a-kb query` loads no more than it
answers from."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import ConfigurationError
from .arguments import parser
from .common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, _emit, _kb, _project, _say

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: see a2a_kb.cli on start-up
if TYPE_CHECKING:
    from typing import Any


def cmd_validate(args: argparse.Namespace) -> int:
    from ..diagnostics import errors, not_shown, shown
    from ..output import dumps, envelope
    from ..records.validate import validate

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
    from ..output import dumps
    from ..schemas import KINDS, schema

    if args.kind is None:
        _emit(dumps({kind: schema(kind) for kind in KINDS}))
    else:
        _emit(dumps(schema(args.kind)))
    return EXIT_OK


def cmd_fetch(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..cache import Cache
    from ..output import dumps, envelope
    from ..sources.fetch import fetch

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
    from ..knowledge.derived import sweep

    report.derived_removed = sweep(kb.project)
    if args.format == "json":
        _emit(dumps(envelope(report.as_json())))
    else:
        _emit(report.format_text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_check(args: argparse.Namespace) -> int:
    from ..knowledge.check import REPORTERS, as_json, check
    from ..output import dumps, envelope

    kb = _kb(args)
    result = check(kb, strict=args.strict)
    if args.format == "json":
        _emit(dumps(envelope(as_json(result))))
    else:
        _emit(REPORTERS[args.format](result))
    return EXIT_OK if result.ok else EXIT_FINDINGS


def cmd_mutate(args: argparse.Namespace) -> int:
    from ..knowledge import mutation
    from ..output import dumps, envelope

    kb = _kb(args)
    allowances, problems = mutation.load_allowances(kb)
    report = mutation.run(kb, allowances, problems)
    if args.format == "json":
        _emit(dumps(envelope(report.as_json())))
    else:
        _emit(mutation.format_text(report, verbose=args.verbose))
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_sweep(args: argparse.Namespace) -> int:
    from ..knowledge.sweep import as_json, format_text, sweep
    from ..output import dumps, envelope

    kb = _kb(args)
    result = sweep(kb, [args.version] if args.version else None)
    if args.format == "json":
        _emit(dumps(envelope(as_json(result))))
    else:
        _emit(format_text(result, listing=args.list))
    return EXIT_OK if result.ok else EXIT_FINDINGS


def cmd_states(args: argparse.Namespace) -> int:
    from ..knowledge import states
    from ..output import dumps, envelope

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


def _usage_of(command: str) -> str:
    """A command's usage line, as argparse prints it above a usage error."""
    sub = next(a for a in parser(command)._actions if isinstance(a, argparse._SubParsersAction))
    return str(sub.choices[command].format_usage()).rstrip()


def cmd_diff(args: argparse.Namespace) -> int:
    from ..knowledge import diff
    from ..output import dumps, envelope

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
    from ..cache import atomic_write
    from ..knowledge import diff
    from ..output import dumps, envelope
    from ..sources.fetch import TerminalProgress

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
    from ..knowledge import query

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
    from ..knowledge import conflicts
    from ..output import dumps, envelope

    kb = _kb(args)
    register = conflicts.register(kb)
    _emit(dumps(envelope(register)) if args.format == "json" else conflicts.format_text(register))
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    from ..site.build import build

    project = _project(args)
    build(project, strict=args.strict, quiet=args.quiet)
    _say(f"built {project.site_dir}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from ..site.serve import exposure, serve, serve_address

    host, _ = serve_address(args.address)  # before the build: a busy port costs no build
    warning = exposure(host)
    if warning:
        _say(f"a2a-kb: warning: {warning}")
    serve(_project(args), address=args.address)
    return EXIT_OK


def _writing(args: argparse.Namespace, command: str):  # type: ignore[no-untyped-def]
    """The project's write lock (a2a_kb.commit), held by a command that writes records."""
    from ..commit import records_lock

    return records_lock(_project(args).root, command, on_wait=lambda m: _say(f"a2a-kb: {m} …"))


def cmd_capture(args: argparse.Namespace) -> int:
    import contextlib

    from ..capture import run_captures

    project = _project(args)
    with contextlib.nullcontext() if args.check else _writing(args, "capture"):
        report = run_captures(project.captures_dir, check=args.check, only=args.only or None,
                              sdks=args.sdk or None)
    _emit(report.format_text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_tck(args: argparse.Namespace) -> int:
    import contextlib
    from pathlib import Path

    from ..capture import tck

    project = _project(args)
    mirror = args.mirror or os.environ.get("A2A_KB_MIRROR") or ""
    if not mirror or not Path(mirror).is_dir():
        raise ConfigurationError("the conformance suite is read from the source mirror: set A2A_KB_MIRROR "
                                 "or pass --mirror DIR")
    from ..sources.fetch import TerminalProgress

    progress = TerminalProgress(title="tck") if sys.stderr.isatty() and not args.quiet else None
    with contextlib.nullcontext() if args.check else _writing(args, "tck"):
        lines, ok = tck.run_all(project.root, project.captures_dir, Path(mirror), check=args.check,
                                only=args.build or None, progress=progress)
    _emit("\n".join(lines))
    return EXIT_OK if ok else EXIT_FINDINGS


def _reader(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Upstream as it is now: the network, a mirror, or endpoints pointed elsewhere."""
    from pathlib import Path

    from ..sources.upstream import Endpoints, Reader

    mirror = args.mirror or os.environ.get("A2A_KB_MIRROR") or None
    if mirror and not Path(mirror).is_dir():
        raise ConfigurationError(f"the mirror {mirror} is not a directory")
    return Reader(Endpoints.parse(args.upstream or []), mirror=Path(mirror) if mirror else None)


def cmd_pin(args: argparse.Namespace) -> int:
    from ..output import dumps, envelope
    from ..sources.pin import pin

    with _writing(args, "pin"):  # read, decide and write with no other writer in between
        kb = _kb(args)
        with _reader(args) as reader:
            report = pin(kb, reader, args.sources, all_drifted=args.all_drifted)
    _emit(dumps(envelope(report.as_json())) if args.format == "json" else report.format_text())
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_watch(args: argparse.Namespace) -> int:
    from ..knowledge.flips import predict
    from ..output import dumps, envelope
    from ..sources.watch import REPORTERS, observe

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
    from ..output import dumps, envelope
    from ..sources.add_version import add_version

    with _writing(args, "add-version"):
        kb = _kb(args)
        with _reader(args) as reader:
            found = add_version(kb, reader, args.tag)
    _emit(dumps(envelope(found.as_json())) if args.format == "json" else found.format_text())
    return EXIT_OK


# --- parser -------------------------------------------------------------------------------
