"""The suite's scenarios as JSON, read by the suite's own parser (codegen/, gherkin-official).

Run with the 1.0-dev runner's interpreter from the root of a copy of the suite:

    python scenarios_json.py scenarios/*.feature > scenarios.json

Each scenario keeps its feature file and line, its trigger (unary or streaming, and the
messageId prefix) and its actions in the order the file gives them, each named by the
suite's own model class (CompleteTask, AddArtifact …) with that class's fields. The
JavaScript agent (tooling/npm/a2a-js-sdk/tck-agent.mjs) plays them.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from gherkin.parser import Parser
from gherkin.token_scanner import TokenScanner

sys.path.insert(0, str(Path.cwd()))  # the suite's root: its codegen package
from codegen.parser import parse_feature_file


def _named(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _named(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"kind": type(value).__name__, **fields}
    if isinstance(value, list):
        return [_named(v) for v in value]
    return value


def scenarios(path: Path) -> list[dict[str, object]]:
    document = Parser().parse(TokenScanner(path.read_text(encoding="utf-8")))
    lines = [child["scenario"]["location"]["line"]
             for child in document["feature"]["children"] if "scenario" in child]
    found = []
    for line, scenario in zip(lines, parse_feature_file(path), strict=True):
        found.append({"name": scenario.name, "file": path.as_posix(), "line": line,
                      "trigger": _named(scenario.trigger), "actions": _named(scenario.actions)})
    return found


def main(argv: list[str]) -> int:
    print(json.dumps([s for arg in sorted(argv) for s in scenarios(Path(arg))], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
