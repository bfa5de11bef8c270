"""web_search: one small backend interface, three backends.

* ``duckduckgo``: the ``ddgs`` package (no key), run in a worker thread;
* ``searxng``: ``<searxng_url>/search?q=...&format=json`` over httpx (the
  instance must allow the ``json`` format in its settings.yml);
* ``brave``: the Brave Search API, key from the environment variable named by
  ``web_search.brave_api_key_env``.

Every failure (offline, timeout, rate limit, HTTP error, missing key) becomes a
``SearchError`` with a plain message, which the tool returns as an error result.
"""

from __future__ import annotations

import asyncio
import html
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

import httpx
from msgspec import Meta

from swebash_py.config.settings import WebSearchSettings
from swebash_py.errors import ToolFailed
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult

TIMEOUT = 10.0
MAX_RESULTS = 10
MAX_QUERY = 500
SNIPPET = 400
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str
    snippet: str


class SearchError(Exception):
    """A search that failed in a way the model should be told about."""


class SearchBackend(Protocol):
    name: str

    async def search(self, query: str, max_results: int) -> list[SearchHit]: ...


def clean(text: Any, limit: int = SNIPPET) -> str:
    """Plain text: tags removed, entities decoded, whitespace collapsed, cut."""
    plain = " ".join(html.unescape(re.sub(r"<[^>]+>", "", str(text or ""))).split())
    return plain if len(plain) <= limit else plain[:limit - 1] + "…"


def _hits(rows: Any, title: str, url: str, snippet: str) -> list[SearchHit]:
    if not isinstance(rows, list):
        raise SearchError("unexpected response shape (no result list)")
    return [SearchHit(clean(r.get(title), 200) or "(untitled)", str(r.get(url)),
                      clean(r.get(snippet))) for r in rows if isinstance(r, dict) and r.get(url)]


def parse_ddgs(rows: Any) -> list[SearchHit]:
    """Results of ``DDGS().text()``: ``title``, ``href``, ``body``."""
    return _hits(rows, "title", "href", "body")


def parse_searxng(payload: Any) -> list[SearchHit]:
    """SearXNG JSON: ``results[]`` with ``title``, ``url``, ``content``."""
    return _hits((payload or {}).get("results"), "title", "url", "content")


def parse_brave(payload: Any) -> list[SearchHit]:
    """Brave web search JSON: ``web.results[]`` with ``title``, ``url``, ``description``."""
    web = (payload or {}).get("web") or {}
    return _hits(web.get("results", []), "title", "url", "description")


async def get_json(name: str, url: str, params: dict[str, Any],
                   headers: dict[str, str] | None = None, timeout: float = TIMEOUT) -> Any:
    """GET ``url`` and decode JSON, mapping every failure to ``SearchError``."""
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=True) as client:
            response = await client.get(url, params=params, headers=headers)
    except httpx.TimeoutException as exc:
        raise SearchError(f"{name}: timed out after {timeout:g} s") from exc
    except httpx.HTTPError as exc:
        raise SearchError(f"{name}: cannot reach {url} ({type(exc).__name__}: {exc}); "
                          "are we offline?") from exc
    if response.status_code == 429:
        raise SearchError(f"{name}: rate limited (HTTP 429); try again later")
    if response.status_code in (401, 403):
        raise SearchError(f"{name}: access refused (HTTP {response.status_code}); check the "
                          "API key or the instance's settings (SearXNG must allow format=json)")
    if response.status_code >= 400:
        raise SearchError(f"{name}: HTTP {response.status_code} from {url}")
    try:
        return response.json()
    except ValueError as exc:
        raise SearchError(f"{name}: the response is not JSON") from exc


@dataclass
class SearxngBackend:
    base_url: str
    name: str = "searxng"

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        url = self.base_url.rstrip("/") + "/search"
        payload = await get_json(self.name, url, {"q": query, "format": "json"})
        return parse_searxng(payload)[:max_results]


