"""Facts of a conformance-suite run record (source kind `tck-run`): what a2a-tck's own
runner reported for one SDK build, as `a2a-kb tck` keeps it in `captures/tck/`.

The record is JSON (its shape is `a2a_kb.capture.tck`'s `_record`); each fact carries
the lines of the member it was read from, found by `json_positions`.

- `tck-build:<key>`: the build (package and version), the transports it served, and the
  suite's branch and commit;
- `tck-verdict:<requirement id>`: the suite's level and verdict for the requirement, and its
  verdict on each transport, flat (`{"level": "MUST", "status": "FAIL", "grpc": "FAIL"}`),
  so that a claim can name one transport;
- `tck-test:<test id>`: one test's outcome, its requirement, transport and reason.
"""

from __future__ import annotations

import json
from typing import Any

from ..facts import Fact
from .artifact import Artifact, Draft
from .json_positions import Pointer, locate

# What this module emits is versioned in a2a_kb.extract's registry (VERSIONS): bump it
# there when its facts change.


def extract(artifact: Artifact) -> list[Fact]:
    text = artifact.text
    try:
        record: dict[str, Any] = json.loads(text)
    except ValueError as e:
        raise artifact.fail(f"not JSON: {e}") from e
    if not isinstance(record, dict) or not {"suite", "build", "requirements", "tests"} <= record.keys():
        raise artifact.fail("not a suite run record: it needs suite, build, requirements and tests "
                            "(tip: write it with `a2a-kb tck`)")
    spans = locate(text)

    def at(pointer: Pointer) -> tuple[int, int]:
        return spans.get(pointer, spans[()])

    build, suite = record["build"], record["suite"]
    drafts = [Draft("tck-build", str(build["key"]), {
        "package": build["package"], "version": build["version"], "transports": list(build["transports"]),
        "suite_branch": suite["branch"], "suite_commit": suite["commit"]}, *at(("build",)))]
    for rid, found in record["requirements"].items():
        value = {"level": found["level"], "status": found["status"], **found["transports"]}
        drafts.append(Draft("tck-verdict", rid, value, *at(("requirements", rid))))
    for n, test in enumerate(record["tests"]):
        value = {k: test[k] for k in ("outcome", "requirement", "transport", "reason")}
        if "category" in test:
            value["category"] = test["category"]
        drafts.append(Draft("tck-test", str(test["test"]), value, *at(("tests", n))))
    if len(drafts) == 1:
        raise artifact.fail("the record holds no requirement and no test")
    return artifact.facts(drafts)
