"""The built site served from 127.0.0.1 the way a static host serves it.

GitHub Pages (and most static hosts) publish a project's site under a sub-path, compress
text with gzip when the browser accepts it, and answer a path that is not there with the
site's own 404 page. The site audit (tests/test_site_quality.py) and the Lighthouse row of
the benchmark (bench/lighthouse_row.py) need the site exactly so, or they would measure a
site no reader meets. Only the standard library; only loopback.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

COMPRESSED = (".html", ".css", ".js", ".json", ".xml", ".svg", ".txt", ".map")


@dataclass(frozen=True)
class Published:
    root: Path  # the host's document root: the site sits at root/<sub-path>
    site: Path
    origin: str  # http://127.0.0.1:PORT
    base: str  # origin + the sub-path, e.g. http://127.0.0.1:PORT/docs/kb/


class _StaticHost(http.server.SimpleHTTPRequestHandler):
    """Files of a folder, gzip-compressed when the client accepts it, and the site's 404
    page for a path that is not there (as GitHub Pages does)."""

    not_found: Path | None = None

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self) -> Any:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # the redirect to the folder's URL
            path = path / "index.html"
        if not path.is_file():
            return self._missing()
        body = path.read_bytes()
        ctype = self.guess_type(str(path))
        zipped = path.suffix in COMPRESSED and "gzip" in self.headers.get("Accept-Encoding", "")
        if zipped:
            body = gzip.compress(body, 6)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if zipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return _Body(body)

    def _missing(self) -> Any:
        body = self.not_found.read_bytes() if self.not_found and self.not_found.is_file() else b"Not Found"
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return _Body(body)


class _Body:
    """What `send_head` hands `do_GET` to copy out (it reads and closes a file)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        data, self.data = self.data, b""
        return data

    def close(self) -> None:
        pass


def serve_folder(root: Path, not_found: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    """Serve `root` on 127.0.0.1 (a free port) in a daemon thread; the origin and the server."""
    handler = type("Host", (_StaticHost,), {"not_found": not_found, "extensions_map": {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json",
        ".xml": "application/xml", ".html": "text/html; charset=utf-8", ".css": "text/css"}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


@contextlib.contextmanager
def published(site: Path, site_url: str, host_root: Path,
              extra: dict[str, str] | None = None) -> Iterator[Published]:
    """`site` mounted at the path of `site_url` under `host_root` (a folder of the
    caller's, which gets a link to the site and the `extra` pages, path → HTML) and served
    until the block ends."""
    prefix = urlsplit(site_url).path
    mount = host_root / prefix.strip("/")
    mount.parent.mkdir(parents=True, exist_ok=True)
    mount.symlink_to(site, target_is_directory=True)
    for path, html in (extra or {}).items():
        (host_root / path).mkdir(parents=True, exist_ok=True)
        (host_root / path / "index.html").write_text(html, "utf-8")
    origin, server = serve_folder(host_root, site / "404.html")
    try:
        yield Published(host_root, site, origin, origin + prefix)
    finally:
        server.shutdown()
        server.server_close()
