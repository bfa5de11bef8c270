"""web_fetch: one URL, as readable text, bounded in size, time and redirects.

* http and https only; at most ``MAX_REDIRECTS`` redirects, each hop checked;
* the body is read up to ``MAX_BYTES`` (the rest is not downloaded) within
  ``TOTAL_TIMEOUT`` seconds; the text given to the model is cut to the
  configured output size, beginning kept;
* HTML becomes Markdown (``htmltext``); other text (JSON, XML, plain, CSV,
  code) passes through; anything else (images, archives, PDFs, text with NUL
  bytes) is refused;
* the host is resolved once per call, when the call is previewed, and that
  call's request goes to exactly those addresses (``netaddr``): the
  resolution travels with the call's own arguments, never through a table
  shared between calls (two fetches of one host in one turn, the second
  answered with 127.0.0.1, must not move the first onto loopback). A loopback or private address
  always asks first, with a question that says so, even under ``yolo`` or an
  allow rule; a redirect onto one is refused unless the user allowed the
  first hop on the same grounds. No proxy from the environment is used: the
  address policy must see where the connection really goes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
from typing import Annotated

import httpx
from msgspec import Meta

from swebash_py.errors import ToolFailed
from swebash_py.process.values import redact
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult
from swebash_py.tools.netaddr import Resolution, Resolver, resolve_host, system_resolver

MAX_REDIRECTS = 5
MAX_BYTES = 5 * 1024 * 1024
HTML_CAP = 2 * 1024 * 1024  # HTML converted at most (about 1 s per MiB here)
TOTAL_TIMEOUT = 30.0
HOP_TIMEOUT = httpx.Timeout(10.0)
USER_AGENT = "swebash-web-fetch/1 (+https://github.com/)"
TEXT_TYPES = ("application/json", "application/xml", "application/javascript",
              "application/x-javascript", "application/ecmascript", "application/yaml",
              "application/x-yaml", "application/toml", "application/x-sh",
              "application/sql", "application/graphql", "application/x-ndjson")
HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass
class Fetched:
    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    total: int | None  # the announced length, when known
    cut: bool


class WebFetchArgs(ToolArgs, dict=True):
    """``dict=True``: a call's arguments also carry where this very call's host was
    found when its question was made (not a field: the model never sees or sets
    it). Taken once by the request."""

    url: Annotated[str, Meta(min_length=1, max_length=4000, description=(
        "The http(s) URL to fetch, e.g. https://docs.python.org/3/"))]
    offset: Annotated[int, Meta(ge=0, description=(
        "Characters of the converted text to skip: to read on where a cut result "
        "ended."))] | None = None

    def pin(self, found: Resolution) -> None:
        """Keep ``found`` for this call's request."""
        self.__dict__["resolved"] = found

    def take_pinned(self) -> Resolution | None:
        """The kept resolution, once (None: none was kept, or it was taken)."""
        found: Resolution | None = self.__dict__.pop("resolved", None)
        return found


def _host_port(url: httpx.URL) -> tuple[str, int]:
    if url.scheme not in ("http", "https"):
        raise ToolFailed(f"only http and https URLs can be fetched, not {url.scheme or 'this'}:")
    if not url.host:
        raise ToolFailed(f"{url} has no host")
    return url.host, url.port or (443 if url.scheme == "https" else 80)


def _parse(raw: str) -> httpx.URL:
    try:
        return httpx.URL(raw.strip())
    except (httpx.InvalidURL, ValueError) as exc:
        raise ToolFailed(f"invalid URL {raw!r}: {exc}") from exc


