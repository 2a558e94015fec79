"""Write sources/conformance.yaml from a mirror's MANIFEST.tsv: the a2a-tck files the KB reads.

python tooling/scripts/import_tck.py ../shared/mirror/MANIFEST.tsv > sources/conformance.yaml

The conformance suite a2a-tck is mirrored whole at the heads of three branches (MANIFEST
rows ``tck-<branch>``), with the GitHub API's ``git/refs/heads`` answer and a
``commits/<sha>`` answer per head (rows ``api`` whose URL is under ``repos/a2aproject/a2a-tck``).
Only the files that say something about the task lifecycle are registered: the suite's
requirement definitions and error bindings, the test modules for tasks, messages, streams
and cancellation, the 0.3 suite's markers, and the spec pin of 1.0-dev. Each source names
its repository, branch and commit, so a watcher can follow the branches from these records.
"""

from __future__ import annotations

import csv
import re
import sys

REPOSITORY = "a2aproject/a2a-tck"
RETRIEVED = "2026-12-01"
# branch → the spec versions its tests are written against (1.0-dev pins the v1.0.0 spec in
# specification/version.json; 0.3.x and main still speak the 0.3 protocol).
BRANCH_VERSIONS = {"1.0-dev": ["1.0.0"], "0.3.x": ["0.3.0"], "main": ["0.3.0"]}
LIFECYCLE_FILES = {
    "1.0-dev": (
        "specification/version.json",
        "specification/a2a.json",
        "tck/requirements/base.py",
        "tck/requirements/core_operations.py",
        "tck/requirements/streaming.py",
        "tck/requirements/data_model.py",
        "tck/requirements/binding_grpc.py",
        "tck/requirements/binding_http_json.py",
        "tck/requirements/binding_jsonrpc.py",
        "tests/compatibility/_task_helpers.py",
        "tests/compatibility/core_operations/test_requirements.py",
        "tests/compatibility/core_operations/test_task_lifecycle.py",
        "tests/compatibility/core_operations/test_multi_stream.py",
        "tests/compatibility/core_operations/test_task_history.py",
    ),
    "0.3.x": (
        "tests/markers.py",
        "tck/transport/grpc_client.py",
        "tests/mandatory/protocol/test_message_send_method.py",
        "tests/mandatory/protocol/test_state_transitions.py",
        "tests/mandatory/protocol/test_tasks_cancel_method.py",
        "tests/mandatory/protocol/test_tasks_get_method.py",
        "tests/optional/capabilities/test_streaming_methods.py",
        "tests/optional/quality/test_task_state_quality.py",
    ),
}
LIFECYCLE_FILES["main"] = LIFECYCLE_FILES["0.3.x"]


def source_id(branch: str, path: str) -> str:
    """``tck-<file stem>@<branch>``: ``tests/markers.py`` on 0.3.x → ``tck-markers@0.3.x``."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lstrip("_")
    if path.startswith("tck/requirements/"):
        stem = f"requirements-{stem}"
    elif path.startswith("specification/"):
        stem = f"spec-{stem}"
    return f"tck-{re.sub(r'[^a-z0-9]+', '-', stem.lower()).strip('-')}@{branch}"


def main(manifest: str) -> None:
    with open(manifest, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    heads = {row["ref"].removeprefix("tck-"): row["commit"] for row in rows if row["ref"].startswith("tck-")}
    out = [
        "# yaml-language-server: $schema=../tooling/a2a_kb/schemas/source.schema.json",
        "#",
        "# The conformance suite a2a-tck, pinned by branch, commit and sha256. Generated from the",
        "# mirror's MANIFEST.tsv by tooling/scripts/import_tck.py; edit the script, not this file.",
        "# The suite's files are data: some address coding assistants, and nothing here follows them.",
        "sources:",
    ]
    for row in rows:
        if row["ref"] == "api" and f"/repos/{REPOSITORY}/" in row["url"]:
            path = row["path"]
            if path == "git/refs/heads":
                # Branch heads are read by the watch stage (extract/git_refs.py has no reader for
                # them yet); the sources below carry their branch and commit as data meanwhile.
                continue
            sha = path.rsplit("/", 1)[-1]
            branch = next((b for b, c in heads.items() if c == sha), "")
            sid = "tck-github-heads" if path == "git/refs/heads" else f"tck-github-commit-{sha[:7]}"
            out += [
                f"  - id: {sid}",
                "    kind: git-refs",
                "    authority: primary",
                f"    url: {row['url']}",
                f"    title: GitHub API {path} of {REPOSITORY}" + (f" (head of {branch})" if branch else ""),
                "    versions: []",
                f"    repository: {REPOSITORY}",
            ]
            if branch:
                out.append(f"    branch: '{branch}'")
            out += [
                f"    path: {path}",
                f"    sha256: {row['sha256']}",
                f"    size: {row['bytes']}",
                f"    retrieved: '{RETRIEVED}'",
            ]
            if path == "git/refs/heads":
                out.append("    moving: true")
            continue
        if not row["ref"].startswith("tck-"):
            continue
        branch = row["ref"].removeprefix("tck-")
        if row["path"] not in LIFECYCLE_FILES.get(branch, ()):
            continue
        versions = ", ".join(f"'{v}'" for v in BRANCH_VERSIONS[branch])
        out += [
            f"  - id: {source_id(branch, row['path'])}",
            "    kind: test-suite",
            "    authority: primary",
            f"    url: {row['url']}",
            f"    title: a2a-tck {branch} {row['path']}",
            f"    versions: [{versions}]",
            f"    repository: {REPOSITORY}",
            f"    branch: '{branch}'",
            f"    ref: '{branch}'",
            f"    commit: {row['commit']}",
            f"    path: {row['path']}",
            f"    sha256: {row['sha256']}",
            f"    size: {row['bytes']}",
        ]
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
