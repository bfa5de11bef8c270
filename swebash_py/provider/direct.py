"""The direct backend: HTTP + SSE for the OpenAI and Anthropic wire formats.

No litellm on this path. The request goes over the lean h11 transport
(``h11_transport``), or over httpx when a proxy may apply or a client was
injected (``httpx_transport``, imported only then). HTTP and transport failures
become our errors here (``raise X from exc``); the backend never retries.
Cancelling the task that iterates ``stream()`` closes the HTTP connection.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import SplitResult, urlsplit

from swebash_py.errors import (
    MissingApiKey,
    ProviderError,
    ProviderUnavailable,
    StreamCut,
    StreamStalled,
)
from swebash_py.events import ProviderEvent
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.errormap import error_for_status, retry_after_seconds
from swebash_py.provider.h11_transport import Pool
from swebash_py.provider.http_reply import (
    ConnectError,
    ConnectTimeout,
    ReadTimeout,
    Response,
    Timeouts,
    TransportError,
)
from swebash_py.provider.idle import idle_limited
from swebash_py.provider.proxies import proxy_may_apply
from swebash_py.provider.retry import REFUSED_RETRIES, connection_refused
from swebash_py.provider.sse import iter_sse, text_lines

if TYPE_CHECKING:
    import httpx
from swebash_py.provider.streamcheck import check_content_type, check_first_line

Wire = Literal["openai", "anthropic"]
OPENAI_BASE = "https://api.openai.com/v1"
ANTHROPIC_BASE = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
CONTEXT_WORDS = re.compile(
    r"context.length|context.window|prompt is too long|maximum context|too many tokens"
    r"|reduce the length", re.IGNORECASE)


class _Parser(Protocol):
    done: bool

    def feed(self, event: str, data: str) -> list[ProviderEvent]: ...

    def end(self) -> list[ProviderEvent]: ...


@dataclass(frozen=True)
class Target:
    """Where and how to send one request."""

    url: str
    headers: dict[str, str]
    host: str
    body: dict[str, Any]


def model_name(model: str) -> str:
    """``openai/gpt-4o`` -> ``gpt-4o``; a name without a provider prefix is kept."""
    prefix, sep, rest = model.partition("/")
    return rest if sep and prefix in ("openai", "anthropic") else model


def build_target(wire: Wire, request: ChatRequest) -> Target:
    """The URL, headers and body for ``request`` in the ``wire`` format."""
    model = model_name(request.model)
    if wire == "openai":
        base = (request.api_base or OPENAI_BASE).rstrip("/")
        key = request.api_key or os.environ.get("OPENAI_API_KEY")
        _need_key(key, request.api_base, "OPENAI_API_KEY", "OpenAI")
        headers = {"authorization": f"Bearer {key}"} if key else {}
        from swebash_py.provider import openai_wire  # each wire format loads when used

        url, body = f"{base}/chat/completions", openai_wire.build_request(request, model)
    else:
        base = (request.api_base or ANTHROPIC_BASE).rstrip("/")
        key = request.api_key or os.environ.get("ANTHROPIC_API_KEY")
        _need_key(key, request.api_base, "ANTHROPIC_API_KEY", "Anthropic")
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        path = "/messages" if base.endswith("/v1") else "/v1/messages"
        from swebash_py.provider import anthropic_wire

        url, body = base + path, anthropic_wire.build_request(request, model)
    headers["accept"] = "text/event-stream"
    return Target(url, headers, urlsplit(url).netloc, body)


def _parser(wire: Wire) -> _Parser:
    """The stream parser of ``wire``."""
    if wire == "openai":
        from swebash_py.provider import openai_wire

        return openai_wire.OpenAIParser()
    from swebash_py.provider import anthropic_wire

    return anthropic_wire.AnthropicParser()


def _need_key(key: str | None, api_base: str | None, env: str, provider: str) -> None:
    if not key and not api_base:
        raise MissingApiKey(f"no API key for {provider}: set the {env} environment variable "
                            "(or choose another model with -m)")


class DirectBackend:
    """Streams from OpenAI-compatible and Anthropic endpoints."""

    name = "direct"

    def __init__(self, wire: Wire, client: httpx.AsyncClient | None = None) -> None:
        self.wire: Wire = wire
        self._client = client
        self._own: dict[bool, httpx.AsyncClient] = {}  # keyed by "is https"
        self._pool: Pool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def aclose(self) -> None:
        """Close the connections this backend made (an injected client is the caller's)."""
        own, self._own = self._own, {}
        pool, self._pool = self._pool, None
        for client in own.values():
            await client.aclose()
        if pool is not None:
            await pool.aclose()

    def _post(self, target: Target, timeouts: Timeouts) -> AbstractAsyncContextManager[Response]:
        """The injected client, else the lean transport, else (a proxy may apply,
        or an unusual URL) one of our httpx clients; ours are per event loop, as
        connections are bound to one."""
        if self._client is not None:
            from swebash_py.provider import httpx_transport

            _sent_at_first_wait()
            return httpx_transport.post(self._client, target.url, target.headers, target.body,
                                        timeouts)
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._own, self._pool, self._loop = {}, None, loop
        url = urlsplit(target.url)
        if lean_fits(url, target.url):
            self._pool = self._pool or Pool()
            return self._pool.post(url, target.headers, json_body(target.body), timeouts)
        from swebash_py.provider import httpx_transport

        tls = not target.url.startswith("http://")
        if tls not in self._own:
            self._own[tls] = httpx_transport.new_client(tls)
        _sent_at_first_wait()
        return httpx_transport.post(self._own[tls], target.url, target.headers, target.body,
                                    timeouts)

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Send ``request`` and yield provider events as the reply streams."""
        target = build_target(self.wire, request)
        parser = _parser(self.wire)
        timeouts = Timeouts(connect=request.connect_timeout, read=request.stall_timeout,
                            write=request.timeout)
        started = False
        try:
            async with self._post(target, timeouts) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise status_error(response, target.host)
                check_content_type(response.headers.get("content-type"), target.host)
                started = True
                lines = text_lines(response.aiter_bytes())
                events = iter_sse(sse_lines(lines, target.host))
                async for event, data in idle_limited(events, request.stall_timeout,
                                                      target.host):
                    for item in parser.feed(event, data):
                        yield item
                    if parser.done:
                        return
            for item in parser.end():
                yield item
        except TransportError as exc:
            raise transport_error(exc, target.host, started, request.stall_timeout) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise StreamCut(f"malformed event from {target.host}: {exc}") from exc


def lean_fits(url: SplitResult, raw: str) -> bool:
    """Whether the lean transport serves ``url``: http(s), no proxy may apply, and
    nothing httpx would rewrite (credentials in the URL, non-ASCII, spaces)."""
    return (url.scheme in ("http", "https") and bool(url.hostname)
            and url.username is None and url.password is None
            and raw.isascii() and raw.isprintable() and " " not in raw
            and not proxy_may_apply(url.scheme))


def json_body(body: dict[str, Any]) -> bytes:
    """The request body as httpx encodes ``json=``."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")