class WebFetch(Tool[WebFetchArgs]):
    name = "web_fetch"
    kind = "fetch"
    description = (
        "Fetch a web page or other text resource by URL and return it as readable text "
        "(HTML is converted to Markdown; JSON and other text pass through; binary content is "
        f"refused). At most {MAX_BYTES // (1024 * 1024)} MiB is downloaded; text past the output "
        "limit is cut, and `offset` reads on from there. Follows up to 5 redirects."
    )
    Args = WebFetchArgs
    read_only = True

    def __init__(self, resolver: Resolver = system_resolver,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._resolver = resolver
        self._transport = transport

    # -- the question -----------------------------------------------------------

    def preview(self, args: WebFetchArgs, ctx: ToolContext) -> Preview:
        url = _parse(args.url)
        host, port = _host_port(url)
        found = resolve_host(host, port, self._resolver)
        args.pin(found)  # this call's, checked below and connected to by run()
        preview = Preview(summary=f"web_fetch {url}", detail=str(url), detail_kind="text")
        if found.private:
            why = found.error or found.describe()
            preview.warnings.append(f"{why}: the fetch would reach this machine or your "
                                    "private network")
            preview.must_ask = "the URL points at a loopback or private-network address"
        return preview

    # -- the fetch ----------------------------------------------------------------

    async def run(self, args: WebFetchArgs, ctx: ToolContext) -> ToolResult:
        url = _parse(args.url)
        try:
            async with asyncio.timeout(TOTAL_TIMEOUT):
                fetched = await self._fetch(url, _take_resolution(args, url))
        except TimeoutError as exc:
            raise ToolFailed(f"fetching {url} took more than {TOTAL_TIMEOUT:g} s") from exc
        except httpx.HTTPError as exc:
            raise ToolFailed(f"fetching {url} failed: {type(exc).__name__}: {exc}") from exc
        # redacted before the cut: a secret value cut in two could not be found afterwards
        text = page(redact(await asyncio.to_thread(render, fetched)), args.offset or 0,
                    max(2_000, ctx.max_output_chars - 500))
        return ToolResult(text, is_error=fetched.status >= 400,
                          metadata={"url": fetched.url, "status": fetched.status,
                                    "content_type": fetched.content_type,
                                    "bytes": len(fetched.body), "cut": fetched.cut})

    async def _fetch(self, url: httpx.URL, checked: Resolution | None) -> Fetched:
        """``checked``: the first hop's resolution, made and judged for this call."""
        private_ok: bool | None = None
        async with httpx.AsyncClient(transport=self._transport, trust_env=False,
                                     follow_redirects=False, timeout=HOP_TIMEOUT) as client:
            for _hop in range(MAX_REDIRECTS + 1):
                host, port = _host_port(url)
                first = private_ok is None
                found = checked if first and checked else await self._resolution(
                    host, port, first=first)
                if private_ok is None:
                    private_ok = found.private
                if found.private and not private_ok:
                    raise ToolFailed(f"redirected to {url}, but {found.error or found.describe()}"
                                     "; not followed (call web_fetch with that URL to be asked)")
                if not found.addresses:
                    raise ToolFailed(found.error or f"cannot resolve {host}")
                response = await self._send(client, url, host, found.addresses[0])
                location = response.headers.get("location")
                if response.is_redirect and location:
                    await response.aclose()
                    url = url.join(location)
                    continue
                return await _read(response, str(url))
        raise ToolFailed(f"too many redirects (more than {MAX_REDIRECTS}); last: {url}")

    async def _resolution(self, host: str, port: int, *, first: bool) -> Resolution:
        """A hop with no resolution of its own yet resolves now. A first hop
        without a preview (no question was asked) may not reach a private address."""
        found = await asyncio.to_thread(partial(resolve_host, host, port, self._resolver))
        if first and found.private:
            raise ToolFailed(f"{found.error or found.describe()}; fetching it needs the "
                             "user's approval first")
        return found

    @staticmethod
    async def _send(client: httpx.AsyncClient, url: httpx.URL, host: str,
                    address: str) -> httpx.Response:
        default_port = 443 if url.scheme == "https" else 80
        host_header = host if (url.port or default_port) == default_port else f"{host}:{url.port}"
        extensions = {"sni_hostname": host} if url.scheme == "https" else {}
        request = client.build_request(
            "GET", url.copy_with(host=address),
            headers={"Host": host_header, "User-Agent": USER_AGENT,
                     "Accept": "text/html,application/xhtml+xml,text/*;q=0.9,*/*;q=0.5"},
            extensions=extensions)
        return await client.send(request, stream=True)


def page(text: str, offset: int, limit: int) -> str:
    """At most ``limit`` characters of ``text`` from ``offset``, with a marker
    naming the offset to read on from (the model pages with it)."""
    total = len(text)
    if offset >= total and offset:
        return f"[offset {offset:,} is past the end: the text has {total:,} characters]"
    shown = text[offset:offset + limit]
    head = f"[from character {offset:,} of {total:,}]\n" if offset else ""
    end = offset + len(shown)
    if end < total:
        shown += (f"\n[... cut: {total - end:,} more characters of {total:,}; call again "
                  f"with offset={end} to read on]")
    return head + shown


def _take_resolution(args: WebFetchArgs, url: httpx.URL) -> Resolution | None:
    """The preview's resolution of this call's host, once (a second run resolves
    afresh); None when there is none or it was made for another host."""
    found = args.take_pinned()
    if found is None or found.host != _host_port(url)[0]:
        return None
    return found


async def _read(response: httpx.Response, url: str) -> Fetched:
    """Read at most ``MAX_BYTES`` of the body; the rest is never downloaded."""
    ctype = response.headers.get("content-type", "")
    media = ctype.split(";", 1)[0].strip().lower()
    charset = response.charset_encoding
    announced = response.headers.get("content-length")
    total = int(announced) if announced and announced.isdigit() else None
    if media and not _is_text(media):
        await response.aclose()
        size = f", {total:,} bytes" if total is not None else ""
        raise ToolFailed(f"{url} is {media}{size}: binary content is not fetched "
                         "(only HTML and text)")
    body = bytearray()
    cut = False
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) >= MAX_BYTES:
                del body[MAX_BYTES:]
                cut = True
                break
    finally:
        await response.aclose()
    if b"\x00" in body[:8192]:
        raise ToolFailed(f"{url} looks binary (it contains NUL bytes); not shown")
    return Fetched(url, response.status_code, media, charset, bytes(body), total, cut)


def _is_text(media: str) -> bool:
    return (media.startswith("text/") or media in TEXT_TYPES
            or media.endswith(("+json", "+xml")))


def render(fetched: Fetched) -> str:
    """The header lines, then the page as Markdown or the text as it is."""
    if fetched.content_type in HTML_TYPES or (not fetched.content_type
                                              and b"<html" in fetched.body[:4096].lower()):
        from swebash_py.tools.htmltext import html_to_markdown

        title, text = html_to_markdown(fetched.body[:HTML_CAP], fetched.charset)
        if len(fetched.body) > HTML_CAP:
            note = f"[only the first {HTML_CAP // (1024 * 1024)} MiB of the HTML converted]"
            text = f"{note}\n\n{text}"
    else:
        title, text = "", fetched.body.decode(fetched.charset or "utf-8", "replace")
    size = f"{len(fetched.body):,} bytes"
    if fetched.cut:
        whole = f" of {fetched.total:,}" if fetched.total else ""
        size = f"first {len(fetched.body):,} bytes{whole} (the rest was not downloaded)"
    lines = [f"URL: {fetched.url}",
             f"Status: {fetched.status} · {fetched.content_type or 'unknown type'} · {size}"]
    if title:
        lines.append(f"Title: {title}")
    return "\n".join(lines) + "\n\n" + (text.strip() or "(empty)")
