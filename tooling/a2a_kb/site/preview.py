"""`a2a-kb serve`: the authors' loop. An edited claim is on its page about a second after it is saved.

A full build takes seconds, most of them spent on pages an edit of one record does not
touch. So the preview keeps, from its last full build, what MkDocs made (the configuration
with its plugins, the files, the navigation, the theme's templates) and answers a change to
the record files in two steps:

1. the quick step reads the records again (the files whose bytes did not change are not
   parsed again, see `yamldoc.read`, and verdicts and generated pages are remembered, see
   `GeneratedPages`), renders again only the generated pages whose Markdown changed and the
   hand-written pages whose resolved macros changed, writes them into the served folder and
   reloads the browsers;
2. a full build then runs into a folder beside it and replaces it whole (the search index,
   the sitemap and every other page are then as a cold build makes them). A change that
   arrives meanwhile supersedes it: the build stops at its next page and the new change
   gets its quick step at once.

Any other change (a page in content/, mkdocs.yml, a template, a capture) gets the full build
alone. A record file that no longer reads (broken YAML, a record that fails its schema)
leaves every page as it was; its problems are logged with their file and line.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation

from ..diagnostics import Severity
from ..errors import BuildError, KBError
from ..knowledge.derived import SITE_REUSE_DIR
from ..project import Project
from . import paths
from .pages import FAMILIES

log = logging.getLogger("mkdocs.a2a_kb.preview")


class Superseded(Exception):
    """A newer change arrived while a full build ran: the build is dropped."""


class _Keep(BasePlugin):
    """Keeps what a full build made, for the quick steps after it. A build that a newer
    change supersedes stops before its pages are read, or before they are rendered into the
    theme (MkDocs reports an exception raised inside a page's own steps as an error of that
    page, which this is not)."""

    def __init__(self, superseded: Any) -> None:
        self.superseded = superseded
        self.config: MkDocsConfig | None = None
        self.files: Files | None = None
        self.nav: Navigation | None = None
        self.env: Any = None

    def _check(self) -> None:
        if self.superseded():
            raise Superseded()

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        self._check()
        return files

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> Navigation:
        self.nav = nav
        return nav

    def on_env(self, env: Any, /, *, config: MkDocsConfig, files: Files) -> Any:
        self._check()
        self.config, self.files, self.env = config, files, env
        return env


class Preview:
    """The served folder and what the last full build made."""

    def __init__(self, project: Project, site_url: str) -> None:
        self.project = project
        self.site_url = site_url
        self.root = Path(tempfile.mkdtemp(prefix="a2a-kb-preview-"))
        self.kept: _Keep | None = None
        self.server: Any = None
        self.changed: set[Path] = set()
        self.lock = threading.Lock()

    # --- the full build ------------------------------------------------------------------

    def full(self) -> None:
        """Build everything beside the served folder, then swap it in."""
        from .build import build_into, publish

        keep = _Keep(self._superseded)
        staging = Path(tempfile.mkdtemp(prefix="a2a-kb-preview-next-"))
        started = time.monotonic()
        try:
            build_into(self.project, staging, strict=False, site_url=self.site_url,
                       plugins={"a2a-kb-preview": keep}, log_to_stderr=False)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        staging.chmod(0o755)
        publish(staging, self.root)
        # What the build made now lives in the served folder: a quick step writes there.
        if keep.config is not None and keep.files is not None:
            keep.config.site_dir = str(self.root)
            for file in keep.files:
                file.dest_dir = str(self.root)
                file.__dict__.pop("abs_dest_path", None)  # a cached_property of the old folder
        self.kept = keep
        log.info("full build published in %.1f s", time.monotonic() - started)

    def _superseded(self) -> bool:
        server = self.server
        return bool(server is not None and getattr(server, "_want_rebuild", False))

    # --- the quick step ------------------------------------------------------------------

    def quick(self, changed: set[Path]) -> str:
        """Render again only the pages an edit of the record files changed: "done" when the
        served pages are now current, "kept" when they were left as they were (the edited
        files do not read), "" when only a full build can tell."""
        from .data import collect
        from .generated import GeneratedPages, fingerprint

        kept = self.kept
        if kept is None or kept.config is None or kept.files is None or kept.nav is None:
            return _full_build_needed("no full build to start from")
        records = {self.project.claims_dir.resolve(), self.project.sources_dir.resolve()}
        if not changed or not all(p.resolve().parent in records and p.suffix in (".yaml", ".yml")
                                  for p in changed):
            return _full_build_needed("not only record files changed: %s",
                                      ", ".join(sorted(map(str, changed))) or "none named")
        from .plugin import KnowledgeBasePlugin

        config, files, nav = kept.config, kept.files, kept.nav
        plugin = config.plugins["a2a-kb"]
        if not isinstance(plugin, KnowledgeBasePlugin):
            return _full_build_needed("the plugin is not a2a-kb's")
        started = time.monotonic()
        root = self.project.root
        try:
            data = collect(self.project, store=root / SITE_REUSE_DIR)
        except KBError as e:
            log.error("a2a-kb: %s; the pages stay as they were", e)
            return "kept"
        mine = {self.project.relative(p) for p in changed}
        errors = [p for p in data.kb.problems if p.severity is Severity.ERROR and p.mark.path in mine]
        if errors:
            for problem in errors:
                log.error("%s", problem.format())
            log.error("a2a-kb: %d problem(s) in the edited file(s); the pages stay as they were "
                      "until the file reads again", len(errors))
            return "kept"
        plugin.data = data
        # First the pages of the edited claims files themselves, which the author is looking
        # at: shown before anything else is rendered.
        first: dict[str, str] = {}
        for path in changed:
            if path.resolve().parent == self.project.claims_dir.resolve():
                topic = paths.claim_topic(path.name)
                first.update(FAMILIES["claims-topics"].render(data, topic, config.use_directory_urls))
        if any(uri not in plugin.generated for uri in first):
            return _full_build_needed("a claims file is new")
        early = [uri for uri, content in first.items() if plugin.generated[uri] != content]
        self._render(early, first, plugin, files, config, nav, kept.env)
        if early and self.server is not None:
            self.server.reload()
            log.info("quick step: %s shown in %.2f s", ", ".join(early), time.monotonic() - started)
        config_file = Path(config.config_file_path) if config.config_file_path else None
        generated = GeneratedPages(root / SITE_REUSE_DIR / "generated", fingerprint(config_file))
        pages = generated.generate(data, config.use_directory_urls)
        if set(pages) != set(plugin.generated):
            return _full_build_needed("pages came or went")
        renew = [uri for uri, content in pages.items() if plugin.generated[uri] != content]
        written: list[str] = []
        plugin.generated = pages
        for uri in list(renew):
            file = files.get_file_from_path(uri)
            if file is None:
                return _full_build_needed("a generated file is not in the build")
            file.content_string = pages[uri]
            if file.page is None:  # a data file (the JSON API): written as it is
                file.copy_file()
                renew.remove(uri)
                written.append(uri)
        for uri, before in plugin.expanded.items():  # hand-written pages: their macros
            file = files.get_file_from_path(uri)
            if file is None or file.page is None:
                return _full_build_needed("a hand-written page is not in the build")
            file.page.read_source(config)
            if plugin.expand(file.page.markdown or "", file.page, config) != before:
                renew.append(uri)
        _build_pages(renew, files, config, nav, kept.env)
        renew += early
        log.info("quick step: %d page(s) rendered again and %d data file(s) written in %.2f s (%s)",
                 len(renew), len(written), time.monotonic() - started,
                 ", ".join(renew + written) or "none changed")
        return "done"

    def _render(self, uris: list[str], contents: dict[str, str], plugin: Any, files: Files,
                config: MkDocsConfig, nav: Navigation, env: Any) -> None:
        """Render the generated pages `uris` again from `contents` into the served folder."""
        for uri in uris:
            plugin.generated[uri] = files.src_uris[uri].content_string = contents[uri]
        _build_pages(uris, files, config, nav, env)

    # --- what the server calls -------------------------------------------------------------

    def build(self) -> None:
        """The server's builder: the quick step when it can, then the full build."""
        with self.lock:
            changed, self.changed = self.changed, set()
        try:
            try:
                quick = self.quick(changed)
            except Exception as e:  # whatever it met, the full build tells properly
                log.warning("a2a-kb: the quick step stopped (%s: %s); building everything",
                            type(e).__name__, e)
                quick = ""
            if quick == "kept":
                return
            if quick and self.server is not None:
                self.server.reload()
            self.full()
        except Superseded:
            log.info("a newer change arrived: that build was dropped")
        except BuildError as e:
            log.error("%s; the pages stay as they were", e)

    def saw(self, path: str) -> None:
        with self.lock:
            self.changed.add(Path(path))

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _build_pages(uris: list[str], files: Files, config: MkDocsConfig, nav: Navigation, env: Any) -> None:
    """Build the pages `uris` of the kept build into the served folder, as mkdocs does."""
    from mkdocs.commands.build import _build_page, _populate_page

    doc_files = files.documentation_pages()
    with _search_left_out(config):
        for uri in uris:
            page = files.src_uris[uri].page
            assert page is not None  # each caller has checked that the file is a page
            _populate_page(page, config, files)
            _build_page(page, config, doc_files, nav, env)