@dataclass
class BraveBackend:
    api_key_env: str = "BRAVE_API_KEY"
    endpoint: str = BRAVE_URL
    environ: Mapping[str, str] | None = None
    name: str = "brave"

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        key = (self.environ if self.environ is not None else os.environ).get(self.api_key_env)
        if not key:
            raise SearchError(f"brave: no API key; set the environment variable {self.api_key_env}")
        headers = {"Accept": "application/json", "X-Subscription-Token": key}
        payload = await get_json(self.name, self.endpoint, {"q": query, "count": max_results},
                                 headers)
        return parse_brave(payload)[:max_results]


@dataclass
class DuckDuckGoBackend:
    """``ddgs`` text search on DuckDuckGo only (ddgs's default, ``auto``, mixes in
    Brave, Google, Bing and others: the query would go where the user did not
    choose)."""

    name: str = "duckduckgo"

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        try:
            rows = await asyncio.wait_for(asyncio.to_thread(_ddgs_text, query, max_results),
                                          TIMEOUT)
        except TimeoutError as exc:
            raise SearchError(f"duckduckgo: timed out after {TIMEOUT:g} s") from exc
        return parse_ddgs(rows)[:max_results]


def _ddgs_text(query: str, max_results: int, engine: str = "duckduckgo") -> list[dict[str, Any]]:
    from ddgs import DDGS
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

    try:
        return DDGS(timeout=int(TIMEOUT)).text(query, max_results=max_results, backend=engine)
    except RatelimitException as exc:
        raise SearchError("duckduckgo: rate limited; try again later") from exc
    except TimeoutException as exc:
        raise SearchError(f"duckduckgo: timed out after {TIMEOUT:g} s") from exc
    except DDGSException as exc:
        if "no results" in str(exc).lower():
            return []
        raise SearchError(f"duckduckgo: search failed ({exc}); are we offline?") from exc


def make_backend(settings: WebSearchSettings) -> SearchBackend:
    if settings.backend == "searxng":
        if not settings.searxng_url:
            raise SearchError("web_search.backend is 'searxng' but web_search.searxng_url is "
                              "not set")
        return SearxngBackend(settings.searxng_url)
    if settings.backend == "brave":
        return BraveBackend(settings.brave_api_key_env)
    return DuckDuckGoBackend()


def format_hits(query: str, hits: list[SearchHit], backend: str) -> str:
    if not hits:
        return f"No results for {query!r} ({backend})."
    lines = [f"Results for {query!r} ({backend}):"]
    for i, hit in enumerate(hits, 1):
        lines += [f"{i}. {hit.title}", f"   {hit.url}"]
        lines += [f"   {hit.snippet}"] if hit.snippet else []
    return "\n".join(lines)


class WebSearchArgs(ToolArgs):
    query: Annotated[str, Meta(min_length=1, max_length=MAX_QUERY,
                               description="What to search the web for.")]
    max_results: Annotated[int, Meta(ge=1, description=(
        f"How many results to return (default from config, usually 5; at most "
        f"{MAX_RESULTS})."))] | None = None


class WebSearch(Tool[WebSearchArgs]):
    name = "web_search"
    kind = "fetch"
    description = ("Search the web. Returns numbered results: title, URL and a short snippet. "
                   "Use it for current information or documentation not in the workspace.")
    Args = WebSearchArgs
    read_only = True

    def __init__(self, settings: WebSearchSettings | None = None,
                 backend: SearchBackend | None = None) -> None:
        self.settings = settings or WebSearchSettings()
        self.backend = backend

    @classmethod
    def configured(cls, settings: Any) -> WebSearch:
        return cls(settings.web_search)

    def preview(self, args: WebSearchArgs, ctx: ToolContext) -> Preview:
        return Preview(summary=f"web_search {args.query!r}", detail=args.query)

    async def run(self, args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
        count = min(args.max_results or self.settings.max_results, MAX_RESULTS)
        query = " ".join(args.query.split())
        try:
            backend = self.backend or make_backend(self.settings)
            hits = await asyncio.wait_for(backend.search(query, count), TIMEOUT + 2)
        except TimeoutError as exc:
            raise ToolFailed(f"web search timed out after {TIMEOUT:g} s") from exc
        except SearchError as exc:
            raise ToolFailed(f"web search failed: {exc}") from exc
        return ToolResult(format_hits(query, hits, backend.name),
                          metadata={"backend": backend.name, "results": len(hits),
                                    "urls": [h.url for h in hits]})
