"""One measurement in a fresh process, printed as one JSON object on stdout.

    python bench/stages.py pipeline ROOT   load + validate + check of the KB at ROOT
    python bench/stages.py libyaml ROOT    yaml.load(CSafeLoader) of the same record files

Imports happen before the clock starts (the check's extractors included), so the two
compare the work itself. Times are the process's CPU time (``time.process_time``): the
work is single-threaded, and CPU time is far less disturbed than wall time by whatever
else a shared machine runs; the wall time is reported beside it. The pipeline also
reports the process's peak resident memory (ru_maxrss) and the check's outcome, so the
benchmark can refuse a run in which the check did not pass.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time
from pathlib import Path

import yaml

import a2a_kb.extract.factstore  # noqa: F401 - imported before the clock starts, like the others
from a2a_kb.extract import READERS
from a2a_kb.knowledge.check import check
from a2a_kb.project import Project
from a2a_kb.records.loader import load, record_files
from a2a_kb.records.validate import validate

# The extractors too (the registry imports each on its first use).
for _module, _ in READERS.values():
    importlib.import_module(f"a2a_kb.extract.{_module}")


def _project(root: Path) -> Project:
    return Project(root=root, max_age_days=100_000)


def pipeline(root: Path) -> dict[str, object]:
    project = _project(root)
    clock = time.process_time
    wall = time.perf_counter()
    started = clock()
    loaded = load(project)
    loaded_at = clock()
    kb = validate(project, loaded)
    validated_at = clock()
    result = check(kb)
    done = clock()
    return {
        "wall": time.perf_counter() - wall,
        "load": loaded_at - started,
        "validate": validated_at - loaded_at,
        "check": done - validated_at,
        "total": done - started,
        "claims": len(kb.claims),
        "errors": sum(1 for p in kb.problems if p.severity.value == "error"),
        "summary": result.summary,
        "changed": len(result.changed),
        "ok": result.ok,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def libyaml(root: Path) -> dict[str, object]:
    files = record_files(_project(root))
    wall = time.perf_counter()
    started = time.process_time()
    for path in files:
        yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
    return {"total": time.process_time() - started, "wall": time.perf_counter() - wall,
            "files": len(files)}


MEASURES = {"pipeline": pipeline, "libyaml": libyaml}

if __name__ == "__main__":
    what, where = sys.argv[1], Path(sys.argv[2])
    print(json.dumps(MEASURES[what](where)))