@contextlib.contextmanager
def _search_left_out(config: MkDocsConfig) -> Iterator[None]:
    """The search plugin's events do nothing while the quick step builds pages. It would
    index each page again (parsing its HTML: a twentieth of a second a page) for an index
    that only the full build writes, and the full build after the step does."""
    search = config.plugins.get("material/search")
    events = config.plugins.events
    before = {name: list(methods) for name, methods in events.items()}
    if search is not None:
        for name, methods in before.items():
            events[name] = [m for m in methods if getattr(m, "__self__", None) is not search]
    try:
        yield
    finally:
        events.update(before)


def _full_build_needed(reason: str, *args: object) -> str:
    log.info("quick step skipped: " + reason, *args)
    return ""


def _guarded_server() -> Any:
    """mkdocs' LiveReloadServer, answering a request path that holds a NUL or another control
    character with 400 instead of a 500 and a traceback in the log."""
    from mkdocs.livereload import LiveReloadServer

    class GuardedLiveReloadServer(LiveReloadServer):
        def serve_request(self, environ: dict[str, Any], start_response: Any) -> Any:
            path = str(environ.get("PATH_INFO", ""))
            if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
                start_response("400 Bad Request", [("Content-Type", "text/plain; charset=utf-8")])
                return [b"400 Bad Request: the path holds a control character\n"]
            return super().serve_request(environ, start_response)

    return GuardedLiveReloadServer


