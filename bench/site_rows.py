"""Rows 4 and 7: the site build, on copies of the real project in a temporary folder.

Row 4 times ``a2a-kb build`` after one claim's statement was edited, against a cold build
of the same project (no extracted facts, no earlier build, nothing rendered before).
Row 7 times ``mkdocs build`` of the real site with the a2a-kb plugin against ``mkdocs
build`` of the very pages the plugin produced, saved as plain Markdown by a capture hook
and built with the same theme, Markdown extensions and other plugins, without a2a-kb.

Every build is a fresh process, as a person or CI runs it, timed by its CPU time. The project copy holds the
record files, content/, captures/, mkdocs.yml, the vendored Mermaid and the fetched
sources; the package's code is linked, not copied.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

import yaml

BENCH = Path(__file__).resolve().parent
_COPIED = ("mkdocs.yml", "pyproject.toml", "content", "claims", "sources", "captures")


class NotReady(Exception):
    """The site cannot be built yet; the message says why."""


def copy_project(real: Path, target: Path, *, facts: bool) -> Path:
    """A copy of ``real`` at ``target`` whose cache holds the fetched sources (and, with
    ``facts``, the facts extracted from them)."""
    target.mkdir(parents=True)
    for name in _COPIED:
        src = real / name
        if src.is_dir():
            shutil.copytree(src, target / name, ignore=shutil.ignore_patterns("cache"))
        elif src.is_file():
            shutil.copy2(src, target / name)
    (target / "tooling").symlink_to(real / "tooling")
    vendor = real / ".cache" / "vendor"
    if vendor.is_dir():
        shutil.copytree(vendor, target / ".cache" / "vendor")
    cache = real / "sources" / "cache"
    shutil.copytree(cache / "blobs", target / "sources" / "cache" / "blobs")
    shutil.copy2(cache / "index.json", target / "sources" / "cache" / "index.json")
    if facts and (cache / "facts").is_dir():
        shutil.copytree(cache / "facts", target / "sources" / "cache" / "facts")
    return target


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("A2A_KB_CACHE", "A2A_KB_ROOT")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def child_seconds() -> float:
    """CPU time (user + system) used so far by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(args: list[str], cwd: Path) -> float:
    """The CPU time of one run of ``args``: builds are single-threaded work, and CPU time
    is much less disturbed than wall time by what else a shared machine runs."""
    started = child_seconds()
    done = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True)
    seconds = child_seconds() - started
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise NotReady(f"`{' '.join(Path(a).name for a in args[:2])} …` failed: {tail[:300]}")
    return seconds


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


# --- row 4 ----------------------------------------------------------------------------------


def _edit_one_claim(root: Path, n: int) -> str:
    """Change the wording of one claim's statement; return which claim file changed."""
    path = sorted((root / "claims").glob("*.yaml"))[0]
    lines = path.read_text("utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("statement:"))
    if lines[at].rstrip().endswith((">-", ">", "|", "|-")):
        at += 1
    lines[at] += f" (edited for the benchmark, {n})"
    path.write_text("\n".join(lines), "utf-8")
    return path.name


def rebuild(real: Path, cold_runs: int = 2, warm_runs: int = 3) -> dict[str, Any]:
    build = [_bin("a2a-kb"), "build", "--quiet"]
    cold, warm = [], []
    with tempfile.TemporaryDirectory(prefix="a2a-kb-bench-site-") as tmp:
        _timed(build, copy_project(real, Path(tmp) / "warm-up", facts=True))  # bytecode
        for i in range(cold_runs):
            root = copy_project(real, Path(tmp) / f"cold-{i}", facts=False)
            cold.append(_timed(build, root))
        root = Path(tmp) / f"cold-{cold_runs - 1}"
        for i in range(warm_runs):
            edited = _edit_one_claim(root, i)
            warm.append(_timed(build, root))
    return {"cold": median(cold), "rebuild": median(warm), "cold_runs": cold,
            "rebuild_runs": warm, "edited": edited}


# --- row 7 ----------------------------------------------------------------------------------


def _without_block(text: str, key: str) -> str:
    """``text`` without the top-level YAML key ``key`` and its indented block."""
    return re.sub(rf"^{key}:.*\n(?:(?:[ \t]+.*)?\n)*", "", text, flags=re.M)


def _plain_config(original: str, docs: Path, captured: dict[str, Any]) -> str:
    text = re.sub(r"^docs_dir:.*$", f"docs_dir: {docs}", original, flags=re.M)
    text = re.sub(r"^[ \t]+- a2a-kb[ \t]*(?:#.*)?\n", "", text, flags=re.M)
    for key in ("nav", "extra_javascript", "hooks"):
        text = _without_block(text, key)
    return text.rstrip("\n") + "\n\n" + yaml.safe_dump(
        {"nav": captured["nav"], "extra_javascript": captured["extra_javascript"]},
        sort_keys=False)


def plugin_cost(real: Path, runs: int = 3) -> dict[str, Any]:
    mkdocs = _bin("mkdocs")
    with tempfile.TemporaryDirectory(prefix="a2a-kb-bench-mkdocs-") as tmp_name:
        tmp = Path(tmp_name)
        root = copy_project(real, tmp / "project", facts=True)
        original = (root / "mkdocs.yml").read_text("utf-8")
        if re.search(r"^[ \t]+- a2a-kb", original, flags=re.M) is None:
            raise NotReady("mkdocs.yml does not use the a2a-kb plugin")
        capture = tmp / "capture"
        hooked = root / "mkdocs-capture.yml"
        hooked.write_text(_without_block(original, "hooks")
                          + f"\nhooks:\n  - {BENCH / 'capture_hook.py'}\n", "utf-8")
        os.environ["A2A_KB_BENCH_CAPTURE"] = str(capture)
        try:
            _timed([mkdocs, "build", "--strict", "--quiet", "-f", str(hooked),
                    "-d", str(tmp / "site-capture")], root)
        finally:
            del os.environ["A2A_KB_BENCH_CAPTURE"]
        captured = json.loads((capture / "config.json").read_text("utf-8"))
        plain = root / "mkdocs-plain.yml"
        plain.write_text(_plain_config(original, capture / "docs", captured), "utf-8")
        pages = sum(1 for _ in (capture / "docs").rglob("*.md"))
        with_plugin, without = [], []
        for i in range(runs):
            with_plugin.append(_timed([mkdocs, "build", "--strict", "--quiet", "-f",
                                       str(root / "mkdocs.yml"), "-d", str(tmp / f"a{i}")], root))
            without.append(_timed([mkdocs, "build", "--strict", "--quiet", "-f", str(plain),
                                   "-d", str(tmp / f"b{i}")], root))
    return {"plugin": median(with_plugin), "plain": median(without), "pages": pages,
            "plugin_runs": with_plugin, "plain_runs": without}
