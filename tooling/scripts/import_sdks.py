"""Write sources/sdks.yaml from a mirror's MANIFEST.tsv: the six official SDKs' lifecycle files.

python tooling/scripts/import_sdks.py ../shared/mirror/MANIFEST.tsv > sources/sdks.yaml
python tooling/scripts/import_sdks.py --upstream ../shared/mirror/MANIFEST.tsv  # the tags

The mirror holds, for a2a-python, a2a-js, a2a-java, a2a-go, a2a-dotnet and a2a-rs, the files
that define the task lifecycle in code at the releases where they changed and at the latest
(MANIFEST rows whose ref is the tag), each repository's ``git/refs/tags`` answer and a
``commits/<sha>`` answer per commit. Each file becomes a source of kind ``sdk-code``, read by
the tree-sitter extractor; each tag list and commit answer a ``git-refs`` source.

Which spec version a release speaks is read off its state enum's spelling: lowercase names
(``input-required``) are the 0.x line, ``TASK_STATE_*`` the 1.0 line. The table below gives
the version each release's files are filed under; a claim's own ``versions`` may narrow it.
"""

from __future__ import annotations

import csv
import re
import sys

SDKS = ("a2a-python", "a2a-js", "a2a-java", "a2a-go", "a2a-dotnet", "a2a-rs")
RETRIEVED = "2026-12-05"
TITLES = {"a2a-python": "a2a-python", "a2a-js": "a2a-js", "a2a-java": "a2a-java",
          "a2a-go": "a2a-go", "a2a-dotnet": "a2a-dotnet", "a2a-rs": "a2a-rs"}
# tag → the spec line its state enum spells (see the module's docstring); "1.0.0" stands for
# the 1.0 line, whose two releases (1.0.0, 1.0.1) share one proto.
SPEAKS = {
    "a2a-python": {"v0.2.6": "0.2.6", "v0.2.10": "0.2.6", "v0.3.3": "0.3.0", "v0.3.26": "0.3.0",
                   "v1.0.0-alpha.1": "1.0.0", "v1.0.3": "1.0.0", "v1.1.0": "1.0.0"},
    "a2a-js": {"v0.2.1": "0.2.6", "v0.3.14": "0.3.0", "v1.0.0-alpha.0": "1.0.0",
               "v1.0.0-beta.0": "1.0.0", "v1.0.1": "1.0.0"},
    "a2a-java": {"0.2.5": "0.2.6", "v0.3.0.Beta2": "0.3.0", "v0.3.3.Final": "0.3.0",
                 "1.0.0.Beta1": "1.0.0", "v1.0.0.Final": "1.0.0", "v1.2.0.Final": "1.0.0"},
    "a2a-go": {"v0.3.0": "0.3.0", "v0.3.3": "0.3.0", "v0.3.15": "0.3.0",
               "v1.0.0-alpha": "1.0.0", "v2.3.1": "1.0.0"},
    "a2a-dotnet": {"v0.1.0-preview.2": "0.2.6", "v0.3.4-preview": "0.3.0",
                   "v1.0.0-preview1": "1.0.0", "v1.0.0-preview2": "1.0.0"},
    "a2a-rs": {"agntcy-a2a-v0.2.0": "1.0.0", "a2a-server-lf-v0.2.7": "1.0.0"},
}


def sdk_of(url: str) -> str:
    parts = url.split("/")
    return parts[4] if "raw.githubusercontent.com" in url else parts[5]


def file_id(sdk: str, path: str, tag: str, taken: set[str]) -> str:
    """``<sdk>-<file stem>@<tag>``, with the parent folder added where two files of one
    release share a stem (``request-handlers-init``)."""
    parts = path.rsplit(".", 1)[0].split("/")
    for n in range(1, len(parts) + 1):
        stem = "-".join(parts[-n:]).replace("_", "-").lower()
        stem = re.sub(r"[^a-z0-9]+", "-", stem).strip("-")
        sid = f"{sdk}-{stem}@{tag}"
        if sid not in taken:
            taken.add(sid)
            return sid
    raise SystemExit(f"no unique id for {sdk} {path} at {tag}")


def main(manifest: str) -> None:
    with open(manifest, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    out = [
        "# yaml-language-server: $schema=../tooling/a2a_kb/schemas/source.schema.json",
        "#",
        "# The six official SDKs' lifecycle files, pinned by tag, commit and sha256, and each",
        "# repository's tag list and commit answers. Generated from the mirror's MANIFEST.tsv by",
        "# tooling/scripts/import_sdks.py; edit the script, not this file. Read by the tree-sitter",
        "# extractor (a2a_kb.extract.sdk_code); `versions` is the spec line the release's state",
        "# enum spells.",
        "sources:",
    ]
    taken: set[str] = set()
    for sdk in SDKS:
        for row in rows:
            url = row["url"]
            if f"/a2aproject/{sdk}/" not in url:
                continue
            if row["ref"] == "api":
                path = row["path"]
                sid = (f"{sdk}-tags" if path == "git/refs/tags"
                       else f"{sdk}-commit-{path.rsplit('/', 1)[-1][:7]}")
                out += [f"  - id: {sid}", "    kind: git-refs", "    authority: primary",
                        f"    url: {url}", f"    title: GitHub API {path} of a2aproject/{sdk}",
                        "    versions: []", f"    repository: a2aproject/{sdk}",
                        f"    path: {path}", f"    sha256: {row['sha256']}",
                        f"    size: {row['bytes']}", f"    retrieved: '{RETRIEVED}'"]
                if path == "git/refs/tags":
                    out.append("    moving: true")
                continue
            tag = row["ref"]
            version = SPEAKS[sdk][tag]
            versions = "'1.0.0', '1.0.1'" if version == "1.0.0" else f"'{version}'"
            out += [f"  - id: {file_id(sdk, row['path'], tag, taken)}", "    kind: sdk-code",
                    "    authority: primary", f"    url: {url}",
                    f"    title: \"{TITLES[sdk]} {tag}: {row['path']}\"",
                    f"    versions: [{versions}]", f"    repository: a2aproject/{sdk}",
                    f"    ref: '{tag}'", f"    commit: {row['commit']}", f"    path: {row['path']}",
                    f"    sha256: {row['sha256']}", f"    size: {row['bytes']}",
                    f"    retrieved: '{RETRIEVED}'"]
    print("\n".join(out))


def upstream(manifest: str) -> None:
    """The upstream entries: each SDK repository, its tag-list source and the tags taken note
    of (every tag its pinned list holds)."""
    import json
    from pathlib import Path

    root = Path(manifest).parent
    for sdk in SDKS:
        tags = json.loads((root / f"api.github.com/repos/a2aproject/{sdk}/git/refs/tags").read_text())
        names = sorted(t["ref"].removeprefix("refs/tags/") for t in tags)
        print(f"  - id: {sdk}\n    kind: repository\n    repository: a2aproject/{sdk}\n"
              f"    tags: {sdk}-tags\n    releases: [{', '.join(repr(n) for n in names)}]")


if __name__ == "__main__":
    if sys.argv[1] == "--upstream":
        upstream(sys.argv[2])
    else:
        main(sys.argv[1])
