"""Row 9: `a2a-kb diff --all` against `buf breaking` on every ordered pair of versions.

a2a-kb: one `a2a-kb diff --all --format json` run, every ordered pair of the KB's versions
(old before new; 14 versions, 91 pairs), every binding each pair has (gRPC, HTTP+JSON
routes, JSON-RPC, prose), validating the versions and sources it reads, with what it reads
from each source already in the cache (an untimed first run puts it there, as any run after
the first finds it). buf: one `buf breaking` per pair that has a .proto on both sides (45 of
the 91: buf reads nothing else) on the two temporary modules diff.oracle builds (rules WIRE,
WIRE_JSON and FILE), modules built beforehand and not timed. Both are timed as child CPU
time (user + system), the median of a few repeats.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

import site_rows


def _pairs(root: Path) -> tuple[int, list[tuple[str, str]], dict[str, tuple[str, str]]]:
    """How many ordered pairs there are, the gRPC ones, and each gRPC version's .proto."""
    from a2a_kb import load
    from a2a_kb.cache import Cache
    from a2a_kb.knowledge.check import FactBook
    from a2a_kb.knowledge.diff import sides

    kb = load(root)
    book = FactBook(kb, Cache(kb.project.cache_dir))
    ordered = [v.id for v in kb.ordered_versions]
    grpc = [v for v in ordered if "grpc" in sides.bindings(kb, v)]
    texts = {v: (sides.bindings(kb, v)["grpc"].id, book.text(sides.bindings(kb, v)["grpc"])) for v in grpc}
    return len(list(itertools.combinations(ordered, 2))), list(itertools.combinations(grpc, 2)), texts


def _cpu(args: list[str], ok: tuple[int, ...] = (0,)) -> float:
    started = site_rows.child_seconds()
    done = subprocess.run(args, capture_output=True, text=True, check=False, env=dict(os.environ))
    if done.returncode not in ok:
        raise RuntimeError(f"{' '.join(args[:4])} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return site_rows.child_seconds() - started


def measure(root: Path, repeats: int) -> dict[str, Any]:
    from a2a_kb.knowledge.diff import oracle

    buf = oracle.buf_path(root)
    if not buf.exists():
        raise RuntimeError(f"buf is not installed at {buf} (run `make buf`)")
    every, grpc, texts = _pairs(root)
    kb = str(Path(sys.executable).with_name("a2a-kb"))

    def ours() -> float:
        return _cpu([kb, "--root", str(root), "diff", "--all", "--format", "json", "--quiet"])

    ours()  # compiles (or finds) every descriptor, keeps what the diff reads, warms the bytecode
    with tempfile.TemporaryDirectory(prefix="a2a-kb-bench-buf-") as tmp:
        modules = []
        for a, b in grpc:
            old_root, new_root = Path(tmp) / f"{a}-{b}" / "old", Path(tmp) / f"{a}-{b}" / "new"
            oracle._module(old_root, texts[a][1])
            oracle._module(new_root, texts[b][1])
            modules.append((old_root, new_root))

        def theirs() -> float:
            return sum(_cpu([str(buf), "breaking", str(new), "--against", str(old), "--error-format", "json"],
                            ok=(0, 100)) for old, new in modules)

        buf_s = median(theirs() for _ in range(repeats))
    ours_s = median(ours() for _ in range(repeats))
    return {"a2a_kb_diff_all_s": ours_s, "buf_breaking_s": buf_s, "pairs": every, "buf_pairs": len(grpc)}
