"""web_search: SearXNG and Brave over loopback HTTP, DuckDuckGo parsing on recorded data."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from swebash_py.config.settings import WebSearchSettings
from swebash_py.errors import ToolFailed
from swebash_py.tools.args import ArgsError
from swebash_py.tools.base import ToolContext
from swebash_py.tools.web import (
    BraveBackend,
    DuckDuckGoBackend,
    SearchError,
    SearchHit,
    SearxngBackend,
    WebSearch,
    get_json,
    parse_brave,
    parse_ddgs,
)
from tests.tools.conftest import call

SEARXNG_PAYLOAD = {
    "query": "python asyncio", "number_of_results": 0,
    "results": [
        {"url": "https://docs.python.org/3/library/asyncio.html",
         "title": "asyncio — Asynchronous I/O",
         "content": "asyncio is a library to write <b>concurrent</b> code using the async/await "
                    "syntax.", "engine": "duckduckgo",
         "parsed_url": ["https", "docs.python.org", "/3/library/asyncio.html", "", "", ""],
         "template": "default.html", "engines": ["duckduckgo", "brave"], "positions": [1, 2],
         "score": 4.0, "category": "general"},
        {"url": "https://realpython.com/async-io-python/", "title": "Async IO in Python",
         "content": "A walkthrough &amp; examples.", "engine": "brave", "engines": ["brave"],
         "positions": [2], "score": 1.0, "category": "general"},
        {"url": "https://example.org/3", "title": "Third", "content": "", "engine": "bing"},
    ],
    "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["asyncio tutorial"],
    "unresponsive_engines": [["google", "timeout"]],
}

BRAVE_PAYLOAD = {
    "type": "search",
    "query": {"original": "rust tokio", "show_strict_warning": False, "is_navigational": False},
    "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}]},
    "web": {"type": "search", "family_friendly": True, "results": [
        {"title": "Tokio - An asynchronous Rust runtime", "url": "https://tokio.rs/",
         "is_source_local": False, "is_source_both": False,
         "description": "<strong>Tokio</strong> is an event-driven, non-blocking I/O platform "
                        "for writing asynchronous applications with the <strong>Rust</strong> "
                        "programming language.",
         "page_age": "2024-05-01T00:00:00", "profile": {"name": "Tokio", "url": "https://tokio.rs/"},
         "language": "en", "family_friendly": True, "type": "search_result",
         "subtype": "generic", "meta_url": {"scheme": "https", "netloc": "tokio.rs"}},
        {"title": "tokio - crates.io", "url": "https://crates.io/crates/tokio",
         "description": "An event-driven, non-blocking I/O platform &#x27;Tokio&#x27;.",
         "type": "search_result"},
    ]},
}

DDGS_ROWS = [
    {"title": "Welcome to Python.org", "href": "https://www.python.org/",
     "body": "The official home of the Python Programming Language."},
    {"title": "Python (programming language) - Wikipedia",
     "href": "https://en.wikipedia.org/wiki/Python_(programming_language)",
     "body": "Python is a high-level,   general-purpose programming language.\n"},
    {"title": "no link", "href": "", "body": "dropped: results without a URL are skipped"},
]


class Server:
    """A loopback HTTP server answering from ``self.reply`` and recording requests."""

    def __init__(self) -> None:
        self.reply: tuple[int, Any] = (200, SEARXNG_PAYLOAD)
        self.requests: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, body = server.reply
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture(scope="module")
def shared_server() -> Iterator[Server]:
    srv = Server()
    thread = threading.Thread(target=srv.httpd.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture
def server(shared_server: Server) -> Server:
    shared_server.reply = (200, SEARXNG_PAYLOAD)
    shared_server.requests.clear()
    return shared_server


async def test_searxng_tool_end_to_end(server: Server, ctx: ToolContext) -> None:
    settings = WebSearchSettings(backend="searxng", searxng_url=server.url + "/", max_results=2)
    result = await call(WebSearch(settings), ctx, query="  python   asyncio ")
    assert result.output.splitlines() == [
        "Results for 'python asyncio' (searxng):",
        "1. asyncio — Asynchronous I/O",
        "   https://docs.python.org/3/library/asyncio.html",
        "   asyncio is a library to write concurrent code using the async/await syntax.",
        "2. Async IO in Python",
        "   https://realpython.com/async-io-python/",
        "   A walkthrough & examples.",
    ]
    path, _headers = server.requests[0]
    assert urlparse(path).path == "/search"
    assert parse_qs(urlparse(path).query) == {"q": ["python asyncio"], "format": ["json"]}


@pytest.mark.parametrize(("status", "message"), [
    (429, "rate limited"), (403, "format=json"), (500, "HTTP 500"), (200, "not JSON")])
async def test_searxng_http_errors(server: Server, status: int, message: str) -> None:
    server.reply = (status, "<html>nope</html>")
    with pytest.raises(SearchError, match=message):
        await SearxngBackend(server.url).search("q", 5)


async def test_unreachable_and_timeout() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(SearchError, match="cannot reach"):
        await SearxngBackend(f"http://127.0.0.1:{port}").search("q", 5)
    with socket.socket() as silent:  # accepts connections (backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/search"
        with pytest.raises(SearchError, match=r"timed out after 0\.3 s"):
            await get_json("searxng", url, {"q": "x"}, timeout=0.3)


async def test_tool_turns_failures_into_error_results(ctx: ToolContext) -> None:
    settings = WebSearchSettings(backend="searxng")
    with pytest.raises(ToolFailed, match="searxng_url is not set"):
        await call(WebSearch(settings), ctx, query="x")
    brave = WebSearchSettings(backend="brave", brave_api_key_env="SWEBASH_TEST_NO_SUCH_KEY")
    with pytest.raises(ToolFailed, match="SWEBASH_TEST_NO_SUCH_KEY"):
        await call(WebSearch(brave), ctx, query="x")


async def test_brave_over_loopback(server: Server) -> None:
    server.reply = (200, BRAVE_PAYLOAD)
    backend = BraveBackend("MY_BRAVE", endpoint=server.url + "/res/v1/web/search",
                           environ={"MY_BRAVE": "k-123"})
    hits = await backend.search("rust tokio", 3)
    assert hits[0] == SearchHit("Tokio - An asynchronous Rust runtime", "https://tokio.rs/",
                                "Tokio is an event-driven, non-blocking I/O platform for writing "
                                "asynchronous applications with the Rust programming language.")
    assert hits[1].snippet == "An event-driven, non-blocking I/O platform 'Tokio'."
    path, headers = server.requests[0]
    assert headers["x-subscription-token"] == "k-123"
    assert parse_qs(urlparse(path).query) == {"q": ["rust tokio"], "count": ["3"]}
    server.reply = (429, {"type": "ErrorResponse", "error": {"code": "RATE_LIMITED"}})
    with pytest.raises(SearchError, match="rate limited"):
        await backend.search("x", 3)


def test_parse_recorded_payloads() -> None:
    ddg = parse_ddgs(DDGS_ROWS)
    assert [h.url for h in ddg] == ["https://www.python.org/",
                                    "https://en.wikipedia.org/wiki/Python_(programming_language)"]
    assert ddg[1].snippet == "Python is a high-level, general-purpose programming language."
    assert [h.title for h in parse_brave(BRAVE_PAYLOAD)][1] == "tokio - crates.io"
    assert parse_brave({"type": "search"}) == []
    with pytest.raises(SearchError, match="unexpected"):
        parse_ddgs({"not": "a list"})


class FakeBackend:
    name = "fake"

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        self.asked.append((query, max_results))
        return [SearchHit(f"t{i}", f"https://e.org/{i}", "") for i in range(max_results)]


async def test_max_results_default_and_cap(ctx: ToolContext) -> None:
    fake = FakeBackend()
    tool = WebSearch(WebSearchSettings(max_results=3), backend=fake)
    assert (await call(tool, ctx, query="a")).metadata["results"] == 3
    await call(tool, ctx, query="b", max_results=50)
    assert fake.asked == [("a", 3), ("b", 10)]
    with pytest.raises(ArgsError, match="query: expected string of length <= 500"):
        WebSearch.Args.parse({"query": "x" * 501})
    empty = WebSearch(backend=type("E", (), {"name": "e", "search": _no_hits})())
    assert "No results" in (await call(empty, ctx, query="zzz")).output


async def _no_hits(_self: object, _query: str, _n: int) -> list[SearchHit]:
    return []


def test_schema_is_what_the_model_sees() -> None:
    spec = WebSearch().spec()
    assert spec.name == "web_search"
    assert spec.parameters["required"] == ["query"]
    assert spec.parameters["additionalProperties"] is False


@pytest.mark.parametrize(("error", "message"), [
    ("RatelimitException", "rate limited"), ("TimeoutException", "timed out"),
    ("DDGSException", "search failed")])
async def test_duckduckgo_errors_are_mapped(monkeypatch: pytest.MonkeyPatch, error: str,
                                            message: str) -> None:
    import ddgs
    import ddgs.exceptions

    exc_type = getattr(ddgs.exceptions, error)

    class Failing:
        def __init__(self, **_kw: Any) -> None:
            pass

        def text(self, _query: str, **_kw: Any) -> list[dict[str, str]]:
            raise exc_type("boom")

    monkeypatch.setattr(ddgs, "DDGS", Failing)
    with pytest.raises(SearchError, match=message):
        await DuckDuckGoBackend().search("q", 5)


async def test_duckduckgo_parses_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    import ddgs

    class Recorded:
        def __init__(self, **_kw: Any) -> None:
            pass

        def text(self, _query: str, **_kw: Any) -> list[dict[str, str]]:
            return DDGS_ROWS

    monkeypatch.setattr(ddgs, "DDGS", Recorded)
    hits = await DuckDuckGoBackend().search("python", 1)
    assert hits == [SearchHit("Welcome to Python.org", "https://www.python.org/",
                              "The official home of the Python Programming Language.")]


class _RecordingProxy:
    """An HTTP proxy on 127.0.0.1 that notes where each request wanted to go
    (``CONNECT host:port``) and refuses it: nothing leaves the machine."""

    def __init__(self) -> None:
        import socketserver
        import threading

        self.targets: list[str] = []
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline().decode("latin-1").split()
                if len(line) >= 2:
                    proxy.targets.append(line[1])
                self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n"
                                 b"connection: close\r\n\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def hosts(self) -> set[str]:
        return {target.split(":")[0].removeprefix("http://").split("/")[0]
                for target in self.targets}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recording_proxy(monkeypatch: pytest.MonkeyPatch) -> Any:
    proxy = _RecordingProxy()
    monkeypatch.setenv("DDGS_PROXY", proxy.url)
    yield proxy
    proxy.close()


async def test_duckduckgo_sends_the_query_to_duckduckgo_only(recording_proxy: Any) -> None:
    """The "duckduckgo" backend once let ddgs pick engines (Brave among them)."""
    with pytest.raises(SearchError):
        await DuckDuckGoBackend().search("which port", 5)
    hosts = recording_proxy.hosts()
    assert hosts and all(host.endswith("duckduckgo.com") for host in hosts), hosts


def test_the_proxy_would_see_other_engines(recording_proxy: Any) -> None:
    """The twin: ddgs's own default ("auto") goes to other engines, and the
    proxy sees it."""
    from swebash_py.tools.web import _ddgs_text

    with pytest.raises(SearchError):
        _ddgs_text("which port", 5, engine="auto")
    assert any(not host.endswith("duckduckgo.com") for host in recording_proxy.hosts())
