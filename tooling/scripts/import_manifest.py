"""Write sources/primary.yaml from a mirror's MANIFEST.tsv (run when the mirror changes).

python tooling/scripts/import_manifest.py ../shared/mirror/MANIFEST.tsv > sources/primary.yaml
"""

from __future__ import annotations

import csv
import re
import sys

# path in the A2A repository → (source id prefix, kind, binding, title)
KINDS = {
    "specification/json/a2a.json": ("json-schema", "json-schema", "json", "JSON schema"),
    "specification/grpc/a2a.proto": ("grpc-proto", "proto", "grpc", "gRPC binding .proto"),
    "specification/a2a.proto": ("proto", "proto", "grpc", "Normative .proto"),
    "docs/specification.md": ("spec", "spec", "prose", "Specification"),
    "docs/topics/life-of-a-task.md": ("life-of-a-task", "docs", "prose", "Life of a Task"),
    "docs/topics/key-concepts.md": ("key-concepts", "docs", "prose", "Key concepts"),
    "docs/whats-new-v1.md": ("whats-new-v1", "docs", "prose", "What's new in v1"),
    "specification/json/README.md": ("json-readme", "docs", "json", "JSON binding README"),
    "CHANGELOG.md": ("changelog", "changelog", "", "CHANGELOG"),
}
VERSION_OF_REF = {"47b436f": "draft", "8a44cff": "draft", "main": "main"}
RETRIEVED = "2026-11-29"


def version_of(ref: str) -> str:
    return VERSION_OF_REF.get(ref, ref.removeprefix("v"))


def main(manifest: str) -> None:
    with open(manifest, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    out = [
        "# yaml-language-server: $schema=../tooling/a2a_kb/schemas/source.schema.json",
        "#",
        "# Primary sources, pinned by commit and sha256. Generated from the mirror's MANIFEST.tsv",
        "# by tooling/scripts/import_manifest.py; edit the script, not this file.",
        "sources:",
    ]
    for row in rows:
        ref, commit, path, size, sha, url = (
            row["ref"],
            row["commit"],
            row["path"],
            row["bytes"],
            row["sha256"],
            row["url"],
        )
        if ref == "dossier":
            continue  # a secondary source: see sources/secondary.yaml
        if ref.startswith("tck-") or "/repos/a2aproject/a2a-tck/" in url:
            continue  # the conformance suite: tooling/scripts/import_tck.py writes sources/conformance.yaml
        if ref == "api":
            sid = "github-" + path.replace("/", "-").replace("git-refs-tags", "tags")
            sid = sid.replace("github-git-tags-", "github-tag-")
            sid = sid.replace("github-commits-", "github-commit-")
            sid = re.sub(r"([0-9a-f]{7})[0-9a-f]{33}$", r"\1", sid)  # short sha, as git shows it
            out += [
                f"  - id: {sid}",
                "    kind: git-refs",
                "    authority: primary",
                f"    url: {url}",
                f"    title: GitHub API {path}",
                "    versions: []",
                f"    path: {path}",
                f"    sha256: {sha}",
                f"    size: {size}",
                f"    retrieved: '{RETRIEVED}'",
            ]
            if path == "git/refs/tags":
                out.append("    moving: true")
            continue
        prefix, kind, binding, title = KINDS[path]
        version = version_of(ref)
        out += [
            f"  - id: {prefix}@{ref}",
            f"    kind: {kind}",
            "    authority: primary",
            f"    url: {url}",
            f"    title: {title} at {ref}",
            f"    versions: ['{version}']",
            f"    ref: {ref}",
            f"    commit: {commit}",
            f"    path: {path}",
            f"    sha256: {sha}",
            f"    size: {size}",
        ]
        if binding:
            out.append(f"    binding: {binding}")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
