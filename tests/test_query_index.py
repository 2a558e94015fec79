"""The query index: answers from it equal answers from the files, and it is never used
once a record file changed. Also the command line's shortcut of building only the parser
of the command being run."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_kb import cli
from a2a_kb.knowledge import query
from a2a_kb.project import Project


@pytest.fixture
def kb(fixture_kb: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("A2A_KB_ROOT", raising=False)
    return fixture_kb


def ids(rows: list[dict[str, object]]) -> list[object]:
    return [r["id"] for r in rows]


def test_the_index_answers_as_the_files_do(kb: Path) -> None:
    project = Project.at(kb)
    every = query.run(project, query.Filters(ids=[]))  # reads the files, writes the index
    assert len(every) >= 3
    assert (project.cache_dir / query.INDEX_NAME).is_file()
    assert query.from_index(str(kb), query.Filters(ids=[])) == every
    wanted = [str(every[-1]["id"]), str(every[0]["id"])]
    found = query.from_index(str(kb), query.Filters(ids=wanted))
    assert found is not None
    assert ids(found) == [every[0]["id"], every[-1]["id"]]  # in KB order, as a full scan gives
    assert found == [r for r in every if r["id"] in wanted]
    assert query.from_index(str(kb), query.Filters(ids=["no-such-claim"])) == []
    subject = query.Filters(ids=[], subject="taskstate")
    assert query.from_index(str(kb), subject) == query.run(project, subject)


def test_a_changed_file_is_read_again(kb: Path) -> None:
    project = Project.at(kb)
    first = query.run(project, query.Filters(ids=[]))
    claims = sorted((kb / "claims").glob("*.yaml"))[-1]
    text = claims.read_text("utf-8")
    claims.write_text(text.replace("statement: ", "statement: Changed. ", 1), "utf-8")
    assert query.from_index(str(kb), query.Filters(ids=[])) is None
    second = query.run(project, query.Filters(ids=[]))
    assert second != first
    assert any(str(r["statement"]).startswith("Changed.") for r in second)
    assert query.from_index(str(kb), query.Filters(ids=[])) == second
    (kb / "claims" / "more.yaml").write_text("claims: []\n", "utf-8")  # a new file counts too
    assert query.from_index(str(kb), query.Filters(ids=[])) is None


def test_files_written_just_before_the_index_are_read_a_few_times_not_on_every_query(
        kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture's files were written just before the index: racy, so their bytes are
    compared. Once the index is older than RACY_SECONDS, a query that finds them unchanged
    writes the index again, stamped with its own time, and the next query reads only the
    bucket it needs; an edit made after that is still seen."""
    import time

    records = list((kb / "claims").glob("*.yaml")) + list((kb / "sources").glob("*.yaml"))
    for path in records:  # as a fresh clone's: written a moment before the first query
        os.utime(path)
    files = len(records)
    project = Project.at(kb)
    every = query.run(project, query.Filters(ids=[]))
    read: list[int] = []
    checksum = query._checksum
    monkeypatch.setattr(query, "_checksum", lambda data: (read.append(len(data)), checksum(data))[1])
    one = query.Filters(ids=[str(every[0]["id"])])
    assert query.from_index(str(kb), one) == [every[0]]
    assert len(read) >= files  # every racy file, then the bucket
    later = time.time_ns() + (query.RACY_SECONDS + 1) * 1_000_000_000
    monkeypatch.setattr(time, "time_ns", lambda: later)
    read.clear()
    assert query.from_index(str(kb), one) == [every[0]]  # still racy: read, then restamped
    assert len(read) >= files
    read.clear()
    assert query.from_index(str(kb), one) == [every[0]]
    assert len(read) == 1  # the one bucket
    monkeypatch.undo()
    claims = sorted((kb / "claims").glob("*.yaml"))[-1]
    claims.write_text(claims.read_text("utf-8").replace("statement: ", "statement: Later. ", 1), "utf-8")
    assert query.from_index(str(kb), query.Filters(ids=[])) is None


