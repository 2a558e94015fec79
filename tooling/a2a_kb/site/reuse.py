"""Page reuse between builds: a page nothing of which changed is not rendered again.

MkDocs turns every page into HTML twice per build: Markdown → HTML (``Page.render``), then
HTML → the theme's page (``main.html``). This plugin, installed only by ``a2a-kb build`` in
strict mode, keys both steps by content hash and replays what the last build made:

* **render**: key = build fingerprint + the set of files + the page's path + its Markdown
  after every ``on_page_markdown`` (citation macros expanded). A hit restores the HTML,
  table of contents, title and anchor data that MkDocs' link and anchor checks read, so
  those checks still run over every page. A page whose render touched another plugin's
  shared state (mkdocstrings' inventory, autorefs' anchor registry — the Python API page)
  is never recorded: replaying its HTML would not replay those effects.
* **theme**: key = build fingerprint + the navigation (every title and URL, which the
  theme writes into every page) + the page's final HTML, title, metadata and contents.
  A hit swaps in an empty template and hands back the previous site's file, after checking
  that file's hash against the manifest, so a hand-edited or half-written site/ is never
  trusted.

The build fingerprint covers mkdocs.yml (and the site_url it resolves), the a2a_kb package
(code and templates), the versions of MkDocs, the theme and the Markdown extensions, and any
theme overrides: a change to any of them renders everything. Nothing is recorded until
:meth:`PageReuse.commit` is called after a successful build, so a page that warned (and
failed a strict build) is never replayed without its warning.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, TableOfContents

from ..sources.cache import read_sealed, write_sealed

log = get_plugin_logger(__name__)

REUSED_TEMPLATE = "a2a-kb-reused-page.html"  # renders nothing; on_post_page supplies the page
_MANIFEST = "manifest.json"
_FORMAT = 2  # 2: every file sealed (sources.cache.write_sealed): a damaged one is not replayed
# Distributions whose code shapes the HTML of a page.
_RENDERERS = ("mkdocs", "mkdocs-material", "mkdocstrings", "mkdocstrings-python", "mkdocs-autorefs",
              "markdown", "pymdown-extensions", "pygments", "jinja2", "griffe")


def _sha(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _tree_digest(roots: Iterable[Path]) -> str:
    """The hash of every file under ``roots`` (path and bytes), bytecode left out."""
    parts: list[str | bytes] = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            parts += [str(path.relative_to(root)), path.read_bytes()]
    return _sha(*parts)


def _versions() -> str:
    found = []
    for name in _RENDERERS:
        try:
            found.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} absent")
    return ";".join(found)


def _toc_tree(items: Iterable[AnchorLink]) -> list[Any]:
    return [[a.title, a.id, a.level, _toc_tree(a.children)] for a in items]


def _toc_from(tree: list[Any]) -> list[AnchorLink]:
    links = []
    for title, anchor, level, children in tree:
        link = AnchorLink(title, anchor, level)
        link.children = _toc_from(children)
        links.append(link)
    return links


def _nav_tree(items: Iterable[Any]) -> list[Any]:
    tree: list[Any] = []
    for item in items:
        if isinstance(item, Section):
            tree.append(["section", item.title, _nav_tree(item.children)])
        elif isinstance(item, Page):
            tree.append(["page", item.title, item.url, item.file.src_uri])
        else:
            tree.append([type(item).__name__, item.title, getattr(item, "url", None)])
    return tree


class PageReuse(BasePlugin):
    """Replays pages of the previous build whose inputs hash the same (see the module)."""

    def __init__(self, store: Path, previous_site: Path | None) -> None:
        super().__init__()
        self.store = store
        self.previous_site = previous_site
        self.fingerprint = ""
        self.files_key = ""
        self.render_keys: dict[str, str] = {}  # src_uri → render key, this build
        self.recorded: dict[str, dict[str, Any]] = {}  # render key → what render made
        self.manifest: dict[str, dict[str, str]] = {}  # src_uri → {"key", "sha"}, this build
        self.previous: dict[str, dict[str, str]] = self._read_manifest()
        self.reused: dict[str, str] = {}  # src_uri → the previous build's HTML
        self.nav: Navigation | None = None
        self.rendered = 0  # pages converted from Markdown in this build
        self.replayed = 0

    # --- build fingerprint ---------------------------------------------------------------

    def on_config(self, config: MkDocsConfig) -> None:
        package = Path(__file__).resolve().parent.parent
        overrides = [Path(d) for d in config.theme.dirs if "site-packages" not in Path(d).parts]
        self.fingerprint = _sha(
            str(_FORMAT), sys.version, _versions(),
            Path(config.config_file_path or "mkdocs.yml").read_bytes(),
            _tree_digest([package, *overrides]),
            repr(sorted(config.plugins)),
            config.site_url or "",  # from $A2A_KB_SITE_URL: every canonical link and the 404 page
        )

    @event_priority(-200)  # after every plugin has added its files
    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> None:
        self.files_key = _sha(self.fingerprint, *(f"{f.src_uri}|{f.dest_uri}|{f.url}|{f.inclusion}"
                                                  for f in sorted(files, key=lambda f: f.src_uri)))

    # --- render: Markdown → HTML -----------------------------------------------------------

    @event_priority(-200)  # after every other plugin changed the Markdown
    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> None:
        key = _sha(self.files_key, page.file.src_uri, markdown)
        self.render_keys[page.file.src_uri] = key
        record = self._read_record(key)
        # MkDocs calls ``page.render`` right after this event and offers no hook in between:
        # shadowing the method on this one page is the narrowest way to replay or record it.
        if record is not None:
            page.render = self._replay(page, record, files)  # type: ignore[method-assign]
        else:
            page.render = self._recording(page, key, config)  # type: ignore[method-assign]

    def _replay(self, page: Page, record: dict[str, Any], files: Files) -> Callable[..., None]:
        def render(config: MkDocsConfig, files_: Files) -> None:
            page.content = record["content"]
            page.toc = TableOfContents(_toc_from(record["toc"]))
            page._title_from_render = record["title"]
            page.present_anchor_ids = set(record["anchors"])
            links = record["links"]
            if links is not None:
                page.links_to_anchors = {}
                for src_uri, anchors in links.items():
                    target = files.get_file_from_path(src_uri)
                    if target is None:  # cannot happen while the set of files is in the key
                        raise KeyError(src_uri)
                    page.links_to_anchors[target] = dict(anchors)
            self.replayed += 1
        return render

    def _recording(self, page: Page, key: str, config: MkDocsConfig) -> Callable[..., None]:
        def render(config_: MkDocsConfig, files: Files) -> None:
            before = _shared_state(config)
            Page.render(page, config_, files)
            self.rendered += 1
            if before is None or _shared_state(config) != before:
                return  # the render left traces elsewhere: not replayable
            links = page.links_to_anchors
            self.recorded[key] = {
                "content": page.content,
                "toc": _toc_tree(page.toc),
                "title": page._title_from_render,
                "anchors": sorted(page.present_anchor_ids or ()),
                "links": None if links is None else {f.src_uri: dict(a) for f, a in links.items()},
            }
        return render

    # --- theme: HTML → the site's page ------------------------------------------------------

    @event_priority(-200)  # after autorefs and mkdocstrings finished rewriting page content
    def on_env(self, env: jinja2.Environment, /, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        nav = self.nav
        pages = [f.page for f in files.documentation_pages() if f.page is not None]
        site = _sha(self.files_key, json.dumps(_nav_tree(nav.items) if isinstance(nav, Navigation) else None),
                    *(f"{p.file.src_uri}|{p.title}|{p.url}" for p in pages))
        for page in pages:
            key = _sha(site, page.file.src_uri, page.content or "", json.dumps(page.meta, sort_keys=True,
                                                                                default=str),
                       json.dumps(_toc_tree(page.toc)))
            self.manifest[page.file.src_uri] = {"key": key}
            html = self._previous_html(page.file.src_uri, page.file.dest_uri, key)
            if html is not None:
                self.reused[page.file.src_uri] = html
                self.manifest[page.file.src_uri]["sha"] = self.previous[page.file.src_uri]["sha"]
                page.meta["template"] = REUSED_TEMPLATE
        # Compiling the theme's templates is a large share of a small rebuild; Jinja checks
        # each cached compilation against its template's source before using it.
        env.bytecode_cache = SealedBytecodeCache(str(self._folder("jinja")))
        if self.reused:
            env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({REUSED_TEMPLATE: ""}),
                                              env.loader or jinja2.DictLoader({})])
        return env

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> None:
        self.nav = nav

    @event_priority(-200)  # last: no other plugin sees the empty output of a reused page
    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        reused = self.reused.get(page.file.src_uri)
        if reused is not None:
            return reused
        entry = self.manifest.get(page.file.src_uri)
        if entry is not None:
            entry["sha"] = _sha(output.encode("utf-8", errors="xmlcharrefreplace"))
        return output

    def _previous_html(self, src_uri: str, dest_uri: str, key: str) -> str | None:
        entry = self.previous.get(src_uri)
        if self.previous_site is None or entry is None or entry.get("key") != key:
            return None
        try:
            data = (self.previous_site / dest_uri).read_bytes()
        except OSError:
            return None
        if _sha(data) != entry.get("sha"):
            return None
        return data.decode("utf-8")

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        log.info("%d pages converted from Markdown, %d replayed; %d of %d taken from the previous build",
                 self.rendered, self.replayed, len(self.reused), len(self.manifest))

    # --- the store ---------------------------------------------------------------------------

    def _read_manifest(self) -> dict[str, dict[str, str]]:
        try:
            found = json.loads(read_sealed(self.store / _MANIFEST) or b"null")
        except ValueError:
            return {}
        pages = found.get("pages") if isinstance(found, dict) and found.get("format") == _FORMAT else None
        return pages if isinstance(pages, dict) else {}

    def _read_record(self, key: str) -> dict[str, Any] | None:
        try:
            record = json.loads(read_sealed(self.store / "render" / f"{key}.json") or b"null")
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def _folder(self, name: str) -> Path:
        folder = self.store / name
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def commit(self) -> None:
        """Keep what this (successful) build rendered for the next one; drop the rest."""
        folder = self._folder("render")
        for key, record in self.recorded.items():
            write_sealed(folder / f"{key}.json", json.dumps(record).encode("utf-8"))
        keep = {f"{key}.json" for key in self.render_keys.values()}
        for stale in folder.glob("*.json"):
            if stale.name not in keep:
                stale.unlink(missing_ok=True)
        complete = {k: v for k, v in self.manifest.items() if "sha" in v}
        write_sealed(self.store / _MANIFEST,
                     json.dumps({"format": _FORMAT, "pages": complete}, sort_keys=True).encode("utf-8"))


class SealedBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's compiled templates, kept sealed like the rest of the store: Jinja checks that
    a cached compilation belongs to its template's source, but not that its bytes are intact,
    and damaged marshalled code could fail or, worse, run differently."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = read_sealed(Path(self._get_cache_filename(bucket)))
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        write_sealed(Path(self._get_cache_filename(bucket)), bucket.bytecode_to_string())


def _shared_state(config: MkDocsConfig) -> tuple[int, ...] | None:
    """A cheap picture of the state other plugins share between pages, or None when it
    cannot be taken (then no page is recorded)."""
    sizes: list[int] = []
    autorefs = config.plugins.get("autorefs")
    if autorefs is not None:
        for name in ("_primary_url_map", "_secondary_url_map", "_title_map", "_abs_url_map"):
            mapping = getattr(autorefs, name, None)
            if not isinstance(mapping, dict):
                return None
            sizes += [len(mapping), sum(len(v) for v in mapping.values() if isinstance(v, list))]
    docs = config.plugins.get("mkdocstrings")
    if docs is not None:
        handlers = getattr(docs, "_handlers", None)
        if handlers is not None:
            inventory = getattr(handlers, "inventory", None)
            seen = getattr(handlers, "seen_handlers", None)
            if inventory is None or seen is None:
                return None
            sizes += [len(inventory), len(list(seen))]
    return tuple(sizes)
