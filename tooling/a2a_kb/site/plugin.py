"""The MkDocs plugin: generates the data pages from the knowledge base, resolves citation
macros in hand-written pages, and ships the vendored Mermaid, loaded only by the pages that
draw a diagram, so no page needs the network.

MkDocs calls, in order: `on_config` (read the KB once, render every page, expand the nav),
`on_files` (add the generated pages and files), `on_page_markdown` (macros and the
"Sources cited" list of each hand-written page), `on_post_page` and, for the 404 page,
`on_post_template` (the diagram loader on the pages that have a diagram, the search
dialog's name and worker), `on_post_build` (entries for state rows and claims about states
added to the search index, whose documents are then moved out of the file the theme's page
script fetches), `on_serve` (watch the records, the captures and the
measured figures too).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from markupsafe import Markup
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from ..diagnostics import Severity
from ..errors import KBError
from ..knowledge.derived import SITE_REUSE_DIR
from ..project import Project
from . import escape, macros, measurements, page_html, paths, search_entries, vendor
from .data import SiteData, collect
from .generated import GeneratedPages, fingerprint
from .links import Linker
from .pages import nav_children

log = get_plugin_logger(__name__)

THEME_OVERRIDES = str(Path(__file__).resolve().parent.parent / "templates" / "theme")


class KnowledgeBasePluginConfig(Config):
    root = c.Optional(c.Dir(exists=True))  # the project; default: the folder of mkdocs.yml
    mermaid = c.Type(bool, default=True)  # ship the vendored Mermaid (False: no diagrams)


class KnowledgeBasePlugin(BasePlugin[KnowledgeBasePluginConfig]):
    """Adds the pages generated from the knowledge base and resolves citation macros."""

    supports_multiple_instances = False

    def __init__(self) -> None:
        self.data: SiteData | None = None
        self.generated: dict[str, str] = {}
        self.project: Project | None = None
        self.mermaid_path: Path | None = None
        self.expanded: dict[str, str] = {}  # each hand-written page's Markdown, macros resolved

    # --- on_config: read the knowledge base once per build ----------------------------------

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        root = Path(self.config.root or Path(config.config_file_path or ".").parent).resolve()
        self.project = Project.at(root)
        # The theme's templates this project overrides (the colour-scheme toggle), looked up
        # before the theme's own and those of a custom_dir.
        if THEME_OVERRIDES not in config.theme.dirs:
            config.theme.dirs.insert(0, THEME_OVERRIDES)
        try:
            self.data = collect(self.project, store=root / SITE_REUSE_DIR)
        except KBError as e:
            raise PluginError(f"a2a-kb: {e}") from e
        for problem in self.data.kb.problems:
            if problem.severity is Severity.ERROR:
                log.warning("%s", problem.format())
        config_file = Path(config.config_file_path) if config.config_file_path else None
        remembered = GeneratedPages(root / SITE_REUSE_DIR / "generated", fingerprint(config_file))
        self.generated = remembered.generate(self.data, config.use_directory_urls)
        log.info("generated pages: %d families or parts rendered, %d taken from an earlier build",
                 len(remembered.rendered), remembered.kept)
        log.debug("generated pages rendered: %s", ", ".join(remembered.rendered))
        if config.nav is not None:
            config.nav = _expand_nav(config.nav, nav_children(self.data))
        if self.config.mermaid:
            try:
                self.mermaid_path = vendor.require(root)
            except KBError as e:
                raise PluginError(f"a2a-kb: {e}") from e
        return config

    # --- on_files: add what was rendered -----------------------------------------------------

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        for src_uri, content in self.generated.items():
            existing = files.get_file_from_path(src_uri)
            if existing is not None and existing.generated_by is None:
                raise PluginError(
                    f"a2a-kb: {config.docs_dir}/{src_uri} is written by hand, but the plugin "
                    "generates that page from the knowledge base (tip: rename or remove the file)"
                )
            if existing is not None:
                files.remove(existing)
            files.append(File.generated(config, src_uri, content=content))
        if self.mermaid_path is not None:
            files.append(File.generated(config, paths.MERMAID_JS, abs_src_path=str(self.mermaid_path)))
        return files

    # --- on_page_markdown: citation macros -----------------------------------------------------

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if page.file.src_uri in self.generated or self.data is None:
            return markdown  # generated pages link directly and never hold macros
        expanded = self.expand(markdown, page, config)
        self.expanded[page.file.src_uri] = expanded
        return expanded

    def expand(self, markdown: str, page: Page, config: MkDocsConfig) -> str:
        """A hand-written page's Markdown with its macros resolved and its sources listed."""
        assert self.data is not None
        source_text = page.file.content_string
        offset = source_text.count("\n") - markdown.count("\n") if source_text.endswith(markdown) else 0
        resolver = macros.KnowledgeBaseResolver(self.data.kb, self.data.facts, self.data.tables)
        here = Linker(page.file.src_uri, config.use_directory_urls)
        result = macros.expand(markdown, resolver, here, first_line=1 + offset)
        if result.problems:
            where = _display_path(page, config, self.project)
            messages = [p.format(where) for p in result.problems]
            if config.strict:
                raise PluginError("a2a-kb: " + "\n".join(messages))
            for message in messages:
                log.warning("%s", message)
        return result.markdown + macros.sources_cited(self.data.kb, result.cited)

    # --- last touches: Mermaid only on the pages that draw one, a named search dialog ---------

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        return page_html.finish(output, page.url, diagrams=self.mermaid_path is not None)

    def on_post_template(self, output_content: str, /, *, template_name: str, config: MkDocsConfig) -> str:
        # The 404 page is a template, not a page: it gets the same touches (it has no diagram).
        if template_name != "404.html":
            return output_content
        return page_html.finish(output_content, "404.html", diagrams=False)

    # --- on_post_build: the search index's documents, for the worker alone -------------------

    @event_priority(-100)  # after the search plugin has written its index
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        added = [] if self.data is None else search_entries.entries(self.data, config.use_directory_urls)
        put = split_search_index(Path(config.site_dir), added)
        log.info("search: %d entries added for state rows and claims about states", put)

    # --- the theme: its title and metadata blocks escape KB text (see escape.py) ---------------

    def on_env(self, env: Any, /, *, config: MkDocsConfig, files: Files) -> Any:
        env.filters["striptags"] = escape.theme_text
        # Every page is read by now, and the theme treats every page title as HTML: it prints
        # it raw in the navigation and the pager. A title from the nav (the generated pages'
        # own, escaped), from front matter or from the first heading (mkdocs keeps its
        # entities) is marked as HTML, so that the pager's `| e` (its aria-label) does not
        # escape it a second time; a page rendered before its neighbour would otherwise see
        # the neighbour's title as plain text.
        for file in files.documentation_pages():
            page = file.page
            title = page.title if page is not None else None
            if page is not None and isinstance(title, str) and not isinstance(title, Markup):
                page.title = Markup(title)
        return env

    def on_page_context(self, context: Any, /, *, page: Page, config: MkDocsConfig, nav: Any) -> Any:
        escape.theme_meta(page.meta)
        return context

    # --- on_serve: rebuild when a record changes ---------------------------------------------

    def on_serve(
        self, server: LiveReloadServer, /, *, config: MkDocsConfig, builder: Any
    ) -> LiveReloadServer:
        for path in self.watched():
            server.watch(str(path))
        return server

    def watched(self) -> list[Path]:
        """What the pages are made from besides content/ and mkdocs.yml: the records, the
        captures, the measured figures and the page templates."""
        if self.project is None:
            return []
        root = self.project.root
        found = [path for path in (self.project.claims_dir, self.project.sources_dir,
                                   self.project.captures_dir, root / measurements.RELIABILITY_DIR,
                                   root / measurements.BENCH_RESULTS, root / measurements.SITE_QUALITY)
                 if path.exists()]
        return [*found, Path(__file__).resolve().parent.parent / "templates"]