def _server_class() -> Any:
    class PreviewServer(_guarded_server()):  # type: ignore[misc]
        """Tells the preview which files changed, and can reload browsers mid-build."""

        preview: Preview

        def watch(self, path: str, func: None = None, *, recursive: bool = True) -> None:
            super().watch(path, func, recursive=recursive)
            handler = self._watch_refs.get(os.path.abspath(path))
            if handler is None:
                return
            # watchdog calls every handler scheduled for a path; one more that notes the file
            import watchdog.events

            preview = self.preview

            class Note(watchdog.events.FileSystemEventHandler):
                def on_any_event(self, event: Any) -> None:
                    if not event.is_directory:
                        preview.saw(str(event.src_path))
                        dest = getattr(event, "dest_path", "")
                        if dest:
                            preview.saw(str(dest))

            self.observer.add_handler_for_watch(Note(), handler)

        def reload(self) -> None:
            """Show what is built now: the browsers reload, and requests stop waiting."""
            with self._epoch_cond:
                self._visible_epoch = self._wanted_epoch
                self._epoch_cond.notify_all()
            log.info("Reloading browsers")

    return PreviewServer


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the preview as Ctrl-C does: the server shuts down, the folder goes."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve(project: Project, host: str, port: int) -> None:
    """Build the site, serve it on `host:port` and keep it current (see the module)."""
    from .build import _config_file, _log_to_stderr
    from .plugin import KnowledgeBasePlugin

    shown = f"[{host}]" if ":" in host else host
    preview = Preview(project, f"http://{shown}:{port}/")
    with _terminate_as_interrupt(), _log_to_stderr(quiet=False):
        try:
            preview.full()
            # The watcher looks at the files ten times a second (mkdocs: twice), and a change
            # is built once 50 ms pass without another (mkdocs: 100 ms): a saved edit is being
            # built 0.1 s later. A few hundred files: a few thousand stat() calls a second.
            server = _server_class()(builder=preview.build, host=host, port=port,
                                     root=str(preview.root), polling_interval=0.1)
            server.build_delay = 0.05
            server.preview = preview
            preview.server = server

            def error_page(code: int) -> bytes | None:
                page = preview.root / f"{code}.html"
                return page.read_bytes() if code in (404, 500) and page.is_file() else None

            server.error_handler = error_page
            kept = preview.kept
            watched: list[Path] = [project.root / "content", _config_file(project)]
            if kept is not None and kept.config is not None:
                plugin = kept.config.plugins["a2a-kb"]
                if isinstance(plugin, KnowledgeBasePlugin):
                    watched += plugin.watched()
            for path in watched:
                if path.exists():
                    server.watch(str(path))
            try:
                server.serve()
            except KeyboardInterrupt:
                log.info("Shutting down...")
            finally:
                server.shutdown()
        finally:
            preview.close()
