"""The built site in Debian's Chromium, served from 127.0.0.1.

Two sites are built once per session: the real one (``--strict``), and a copy whose records
carry hostile text (script tags, event handlers, ``javascript:`` links, Mermaid directives,
Markdown tricks) in claims, a conflict, a version title and macro arguments. The first must
work offline and look right (screenshots in test-artifacts/site/); the second must render
all of that as inert text: no dialog, no script run, no navigation.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from a2a_kb.project import Project
from a2a_kb.site.build import build_into
from a2a_kb.site.vendor import vendor_dir
from conftest import REPO, record_reliability, require_browser, serve_directory

pytestmark = pytest.mark.browser

SCREENSHOTS = REPO / "test-artifacts" / "site"
# Material puts each rendered diagram in a closed shadow root; opening it lets the test see
# the SVG. Nothing else about the page changes.
OPEN_SHADOW_ROOTS = """
const attach = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: "open"}); };
"""
GENERATED_TOP = {"index.md", "transitions.md", "conflicts.md", "claims.md", "others.md", "proposals.md",
                 "sources.md", "states/index.md", "versions/index.md", "api/index.md", "reference/python.md",
                 "sdk/index.md", "conformance.md", "quality/reliability.md", "quality/performance.md",
                 "quality/site.md"}


def _nav_without_prose(config: str) -> str:
    """The nav of mkdocs.yml keeping only the entries of generated pages."""
    block = re.search(r"^nav:\n(?:[ -].*\n?)*", config, re.M)
    if block is None:
        return config

    def keep(items: list[Any]) -> list[Any]:
        kept = []
        for item in items:
            if isinstance(item, str):
                if item in GENERATED_TOP:
                    kept.append(item)
                continue
            for title, value in item.items():
                if isinstance(value, str) and value in GENERATED_TOP:
                    kept.append({title: value})
                elif isinstance(value, list) and keep(value):
                    kept.append({title: keep(value)})
        return kept

    nav = keep(yaml.safe_load(block.group(0))["nav"])
    return config.replace(block.group(0), yaml.safe_dump({"nav": nav}, sort_keys=False))


HOSTILE = ('<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) '
           '%%{init: {"securityLevel": "loose"}}%% click submitted call alert(4) {: onclick=alert(5) }')


def _hostile_project(dest: Path) -> Path:
    dest.mkdir(parents=True)
    shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")
    (dest / "mkdocs.yml").write_text(_nav_without_prose((REPO / "mkdocs.yml").read_text("utf-8")), "utf-8")
    shutil.copytree(REPO / "claims", dest / "claims")
    shutil.copytree(REPO / "sources", dest / "sources", ignore=shutil.ignore_patterns("cache"))
    if (REPO / "captures").is_dir():
        shutil.copytree(REPO / "captures", dest / "captures")
    shutil.copytree(REPO / "content" / "assets", dest / "content" / "assets")
    (dest / "content" / "index.md").write_text(
        "# Home\n\nMacro arguments: {{claim <script>alert(20)</script>}} "
        "{{conflict <img src=x onerror=alert(21)>}} {{spec [x](javascript:alert(22))}} "
        "{{proto TaskState\"><svg/onload=alert(23)>}}\n", "utf-8")
    claims = {"claims": [
        {"id": "hostile-statement", "statement": HOSTILE, "versions": ["1.0.1"],
         "subject": "TaskState.completed <img src=x onerror=alert(6)>",
         "source": 'https://example.com/"><script>alert(7)</script>', "conflicts": ["D99"],
         "locator": "<svg onload=alert(8)>", "quote": '<iframe src="javascript:alert(9)">',
         "note": '<a href="javascript:alert(10)">x</a> {: onclick=alert(11) }'},
        {"id": "hostile-second", "statement": "A second side: <b onmouseover=alert(12)>bold</b>",
         "versions": ["1.0.1"], "source": "proto@v1.0.1", "conflicts": ["D99"]},
        # In the SDK matrix: a statement in a cell's title, a departure, a row and a column
        # named by the subject.
        {"id": "hostile-sdk", "statement": HOSTILE, "versions": ["1.0.1"],
         "subject": "sdk:a2a-python/terminal-set", "source": "capture-04-input-required@a2a-sdk-1.3.0",
         "conflicts": ["D99"], "related": ["hostile-second"],
         # verified, so that the matrix marks its departure (only verified claims depart)
         "expect": {"fact": "capture-sdk:04-input-required", "op": "present"}, "verdict": "verified"},
        {"id": "hostile-behaviour", "statement": "A behaviour key that is markup.", "versions": ["1.0.1"],
         "subject": "sdk:<svg/onload=alert(24)>/<img/src=x/onerror=alert(25)>", "source": "proto@v1.0.1",
         "conflicts": []},
    ]}
    conflicts = {"conflicts": [
        {"id": "D99", "title": "<img src=x onerror=alert(13)> {: onclick=alert(14) }",
         "question": "[x](javascript:alert(15)) <script>alert(16)</script>", "status": "open",
         "advice": '<a href="javascript:alert(17)">click</a>',
         "sides": [{"position": '%%{init: {"securityLevel": "loose"}}%% <style>body{display:none}</style>',
                    "claims": ["hostile-statement", "hostile-sdk"]},
                   {"position": "click X call alert(18)", "claims": ["hostile-second"]}]},
    ]}
    (dest / "claims" / "hostile.yaml").write_text(yaml.safe_dump(claims), "utf-8")
    (dest / "claims" / "hostile-conflicts.yaml").write_text(yaml.safe_dump(conflicts), "utf-8")
    versions = dest / "sources" / "versions.yaml"
    text = versions.read_text("utf-8")
    assert "title: v1.0.1\n" in text
    hostile_title = "title: 'v1.0.1 <img src=x onerror=alert(19)>'\n"
    versions.write_text(text.replace("title: v1.0.1\n", hostile_title), "utf-8")
    # What the Reliability and Performance pages read, with markup in names and values.
    figures = dest / "test-artifacts" / "reliability"
    figures.mkdir(parents=True)
    (figures / "hostile.json").write_text(json.dumps({
        "negative_inputs": 3, "<script>alert(26)</script>": "<img src=x onerror=alert(27)>",
        "recorded_at": {"negative_inputs": "<svg onload=alert(28)>"}}), "utf-8")
    (dest / "bench").mkdir()
    (dest / "bench" / "results.json").write_text(json.dumps({
        "machine": {"cpu": "<script>alert(29)</script>", "date": "<img src=x onerror=alert(30)>"},
        "rows": [{"name": "<img src=x onerror=alert(31)>", "ratio": 1, "target": 2, "met": True,
                  "detail": "`<script>alert(32)</script>` [x](javascript:alert(33))"}]}), "utf-8")
    return dest


@pytest.fixture(scope="session")
def sites(real_cache: Path, built_site_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Base URLs of the real site (built once for the session) and of the hostile one."""
    require_browser()
    base = tmp_path_factory.mktemp("browser-sites")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("A2A_KB_CACHE", str(real_cache))
        mp.setenv("A2A_KB_VENDOR", str(vendor_dir(REPO)))
        hostile = _hostile_project(base / "hostile-kb")
        build_into(Project.at(hostile), base / "hostile", strict=False, quiet=True)
    return {"real": built_site_url, "hostile": serve_directory(base / "hostile")}