def split_search_index(site: Path, added: list[dict[str, Any]] | None = None) -> int:
    """Leave at `SEARCH_INDEX`, which the theme's page script fetches and parses on the main
    thread of every page, the index's configuration with no documents, and write the whole
    index, with the entries `added` placed under their pages
    ([`placed`][a2a_kb.site.search_entries.placed]), to `SEARCH_DOCUMENTS`, which the site's
    search worker fetches (`kb-search.js`). A site without an index (no search plugin) is
    left as it is. Returns how many of `added` were put in."""
    index_path = site / paths.SEARCH_INDEX
    if not index_path.is_file():
        return 0
    index = json.loads(index_path.read_text("utf-8"))
    index["docs"], put = search_entries.placed(index["docs"], added or [])
    documents = json.dumps(index, ensure_ascii=False, separators=(",", ":"))
    (site / paths.SEARCH_DOCUMENTS).write_text(documents, "utf-8")
    index_path.write_text(json.dumps({"config": index["config"], "docs": []}), "utf-8")
    return put


def _display_path(page: Page, config: MkDocsConfig, project: Project | None) -> str:
    path = Path(page.file.abs_src_path or Path(config.docs_dir) / page.file.src_uri)
    return project.relative(path) if project else str(path)


def _expand_nav(nav: list[Any], children: dict[str, list[dict[str, str]]]) -> list[Any]:
    """Put each version's page under the nav entry of its index (`states/index.md` …)."""
    result: list[Any] = []
    for item in nav:
        if isinstance(item, dict):
            expanded = {}
            for title, value in item.items():
                if isinstance(value, str) and value in children:
                    expanded[title] = [value, *children[value]]
                elif isinstance(value, list):
                    expanded[title] = _expand_nav(value, children)
                else:
                    expanded[title] = value
            result.append(expanded)
        else:
            result.append(item)
    return result