# ---------------------------------------------------------------- error mapping


def transport_error(exc: TransportError, host: str, started: bool,
                    stall: float) -> ProviderError:
    """A transport failure as one of our errors."""
    if isinstance(exc, ReadTimeout):
        return StreamStalled(f"stalled: no data from {host} for {stall:g} s "
                             "(stream_idle_timeout)")
    if isinstance(exc, ConnectTimeout):
        return ProviderUnavailable(f"cannot reach {host}: no connection within "
                                   f"{exc.seconds:g} s (connect_timeout)")
    detail = str(exc) or type(exc).__name__
    if started:
        return StreamCut(f"the stream from {host} broke: {detail}")
    if isinstance(exc, ConnectError) and connection_refused(exc):
        return ProviderUnavailable(f"cannot reach {host}: connection refused (is the server "
                                   "running? check api_base)", retry_limit=REFUSED_RETRIES)
    return ProviderUnavailable(f"cannot reach {host}: {detail}")


async def sse_lines(lines: AsyncIterator[str], host: str) -> AsyncIterator[str]:
    """The lines, after checking the first one looks like Server-Sent Events."""
    first = True
    async for line in lines:
        if first and line.strip():
            first = False
            check_first_line(line, host)
        yield line


def status_error(response: Response, host: str) -> ProviderError:
    """A non-2xx response as one of our errors, with the provider's own message."""
    return error_for_status(response.status_code, error_message(response),
                            parse_retry_after(response.headers), provider=host,
                            context=_is_context_error(response))


def error_message(response: Response) -> str:
    """The provider's message from an error body (OpenAI, Anthropic or plain text)."""
    try:
        body = response.json()
    except (ValueError, UnicodeDecodeError):
        body = None
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            text = error.get("message") or error.get("detail") or json.dumps(error)
        else:
            text = str(error)
    else:
        text = response.text.strip() or response.reason_phrase
    return " ".join(str(text).split())[:500]


def _is_context_error(response: Response) -> bool:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError, UnicodeDecodeError):
        return False
    return isinstance(error, dict) and error.get("code") == "context_length_exceeded"


def parse_retry_after(headers: dict[str, str]) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``retry-after`` (seconds or date)."""
    return retry_after_seconds(headers)


def _sent_at_first_wait() -> None:
    """httpx writes the request inside its own calls, with no word when it is out:
    ``provider.sent`` is told when the turn first waits (the connect, or the answer)."""
    from swebash_py.provider import sent

    asyncio.get_running_loop().call_soon(sent.notify)
