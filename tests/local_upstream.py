"""A local upstream on 127.0.0.1 for watch, pin and add-version: GitHub's API and raw files,
PyPI's JSON API, the npm registry and plain web pages, served from the mirror plus whatever
a test scripts on top.

Each service has its own base path, the way each has its own host upstream:

    /api/…    GitHub's REST API        (api.github.com; 404 answers as the API gives them)
    /raw/…    GitHub's raw files       (raw.githubusercontent.com)
    /pypi/…   PyPI's JSON API          (pypi.org/pypi/<package>/json)
    /npm/…    the npm registry         (registry.npmjs.org/<package>)
    /pages/…  every other web page, at /pages/<host>/<path>

GitHub paths fall back to the mirror; anything else exists only if the test put it there.
`a2a-kb --upstream NAME=URL` points each service at its base (see :meth:`arguments`).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from a2a_kb.records.kb import KnowledgeBase
from a2a_kb.sources.fetch import mirror_path
from a2a_kb.sources.upstream import Endpoints

BASES = {"github-api": "/api", "github-raw": "/raw", "pypi": "/pypi", "npm": "/npm",
         "pages": "/pages"}
MIRROR_HOSTS = {"/api/": "api.github.com", "/raw/": "raw.githubusercontent.com"}


class LocalUpstream:
    def __init__(self, mirror: Path, delay: float = 0.0) -> None:
        self.mirror = mirror
        self.delay = delay  # seconds before each answer, as a distant host takes
        self.files: dict[str, bytes] = {}  # request path (decoded) → body
        self.gone: set[str] = set()  # paths that answer 404 even if the mirror has them
        self.requests: list[str] = []
        self.lock = threading.Lock()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle(self) -> None:
                # A client that closes a kept-alive connection is no error of the server's.
                with contextlib.suppress(ConnectionError):
                    super().handle()

            def do_GET(self) -> None:
                if upstream.delay:
                    time.sleep(upstream.delay)
                path = unquote(urlsplit(self.path).path)
                with upstream.lock:
                    upstream.requests.append(path)
                body = upstream.body(path)
                if body is None:
                    self._send(404, *upstream.not_found(path))
                    return
                kind = "application/json" if path.startswith(("/api/", "/pypi/", "/npm/")) \
                    else "text/html; charset=utf-8" if path.startswith("/pages/") \
                    else "text/plain; charset=utf-8"
                self._send(200, kind, body)

            def _send(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.endpoints = Endpoints({name: self.base + path for name, path in BASES.items()})

    # what is served ------------------------------------------------------------------------

    def body(self, path: str) -> bytes | None:
        if path in self.gone:
            return None
        if path in self.files:
            return self.files[path]
        for prefix, host in MIRROR_HOSTS.items():
            if path.startswith(prefix):
                file = self.mirror / host / path[len(prefix):]
                return file.read_bytes() if file.is_file() else None
        if path.startswith("/pages/"):  # a page the mirror holds (the dossier)
            file = mirror_path(self.mirror, "https://" + path[len("/pages/"):])
            return file.read_bytes() if file.is_file() else None
        return None

    @staticmethod
    def not_found(path: str) -> tuple[str, bytes]:
        if path.startswith("/api/"):
            return "application/json", json.dumps({
                "message": "Not Found",
                "documentation_url": "https://docs.github.com/rest"}).encode()
        return "text/plain", b"404: Not Found"

    def path_of(self, url: str) -> str:
        """The path on this server where the upstream URL ``url`` is read."""
        return unquote(urlsplit(self.endpoints.live(url)).path)

    def put(self, url: str, body: bytes | str) -> None:
        """Serve ``body`` where the upstream URL ``url`` is read."""
        self.files[self.path_of(url)] = body.encode() if isinstance(body, str) else body

    def mirrored(self, url: str) -> bytes:
        """The mirror's copy of an upstream URL."""
        parts = urlsplit(url)
        return (self.mirror / (parts.hostname or "") / parts.path.lstrip("/")).read_bytes()

    def arguments(self) -> list[str]:
        """The command-line flags that point every service here."""
        return [arg for name, path in BASES.items()
                for arg in ("--upstream", f"{name}={self.base}{path}")]

    # registries and pages as upstream shapes them ------------------------------------------

    def serve_pypi(self, package: str, releases: list[str]) -> None:
        self.put(Endpoints.pypi(package), json.dumps({
            "info": {"name": package, "version": releases[-1]},
            "releases": {r: [] for r in releases}, "urls": []}))

    def serve_npm(self, package: str, releases: list[str]) -> None:
        self.put(Endpoints.npm(package), json.dumps({
            "name": package, "dist-tags": {"latest": releases[-1]},
            "versions": {r: {"name": package, "version": r} for r in releases},
            "time": {r: "2026-11-30T00:00:00.000Z" for r in releases}}))

    def serve_known(self, kb: KnowledgeBase) -> None:
        """Registries that list exactly the releases the KB knows, and a page for every
        dated source, with the words its claims quote, set in HTML as a browser gets it."""
        for item in kb.upstream.values():
            if item.kind == "pypi":
                self.serve_pypi(item.package, item.releases)
            elif item.kind == "npm":
                self.serve_npm(item.package, item.releases)
        for source in kb.sources.values():
            if source.pinned or source.local or not source.url.startswith("https://"):
                continue
            quotes = [c.quote for c in kb.claims.values() if c.source == source.id and c.quote]
            self.put(source.url, page(source.title, quotes))

    def start(self) -> None:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def page(title: str, sentences: list[str], *, hidden: str = "") -> str:
    """An HTML page as sites send them: head, script, navigation, and the text in a main.
    Each sentence's first word is emphasised, so its words are split across elements."""
    paragraphs = "\n".join(
        f"<p><em>{s.split(' ', 1)[0]}</em> {s.split(' ', 1)[1] if ' ' in s else ''}</p>"
        for s in sentences)
    script = f"<script>var cached = {json.dumps(hidden)};</script>" if hidden else ""
    return (f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}"
            f"</title><style>p {{ margin: 0 }}</style>{script}</head>\n<body><nav><a href=\"/\">"
            f"Home</a></nav>\n<main><h1>{title}</h1>\n{paragraphs}\n<p>Last updated recently."
            "</p></main></body></html>\n")


@contextmanager
def serving(mirror: Path) -> Iterator[LocalUpstream]:
    upstream = LocalUpstream(mirror)
    upstream.start()
    try:
        yield upstream
    finally:
        upstream.stop()
