"""Hostile text in every free-text field of every kind of record, through the whole site.

A copy of the real knowledge base gets, in every field a person may write freely (claims,
sources, versions, conflicts and the captures' metadata), a value made of a marker that
names the field and a random mix of known ways into a page: tags that close ``<title>`` or
``<script>``, event handlers, ``javascript:`` links in HTML and Markdown, entities that a
careless filter turns back into markup, Markdown attribute lists, Mermaid directives and
citation macros. The site is built, served on 127.0.0.1 and every page is opened in
Chromium, and the search box is used on the markers. Whatever the mix:

* no script runs (no dialog opens: every payload calls ``alert``);
* no element carries an event-handler attribute, no link or frame a ``javascript:`` URL,
  and no inline script holds a payload;
* ``<title>`` holds text only, and every marker that reaches a page shows as text.

Every field must show on at least one page. The figures (inputs, fields, pages, script
executions, live ``javascript:`` links) go to the Reliability page. A2A_KB_SITE_FUZZ_SEED
picks another mix.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from a2a_kb.project import Project
from a2a_kb.site.build import build_into
from a2a_kb.site.vendor import vendor_dir
from conftest import REPO, record_reliability, require_browser, serve_directory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SEED = int(os.environ.get("A2A_KB_SITE_FUZZ_SEED", "16"))

# Ways into a page; {n} becomes a number unique to each use, so a dialog names its origin.
FRAGMENTS = [
    "</title><img src=x onerror=alert({n})>",
    '"><svg onload=alert({n})>',
    "'><svg/onload=alert({n})>",
    "<script>alert({n})</script>",
    "</script><script>alert({n})</script>",
    "[x](javascript:alert({n}))",
    "[y](javascript&#58;alert({n}))",
    '<a href="javascript:alert({n})">a</a>',
    "&lt;img src=x onerror=alert({n})&gt;",
    "&#x3C;img src=x onerror=alert({n})&#x3E;",
    "{{: onclick=alert({n}) }}",
    "`<img src=x onerror=alert({n})>`",
    "<!-- ",
    " -->",
    '%%{{init: {{"securityLevel": "loose"}}}}%% click x call alert({n})',
    '<iframe srcdoc="<script>alert({n})</script>">',
    "<details open ontoggle=alert({n})>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert({n})>",
    "{{{{claim <img src=x onerror=alert({n})>}}}}",
    "<body onload=alert({n})>",
    "\\u003cscript\\u003ealert({n})\\u003c/script\\u003e",
    "<img src=x onerror=alert({n})//",
    "<svg><a xlink:href=javascript:alert({n})><text y=20>t</text></a></svg>",
    "<form action=javascript:alert({n})><button>go</button></form>",
    "<base href=javascript:alert({n})//>",
    "<meta http-equiv=refresh content='0;url=javascript:alert({n})'>",
]


@dataclass(frozen=True)
class Field:
    kind: str  # claim, conflict, source, version, capture
    name: str
    limit: int  # the schema's maxLength (or what the format allows)
    spaces: bool = True  # whether the value may hold spaces


FIELDS = [
    Field("claim", "statement", 2000), Field("claim", "subject", 120), Field("claim", "locator", 200),
    Field("claim", "quote", 300), Field("claim", "note", 2000), Field("claim", "source", 470, spaces=False),
    Field("claim", "sdk-subject", 115, spaces=False),
    Field("conflict", "title", 200), Field("conflict", "question", 500), Field("conflict", "position", 1000),
    Field("conflict", "advice", 2000),
    Field("source", "title", 300), Field("source", "notes", 2000), Field("source", "url", 470, spaces=False),
    Field("version", "title", 120), Field("version", "notes", 2000),
    Field("capture", "scenario", 300), Field("capture", "source-title", 300),
]


class Payloads:
    """Values for the fields: a marker naming the field and the instance, then fragments in
    a seeded random order, as many as the field's limit takes. Each field gets instances
    (several claims, sources, versions…) until every fragment has been in it at least once."""

    MAX_INSTANCES = 13  # there are 13 versions and 10 captures to carry them

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.count = 0  # fragments used: each one is a hostile input
        self.next_alert = 1000
        self.uncovered: list[str] = []  # fields some fragment never reached

    def values(self, index: int, spec: Field, at_most: int = MAX_INSTANCES) -> list[str]:
        order = self.random.sample(FRAGMENTS, len(FRAGMENTS))
        unused, found, position = set(range(len(order))), [], 0
        while unused and len(found) < at_most:
            text = marker_of(index, len(found))
            for _ in range(len(order)):
                piece = order[position % len(order)].format(n=self.next_alert)
                if not spec.spaces:
                    piece = piece.replace(" ", "/")
                if len(text) + 1 + len(piece) > spec.limit:
                    break
                text += (" " if spec.spaces else "") + piece
                unused.discard(position % len(order))
                position += 1
                self.next_alert += 1
                self.count += 1
            found.append(text)
        if unused:
            self.uncovered.append(f"{spec.kind}.{spec.name}")
        return found


def marker_of(field_index: int, instance: int = 0) -> str:
    return f"kbf{field_index:02d}{instance:02d}x"


def _dump(path: Path, key: str, records: list[dict[str, Any]]) -> None:
    path.write_text(yaml.safe_dump({key: records}, sort_keys=False), "utf-8")


def _hostile_kb(dest: Path, payloads: Payloads) -> dict[str, Field]:
    """The real KB under ``dest`` with every field of FIELDS hostile; marker → field."""
    shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")
    shutil.copy2(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    for folder in ("claims", "captures", "content"):
        shutil.copytree(REPO / folder, dest / folder)
    shutil.copytree(REPO / "sources", dest / "sources", ignore=shutil.ignore_patterns("cache"))
    values = {f"{spec.kind}.{spec.name}": payloads.values(i, spec) for i, spec in enumerate(FIELDS)}
    markers = {marker_of(i, j): spec for i, spec in enumerate(FIELDS)
               for j in range(len(values[f"{spec.kind}.{spec.name}"]))}

    def v(key: str, j: int) -> str:
        found = values[key]
        return found[j % len(found)]

    count = max(len(values[k]) for k in values if k.startswith(("claim.", "conflict.", "source.")))
    claims, conflicts, sources = [], [], []
    for j in range(count):
        conflict = f"D{900 + j}"
        sdk = v("claim.sdk-subject", j)
        claims += [
            {"id": f"fuzz-hostile-{j}", "statement": v("claim.statement", j),
             "subject": v("claim.subject", j),
             "versions": ["1.0.1"], "source": "https://example.com/kb?q=" + v("claim.source", j),
             "locator": v("claim.locator", j), "quote": v("claim.quote", j), "note": v("claim.note", j),
             "conflicts": [conflict], "verdict": "unverifiable"},
            {"id": f"fuzz-hostile-sdk-{j}", "statement": "A behaviour whose name is hostile text.",
             "versions": ["1.0.1"], "subject": f"sdk:{sdk[:len(sdk) // 2]}/{sdk[len(sdk) // 2:]}",
             "source": f"fuzz-hostile-page-{j}", "conflicts": [], "verdict": "unverifiable"},
        ]
        conflicts.append({"id": conflict, "title": v("conflict.title", j),
                          "question": v("conflict.question", j),
                          "status": "open", "advice": v("conflict.advice", j),
                          "sides": [{"position": v("conflict.position", j), "claims": [f"fuzz-hostile-{j}"]},
                                    {"position": "The other side.", "claims": ["fuzz-hostile-side"]}]})
        sources.append({"id": f"fuzz-hostile-page-{j}", "kind": "web", "authority": "secondary",
                        "title": v("source.title", j),
                        "url": "https://example.com/page?q=" + v("source.url", j),
                        "versions": ["1.0.1"], "retrieved": "2026-11-01", "notes": v("source.notes", j)})
    claims.append({"id": "fuzz-hostile-side", "statement": "The other side of every hostile conflict.",
                   "versions": ["1.0.1"], "source": "fuzz-hostile-page-0",
                   "conflicts": [c["id"] for c in conflicts], "verdict": "unverifiable"})
    _dump(dest / "claims" / "fuzz-hostile.yaml", "claims", claims)
    register = yaml.safe_load((dest / "claims" / "conflicts.yaml").read_text("utf-8"))
    _dump(dest / "claims" / "conflicts.yaml", "conflicts", register["conflicts"] + conflicts)
    _dump(dest / "sources" / "fuzz-hostile.yaml", "sources", sources)
    versions = yaml.safe_load((dest / "sources" / "versions.yaml").read_text("utf-8"))["versions"]
    for j, version in enumerate(versions):
        version["title"], version["notes"] = v("version.title", j), v("version.notes", j)
    _dump(dest / "sources" / "versions.yaml", "versions", versions)
    transcripts = sorted((dest / "captures").glob("*/*.http"))
    for j, transcript in enumerate(transcripts):
        scenario = "# scenario: " + v("capture.scenario", j).replace("\n", " ")
        text = transcript.read_text("utf-8").splitlines(keepends=True)
        text = [scenario + "\n" if line.startswith("# scenario: ") else line for line in text]
        transcript.write_text("".join(text), "utf-8")
    registry = yaml.safe_load((dest / "sources" / "captures.yaml").read_text("utf-8"))["sources"]
    for j, source in enumerate(s for s in registry if s["kind"] == "capture"):
        source["title"] = v("capture.source-title", j)
    _dump(dest / "sources" / "captures.yaml", "sources", registry)
    return markers


@dataclass
class Findings:
    pages: int = 0
    dialogs: list[str] = field(default_factory=list)
    handlers: list[str] = field(default_factory=list)
    js_links: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    pager: list[str] = field(default_factory=list)  # labels that differ from what they label
    shown: dict[str, set[str]] = field(default_factory=dict)  # marker → pages showing it
    searched: int = 0


INSPECT = """() => ({
  handlers: [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
      .filter(a => /^on/i.test(a.name)).map(a => el.tagName + ' ' + a.name)),
  links: [...document.querySelectorAll('[href],[src],[action],[formaction],[xlink\\\\:href],[data]')]
      .flatMap(el => ['href', 'src', 'action', 'formaction', 'xlink:href', 'data']
          .map(n => el.getAttribute(n)).filter(Boolean))
      .filter(u => /^\\s*(javascript|vbscript|data:text\\/html)/i.test(u.replace(/[\\u0000-\\u0020]/g, ''))),
  scripts: [...document.querySelectorAll('script')].filter(s => !s.src && s.type !== 'application/json')
      .map(s => s.textContent).filter(t => /alert\\(/.test(t)),
  title: document.title,
  titleChildren: (document.querySelector('head title') || {children: []}).children.length,
  text: document.body ? document.body.innerText : '',
  // The pager's label must say what its link shows: a label escaped once more than the
  // text reads "&lt;" where the reader sees "<".
  pager: [...document.querySelectorAll('a.md-footer__link')].map(a => [a.getAttribute('aria-label'),
      a.querySelector('.md-footer__direction').textContent.trim() + ': ' +
      a.querySelector('.md-ellipsis').textContent.trim()]).filter(([label, shown]) => label !== shown),
})"""


Built = tuple[str, Path, dict[str, Field], int]  # base URL, site folder, marker → field, inputs


@pytest.fixture(scope="module")
def fuzzed_site(real_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    require_browser()
    base = tmp_path_factory.mktemp("site-fuzz")
    payloads = Payloads(SEED)
    (base / "kb").mkdir()
    markers = _hostile_kb(base / "kb", payloads)
    assert not payloads.uncovered, f"fields that did not get every fragment: {payloads.uncovered}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("A2A_KB_CACHE", str(real_cache))
        mp.setenv("A2A_KB_VENDOR", str(vendor_dir(REPO)))
        build_into(Project.at(base / "kb"), base / "site", strict=False, quiet=True)
    yield serve_directory(base / "site"), base / "site", markers, payloads.count


def test_hostile_text_in_every_field_stays_text(chromium: Any, fuzzed_site: Built) -> None:
    url, site, markers, inputs = fuzzed_site
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if "assets" not in p.parts and p.name != "404.html")
    found = Findings()
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("dialog", lambda d: (found.dialogs.append(f"{page.url}: {d.message}"), d.dismiss()))
    try:
        for path in pages:
            address = url + (path.removesuffix("index.html"))
            page.goto(address, wait_until="load")
            page.wait_for_timeout(50)
            seen = page.evaluate(INSPECT)
            found.pages += 1
            found.handlers += [f"{path}: {h}" for h in seen["handlers"]]
            found.js_links += [f"{path}: {u}" for u in seen["links"]]
            found.scripts += [f"{path}: {s[:80]}" for s in seen["scripts"]]
            found.pager += [f"{path}: {label!r} for {shown!r}" for label, shown in seen["pager"]]
            if seen["titleChildren"]:  # <title> is text only; markup in it was parsed as such
                found.titles.append(f"{path}: {seen['title']}")
            for marker in markers:
                if marker in seen["text"] or marker in seen["title"]:
                    found.shown.setdefault(marker, set()).add(path)
        # The search box, on the first marker of each field (its instances carry the same
        # fragments): Material renders the results from the search index.
        page.goto(url, wait_until="load")
        for marker in sorted({marker_of(i) for i in range(len(FIELDS))}):
            page.goto(f"{url}?q={marker}", wait_until="load")
            page.wait_for_timeout(150)
            seen = page.evaluate(INSPECT)
            found.searched += 1
            found.handlers += [f"search {marker}: {h}" for h in seen["handlers"]]
            found.js_links += [f"search {marker}: {u}" for u in seen["links"]]
    finally:
        context.close()
    # A field no page shows must at least be served, verbatim, by the JSON API.
    api = "\n".join(p.read_text("utf-8") for p in (site / "api").rglob("*.json"))
    pages_of: dict[str, set[str]] = {f"{s.kind}.{s.name}": set() for s in FIELDS}
    in_api: set[str] = set()
    for marker, spec in markers.items():
        pages_of[f"{spec.kind}.{spec.name}"] |= found.shown.get(marker, set())
        if marker in api:
            in_api.add(f"{spec.kind}.{spec.name}")
    json_only = sorted(k for k, shown in pages_of.items() if not shown and k in in_api)
    missing = sorted(k for k, shown in pages_of.items() if not shown and k not in in_api)
    figures = {"hostile inputs": inputs, "fields": len(FIELDS), "field instances": len(markers),
               "pages opened": found.pages,
               "searches": found.searched, "script executions": len(found.dialogs),
               "live javascript: links": len(found.js_links), "event-handler attributes": len(found.handlers),
               "fields in the JSON API only": len(json_only), "fields shown nowhere": len(missing)}
    failures = (len(found.dialogs) + len(found.js_links) + len(found.handlers) + len(found.scripts)
                + len(found.titles) + len(found.pager) + len(missing))
    record_reliability({"site_fuzz": figures, "site_fuzz_failures": failures,
                        "site_fuzz_pages_per_field": {k: len(v) for k, v in sorted(pages_of.items())}})
    assert not found.dialogs, found.dialogs[:20]
    assert not found.js_links, found.js_links[:20]
    assert not found.handlers, found.handlers[:20]
    assert not found.scripts, found.scripts[:20]
    assert not found.titles, found.titles[:20]
    assert not found.pager, found.pager[:20]
    assert not missing, f"fields shown nowhere: {missing}"
    assert found.pages >= 50


def test_the_themes_striptags_gives_escaped_text() -> None:
    """What `<title>` got: Jinja's striptags decoded the escaped title back into markup."""
    import jinja2

    from a2a_kb.site import escape

    title = escape.html("v1.0.1 </title><img src=x onerror=alert(1)>")
    raw = jinja2.Environment().from_string("<title>{{ t | striptags }}</title>").render(t=title)
    assert "<img" in raw  # the defect, as the theme had it
    env = jinja2.Environment()
    env.filters["striptags"] = escape.theme_text
    safe = env.from_string("<title>{{ t | striptags }}</title>").render(t=title)
    assert safe == "<title>v1.0.1 &lt;/title&gt;&lt;img src=x onerror=alert(1)&gt;</title>"
    meta = {"title": "<b>x</b>", "description": '"><script>', "hide": ["toc"]}
    escape.theme_meta(meta)
    assert meta == {"title": "&lt;b&gt;x&lt;/b&gt;", "description": "&#34;&gt;&lt;script&gt;",
                    "hide": ["toc"]}