def test_a_damaged_index_is_rebuilt(kb: Path) -> None:
    project = Project.at(kb)
    every = query.run(project, query.Filters(ids=[]))
    index = project.cache_dir / query.INDEX_NAME
    header, rest = index.read_bytes().split(b"\n", 1)
    index.write_bytes(header + b"\n" + rest[: len(rest) // 2])
    one = [str(every[0]["id"])]
    answer = query.from_index(str(kb), query.Filters(ids=[]))
    assert answer is None or answer == every  # never a half answer
    assert query.run(project, query.Filters(ids=one)) == every[:1]
    assert query.from_index(str(kb), query.Filters(ids=one)) == every[:1]


def test_the_command_answers_from_the_index(kb: Path) -> None:
    every = query.run(Project.at(kb), query.Filters(ids=[]))
    claim = str(every[1]["id"])
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "a2a_kb.cli", "--root", str(kb),
         "query", "--id", claim], capture_output=True, text=True, check=True)
    assert ids(json.loads(done.stdout)) == [claim]
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    # The warm path reads neither YAML nor the project settings, nor validates anything,
    # and its paths are strings (a2a_kb.layout): pathlib and what it imports were a fifth
    # of a warm query.
    for heavy in ("yaml", "a2a_kb.records.yamldoc", "a2a_kb.project", "tomllib", "jsonschema",
                  "pathlib", "urllib.parse", "ipaddress"):
        assert heavy not in imported, heavy


# What no answer of `states` or `conflicts` reads: the site, the fetch stage, the parsers
# that turn sources into facts (the facts are read from the cache), HTTP and the schemas.
_NOT_ANSWERED_FROM = ("a2a_kb.site", "a2a_kb.sources", "a2a_kb.capture", "a2a_kb.extract.proto",
                      "a2a_kb.extract.markdown", "a2a_kb.extract.sdk_", "a2a_kb.extract.json_schema",
                      "a2a_kb.extract.test_suite", "mkdocs", "jinja2", "markdown_it", "requests",
                      "jsonschema", "proto_schema_parser", "tree_sitter", "griffe")


@pytest.mark.parametrize("command", ["states", "conflicts"])
def test_states_and_conflicts_import_only_what_they_answer_from(command: str, real_cache: Path) -> None:
    """Once the sources' facts are in the cache (a first run reads them with the parsers)."""
    from conftest import REPO

    argv = [sys.executable, "-X", "importtime", "-m", "a2a_kb.cli", "--root", str(REPO), command,
            "--format", "json"]
    env = {**os.environ, "A2A_KB_CACHE": str(real_cache)}
    subprocess.run(argv, capture_output=True, check=True, env=env)  # the cache warmed
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    assert json.loads(done.stdout)
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "a2a_kb.knowledge" in imported
    found = sorted(m for m in imported if m.startswith(_NOT_ANSWERED_FROM))
    assert not found, found


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["query", "--id", "x"], "query"),
        (["--root", "query", "validate"], "validate"),
        (["--root=/tmp", "check", "--format", "json"], "check"),
        (["--version"], None),
        ([], None),
    ],
)
def test_the_command_is_read_before_parsing(argv: list[str], command: str | None) -> None:
    assert cli._command_in(argv) == command


@pytest.mark.parametrize(
    "argv",
    [
        ["query", "--id", "a", "--id", "b", "--format", "csv"],
        ["--root", "/tmp", "check", "--strict", "--format", "junit"],
        ["states", "--version", "1.0.0", "--format", "json"],
        ["diff", "0.3.0", "1.0.0", "--fail-on", "editorial"],
    ],
)
def test_the_short_parser_reads_as_the_full_one(argv: list[str]) -> None:
    assert vars(cli._parse(argv)) == vars(cli.parser().parse_args(argv))


def test_commands_lists_every_command_of_the_full_parser() -> None:
    full = cli.parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert tuple(sub.choices) == cli.COMMANDS


def test_a_wrong_command_name_still_gets_every_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["quety", "--id", "x"]) == 2
    said = capsys.readouterr().err
    assert "invalid choice: 'quety'" in said and "conflicts" in said and "add-version" in said
