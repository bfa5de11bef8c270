"""The direct backend: httpx + SSE for the OpenAI and Anthropic wire formats.

No litellm on this path. HTTP and transport failures become our errors here
(``raise X from exc``); the backend never retries. Cancelling the task that
iterates ``stream()`` closes the HTTP connection.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

import httpx

from swebash_py.errors import (
    MissingApiKey,
    ProviderError,
    ProviderUnavailable,
    StreamCut,
    StreamStalled,
)
from swebash_py.events import ProviderEvent
from swebash_py.provider import anthropic_wire, openai_wire
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.errormap import error_for_status, retry_after_seconds
from swebash_py.provider.idle import idle_limited
from swebash_py.provider.retry import REFUSED_RETRIES, connection_refused
from swebash_py.provider.sse import iter_sse
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
        url, body = f"{base}/chat/completions", openai_wire.build_request(request, model)
    else:
        base = (request.api_base or ANTHROPIC_BASE).rstrip("/")
        key = request.api_key or os.environ.get("ANTHROPIC_API_KEY")
        _need_key(key, request.api_base, "ANTHROPIC_API_KEY", "Anthropic")
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        path = "/messages" if base.endswith("/v1") else "/v1/messages"
        url, body = base + path, anthropic_wire.build_request(request, model)
    headers["accept"] = "text/event-stream"
    return Target(url, headers, urlsplit(url).netloc, body)


def _need_key(key: str | None, api_base: str | None, env: str, provider: str) -> None:
    if not key and not api_base:
        raise MissingApiKey(f"no API key for {provider}: set the {env} environment variable "
                            "(or choose another model with -m)")


class DirectBackend:
    """Streams from OpenAI-compatible and Anthropic endpoints with httpx."""

    name = "direct"

    def __init__(self, wire: Wire, client: httpx.AsyncClient | None = None) -> None:
        self.wire: Wire = wire
        self._client = client
        self._own: dict[bool, httpx.AsyncClient] = {}  # keyed by "is https"
        self._loop: asyncio.AbstractEventLoop | None = None

    async def aclose(self) -> None:
        """Close the clients this backend created (an injected one is the caller's)."""
        own, self._own = self._own, {}
        for client in own.values():
            await client.aclose()

    def _http(self, url: str) -> httpx.AsyncClient:
        """The injected client, else one of ours for this loop and URL scheme.

        Plain-http URLs (local servers) get a client without TLS set up: loading
        the CA bundle costs ~20 ms of start-up (and ``verify=False`` ~25 ms) and
        such a client never uses it. Its bare context still requires
        verification and trusts no CA, so it fails closed if ever used for https.
        """
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # connection pools are bound to one event loop
            self._own, self._loop = {}, loop
        tls = not url.startswith("http://")
        if tls not in self._own:
            verify: bool | ssl.SSLContext = True if tls else ssl.SSLContext(
                ssl.PROTOCOL_TLS_CLIENT)
            self._own[tls] = httpx.AsyncClient(verify=verify)
        return self._own[tls]

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Send ``request`` and yield provider events as the reply streams."""
        target = build_target(self.wire, request)
        parser: _Parser = (openai_wire.OpenAIParser() if self.wire == "openai"
                           else anthropic_wire.AnthropicParser())
        timeout = httpx.Timeout(request.timeout, connect=request.connect_timeout,
                                pool=request.connect_timeout, read=request.stall_timeout)
        started = False
        try:
            async with self._http(target.url).stream("POST", target.url, headers=target.headers,
                                           json=target.body, timeout=timeout) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise status_error(response, target.host)
                check_content_type(response.headers.get("content-type"), target.host)
                started = True
                events = iter_sse(sse_lines(response.aiter_lines(), target.host))
                async for event, data in idle_limited(events, request.stall_timeout,
                                                      target.host):
                    for item in parser.feed(event, data):
                        yield item
                    if parser.done:
                        return
            for item in parser.end():
                yield item
        except httpx.HTTPError as exc:
            raise transport_error(exc, target.host, started, request.stall_timeout) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise StreamCut(f"malformed event from {target.host}: {exc}") from exc


# ---------------------------------------------------------------- error mapping


def transport_error(exc: httpx.HTTPError, host: str, started: bool,
                    stall: float) -> ProviderError:
    """A transport failure as one of our errors."""
    if isinstance(exc, httpx.ReadTimeout):
        return StreamStalled(f"stalled: no data from {host} for {stall:g} s "
                             "(stream_idle_timeout)")
    if isinstance(exc, httpx.ConnectTimeout):
        return ProviderUnavailable(f"cannot reach {host}: no connection within "
                                   f"{_seconds(exc):g} s (connect_timeout)")
    detail = str(exc) or type(exc).__name__
    if started:
        return StreamCut(f"the stream from {host} broke: {detail}")
    if isinstance(exc, httpx.ConnectError) and connection_refused(exc):
        return ProviderUnavailable(f"cannot reach {host}: connection refused (is the server "
                                   "running? check api_base)", retry_limit=REFUSED_RETRIES)
    return ProviderUnavailable(f"cannot reach {host}: {detail}")


def _seconds(exc: httpx.TimeoutException) -> float:
    try:
        value = exc.request.extensions.get("timeout", {}).get("connect")
    except RuntimeError:  # no request attached
        value = None
    return float(value) if value else 0.0


async def sse_lines(lines: AsyncIterator[str], host: str) -> AsyncIterator[str]:
    """The lines, after checking the first one looks like Server-Sent Events."""
    first = True
    async for line in lines:
        if first and line.strip():
            first = False
            check_first_line(line, host)
        yield line


def status_error(response: httpx.Response, host: str) -> ProviderError:
    """A non-2xx response as one of our errors, with the provider's own message."""
    return error_for_status(response.status_code, error_message(response),
                            parse_retry_after(response.headers), provider=host,
                            context=_is_context_error(response))


def error_message(response: httpx.Response) -> str:
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


def _is_context_error(response: httpx.Response) -> bool:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError, UnicodeDecodeError):
        return False
    return isinstance(error, dict) and error.get("code") == "context_length_exceeded"


def parse_retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``retry-after`` (seconds or date)."""
    return retry_after_seconds(dict(headers))
