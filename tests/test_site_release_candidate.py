"""The release candidate on the built site: in the JSON API, the navigation and the diffs,
always between v0.3.0 and v1.0.0, never as latest."""

from __future__ import annotations

import json
import re
from pathlib import Path


def test_the_api_lists_the_candidate_in_order_and_latest_stays_the_release(
    built_site: Path,
) -> None:
    states = json.loads((built_site / "api" / "v1" / "states.json").read_text("utf-8"))
    order = [v["version"] for v in states["versions"]]
    assert order.index("0.3.0") + 1 == order.index("1.0.0-rc") == order.index("1.0.0") - 1
    assert states["latest"] == "1.0.1"
    candidate = next(v for v in states["versions"] if v["version"] == "1.0.0-rc")
    assert len(candidate["states"]) == 9
    diffs = json.loads((built_site / "api" / "v1" / "diffs.json").read_text("utf-8"))
    pairs = [(d["old_version"], d["new_version"]) for d in diffs["diffs"]]
    # through the candidate, and from release to release beside it
    assert [p for p in pairs if "1.0.0-rc" in p or p == ("0.3.0", "1.0.0")] == [
        ("0.3.0", "1.0.0-rc"), ("0.3.0", "1.0.0"), ("1.0.0-rc", "1.0.0")]
    field = next(c for d in diffs["diffs"] if d["old_version"] == "1.0.0-rc"
                 for c in d["changes"] if c["subject"] == "TaskStatusUpdateEvent.metadata")
    assert (field["old"], field["new"], field["severity"]) == (5, 4, "wire-breaking")


def test_the_candidate_has_its_pages_and_sits_between_its_neighbours_in_the_nav(
    built_site: Path,
) -> None:
    for page in ("states/1.0.0-rc/index.html", "versions/1.0.0-rc/index.html",
                 "versions/1.0.0-rc-to-1.0.0/index.html", "versions/0.3.0-to-1.0.0/index.html"):
        assert (built_site / page).is_file(), page
    html = (built_site / "versions" / "index.html").read_text("utf-8")
    navigation = html[: html.index("md-content")]
    titles = re.findall(r'class="md-nav__link[^"]*"[^>]*>\s*<span class="md-ellipsis">\s*'
                        r'(v[0-9][^<]*?)\s*</span>', navigation)
    # the State tables and Versions sections, newest first
    assert titles[:5] == ["v1.0.1", "v1.0.0", "v1.0.0-rc", "v0.3.0", "v0.2.6"]
