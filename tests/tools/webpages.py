"""A tiny web site on 127.0.0.1 for the web_fetch tests (and the bench)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

PAGE = b"""<!doctype html><html><head><title>The  Test Page</title>
<style>body { color: red }</style><script>var secret = "do-not-show";</script></head>
<body><nav>Home | About</nav><main><h1>Hello</h1><p>Some <b>bold</b> text and
<a href="/next">a link</a>.</p><ul><li>one</li><li>two</li></ul>
<pre><code>print("hi")</code></pre></main><footer>footer text</footer></body></html>"""
BIG = 50 * 1024 * 1024


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Site

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.hits.append((self.path, self.headers.get("host", "")))
        routes = {"/page.html": self._page, "/data.json": self._json, "/big": self._big,
                  "/loop": self._loop, "/img.png": self._png, "/to-page": self._to_page,
                  "/nul.txt": self._nul, "/missing": self._missing, "/large.html": self._large}
        routes.get(self.path, self._missing)()

    def _send(self, status: int, ctype: str, body: bytes,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _page(self) -> None:
        self._send(200, "text/html; charset=utf-8", PAGE)

    def _large(self) -> None:
        row = b"<p>Paragraph with <a href='/x'>a link</a> and <em>emphasis</em> text.</p>\n"
        body = b"<html><body><main>" + row * (1024 * 1024 // len(row)) + b"</main></body></html>"
        self._send(200, "text/html; charset=utf-8", body)

    def _json(self) -> None:
        self._send(200, "application/json", json.dumps({"ok": True, "items": [1, 2]}).encode())

    def _big(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(BIG))
        self.end_headers()
        chunk = b"x" * 65535 + b"\n"
        sent = 0
        try:
            while sent < BIG:
                self.wfile.write(chunk)
                sent += len(chunk)
                self.server.big_sent = sent
        except OSError:
            pass

    def _loop(self) -> None:
        self._send(302, "text/plain", b"again", {"location": "/loop"})

    def _to_page(self) -> None:
        self._send(301, "text/plain", b"moved", {"location": "/page.html"})

    def _png(self) -> None:
        self._send(200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)

    def _nul(self) -> None:
        self._send(200, "text/plain", b"abc\x00def")

    def _missing(self) -> None:
        self._send(404, "text/html", b"<html><body><h1>Not here</h1></body></html>")


class Site(ThreadingHTTPServer):
    daemon_threads = True
    hits: list[tuple[str, str]]
    big_sent = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def site() -> Iterator[Site]:
    server = Site(("127.0.0.1", 0), _Handler)
    server.hits = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