@pytest.fixture(scope="session")
def browser(chromium: Any, sites: dict[str, str]) -> Any:
    return chromium


class Watched:
    """A page with every console error, dialog, request and navigation recorded."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.context.add_init_script(OPEN_SHADOW_ROOTS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.navigations: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("framenavigated", lambda f: self.navigations.append(f.url))

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, path: str) -> Any:
        self.page.goto(self.base + path, wait_until="networkidle")
        return self.page

    def json(self, path: str) -> Any:
        """A JSON document of the site, fetched without opening it as a page."""
        response = self.context.request.get(self.base + path)
        assert response.ok, path
        return response.json()

    def outside(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(("http://127.0.0.1:", "data:", "blob:"))]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def real(browser: Any, sites: dict[str, str]) -> Iterator[Watched]:
    watched = Watched(browser, sites["real"])
    yield watched
    watched.close()


@pytest.fixture
def hostile(browser: Any, sites: dict[str, str]) -> Iterator[Watched]:
    watched = Watched(browser, sites["hostile"])
    yield watched
    watched.close()


@dataclass
class Checks:
    """The hostile-content checks this module ran, by kind, and how many of them failed,
    for the site's Reliability page."""

    ran: dict[str, int] = field(default_factory=dict)
    failed: int = 0


CHECKS = Checks()


@pytest.fixture(scope="module", autouse=True)
def figures() -> Iterator[None]:
    yield
    if CHECKS.ran:
        record_reliability({"hostile_checks": dict(sorted(CHECKS.ran.items())),
                            "hostile_check_failures": CHECKS.failed})


@contextlib.contextmanager
def checking(kind: str) -> Iterator[None]:
    """Count one hostile-content check of ``kind``, and a failure if it does not hold."""
    CHECKS.ran[kind] = CHECKS.ran.get(kind, 0) + 1
    try:
        yield
    except BaseException:
        CHECKS.failed += 1
        raise


def _shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


# --- the real site --------------------------------------------------------------------------


def test_state_tables_have_the_right_rows(real: Watched) -> None:
    page = real.open("states/1.0.0/")
    assert page.locator("table.kb-states tbody tr").count() == 9
    assert page.locator("table.kb-states tbody tr[data-state='auth-required']").count() == 1
    _shot(page, "states-1.0.0")
    page = real.open("states/0.1.0/")
    assert page.locator("table.kb-states tbody tr").count() == 7
    assert page.locator("table.kb-states tbody tr[data-state='unknown']").count() == 1
    assert page.locator("table.kb-states tbody tr[data-state='auth-required']").count() == 0
    _shot(page, "states-0.1.0")
    assert not real.errors and not real.outside()


def test_conflict_link_lands_on_its_anchor(real: Watched) -> None:
    page = real.open("claims/state-set/")
    link = page.locator("article.kb-claim a[href$='conflicts/#d1']").first
    link.click()
    page.wait_for_url(re.compile(r"/conflicts/#d1$"))
    heading = page.locator("h2#d1")
    assert heading.is_visible()
    box = heading.bounding_box()
    assert box is not None and 0 <= box["y"] < 400, "the conflict's heading is scrolled into view"
    _shot(page, "conflicts")
    assert not real.errors


