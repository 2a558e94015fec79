"""watch against a local upstream on 127.0.0.1: quiet when nothing moved, and, after
scripted changes, exactly the expected findings and flips; then pin and add-version leave
a knowledge base whose check passes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_kb import cli
from a2a_kb.project import Project
from a2a_kb.records.validate import validate
from a2a_kb.sources.upstream import Endpoints
from a2a_kb.sources.yamledit import RecordFile
from conftest import MIRROR, copy_records
from local_upstream import LocalUpstream, page, serving

A2A = "a2aproject/A2A"
NEW_TAG, NEW_COMMIT = "v1.1.0", "a11ce5" + "7" * 34
MAIN_HEAD = "b0b0ca7" + "5" * 33
V101 = "3303592588e388e62e0f69f701af531d2f4e3991"
QUOTED_ON_MAIN = "success is not guaranteed"
TENTH_STATE = ("  // Indicates that the agent has paused the task and will resume it on its own.\n"
               "  // This is an interrupted state.\n  TASK_STATE_PAUSED = 9;\n")



@pytest.fixture
def kb_copy(tmp_path: Path, real_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the project with its own copy of the fetched cache; no mirror: upstream is
    the local server only."""
    shutil.copytree(real_cache, tmp_path / "cache")
    monkeypatch.setenv("A2A_KB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("A2A_KB_MIRROR", raising=False)
    monkeypatch.delenv("A2A_KB_UPSTREAM", raising=False)
    monkeypatch.setenv("A2A_KB_ALLOW_LOOPBACK", "1")  # the URL policy's escape hatch
    return copy_records(tmp_path / "kb")


@pytest.fixture
def upstream(kb_copy: Path) -> Iterator[LocalUpstream]:
    with serving(MIRROR) as server:
        server.serve_known(validate(Project.at(kb_copy)))
        yield server


def run(root: Path, up: LocalUpstream, *argv: str) -> int:
    return cli.main(["--root", str(root), *argv, *up.arguments()])


def watch_json(root: Path, up: LocalUpstream, capsys: pytest.CaptureFixture[str],
               *extra: str) -> tuple[int, dict[str, Any]]:
    code = run(root, up, "watch", "--format", "json", *extra)
    return code, json.loads(capsys.readouterr().out)


def findings(data: dict[str, Any]) -> set[tuple[str, str]]:
    return {(o["id"], o["status"]) for o in data["upstream"] if o["finding"]}


# --- the scripted changes -----------------------------------------------------------------


def a_tag_in_the_list(up: LocalUpstream, tag: str) -> None:
    """The tag list upstream with one more tag, on NEW_COMMIT."""
    tags_url = Endpoints.tags(A2A)
    tags = json.loads(up.mirrored(tags_url))
    tags.append({"ref": f"refs/tags/{tag}", "object": {
        "sha": NEW_COMMIT, "type": "commit",
        "url": f"https://api.github.com/repos/{A2A}/git/commits/{NEW_COMMIT}"}})
    up.put(tags_url, json.dumps(tags, indent=2) + "\n")


def new_tag_with_a_tenth_state(up: LocalUpstream) -> None:
    a_tag_in_the_list(up, NEW_TAG)
    commit = json.loads(up.mirrored(Endpoints.commit(A2A, V101)))
    commit["sha"] = NEW_COMMIT
    commit["commit"]["committer"]["date"] = commit["commit"]["author"]["date"] = \
        "2026-11-30T12:00:00Z"
    up.put(Endpoints.commit(A2A, NEW_COMMIT), json.dumps(commit, indent=2))
    for path in ("specification/a2a.proto", "specification/json/README.md",
                 "docs/specification.md", "docs/topics/life-of-a-task.md",
                 "docs/topics/key-concepts.md", "docs/whats-new-v1.md", "CHANGELOG.md"):
        body = up.mirrored(Endpoints.raw(A2A, V101, path)).decode()
        if path == "specification/a2a.proto":
            anchor = "  TASK_STATE_AUTH_REQUIRED = 8;\n"
            assert anchor in body
            body = body.replace(anchor, anchor + TENTH_STATE)
        up.put(Endpoints.raw(A2A, NEW_COMMIT, path), body)


def main_loses_a_quoted_sentence(up: LocalUpstream) -> None:
    head = json.loads(up.mirrored(Endpoints.head(A2A, "main")))
    head["object"]["sha"] = MAIN_HEAD
    up.put(Endpoints.head(A2A, "main"), json.dumps(head, indent=2) + "\n")
    for path in ("specification/a2a.proto", "specification/json/README.md",
                 "docs/specification.md", "docs/topics/life-of-a-task.md",
                 "docs/topics/key-concepts.md", "docs/whats-new-v1.md", "CHANGELOG.md"):
        body = up.mirrored(Endpoints.raw(A2A, "refs/heads/main", path)).decode()
        if path == "docs/specification.md":
            sentence = ("The server will attempt to cancel the task, but success is not "
                        "guaranteed (e.g., the task might have already completed or failed, "
                        "or cancellation might not be supported at its current stage).")
            assert sentence in body
            body = body.replace(" " + sentence, "")
        up.put(Endpoints.raw(A2A, "refs/heads/main", path), body)
        up.put(Endpoints.raw(A2A, MAIN_HEAD, path), body)


def a_page_gives_another_count(up: LocalUpstream) -> None:
    # The old words survive only in a script, which no reader sees.
    up.put("https://github.com/a2aproject/a2a-rs/pull/126", page(
        "a2a-rs PR #126", ["Three concurrent cancel requests could both pass the check."],
        hidden="Two concurrent cancel requests could both pass the check"))


def a_new_sdk_release(up: LocalUpstream, kb_root: Path) -> None:
    known = validate(Project.at(kb_root)).upstream["a2a-sdk"].releases
    up.serve_pypi("a2a-sdk", [*known, "1.4.0"])


def script_every_change(up: LocalUpstream, kb_root: Path) -> None:
    new_tag_with_a_tenth_state(up)
    main_loses_a_quoted_sentence(up)
    a_page_gives_another_count(up)
    a_new_sdk_release(up, kb_root)


EXPECTED_FINDINGS = {("github-tags", "changed"), ("spec@main", "changed"),
                     ("a2a-rs-pr-126", "numbers-changed")}
EXPECTED_REFS = {("tag", NEW_TAG, A2A), ("release", "1.4.0", "pypi:a2a-sdk")}
# Claim → (pinned, live): the sentence main lost is quoted by one claim and checked in
# §3.1.5 of spec@main by another; two claims hold the latest release to a count of eight
# named states, and the new release names nine.
EXPECTED_FLIPS = {
    "cancel-success-not-guaranteed": ("verified", "quote-missing"),
    "v1-canceled-set-by": ("verified", "contradicted"),
    # about 1.0.0, 1.0.1 and main: its words are checked in main's copy too, which lost them
    "cancel-failure-reasons": ("verified", "contradicted"),
    "deepwiki-eight-fits-latest": ("verified", "stale"),
    "zuplo-eight-fits-latest": ("verified", "stale"),
    # the tag list's newest release is v1.1.0 now, not v1.0.1
    "latest-release-is-1-0-1": ("verified", "contradicted"),
}


# --- the tests ------------------------------------------------------------------------------


def test_a_quiet_upstream_gives_no_findings(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = watch_json(kb_copy, upstream, capsys)
    assert code == 0, data
    assert data["findings"] == 0 and data["new_refs"] == [] and data["flips"] == []
    statuses = {o["id"]: o["status"] for o in data["upstream"]}
    assert statuses["github-tags"] == statuses["dossier"] == "unchanged"
    assert statuses[f"{A2A}@main"] == "unchanged"
    assert {statuses[f"a2aproject/a2a-tck@{b}"] for b in ("1.0-dev", "0.3.x", "main")} == \
        {"unchanged"}
    assert statuses["a2a-sdk"] == statuses["a2a-js-sdk"] == "unchanged"
    pages = [o for o in data["upstream"] if o["kind"] == "page"]
    assert len(pages) >= 20 and {o["status"] for o in pages} == {"read"}
    assert {"schema_version", "generated_at", "upstream", "new_refs", "flips"} <= set(data)
    for row in data["upstream"]:
        assert {"id", "url", "pinned_sha256", "live_sha256", "status"} <= set(row)


def test_scripted_changes_are_named_exactly(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p: p.read_bytes() for p in kb_copy.rglob("*.yaml")}
    script_every_change(upstream, kb_copy)
    code, data = watch_json(kb_copy, upstream, capsys)
    assert code == 1
    assert findings(data) == EXPECTED_FINDINGS
    assert {(r["kind"], r["name"], r["where"]) for r in data["new_refs"]} == EXPECTED_REFS
    assert next(r["commit"] for r in data["new_refs"] if r["kind"] == "tag") == NEW_COMMIT
    flips = {f["id"]: (f["pinned"], f["live"]) for f in data["flips"]}
    assert flips == EXPECTED_FLIPS
    assert data["findings"] == len(EXPECTED_FINDINGS) + len(EXPECTED_REFS) + len(EXPECTED_FLIPS)

    rows = {o["id"]: o for o in data["upstream"]}
    main = rows[f"{A2A}@main"]
    assert main["status"] == "moved" and main["live_commit"] == MAIN_HEAD
    assert rows["spec@main"]["live_sha256"] != rows["spec@main"]["pinned_sha256"]
    assert "the page now says 'Three concurrent cancel requests could both pass the check'" \
        in rows["a2a-rs-pr-126"]["message"]
    by_id = {f["id"]: f for f in data["flips"]}
    stale = by_id["zuplo-eight-fits-latest"]
    assert "named-states:TaskState in proto@v1.1.0 is" in stale["message"]
    assert any(e["source"] == "proto@v1.1.0" and e["live"] for e in stale["evidence"])
    assert "spec@main" in by_id["cancel-success-not-guaranteed"]["message"]
    # watch changed nothing
    assert before == {p: p.read_bytes() for p in kb_copy.rglob("*.yaml")}


@pytest.mark.parametrize("fmt", ["text", "github", "junit"])
def test_every_format_names_the_findings(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    script_every_change(upstream, kb_copy)
    assert run(kb_copy, upstream, "watch", "--format", fmt) == 1
    out = capsys.readouterr().out
    for name in [*EXPECTED_FLIPS, "spec@main", "a2a-rs-pr-126", NEW_TAG, "1.4.0"]:
        assert name in out, (fmt, name)
    if fmt == "github":
        assert "::error file=claims/cancellation.yaml,line=" in out
        assert "::warning file=sources/primary.yaml" in out
    if fmt == "junit":
        import xml.etree.ElementTree as ET

        suite = ET.fromstring(out)
        assert suite.get("failures") == str(len(EXPECTED_FINDINGS) + len(EXPECTED_REFS)
                                            + len(EXPECTED_FLIPS))
    if fmt == "text":
        assert "cancel-success-not-guaranteed: verified → quote-missing" in out


def test_pin_and_add_version_then_check_passes(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    script_every_change(upstream, kb_copy)
    assert run(kb_copy, upstream, "watch", "--quiet") == 1
    capsys.readouterr()

    assert run(kb_copy, upstream, "pin", "--all-drifted") == 0
    out = capsys.readouterr().out
    assert "github-tags: sha256" in out and f"main: commit 16ba52690519… → {MAIN_HEAD[:12]}…" in out
    assert run(kb_copy, upstream, "add-version", NEW_TAG) == 0
    assert "added version 1.1.0 (a release, tag v1.1.0 at a11ce57)" in capsys.readouterr().out

    assert cli.main(["--root", str(kb_copy), "validate"]) == 0
    capsys.readouterr()
    # check now finds exactly what watch foresaw ...
    assert cli.main(["--root", str(kb_copy), "check", "--format", "json"]) == 1
    checked = json.loads(capsys.readouterr().out)
    changed = {c["id"]: (c["expected"], c["verdict"]) for c in checked["claims"]
               if c["verdict"] != c["expected"]}
    assert changed == EXPECTED_FLIPS
    # ... and once a reviewer records those verdicts, it passes.
    record_verdicts(kb_copy, {cid: live for cid, (_, live) in EXPECTED_FLIPS.items()})
    assert cli.main(["--root", str(kb_copy), "check"]) == 0
    capsys.readouterr()

    assert cli.main(["--root", str(kb_copy), "states", "--version", "v1.1.0", "--format",
                     "json"]) == 0
    states = json.loads(capsys.readouterr().out)
    assert len(states["states"]) == 10 and states["states"][-1]["number"] == 9
    assert cli.main(["--root", str(kb_copy), "diff", "1.0.1", "1.1.0", "--format", "json"]) == 0
    diff = json.loads(capsys.readouterr().out)
    assert any(c["kind"] == "state-added" for c in diff["changes"]), diff["changes"]
    # and upstream is quiet again but for what no pin covers: the page and the release
    code, data = watch_json(kb_copy, upstream, capsys)
    assert findings(data) == {("a2a-rs-pr-126", "numbers-changed")}
    assert {(r["kind"], r["name"]) for r in data["new_refs"]} == {("release", "1.4.0")}
    assert data["flips"] == [] and code == 1


def record_verdicts(root: Path, verdicts: dict[str, str]) -> None:
    kb = validate(Project.at(root))
    for claim_id, verdict in verdicts.items():
        path = kb.claims[claim_id].mark.path
        record_file = RecordFile(root / path, path)
        record_file.set(record_file.record(claim_id), "verdict", verdict)
        record_file.save()


def test_unreachable_upstream_is_reported_and_counts_only_when_strict(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    upstream.gone.add(upstream.path_of("https://atlan.com/know/google-a2a-protocol/"))
    del upstream.files[upstream.path_of(Endpoints.npm("@a2a-js/sdk"))]
    upstream.files[upstream.path_of("https://deepwiki.com/google/A2A/1.3-task-lifecycle")] = b""
    code, data = watch_json(kb_copy, upstream, capsys)
    rows = {o["id"]: o for o in data["upstream"]}
    assert rows["atlan-a2a"]["status"] == "gone"  # a page that answers 404 is news
    assert rows["a2a-js-sdk"]["status"] == "gone"
    assert code == 1 and findings(data) == {("atlan-a2a", "gone"), ("a2a-js-sdk", "gone")}


def test_a_server_that_does_not_answer_is_unreachable_not_news(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pages point at a port nothing listens on; GitHub and the registries still answer.
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    args = [*upstream.arguments()[:-2], "--upstream", f"pages=http://127.0.0.1:{dead}"]
    from a2a_kb.sources import http

    monkeypatch.setattr(http.HttpPolicy, "__init__", _quick_policy(http.HttpPolicy.__init__))
    code = cli.main(["--root", str(kb_copy), "watch", "--format", "json", *args])
    data = json.loads(capsys.readouterr().out)
    pages = [o for o in data["upstream"] if o["kind"] == "page"
             and not o["url"].startswith(("https://api.github.com", "https://raw.github"))]
    assert pages and {o["status"] for o in pages} == {"unreachable"}
    assert "connection refused" in pages[0]["message"]
    assert code == 0 and data["findings"] == 0
    assert cli.main(["--root", str(kb_copy), "watch", "--strict", "--quiet", *args]) == 1
    assert "not consulted" not in capsys.readouterr().out


def _quick_policy(original: Any) -> Any:
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        object.__setattr__(self, "attempts", 1)
    return init


def test_nothing_reachable_is_an_error_not_an_empty_success(
    kb_copy: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from a2a_kb.sources import http

    monkeypatch.setattr(http.HttpPolicy, "__init__", _quick_policy(http.HttpPolicy.__init__))
    args = [arg for name in ("github-api", "github-raw", "pypi", "npm", "pages")
            for arg in ("--upstream", f"{name}=http://127.0.0.1:9")]
    assert cli.main(["--root", str(kb_copy), "watch", *args]) == 2
    err = capsys.readouterr().err
    assert "nothing upstream could be consulted" in err and "internal error" not in err


def test_watch_over_the_mirror_is_quiet_and_names_what_it_could_not_consult(
    kb_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["--root", str(kb_copy), "watch", "--mirror", str(MIRROR), "--format",
                     "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["findings"] == 0
    rows = {o["id"]: o["status"] for o in data["upstream"]}
    assert rows["github-tags"] == rows[f"{A2A}@main"] == "unchanged"
    unreachable = {o["id"] for o in data["upstream"] if o["status"] == "unreachable"}
    assert {"a2a-sdk", "a2a-js-sdk", "atlan-a2a"} <= unreachable


def test_a_conformance_branch_that_moved_is_reported_and_a_new_branch_is_news(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    heads_url = Endpoints.heads("a2aproject/a2a-tck")
    heads = json.loads(upstream.mirrored(heads_url))
    moved = next(h for h in heads if h["ref"] == "refs/heads/1.0-dev")
    moved["object"]["sha"] = "c0de" + "1" * 36
    heads.append({"ref": "refs/heads/1.1-dev", "object": {"sha": "c0de" + "2" * 36,
                                                          "type": "commit", "url": ""}})
    upstream.put(heads_url, json.dumps(heads))
    # the new head leaves the suite's registered files as they were
    suite = [s for s in validate(Project.at(kb_copy)).sources.values()
             if s.repository == "a2aproject/a2a-tck" and s.branch == "1.0-dev"]
    assert suite, "the suite's 1.0-dev files are registered sources"
    for source in suite:
        upstream.put(Endpoints.raw("a2aproject/a2a-tck", "refs/heads/1.0-dev", source.path),
                     upstream.mirrored(source.url))
    code, data = watch_json(kb_copy, upstream, capsys)
    rows = {o["id"]: o for o in data["upstream"]}
    branch = rows["a2aproject/a2a-tck@1.0-dev"]
    assert branch["status"] == "moved" and not branch["finding"]
    assert branch["live_commit"] == "c0de" + "1" * 36
    assert rows["a2aproject/a2a-tck@0.3.x"]["status"] == "unchanged"
    # untracked work branches stay quiet; a branch nobody has seen is news
    assert [(r["kind"], r["name"]) for r in data["new_refs"]] == [("branch", "1.1-dev")]
    assert code == 1 and data["findings"] == 1


# --- upstream text cannot steer the report (issue 26) --------------------------------------

HOSTILE_TAG = "v1.2.0\n::error title=pwned::upstream wrote this\n```\n# injected\r\u2028x"


def a_hostile_tag(up: LocalUpstream) -> None:
    a_tag_in_the_list(up, HOSTILE_TAG)


@pytest.mark.parametrize("fmt", ["text", "github", "junit", "json"])
def test_a_hostile_tag_name_stays_on_its_line_in_every_format(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    a_hostile_tag(upstream)
    assert run(kb_copy, upstream, "watch", "--format", fmt) == 1
    out = capsys.readouterr().out
    if fmt == "json":  # JSON carries the name exactly, escaped by JSON itself
        assert HOSTILE_TAG in {r["name"] for r in json.loads(out)["new_refs"]}
        return
    if fmt == "junit":
        import xml.etree.ElementTree as ET

        names = [case.get("name") for case in ET.fromstring(out).iter("testcase")]
        assert any(n and n.startswith("v1.2.0") and "pwned" in n for n in names), names
        return
    lines = out.splitlines()
    # The name is shown, escaped, on one line; nothing it holds begins a line of its own.
    shown = "v1.2.0\\u000a::error title=pwned::upstream wrote this\\u000a```"
    assert any(shown in line for line in lines), out
    assert not [line for line in lines if line.startswith(("```", "# injected", "x"))], out
    commands = [line for line in lines if line.startswith("::")]
    if fmt == "text":
        assert commands == [], commands
    else:  # github: our annotations, then the report with command processing stopped
        stop = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
        token = lines[stop].split("::")[2]
        assert lines[-1] == f"::{token}::" and len(token) >= 32
        assert all(line.startswith(("::warning ", "::error ")) for line in lines[:stop]), lines[:stop]
        assert "pwned" not in "".join(line.split("::", 2)[1] for line in lines[:stop])  # not in a property
        assert not [line for line in lines[stop + 1:-1] if line.startswith("::")]


def test_an_answer_over_the_size_cap_is_a_finding_not_an_outage(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tag list grown past the cap used to be "not consulted", and watch said "no
    findings" (after which the workflow closed its issue)."""
    from a2a_kb.sources.http import HttpPolicy

    cap = HttpPolicy().max_bytes
    tags = upstream.mirrored(Endpoints.tags(A2A)).decode()
    upstream.put(Endpoints.tags(A2A), tags[:-2] + " " * (cap + 1) + tags[-2:])
    code, data = watch_json(kb_copy, upstream, capsys)
    assert code == 1, data
    row = next(o for o in data["upstream"] if o["id"] == "github-tags")
    assert row["status"] == "refused" and row["finding"], row
    assert row["message"].startswith("upstream answered and was refused: body over the"), row
    assert run(kb_copy, upstream, "watch") == 1
    assert "github-tags: refused: upstream answered and was refused" in capsys.readouterr().out


def test_a_mirror_file_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    from a2a_kb.sources.http import HttpPolicy
    from a2a_kb.sources.upstream import Reader

    url = Endpoints.tags(A2A)
    mirror = tmp_path / "mirror"
    path = mirror / "api.github.com" / "repos" / A2A / "git" / "refs" / "tags"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"[" + b" " * 2048 + b"]")
    with Reader(Endpoints(), mirror=mirror, policy=HttpPolicy(max_bytes=1024)) as reader:
        answer = reader.get(url)
    assert answer.status == "refused" and "over the 1,024-byte size cap" in answer.reason, answer


def test_a_new_sdk_tag_is_a_new_ref_and_never_a_spec_version(
    kb_copy: Path, upstream: LocalUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    """An SDK repository's tag list is watched like the spec's: a tag that its `releases`
    do not list is news, reported as a new ref of that repository, and is not taken for a
    new version of the specification."""
    go = "a2aproject/a2a-go"
    tags_url = Endpoints.tags(go)
    tags = json.loads(upstream.mirrored(tags_url))
    sdk_commit = "5d4c3b2" + "1" * 33
    tags.append({"ref": "refs/tags/v2.4.0", "object": {
        "sha": sdk_commit, "type": "commit",
        "url": f"https://api.github.com/repos/{go}/git/commits/{sdk_commit}"}})
    upstream.put(tags_url, json.dumps(tags, indent=2) + "\n")
    code, data = watch_json(kb_copy, upstream, capsys)
    assert code == 1
    assert [(r["kind"], r["name"], r["where"], r["commit"]) for r in data["new_refs"]] == [
        ("tag", "v2.4.0", go, sdk_commit)]
    assert findings(data) == {("a2a-go-tags", "changed")}
    assert not data.get("new_versions")
