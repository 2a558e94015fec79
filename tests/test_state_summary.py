"""The line atop each state table, which says which states are terminal and which
interrupted, against the states API: every state some source of the version reads as that
class, in table order, each marked disputed exactly when its sources disagree."""

from __future__ import annotations

import json
import re

from a2a_kb.site import paths

SUMMARY = re.compile(r'<p class="kb-class-summary">(.*?)</p>')


def _listed(summary: str, label: str) -> list[tuple[str, bool]]:
    part = summary.split(f"<strong>{label}:</strong>", 1)[1].split("<strong>", 1)[0]
    return [(name, bool(flag)) for name, flag in
            re.findall(r'<a href="#[^"]+">([^<]+)</a>( <span class="kb-flag")?', part)]


def test_each_state_table_opens_with_its_terminal_and_interrupted_states(real_pages: dict[str, str]) -> None:
    api = json.loads(real_pages[paths.api_file("states")])
    checked = 0
    for table in api["versions"]:
        page = real_pages[paths.state_table(table["version"])]
        found = SUMMARY.search(page)
        assert found, f"{table['version']}: no summary line"
        for cls, label in (("terminal", "Terminal"), ("interrupted", "Interrupted")):
            expected = [(s["name"], bool(s["disagreement"])) for s in table["states"]
                        if any(r["class"] == cls for rs in s["readings"].values() for r in rs)]
            assert _listed(found.group(1), label) == expected, (table["version"], cls)
            checked += len(expected)
    assert checked > 50
