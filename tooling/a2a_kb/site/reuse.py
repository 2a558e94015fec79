"""Page reuse between builds: a page nothing of which changed is not rendered again.

MkDocs turns every page into HTML twice per build: Markdown → HTML (`Page.render`), then
HTML → the theme's page (`main.html`). This plugin, installed only by `a2a-kb build` in
strict mode, keys both steps by content hash and replays what the last build made:

* **render**: key = build fingerprint + the set of files + the page's path + its Markdown
  after every `on_page_markdown` (citation macros expanded). A hit restores the HTML,
  table of contents, title and anchor data that MkDocs' link and anchor checks read, so
  those checks still run over every page. What a render registers with other plugins
  (the Python API page: each heading mkdocstrings renders goes into autorefs' anchor maps
  and mkdocstrings' inventory) is recorded too and registered again on replay, the way
  those plugins register it; a render that changed their state in any other way is never
  recorded.
* **theme**: key = build fingerprint + the navigation (every title and URL, which the
  theme writes into every page) + the page's final HTML, title, metadata and contents.
  A hit swaps in an empty template and hands back the previous site's file, after checking
  that file's hash against the manifest, so a hand-edited or half-written site/ is never
  trusted.
* **search**: Material's search index takes a page's entries from the previous build when
  the page's URL, title, final HTML, contents and search metadata hash the same
  (`RememberedSearchIndex`); search_index.json comes out byte for byte the same.

The build fingerprint covers mkdocs.yml (and the site_url it resolves), the a2a_kb package
(code and templates), the versions of MkDocs, the theme and the Markdown extensions, and any
theme overrides: a change to any of them renders everything. Nothing is recorded until
`PageReuse.commit` is called after a successful build, so a page that warned (and
failed a strict build) is never replayed without its warning.

Why it is long: it is one MkDocs plugin whose hooks (page render, page template, search
index, Jinja bytecode) share a single build fingerprint and sealed store; a hook in another
module would need the plugin's state and could key its cache differently.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import jinja2
from material.plugins.search.plugin import SearchIndex
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, TableOfContents

from ..cache import read_sealed, write_sealed
from ..knowledge.digest import digest, library_versions, tree_digest

log = get_plugin_logger(__name__)

REUSED_TEMPLATE = "a2a-kb-reused-page.html"  # renders nothing; on_post_page supplies the page
_MANIFEST = "manifest.json"
_SEARCH = "search.json"  # each page's search entries, by the hash of what they are made from
_SEARCH_META = ("search", "tags", "title")  # what Material's index reads of a page's metadata
# 2: every file sealed (cache.write_sealed): a damaged one is not replayed;
# 3: a render record holds what the render registered with autorefs and mkdocstrings.
_FORMAT = 3
# Distributions whose code shapes the HTML of a page.
_RENDERERS = ("mkdocs", "mkdocs-material", "mkdocstrings", "mkdocstrings-python", "mkdocs-autorefs",
              "markdown", "pymdown-extensions", "pygments", "jinja2", "griffe",
              "jieba")  # the search index segments Chinese text when jieba is installed


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
        self.search: RememberedSearchIndex | None = None

    # --- build fingerprint ---------------------------------------------------------------

    def on_config(self, config: MkDocsConfig) -> None:
        package = Path(__file__).resolve().parent.parent
        overrides = [Path(d) for d in config.theme.dirs if "site-packages" not in Path(d).parts]
        self.fingerprint = digest(
            str(_FORMAT), sys.version, library_versions(_RENDERERS),
            Path(config.config_file_path or "mkdocs.yml").read_bytes(),
            tree_digest([package, *overrides]),
            repr(sorted(config.plugins)),
            config.site_url or "",  # from $A2A_KB_SITE_URL: every canonical link and the 404 page
        )

    @event_priority(-200)  # after every plugin has added its files
    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> None:
        self.files_key = digest(self.fingerprint, *(f"{f.src_uri}|{f.dest_uri}|{f.url}|{f.inclusion}"
                                                  for f in sorted(files, key=lambda f: f.src_uri)))

    # --- render: Markdown → HTML -----------------------------------------------------------

    @event_priority(-200)  # after every other plugin changed the Markdown
    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> None:
        key = digest(self.files_key, page.file.src_uri, markdown)
        self.render_keys[page.file.src_uri] = key
        record = self._read_record(key)
        # MkDocs calls `page.render` right after this event and offers no hook in between:
        # shadowing the method on this one page is the narrowest way to replay or record it.
        if record is not None:
            page.render = self._replay(page, record, files)  # type: ignore[method-assign]
        else:
            page.render = self._recording(page, key, config)  # type: ignore[method-assign]

    def _replay(self, page: Page, record: dict[str, Any], files: Files) -> Callable[..., None]:
        def render(config: MkDocsConfig, files_: Files) -> None:
            if not _register(config, record.get("registered") or {}):
                Page.render(page, config, files_)  # the plugins it registered with are gone
                self.rendered += 1
                return
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
            after = _shared_state(config)
            added = None if before is None or after is None else _registrations(before, after)
            if added is None:
                return  # the render left traces elsewhere that cannot be replayed
            links = page.links_to_anchors
            self.recorded[key] = {
                "content": page.content,
                "toc": _toc_tree(page.toc),
                "title": page._title_from_render,
                "anchors": sorted(page.present_anchor_ids or ()),
                "links": None if links is None else {f.src_uri: dict(a) for f, a in links.items()},
                "registered": added,
            }
        return render

    # --- theme: HTML → the site's page ------------------------------------------------------

    @event_priority(-200)  # after autorefs and mkdocstrings finished rewriting page content
    def on_env(self, env: jinja2.Environment, /, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        nav = self.nav
        pages = [f.page for f in files.documentation_pages() if f.page is not None]
        tree = _nav_tree(nav.items) if isinstance(nav, Navigation) else None
        site = digest(self.files_key, json.dumps(tree),
                      *(f"{p.file.src_uri}|{p.title}|{p.url}" for p in pages))
        for page in pages:
            key = digest(site, page.file.src_uri, page.content or "", json.dumps(page.meta, sort_keys=True,
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

    # --- search: a page's entries in the search index ----------------------------------------

    @event_priority(100)  # before the search plugin indexes the first page
    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        search = config.plugins.get("material/search")
        index = getattr(search, "search_index", None)
        if search is not None and isinstance(index, SearchIndex) and type(index) is SearchIndex:
            remembered = RememberedSearchIndex(self.fingerprint, self._read_search(), **index.config)
            remembered.entries = index.entries
            search.search_index = remembered
            self.search = remembered

    @event_priority(-200)  # last: no other plugin sees the empty output of a reused page
    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        reused = self.reused.get(page.file.src_uri)
        if reused is not None:
            return reused
        entry = self.manifest.get(page.file.src_uri)
        if entry is not None:
            entry["sha"] = digest(output.encode("utf-8", errors="xmlcharrefreplace"))
        return output

    def _previous_html(self, src_uri: str, dest_uri: str, key: str) -> str | None:
        entry = self.previous.get(src_uri)
        if self.previous_site is None or entry is None or entry.get("key") != key:
            return None
        try:
            data = (self.previous_site / dest_uri).read_bytes()
        except OSError:
            return None
        if digest(data) != entry.get("sha"):
            return None
        return data.decode("utf-8")

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        log.info("%d pages converted from Markdown, %d replayed; %d of %d taken from the previous build",
                 self.rendered, self.replayed, len(self.reused), len(self.manifest))
        if self.search is not None:
            log.info("search: %d pages indexed, %d taken from the previous build",
                     self.search.indexed, self.search.taken)

    # --- the store ---------------------------------------------------------------------------

    def _read_manifest(self) -> dict[str, dict[str, str]]:
        return self._read_pages(_MANIFEST)

    def _read_search(self) -> dict[str, list[dict[str, Any]]]:
        return self._read_pages(_SEARCH)

    def _read_pages(self, name: str) -> dict[str, Any]:
        """The `pages` of a sealed store file of this format; {} when missing or damaged."""
        try:
            found = json.loads(read_sealed(self.store / name) or b"null")
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
        if self.search is not None:
            # Not sorted: the index writes an entry's keys in the order they were made.
            write_sealed(self.store / _SEARCH, json.dumps(
                {"format": _FORMAT, "pages": self.search.kept}).encode("utf-8"))
        complete = {k: v for k, v in self.manifest.items() if "sha" in v}
        write_sealed(self.store / _MANIFEST,
                     json.dumps({"format": _FORMAT, "pages": complete}, sort_keys=True).encode("utf-8"))


class RememberedSearchIndex(SearchIndex):
    """Material's search index, taking a page's entries from the previous build when
    everything the index reads of the page is the same: its URL, title, final HTML, table of
    contents and the metadata it reads (`search`, `tags`, `title`). The entries
    of a page depend on nothing else, and the index keeps pages in build order, so the
    search_index.json written is byte for byte the one a full indexing writes."""

    def __init__(self, fingerprint: str, previous: dict[str, list[dict[str, Any]]], **config: Any) -> None:
        super().__init__(**config)
        self.fingerprint = fingerprint
        self.previous = previous
        self.kept: dict[str, list[dict[str, Any]]] = {}  # key → entries, this build
        self.indexed = 0
        self.taken = 0

    def add_entry_from_context(self, page: Page) -> None:
        meta = {k: page.meta.get(k) for k in _SEARCH_META}  # not "template": reuse swaps it
        key = digest(self.fingerprint, page.url, str(page.title), page.content or "",
                   json.dumps(_toc_tree(page.toc)), json.dumps(meta, sort_keys=True, default=str))
        found = self.previous.get(key)
        if isinstance(found, list) and all(isinstance(e, dict) for e in found):
            self.entries.extend(found)  # nothing changes an entry once it is made
            self.kept[key] = found
            self.taken += 1
            return
        start = len(self.entries)
        super().add_entry_from_context(page)
        # Through JSON, as the index writes them: what is kept reads back the same.
        self.kept[key] = json.loads(json.dumps(self.entries[start:], default=str))
        self.indexed += 1


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


# The maps of autorefs that a page's render fills (mkdocstrings registers each heading it
# renders): identifier → URLs (append-only), and URL → title (first title kept).
_URL_LISTS = ("_primary_url_map", "_secondary_url_map")
_FIRST_WINS = ("_title_map",)


def _shared_state(config: MkDocsConfig) -> dict[str, Any] | None:
    """A copy of the state other plugins share between pages and a render can add to:
    autorefs' anchor maps and mkdocstrings' inventory. None when it cannot be read (then no
    page is recorded)."""
    state: dict[str, Any] = {}
    autorefs = config.plugins.get("autorefs")
    if autorefs is not None:
        for name in (*_URL_LISTS, *_FIRST_WINS, "_abs_url_map"):
            mapping = getattr(autorefs, name, None)
            if not isinstance(mapping, dict):
                return None
            state[name] = {k: list(v) if isinstance(v, list) else v for k, v in mapping.items()}
    docs = config.plugins.get("mkdocstrings")
    if docs is not None:
        handlers = getattr(docs, "_handlers", None)
        if handlers is not None:
            inventory = getattr(handlers, "inventory", None)
            if not isinstance(inventory, dict):
                return None
            state["inventory"] = {name: _item_fields(item) for name, item in inventory.items()}
            state["handlers"] = sorted(h.name for h in handlers.seen_handlers)
    return state


def _item_fields(item: Any) -> list[Any]:
    return [item.name, item.domain, item.role, item.uri, item.priority, item.dispname]


def _registrations(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """What a render added to the shared state, in a form `_register` can apply
    again; None when it did anything else (removed or rewrote an entry, used a handler no
    page had used): such a render is not replayable."""
    if before.keys() != after.keys() or before.get("handlers") != after.get("handlers"):
        return None
    added: dict[str, Any] = {}
    for name in _URL_LISTS:
        old, new = before[name], after[name]
        if not old.keys() <= new.keys() or any(new[k][:len(v)] != v for k, v in old.items()):
            return None
        added[name] = {k: v[len(old.get(k, [])):] for k, v in new.items() if len(v) > len(old.get(k, []))}
    for name in (*_FIRST_WINS, "_abs_url_map", "inventory"):
        old, new = before.get(name), after.get(name)
        if old is None and new is None:
            continue
        if old is None or new is None or any(new.get(k) != v for k, v in old.items()):
            return None
        added[name] = {k: v for k, v in new.items() if k not in old}
    return added


def _register(config: MkDocsConfig, added: dict[str, Any]) -> bool:
    """Apply again what a recorded render registered, the way autorefs' `register_anchor`
    and the inventory's `register` would; False when the plugins are not those it was
    recorded with."""
    autorefs = config.plugins.get("autorefs")
    for name in (*_URL_LISTS, *_FIRST_WINS, "_abs_url_map"):
        if added.get(name) and (autorefs is None or not isinstance(getattr(autorefs, name, None), dict)):
            return False
    inventory = None
    if added.get("inventory"):
        handlers = getattr(config.plugins.get("mkdocstrings"), "_handlers", None)
        inventory = getattr(handlers, "inventory", None)
        if not isinstance(inventory, dict):
            return False
    for name in _URL_LISTS:
        for identifier, urls in added.get(name, {}).items():
            known = getattr(autorefs, name).setdefault(identifier, [])
            known += [u for u in urls if u not in known]
    for name in (*_FIRST_WINS, "_abs_url_map"):
        for k, v in added.get(name, {}).items():
            getattr(autorefs, name).setdefault(k, v)
    if inventory is not None:
        from mkdocstrings import InventoryItem

        for item_name, fields in added["inventory"].items():
            inventory[item_name] = InventoryItem(*fields)
    return True