# Material shows "Back to top" fixed near the top of the window while a page scrolls up; a
# link's target (a heading, a claim) must stop below it, at either width. The page is opened
# at the anchor, as a link from elsewhere opens it, and the button shown where it would be.
@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize(("path", "anchor"), [("conflicts/", "d3"), ("claims/state-set/", "")])
def test_back_to_top_covers_no_anchor_target(browser: Any, sites: dict[str, str], width: int,
                                             path: str, anchor: str) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        if not anchor:  # a claim, halfway down its page
            page.goto(sites["real"] + path, wait_until="networkidle")
            claims = page.locator("article.kb-claim[id]")
            anchor = claims.nth(claims.count() // 2).get_attribute("id") or ""
        page.goto(f"{sites['real']}{path}#{anchor}", wait_until="networkidle")
        page.wait_for_function(  # landed: in view, and still for two frames
            """id => new Promise(done => {
                 const top = () => document.getElementById(id).getBoundingClientRect().top;
                 const a = top(); requestAnimationFrame(() => requestAnimationFrame(() =>
                   done(a === top() && a >= 0 && a < innerHeight))); })""", arg=anchor, timeout=10_000)
        button = page.locator(".md-top")
        button.evaluate("b => { b.hidden = false; }")  # as scrolling up shows it
        target = page.locator(f"[id='{anchor}']").bounding_box()
        cover = button.bounding_box()
        assert target is not None and cover is not None and cover["height"] > 0
        assert target["y"] >= cover["y"] + cover["height"], (
            f"{path}#{anchor} at {width} px: its top is at {target['y']:.0f} px, under the button "
            f"({cover['y']:.0f} to {cover['y'] + cover['height']:.0f} px)")
    finally:
        context.close()


def test_diff_page_shows_its_changes(real: Watched) -> None:
    diffs = real.json("api/v1/diffs.json")
    expected = next(d for d in diffs["diffs"] if d["old_version"] == "0.3.0" and d["new_version"] == "1.0.0")
    page = real.open("versions/0.3.0-to-1.0.0/")
    rows = page.locator("table.kb-diff tbody tr")
    assert rows.count() == len(expected["changes"]) > 0
    # a tab per binding, the first (gRPC) shown; picking JSON-RPC shows its table instead
    grpc = page.locator('.tabbed-block[data-binding="grpc"] table.kb-diff')
    json_rpc = page.locator('.tabbed-block[data-binding="json"] table.kb-diff')
    assert grpc.is_visible() and not json_rpc.is_visible()
    assert "TASK_STATE_CANCELED" in grpc.inner_text() and "ProtoJSON: breaking" in grpc.inner_text()
    # a summary line per encoding above the tabs, and the REST tab named for what it shows
    assert "HTTP+JSON:" in page.locator(".kb-diff-summary").inner_text()
    assert page.locator(".tabbed-labels label", has_text="HTTP+JSON routes").count() == 1
    # the filter narrows every tab to one encoding and grade, and says how many remain
    page.locator("#kb-diff-filter select[name=encoding]").select_option("http")
    page.locator("#kb-diff-filter select[name=level]").select_option("breaking")
    shown = page.locator("table.kb-diff tbody tr:not([hidden])")
    assert 0 < shown.count() < rows.count()
    assert all("http:breaking" in (shown.nth(i).get_attribute("data-grades") or "")
               for i in range(shown.count()))
    # and a reader sees it, on a phone too, where each row is a card (display: block)
    excluded = page.locator('.tabbed-block[data-binding="grpc"] table.kb-diff tbody tr[hidden]').first
    tall = page.evaluate("() => document.documentElement.scrollHeight")
    assert not excluded.is_visible()
    page.set_viewport_size({"width": 390, "height": 844})
    assert not excluded.is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    _shot(page, "diff-0.3.0-to-1.0.0-http-breaking-390")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.locator("#kb-diff-filter select[name=encoding]").select_option("")
    page.locator("#kb-diff-filter select[name=level]").select_option("")
    assert page.evaluate("() => document.documentElement.scrollHeight") > tall
    page.locator(".tabbed-labels label", has_text="JSON-RPC").click()
    assert json_rpc.is_visible() and not grpc.is_visible()
    assert "TASK_STATE_INPUT_REQUIRED" in json_rpc.inner_text()
    _shot(page, "diff-0.3.0-to-1.0.0")
    assert not real.errors


def test_mermaid_renders_as_svg_from_the_local_copy(real: Watched) -> None:
    # A page without a diagram never fetches Mermaid; one with a diagram fetches it from the
    # site, once the diagram comes within a screen of the viewport.
    page = real.open("conflicts/")
    page.mouse.wheel(0, 20000)
    page.wait_for_timeout(300)
    assert page.locator("div.kb-diagram, div.mermaid").count() == 0
    assert not any("mermaid" in u for u in real.requests)
    page = real.open("states/1.0.0/")
    page.locator("#diagram").scroll_into_view_if_needed()
    svg = page.locator("div.mermaid svg").first
    svg.wait_for(state="visible", timeout=15000)
    text = svg.text_content() or ""
    assert "input-required" in text and "completed" in text
    page.locator("#diagram").scroll_into_view_if_needed()
    _shot(page, "diagram-1.0.0")
    assert any(u.endswith("assets/vendor/mermaid.min.js") for u in real.requests)
    assert not real.outside(), real.outside()
    assert not real.errors


# The smallest text of each drawn diagram, in CSS pixels as Chromium lays it out: each
# label's font size times the scale the SVG is drawn at (its width over its viewBox's).
_DIAGRAM_TEXT_PX = """() => [...document.querySelectorAll('div.mermaid svg')].map(svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('.nodeLabel, .edgeLabel, text')]
    .filter(l => l.textContent.trim()).map(l => parseFloat(getComputedStyle(l).fontSize) * scale);
  const rect = svg.getBoundingClientRect();
  return {px: Math.min(...sizes), labels: sizes.length, right: rect.right, scroller:
          !!svg.closest('.kb-diagram-scroll[tabindex="0"]')};
})"""


@pytest.mark.parametrize("width", [390, 1280])
def test_diagram_text_is_at_least_12_px_as_drawn(browser: Any, sites: dict[str, str], width: int) -> None:
    """Every page with a diagram at a phone's width (one of each kind at a desktop's): no
    label is drawn smaller than 12 px (a left-to-right diagram scaled into 358 px drew 7 px),
    and a diagram wider than the page sits in a region a keyboard can scroll."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    pages = ["transitions/", *(f"states/{v}/" for v in _state_versions(context, sites["real"]))]
    if width > 390:  # a desktop's column holds every diagram at full size: one of each kind
        pages = [pages[0], pages[1], pages[-1]]
    try:
        for path in pages:
            page.goto(sites["real"] + path, wait_until="networkidle")
            diagrams = page.locator("div.kb-diagram, div.mermaid")
            assert diagrams.count() >= 1, path
            page.locator("div.kb-diagram, div.mermaid").first.scroll_into_view_if_needed()
            page.wait_for_function("() => !document.querySelector('div.kb-diagram') && "
                                   "[...document.querySelectorAll('div.mermaid svg')].length", timeout=20000)
            drawn = page.evaluate(_DIAGRAM_TEXT_PX)
            print(f"{width} px {path}: {[round(d['px'], 1) for d in drawn]}")
            for d in drawn:
                assert d["labels"] > 3 and d["px"] >= 12, (path, width, d)
                assert d["right"] <= width or d["scroller"], (path, width, d)
        _shot(page, f"diagram-text-{width}")
    finally:
        context.close()
    assert not errors, errors


def _state_versions(context: Any, base: str) -> list[str]:
    states = context.request.get(base + "api/v1/states.json").json()
    return [v["version"] for v in states["versions"]]


def test_search_finds_auth_required_offline(real: Watched) -> None:
    page = real.open("")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    # The search worker builds its index after the page loads; the theme says when it is ready.
    page.wait_for_function("""() => {
        const meta = document.querySelector('.md-search-result__meta');
        return meta && !/initiali[sz]ing/i.test(meta.textContent);
    }""", timeout=20000)
    # The index's documents are fetched, in the search worker, for the first query only.
    documents = [u for u in real.requests if u.endswith("/search/search_index.full.json")]
    assert documents == [], documents
    page.locator("input.md-search__input").press_sequentially("AUTH_REQUIRED", delay=30)
    results = page.locator(".md-search-result__item")
    results.first.wait_for(state="visible", timeout=15000)
    assert results.count() > 0
    documents = [u for u in real.requests if u.endswith("/search/search_index.full.json")]
    assert len(documents) == 1, documents
    assert re.search(r"auth", page.locator(".md-search-result").inner_text(), re.I)
    _shot(page, "search")
    assert not real.outside() and not real.errors


def test_claims_filter_narrows_the_list(real: Watched) -> None:
    claims = real.json("api/v1/claims.json")["claims"]
    page = real.open("claims/")
    entries = page.locator("#kb-claims li[id]")
    total = entries.count()
    assert total == len(claims)
    _shot(page, "claims")
    verdict = "stale" if any(c["verdict"] == "stale" for c in claims) else "unverifiable"
    page.select_option("#kb-claim-filters select[name=verdict]", verdict)
    wanted = sum(c["verdict"] == verdict for c in claims)
    assert 0 < page.locator("#kb-claims li[id]:visible").count() == wanted < total
    assert page.locator("#kb-claim-count").inner_text() == f"{wanted} of {total} claims"
    page.select_option("#kb-claim-filters select[name=verdict]", "")
    page.select_option("#kb-claim-filters select[name=version]", "0.1.0")
    in_v010 = sum("0.1.0" in c["versions"] for c in claims)
    assert page.locator("#kb-claims li[id]:visible").count() == in_v010 < total
    page.select_option("#kb-claim-filters select[name=version]", "")
    page.fill("#kb-claim-filters input[name=text]", "zzzz-no-claim-says-this")
    assert page.locator("#kb-claims li[id]:visible").count() == 0
    assert not real.errors


def test_sdk_matrix_has_its_rows_and_columns_and_cells_land_on_claims(real: Watched) -> None:
    claims = real.json("api/v1/claims.json")["claims"]
    behaviours = {c["subject"].split("/", 1)[1] for c in claims if c["subject"].startswith("sdk:")}
    page = real.open("sdk/")
    rows = page.locator("table.kb-sdk-matrix tbody tr")
    assert rows.count() == len(behaviours - {"sdk-version"}) >= 20
    columns = page.locator("table.kb-sdk-matrix thead th[data-column]").evaluate_all(
        "ths => ths.map(th => th.dataset.column)")
    assert columns == ["0.3.0", "1.0.0-rc", "1.0.0", "1.0.1", "main", "a2a-js", "a2a-python",
                       "a2a-python@0.3", "a2a-dotnet", "a2a-go", "a2a-java", "a2a-rs"]
    departing = page.locator("td.kb-sdk-cell--departs")
    assert departing.count() > 0
    assert all("≠ spec" in text for text in departing.all_inner_texts())
    _shot(page, "sdk-matrix")
    cell = page.locator("tr[data-behaviour='stream-close-interrupted'] td[data-column='a2a-python']")
    cell.locator("a[data-claim='a2a-sdk-130-stream-closes-at-input-required']").click()
    page.wait_for_url(re.compile(r"/claims/#a2a-sdk-130-stream-closes-at-input-required$"))
    entry = page.locator("li#a2a-sdk-130-stream-closes-at-input-required")
    box = entry.bounding_box()
    assert box is not None and 0 <= box["y"] < 400, "the claim is scrolled into view"
    assert not real.errors, real.errors
    assert not real.outside()


def test_capture_page_shows_where_the_stream_closed(real: Watched) -> None:
    page = real.open("sdk/")
    cell = page.locator("tr[data-behaviour='stream-close-interrupted'] td[data-column='a2a-python']")
    cell.locator("a.kb-capture-link", has_text="04").first.click()
    page.wait_for_url(re.compile(r"/sdk/captures/a2a-sdk-1.3.0/04-input-required/#L\d+$"))
    target = page.url.rsplit("#", 1)[1]
    assert page.locator(f"[id='{target}']").is_visible()
    closes = page.locator("li.kb-stream-close")
    assert closes.count() == 2
    first = closes.first.inner_text()
    assert "stream 1 closed by server after event 3 (statusUpdate TASK_STATE_INPUT_REQUIRED)" in first
    line = first.split()[0]  # "L102": the line of the file, which the transcript block carries too
    label = page.locator(f"p.kb-entry-label#{line}").inner_text()
    assert "closed by server after event 3" in label and "stream closed" in label.lower()
    page.goto(real.base + "sdk/captures/a2a-sdk-1.3.0/04-input-required/#stream-close")
    _shot(page, "capture-04-input-required@a2a-sdk-1.3.0")
    page.locator("#facts").scroll_into_view_if_needed()
    _shot(page, "capture-04-facts")
    assert page.locator("table.kb-capture-facts tbody tr").count() >= 5
    assert not real.errors, real.errors
    assert not real.outside()


def test_main_pages_load_without_errors_or_network(real: Watched) -> None:
    for path, name in [("", "home"), ("states/", "states-latest"), ("transitions/", "transitions"),
                       ("versions/", "versions"), ("versions/1.0.0/", "version-1.0.0"),
                       ("sources/", "sources"), ("others/", "others"), ("proposals/", "proposals"),
                       ("api/", "json-api"), ("reference/python/", "python-api"),
                       ("quality/reliability/", "reliability"), ("quality/performance/", "performance")]:
        page = real.open(path)
        assert page.locator("h1").first.is_visible(), path
        _shot(page, name)
    assert not real.errors, real.errors
    assert not real.outside(), real.outside()


def test_python_api_page_is_whole_in_the_browser(real: Watched, sites: dict[str, str]) -> None:
    """Every entry the build wrote is in Chromium's DOM, and so are the footer and the
    theme's scripts: no docstring text opens an element that swallows the rest."""
    from a2a_kb.site.render.reference import PUBLIC_MODULES

    raw = (real.context.request.get(real.base + "reference/python/").text())
    written = len(re.findall(r'class="doc doc-heading"', raw))
    page = real.open("reference/python/")
    assert written > 60
    assert page.locator(".doc-heading").count() == written
    for module, _ in PUBLIC_MODULES:
        assert page.locator(f"[id='{module}']").count() == 1, module
    assert page.locator("footer.md-footer").is_visible()
    assert page.evaluate("() => typeof document$ !== 'undefined'"), "the theme's script did not run"
    assert page.locator("div.md-search[role=dialog]").get_attribute("aria-label") == "Search the site"
    # Placeholders in docstrings read as text.
    assert "<title slug>" in page.locator("article").inner_text()
    assert page.locator("body title, article title").count() == 0
    assert not real.errors, real.errors


_SPHINX_ROLE = re.compile(r":(?:class|func|meth|data|mod|attr|exc|obj|ref|const):`?")


def test_python_api_page_renders_its_docstrings(real: Watched) -> None:
    """What a reader sees of the docstrings, as Chromium lays them out: no Sphinx role or
    reStructuredText left as text, examples in code blocks, the table of fact kinds a
    table, and each cross-reference a link to an element of the page."""
    page = real.open("reference/python/")
    article = page.locator("article")
    # Text outside code: what reads as prose.
    prose = article.evaluate("""a => { const c = a.cloneNode(true);
        c.querySelectorAll('pre, code').forEach(e => e.remove()); return c.innerText; }""")
    assert not _SPHINX_ROLE.search(prose), _SPHINX_ROLE.search(prose)
    for leftover in (">>>", "``", "&lt;", "&gt;", "======", "][a2a_kb"):
        assert leftover not in prose, (leftover, prose[max(0, prose.find(leftover) - 80):][:160])
    # Examples: each ">>>" is in a highlighted code block, none in a paragraph.
    examples = page.locator("article .highlight pre").filter(has_text=">>>")
    assert examples.count() >= 3  # in the documented modules: version_key, canonical_state …
    assert page.locator("article p").filter(has_text=">>>").count() == 0
    # The fact kinds: a table with a row per kind (the registry test reads the same table).
    kinds = page.locator("article table").filter(has_text="enum-values").locator("tbody tr")
    assert kinds.count() >= 60
    assert kinds.first.locator("td").first.inner_text().strip() == "enum-values"
    # Cross-references: links, each to an element that is on the page.
    links = article.locator("a.autorefs-internal").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert len(links) >= 8, links
    for href in links:
        target = href.split("#", 1)[1]
        assert page.locator(f"[id='{target}']").count() == 1, href
    assert not real.errors, real.errors


# --- hostile records -------------------------------------------------------------------------

HOSTILE_PAGES = ["", "claims/", "conflicts/", "others/", "sources/", "states/", "states/1.0.1/",
                 "versions/", "versions/1.0.1/", "transitions/", "sdk/",
                 "sdk/captures/a2a-sdk-1.3.0/04-input-required/",
                 "quality/reliability/", "quality/performance/"]


def test_hostile_text_renders_inert(hostile: Watched) -> None:
    for path in HOSTILE_PAGES:
        page = hostile.open(path)
        page.wait_for_timeout(300)
        with checking("no event-handler attribute"):
            handlers = page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(el =>
                [...el.attributes].filter(a => /^on/i.test(a.name)).map(a => el.tagName + ' ' + a.name))""")
            assert not handlers, (path, handlers)
        with checking("no javascript: or data: link"):
            bad_links = page.evaluate("""() => [...document.querySelectorAll('[href],[src]')]
                .map(el => el.getAttribute('href') || el.getAttribute('src'))
                .filter(u => /^\\s*(javascript|data):/i.test(u))""")
            assert not bad_links, (path, bad_links)
        with checking("no injected inline script"):
            scripts = page.evaluate("""() => [...document.querySelectorAll('script')]
                .filter(s => !s.src && s.type !== 'application/json').map(s => s.textContent)""")
            assert not [s for s in scripts if "alert" in s], (path, scripts)
        with checking("no injected image or frame"):
            assert page.locator("img[src='x'], iframe").count() == 0, path
    with checking("markup shown as text"):
        page = hostile.open("claims/#hostile-statement")
        article = page.locator("li#hostile-statement")
        assert "<script>alert(1)</script>" in article.inner_text()
        assert "%%{init" in article.inner_text()
        article.scroll_into_view_if_needed()
        _shot(page, "hostile-claims")
    with checking("markup shown as text"):
        page = hostile.open("conflicts/#d99")
        assert "<img src=x onerror=alert(13)>" in page.locator("h2#d99").inner_text()
        assert page.locator("body").is_visible()
        _shot(page, "hostile-conflicts")
    with checking("markup shown as text"):
        page = hostile.open("")
        assert "{{claim <script>alert(20)</script>}}" in page.locator("article").inner_text()
    with checking("markup shown as text"):
        page = hostile.open("sdk/")
        row = page.locator("tr[data-behaviour='onload=alert(24)>/<img/src=x/onerror=alert(25)>']")
        assert "<img/src=x/onerror=alert(25)>" in row.inner_text()
        assert page.locator("th[data-column='<svg']").count() == 1
        cell = page.locator("tr[data-behaviour='terminal-set'] td[data-column='a2a-python']")
        assert cell.locator("a[data-claim='hostile-sdk']").get_attribute("title") == HOSTILE
        assert "≠ spec" in cell.inner_text() and "D99" in cell.inner_text()
        _shot(page, "hostile-sdk-matrix")
    with checking("markup shown as text"):
        page = hostile.open("quality/reliability/")
        text = page.locator("article").inner_text()
        assert "<script>alert(26)</script>: <img src=x onerror=alert(27)>" in text
        page = hostile.open("quality/performance/")
        assert "<img src=x onerror=alert(31)>" in page.locator("table.kb-bench").inner_text()
        assert "<script>alert(32)</script>" in page.locator("table.kb-bench code").inner_text()
    with checking("no dialog, navigation or outside request"):
        assert not hostile.dialogs, hostile.dialogs
        assert all(u.startswith(hostile.base) for u in hostile.navigations), hostile.navigations
        assert not hostile.outside(), hostile.outside()


def test_json_api_keeps_hostile_text_verbatim(hostile: Watched) -> None:
    """JSON is data: the statement comes back exactly as recorded, not HTML-escaped."""
    with checking("JSON API keeps text verbatim"):
        claims = {c["id"]: c for c in hostile.json("api/v1/claims.json")["claims"]}
        assert claims["hostile-statement"]["statement"] == HOSTILE
        assert claims["hostile-statement"]["note"].startswith('<a href="javascript:alert(10)">')
        conflicts = {c["id"]: c for c in hostile.json("api/v1/conflicts.json")["conflicts"]}
        assert conflicts["D99"]["title"] == "<img src=x onerror=alert(13)> {: onclick=alert(14) }"
        assert not hostile.dialogs


def test_hostile_links_do_not_navigate(hostile: Watched) -> None:
    with checking("no dialog, navigation or outside request"):
        page = hostile.open("claims/#hostile-statement")
        for link in page.locator("li#hostile-statement a").all():
            href = link.get_attribute("href") or ""
            # Within the site (its anchor, a page beside or above it) or https; no scheme else.
            schemed = re.match(r"[a-z][a-z0-9+.-]*:", href, re.I)
            assert href.startswith(("#", "../", "https://")) or not schemed, href
        page.locator("li#hostile-statement .kb-statement").click()
        page.wait_for_timeout(200)
        assert page.url.startswith(hostile.base + "claims/")
        assert not hostile.dialogs


def test_conformance_matrix_answers_link_to_claims_and_reads_at_1280_and_390(real: Watched) -> None:
    document = real.json("api/v1/conformance.json")
    page = real.open("conformance/")
    page.set_viewport_size({"width": 1280, "height": 900})
    rows = page.locator("table.kb-conformance tbody tr[data-behaviour]")
    assert rows.count() == len(document["rows"]) >= 15
    requirements = page.locator("table.kb-requirements tbody tr[data-requirement]")
    assert requirements.count() == len(document["requirements"]) >= 40
    columns = page.locator("table.kb-conformance thead th[data-column]").evaluate_all(
        "ths => ths.map(th => th.dataset.column)")
    assert columns == [c["key"] for c in document["columns"]]
    assert {"1.0.1", "tck@1.0-dev", "tck@0.3.x", "build@a2a-sdk-1.3.0", "build@a2a-sdk-0.3",
            "build@a2a-js-sdk-1.3.0", "read@a2a-go", "read@a2a-dotnet"} <= set(columns)
    # Every cell shows an answer, not a claim id: the JS SDK's refusal of a message to a
    # finished task reads as the error itself.
    cell = page.locator("tr[data-behaviour='message-to-terminal'] td[data-column='build@a2a-js-sdk-1.3.0']")
    assert "-32004 UnsupportedOperationError" in cell.inner_text()
    suite = page.locator("tr[data-behaviour='message-to-terminal'] td[data-column='tck@1.0-dev']")
    assert "any error" in suite.inner_text()
    # A note nobody can check here never marks a departure; every marked cell says so in words.
    read = page.locator("tr[data-behaviour='message-to-terminal'] td[data-column='read@a2a-python']")
    assert "≠ spec" not in read.inner_text()
    departing = page.locator("td.kb-conf-cell--departs")
    assert departing.count() > 0 and all("≠ spec" in t for t in departing.all_inner_texts())
    # The behaviour column stays in view while the table scrolls sideways.
    wrap = page.locator(".kb-conformance-wrap")
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
    assert page.locator(".kb-scroll-cue").first.is_visible()
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    header = page.locator("tr[data-behaviour='message-to-terminal'] th[scope=row]")
    box, area = header.bounding_box(), wrap.bounding_box()
    assert box is not None and area is not None and abs(box["x"] - area["x"]) < 2
    _shot(page, "conformance-1280")
    wrap.evaluate("w => { w.scrollLeft = 0; }")
    # The answer lands on its claim; the line under it on the capture's line.
    cell.locator("a.kb-answer-text").first.click()
    page.wait_for_url(re.compile(r"/claims/#a2a-js-130-message-to-terminal-unsupported$"))
    page.go_back()
    cell.locator("a.kb-evidence").first.click()
    page.wait_for_url(re.compile(r"/sdk/captures/a2a-js-sdk-1.3.0/11-message-to-completed/#L\d+$"))
    # On a phone each behaviour is a card: no sideways scrolling, every answer under its column's name.
    page = real.open("conformance/")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert not page.locator("table.kb-conformance thead").first.is_visible()
    # the suite's verdict on a requirement, in words with its reason, under the build's name
    verdict = page.locator("tr[data-requirement='CORE-HIST-005'] td[data-title='a2a-sdk 1.3.0']")
    verdict.scroll_into_view_if_needed()  # cards off screen are not rendered (content-visibility)
    verdict.evaluate("td => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert verdict.is_visible() and "fails over" in verdict.inner_text()
    assert "Context in event doesn't match TaskManager" in verdict.inner_text()
    assert "a2a-sdk 1.3.0" in verdict.evaluate("td => getComputedStyle(td, '::before').content")
    assert verdict.bounding_box()["width"] <= 390  # type: ignore[index]
    phone_cell = page.locator("tr[data-behaviour='unknown-task'] td[data-column='build@a2a-sdk-0.3']")
    label = phone_cell.evaluate("td => getComputedStyle(td, '::before').content")
    assert "a2a-sdk 0.3.26" in label
    assert phone_cell.bounding_box()["width"] <= 390  # type: ignore[index]
    _shot(page, "conformance-390")
    assert not real.outside() and not real.errors


# --- tables at a phone's width and a desktop's, and search ----------------------------------

# Every kind of data page, each version's state table (their columns differ), and a few of
# the pages that come one per version, pair or capture.
def _data_pages(versions: list[str], diffs: list[tuple[str, str]]) -> list[str]:
    pages = ["", "states/", "transitions/", "conflicts/", "versions/", "claims/", "sources/", "others/",
             "proposals/", "sdk/", "conformance/", "api/", "quality/reliability/", "quality/performance/",
             "guide/task-states/", "sdk/captures/a2a-sdk-1.3.0/04-input-required/",
             "sdk/captures/a2a-sdk-0.3/05-auth-required/",
             "sdk/captures/a2a-js-sdk-1.3.0/11-message-to-completed/"]
    pages += [f"states/{v}/" for v in versions]
    pages += [f"versions/{v}/" for v in (versions[0], "0.3.0", versions[-1])]
    pages += [f"versions/{a}-to-{b}/" for a, b in diffs]
    return pages


# Each table of the page: is it in a wrap that scrolls, does that wrap stay in the column,
# and when it scrolls, does a cue say so (and the wrap take the keyboard's focus)?
TABLE_PROBLEMS = """() => {
  const problems = [], widths = [];
  const root = document.documentElement, screen = root.clientWidth;
  if (root.scrollWidth > screen + 1)
    problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${screen} px`);
  const article = document.querySelector('article.md-content__inner').getBoundingClientRect();
  // The theme's own wrap of a hand-written page's table reaches into the article's padding.
  const content = document.querySelector('.md-content').getBoundingClientRect();
  for (const table of document.querySelectorAll('article table')) {
    if (!table.getClientRects().length) continue;
    const name = table.className || 'table';
    const wrap = table.closest('.kb-table-wrap, .md-typeset__scrollwrap');
    if (!wrap) {  // a small table inside other content (a claim's checks) need not scroll if it fits
      const own = table.getBoundingClientRect(), holder = table.parentElement.getBoundingClientRect();
      if (own.right > Math.min(holder.right, article.right) + 1)
        problems.push(`${name}: ${Math.round(own.width)} px, out of its column, in no wrap that scrolls`);
      continue;
    }
    const box = wrap.getBoundingClientRect();
    const column = wrap.classList.contains('md-typeset__scrollwrap') ? content : article;
    if (box.left < column.left - 1 || box.right > column.right + 1)
      problems.push(`${name}: its wrap (${box.left}-${box.right}) leaves the column `
                    + `(${column.left}-${column.right})`);
    if (getComputedStyle(wrap).overflowX === 'visible') {  // cards: each must fit the column
      const wide = [...table.querySelectorAll(':scope > tbody > tr')]
        .filter(tr => tr.getBoundingClientRect().right > box.right + 1);
      // A card laid out late has its table's estimate for a height until then (tables.css):
      // one taller than that would spill over the next card for whatever measures it early.
      const tall = [...table.querySelectorAll(':scope > tbody > tr')].filter(tr => {
        const style = getComputedStyle(tr);
        const estimate = parseFloat((style.containIntrinsicBlockSize || '').replace('auto', ''));
        return style.contentVisibility === 'auto' && tr.clientHeight > estimate + 1;  // borders out
      });
      if (tall.length) {
        const first = tall[0].clientHeight;
        problems.push(`${name}: ${tall.length} card(s) taller than the table's estimate `
                      + "(--kb-card-height: tables.css, or sdk_matrix.py for the SDK matrix), "
                      + `the first ${first} px`);
      }
      if (wide.length) {
        const first = Math.round(wide[0].getBoundingClientRect().width);
        problems.push(`${name}: ${wide.length} card(s) wider than the column, the first `
                      + `${first} px in ${Math.round(box.width)} px`);
      }
    }
    const scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
    const cue = wrap.previousElementSibling;
    const cued = !!cue && cue.classList.contains('kb-scroll-cue') && cue.getClientRects().length > 0;
    if (scrolls && !cued)
      problems.push(`${name}: ${wrap.scrollWidth} px in ${wrap.clientWidth} px, and no cue`);
    if (!scrolls && cued) problems.push(`${name}: a cue, but it fits`);
    const region = wrap.getAttribute('tabindex') === '0'
      && /auto|scroll/.test(getComputedStyle(wrap).overflowX);
    if (scrolls && !region)
      problems.push(`${name}: scrolls, but is no focusable scrolling region`);
    const width = Math.round(table.getBoundingClientRect().width);
    widths.push(`${name.split(' ')[0]} ${width}/${wrap.clientWidth}${scrolls ? ' cue' : ''}`);
  }
  return {problems, widths};
}"""

# Every cell of every state table: shown, on the screen, not spilling out of its cell, and
# in a card (no header row shown) labelled with its column's name.
STATE_CELL_PROBLEMS = """() => {
  const problems = [], screen = document.documentElement.clientWidth;
  for (const table of document.querySelectorAll('table.kb-states')) {
    const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
    const cards = !table.querySelector('thead').getClientRects().length;
    for (const row of table.querySelectorAll('tbody tr')) {
      [...row.children].forEach((cell, i) => {
        const where = `${row.dataset.state} / ${heads[i]}`, box = cell.getBoundingClientRect();
        if (box.width < 1 || box.height < 1) problems.push(`${where}: not shown`);
        else if (box.left < -1 || box.right > screen + 1)
          problems.push(`${where}: at ${box.left}-${box.right} px`);
        if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`${where}: spills out of its cell`);
        const label = getComputedStyle(cell, '::before').content;
        if (cards && cell.tagName === 'TD' && label !== JSON.stringify(heads[i]))
          problems.push(`${where}: labelled ${label} in its card`);
      });
    }
  }
  return problems;
}"""


def _each_view(page: Any) -> Iterator[str]:
    """Open every <details> of the page, then yield once per tab of each tab set shown in
    turn (once if it has none), so that every table is measured while it is visible."""
    page.evaluate("() => document.querySelectorAll('article details').forEach(d => { d.open = true; })")
    labels = page.locator("article .tabbed-labels > label")
    if not labels.count():
        yield ""
        return
    for i in range(labels.count()):
        labels.nth(i).click()
        yield labels.nth(i).inner_text()


def test_tables_fit_their_column_or_say_they_scroll_at_390_and_1280(real: Watched) -> None:
    versions = [v["version"] for v in real.json("api/v1/states.json")["versions"]]
    diffs = [(d["old_version"], d["new_version"]) for d in real.json("api/v1/diffs.json")["diffs"]]
    problems: list[str] = []
    for width in (390, 1280):
        real.page.set_viewport_size({"width": width, "height": 900})
        for path in _data_pages(versions, [*diffs[::4], ("0.3.0", "1.0.0")]):
            page = real.open(path)
            for tab in _each_view(page):
                page.wait_for_timeout(50)  # the ResizeObserver's callback
                found = page.evaluate(TABLE_PROBLEMS)
                problems += [f"{width} px /{path} {tab}: {p}" for p in found["problems"]]
                print(f"{width} px /{path} {tab}: {', '.join(found['widths']) or 'no table'}")
            if path.startswith("states/"):
                problems += [f"{width} px /{path}: {p}" for p in page.evaluate(STATE_CELL_PROBLEMS)]
        if width == 390:
            _shot(real.open("states/1.0.0/"), "states-1.0.0-390")
            # The version × state matrix scrolls on a phone; its versions stay in view.
            page = real.open("states/")
            wrap = page.locator(".kb-table-wrap:has(> table.kb-matrix)")
            wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
            first = page.locator("table.kb-matrix tbody th[scope=row]").first.bounding_box()
            area = wrap.bounding_box()
            assert first is not None and area is not None and abs(first["x"] - area["x"]) < 2
            wrap.evaluate("w => w.scrollIntoView()")
            _shot(page, "states-matrix-390")
    assert not problems, "\n".join(problems)
    assert not real.errors, real.errors


# Every claim of a claims file's page laid out, each against the estimate it carries
# (heights.py), which stands in for it until then: [estimate px, height px, id].
CLAIM_HEIGHTS = """() => {
  const em = parseFloat(getComputedStyle(document.querySelector('article.kb-claim')).fontSize);
  return [...document.querySelectorAll('.kb-claims--full > article.kb-claim')].map(a => {
    a.style.contentVisibility = 'visible';
    const estimate = parseFloat(a.style.getPropertyValue('--kb-claim-height')) * em;
    const style = getComputedStyle(a);
    return [estimate, a.offsetHeight + parseFloat(style.marginTop), a.id];
  });
}"""


def test_each_claim_is_within_its_height_estimate_on_a_phone(real: Watched) -> None:
    """A claim skipped at load stands in with its estimate: one taller than that would lie over
    the next claim for whatever measures it early (the accessibility checker's target sizes),
    one far shorter makes the scroll bar lie. A jump to a claim far down the page lands on it."""
    page = real.open("claims/")
    hrefs = page.eval_on_selector_all(
        "#kb-claims a[href]", "as => [...new Set(as.map(a => a.getAttribute('href').split('#')[0]))]")
    pages = sorted(h for h in hrefs if re.fullmatch(r"[a-z0-9-]+/", h))  # the claims files' pages
    assert len(pages) >= 15, pages
    problems, ratios = [], []
    for width in (360, 390):
        real.page.set_viewport_size({"width": width, "height": 800})
        for href in pages:
            page = real.open("claims/" + href)
            rows = page.evaluate(CLAIM_HEIGHTS)
            assert rows, href
            for estimate, height, claim in rows:
                ratios.append(estimate / height)
                if height > estimate + 1:
                    problems.append(f"{width} px {href}#{claim}: {height:.0f} px, estimated {estimate:.0f}")
                elif estimate > 1.8 * height:
                    problems.append(f"{width} px {href}#{claim}: estimated {estimate:.0f} px "
                                    f"for {height:.0f}")
    ratios.sort()
    print(f"claim height estimates over {len(ratios)} claims at 360 and 390 px: "
          f"{ratios[0]:.2f} to {ratios[-1]:.2f} times the height, median {ratios[len(ratios) // 2]:.2f}")
    assert not problems, "\n".join(problems[:20])
    # A jump to the last claim of the longest page lands on it, once the claims above it
    # that came into view have been laid out and the page has settled.
    real.page.set_viewport_size({"width": 390, "height": 800})
    longest = max(pages, key=lambda h: real.open("claims/" + h).locator("article.kb-claim").count())
    page = real.open("claims/" + longest)
    last = page.locator(".kb-claims--full > article.kb-claim").last.get_attribute("id")
    page = real.open(f"claims/{longest}#{last}")
    page.wait_for_timeout(500)
    box = page.locator(f"article#{last}").bounding_box()
    # near the top, or as near as the page can scroll: the last claim may sit above a footer
    # shorter than the window, and then the page ends before the claim reaches the top
    at_end = page.evaluate("() => scrollY + innerHeight >= document.documentElement.scrollHeight - 2")
    assert box is not None and box["y"] >= -2 and (box["y"] < 200 or at_end), (longest, last, box)
    assert box["y"] + min(box["height"], 200) <= 800, (longest, last, box)  # in view either way
    assert not real.errors, real.errors


def _search(page: Any, query: str) -> list[str]:
    """The addresses of the results the theme lists for ``query``, best first."""
    box = page.locator("input.md-search__input")
    box.fill("")
    box.press("Backspace")  # an empty query empties the list: no result of the last is left
    page.wait_for_function("() => !document.querySelector('.md-search-result__item')", timeout=15000)
    box.press_sequentially(query, delay=20)
    page.wait_for_function("() => document.querySelector('.md-search-result__item')", timeout=15000)
    # Each keystroke starts a query in the search worker, and on a busy machine the list for a
    # prefix ("1.0.0-") can still be on screen when the first item appears: read the list
    # until it has stayed the same for three reads in a row.
    def read() -> list[str]:
        return page.locator(".md-search-result__item > a.md-search-result__link").evaluate_all(
            "as => as.map(a => new URL(a.href).pathname)")

    last, same = read(), 0
    for _ in range(60):
        page.wait_for_timeout(250)
        now = read()
        same = same + 1 if now == last else 0
        last = now
        if same == 3:
            return last
    raise AssertionError(f"the results for {query!r} kept changing for 15 s: {last[:5]}")


def test_search_ranks_versions_and_spellings_above_transcripts(real: Watched) -> None:
    page = real.open("")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.wait_for_function("""() => {
        const meta = document.querySelector('.md-search-result__meta');
        return meta && !/initiali[sz]ing/i.test(meta.textContent);
    }""", timeout=20000)
    base = urlsplit(real.base).path
    found: dict[str, list[str]] = {}
    queries = ("0.3.0", "v0.3.0", "1.0.0-rc", "AUTH_REQUIRED", "auth-required", "TASK_STATE_AUTH_REQUIRED")
    for query in queries:
        found[query] = [p[len(base):] if p.startswith(base) else p for p in _search(page, query)]
        print(f"search {query!r}: {found[query][:6]}")
    # A version string: its state table and its page first, whether written with a v or not.
    for query in ("0.3.0", "v0.3.0"):
        assert set(found[query][:2]) == {"states/0.3.0/", "versions/0.3.0/"}, found[query][:5]
    assert set(found["1.0.0-rc"][:2]) == {"states/1.0.0-rc/", "versions/1.0.0-rc/"}, found["1.0.0-rc"][:5]
    # A state's spelling, in any of its forms: the state tables before any capture.
    for query in ("AUTH_REQUIRED", "auth-required", "TASK_STATE_AUTH_REQUIRED"):
        results = found[query]
        states = [i for i, p in enumerate(results) if p.startswith("states/")]
        captures = [i for i, p in enumerate(results) if p.startswith("sdk/captures/")]
        assert states and states[0] < 10, (query, results[:12])
        assert not captures or states[0] < captures[0], (query, results[:12])
    assert found["AUTH_REQUIRED"][:5] == found["TASK_STATE_AUTH_REQUIRED"][:5]
    _shot(page, "search-spellings")
    assert not real.outside() and not real.errors


# The theme's own search code (lunr, in the site's worker), given the site's index and asked
# directly: the result groups it hands the page, each a page's entries, best first.
_ASK_THE_WORKER = """async (queries) => {
  const config = JSON.parse(document.querySelector('#__config').textContent);
  const worker = new Worker(config.search);
  const index = await (await fetch('search/search_index.json')).json();
  const next = () => new Promise(ok => worker.addEventListener('message', e => ok(e.data), {once: true}));
  worker.postMessage({type: 0, data: {...index, options: {suggest: false}}});
  await next();
  const answers = {};
  for (const query of queries) {
    worker.postMessage({type: 2, data: query});
    let message;
    do { message = await next(); } while (message.type !== 3);
    answers[query] = message.data.items.slice(0, 5).map(group => group.map(item => ({
      location: item.location, title: item.title, text: item.text})));
  }
  worker.terminate();
  return answers;
}"""


def _plain(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&#39;", "'").replace("&amp;", "&").split())


def _spellings(states: dict[str, Any]) -> dict[str, set[str]]:
    """Every spelling of every state in the site's states API, with the ways a reader
    types a name: as is, in capitals with underscores, and as words (capitalised or not)."""
    found: dict[str, set[str]] = {}
    for version in states["versions"]:
        for row in version["states"]:
            name = row["name"]
            found.setdefault(name, set()).update(
                {name, name.upper().replace("-", "_"), name.replace("-", " "),
                 name.replace("-", " ").capitalize(), *row["spellings"].values()})
    return found


def test_search_puts_each_state_first_in_every_spelling(real: Watched) -> None:
    from a2a_kb.facts import canonical_state

    page = real.open("")
    spellings = _spellings(real.json("api/v1/states.json"))
    claims = {c["id"]: c for c in real.json("api/v1/claims.json")["claims"]}
    about: dict[str, set[str]] = {}
    for c in claims.values():
        head = c["subject"].split("/", 1)[0]
        if head.startswith("TaskState.") and (state := canonical_state(head.removeprefix("TaskState."))):
            about.setdefault(state, set()).add(c["id"])
    form = page.evaluate("() => fetch('claims/').then(r => r.text())")
    controls = _plain(re.search(r'<form class="kb-filters".*?</form>', form, re.S).group(0))[:40]
    queries = sorted({q for qs in spellings.values() for q in qs})
    answers = page.evaluate(_ASK_THE_WORKER, queries)
    assert len(spellings) >= 9 and len(queries) >= 40, (len(spellings), len(queries))
    for state, typed in sorted(spellings.items()):
        for query in sorted(typed):
            groups = answers[query]
            where = [g[0]["location"] for g in groups]
            print(f"search {query!r}: {where[:3]}")
            # First: a state table, at that state's row.
            assert re.fullmatch(rf"states/([^/#]+/)?#state-{state}", where[0]), (query, where)
            # Within the first three: the claims index, led by a claim whose subject is the state.
            if about.get(state):
                led = [g[0]["location"] for g in groups[:3] if g[0]["location"].startswith("claims/#")]
                assert led, (query, where)
                assert led[0].removeprefix("claims/#") in about[state], (query, led)
            # Previews are sentences, never a form's controls run together.
            for group in groups[:3]:
                for item in group[:3]:
                    text = _plain(item["text"])
                    assert controls not in text, (query, item["location"], text[:120])
                    added = re.match(r"(states/([^/#]+/)?#state-|claims/#)", item["location"])
                    if added:  # the entries the build adds: one sentence or more, each ended
                        assert re.search(r"\w.*[.?!]$", text), (query, item["location"], text)
    # What a reader sees: the first result of a search at a phone's width is the state's row.
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("label.md-header__button[for=__search]").click()  # the header's search button
    first = _search(page, "input-required")[0]
    assert urlsplit(first).path.endswith("/states/"), first
    teasers = page.locator(".md-search-result__article > p:not(.md-search-result__terms)").all_inner_texts()
    assert teasers and all(controls not in " ".join(t.split()) for t in teasers)
    _shot(page, "search-state-390")
    assert not real.outside() and not real.errors
