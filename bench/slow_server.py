"""A local HTTP server on 127.0.0.1 that answers every request after a fixed delay.

It serves ``/source/<n>`` with a body of its own per n, an ETag and a Last-Modified, and
answers a conditional request whose validator still matches with 304 Not Modified — the
way a well-behaved host answers ``a2a-kb fetch --refresh`` of a page that did not move.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LAST_MODIFIED = "Sun, 29 Nov 2026 00:00:00 GMT"


def body_of(n: int) -> bytes:
    return (f"Synthetic moving source {n}.\n" * 200).encode()


def etag_of(n: int) -> str:
    return '"' + hashlib.sha256(body_of(n)).hexdigest()[:16] + '"'


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real hosts do
    delay = 0.2

    def do_GET(self) -> None:
        time.sleep(self.delay)
        try:
            n = int(self.path.rsplit("/", 1)[-1])
        except ValueError:
            self.send_error(404)
            return
        etag = etag_of(n)
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = body_of(n)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", LAST_MODIFIED)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # the benchmark's output is its table, not an access log


@contextmanager
def serving(delay: float = 0.2) -> Iterator[str]:
    """Run the server in a thread; yield its base URL (``http://127.0.0.1:<port>``)."""
    handler = type("SlowHandler", (_Handler,), {"delay": delay})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="slow-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
