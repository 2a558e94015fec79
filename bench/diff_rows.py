"""Row 9: `a2a-kb diff` against `buf breaking`, the same consecutive gRPC pairs, one run.

a2a-kb: one `a2a-kb diff OLD NEW --format json` per pair, every binding the pair has (gRPC,
REST routes, JSON-RPC, prose), each run validating the versions and sources it reads, with
what it reads from each source already in the cache (the compiled descriptors and what the
diff keeps of them, of the JSON schemas and of the facts: an untimed first run puts them
there, as any run after the first finds them). buf: one `buf breaking` per pair on the
two temporary modules diff.oracle builds (rules WIRE, WIRE_JSON and FILE), modules built
beforehand and not timed. Both are timed as child CPU time (user + system), the median of
a few repeats. The diff of every consecutive pair (JSON-only ones too) is reported beside.
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


def _pairs(root: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]], dict[str, tuple[str, str]]]:
    """Every consecutive pair, the gRPC ones, and each gRPC version's .proto (id, text)."""
    from a2a_kb import load
    from a2a_kb.knowledge.check import FactBook
    from a2a_kb.knowledge.diff import sides
    from a2a_kb.sources.cache import Cache

    kb = load(root)
    book = FactBook(kb, Cache(kb.project.cache_dir))
    ordered = [v.id for v in kb.ordered_versions]
    grpc = [v for v in ordered if "grpc" in sides.bindings(kb, v)]
    texts = {v: (sides.bindings(kb, v)["grpc"].id, book.text(sides.bindings(kb, v)["grpc"])) for v in grpc}
    return list(itertools.pairwise(ordered)), list(itertools.pairwise(grpc)), texts


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

    def ours(pairs: list[tuple[str, str]]) -> float:
        return sum(_cpu([kb, "--root", str(root), "diff", a, b, "--format", "json"]) for a, b in pairs)

    ours(grpc)  # compiles (or finds) every descriptor, keeps what the diff reads, warms the bytecode
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
    ours_s = median(ours(grpc) for _ in range(repeats))
    every_s = ours(every)
    return {"a2a_kb_diff_grpc_pairs_s": ours_s, "buf_breaking_s": buf_s, "pairs": len(grpc),
            "a2a_kb_diff_every_pair_s": every_s, "every_pair": len(every)}
