"""The event streams litellm reads, rewritten into the plainest SSE first.

litellm 1.106.2 reads SSE with the openai SDK's decoder or httpx's line reader,
which depart from the standard where ours (``sse.py``) does not: they drop a
first event behind a UTF-8 byte order mark, fail on a block of ``retry:`` or
``id:`` alone (an event with empty data is handed to ``json.loads``), split
Anthropic JSON at a raw U+2028 and lose the text, and fail on bytes that are
not UTF-8. So every ``text/event-stream`` body litellm receives passes through
our reader and reaches litellm as one ``event:`` line (when named) and
``data:`` lines per event, UTF-8, nothing else. In JSON data the characters
Python's ``str.splitlines`` breaks at (U+2028, U+2029, U+0085) are written as
JSON escapes: the same JSON, on one line.

One more loss is worked around here because this is the only place that sees
litellm's input: litellm drops OpenAI ``refusal`` deltas (it passes a chunk on
only when it holds content, tool calls or reasoning), so a refusal delta gets
an empty ``reasoning_content`` that carries it through; the OpenAI parser
ignores empty reasoning.

Installed once when litellm loads (``install``), around the transports litellm
makes for itself (the aiohttp one by default). When litellm uses an httpx
transport instead (``DISABLE_AIOHTTP_TRANSPORT``, HTTP/2), that transport is
left alone so litellm's proxy mounts still apply; the README names this.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from swebash_py.provider.sse import Event, Interpreter, text_lines

LINE_SPLITTERS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


def serialize(event: Event) -> bytes:
    """``event`` as the plainest SSE: its type line unless ``message``, a data line
    per line of data, a blank line."""
    data = _carry_refusal(_escape_splitters(event.data))
    lines = [] if event.type == "message" else [f"event: {event.type}"]
    lines.extend(f"data: {line}" for line in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def _escape_splitters(data: str) -> str:
    """JSON data with U+2028, U+2029 and U+0085 escaped (inside valid JSON they
    can stand only in strings, where the escape means the same)."""
    if not data.lstrip().startswith(("{", "[")):
        return data
    for raw, escaped in LINE_SPLITTERS.items():
        data = data.replace(raw, escaped)
    return data


def _carry_refusal(data: str) -> str:
    """An OpenAI chunk whose delta holds refusal words, with an empty
    ``reasoning_content`` so litellm does not drop it; other data unchanged."""
    if '"refusal"' not in data:
        return data
    try:
        chunk = json.loads(data)
    except ValueError:
        return data
    changed = False
    for choice in (chunk.get("choices") or []) if isinstance(chunk, dict) else []:
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if (isinstance(delta, dict) and isinstance(delta.get("refusal"), str)
                and delta["refusal"] and "reasoning_content" not in delta):
            delta["reasoning_content"] = ""
            changed = True
    return json.dumps(chunk, ensure_ascii=False, separators=(",", ":")) if changed else data


async def canonical(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The events of an SSE body, each rewritten by ``serialize`` as it completes."""
    interpreter = Interpreter()
    async for line in text_lines(chunks):
        event = interpreter.line(line)
        if event is not None:
            yield serialize(event)


class CanonicalStream(httpx.AsyncByteStream):
    """A response body read through ``canonical``; closing it closes the original."""

    def __init__(self, inner: httpx.AsyncByteStream) -> None:
        self._inner = inner

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in canonical(self._raw()):
            yield part

    async def _raw(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CanonicalTransport(httpx.AsyncBaseTransport):
    """Wraps a transport: uncompressed event streams come back canonical."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if (response.status_code < 300  # an error body keeps its words, whatever its type
                and kind == "text/event-stream" and encoding in ("", "identity")
                and isinstance(response.stream, httpx.AsyncByteStream)):
            response.stream = CanonicalStream(response.stream)
            response.headers.pop("content-length", None)  # the length changes
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def install(handler: Any) -> None:
    """Wrap ``handler.create_async_transport`` (litellm's ``AsyncHTTPHandler``,
    where both its own clients and the openai SDK's get their transport)."""
    original: Callable[..., Any] = handler.create_async_transport
    if getattr(original, "canonical_sse", False):
        return

    def create_async_transport(*args: Any, **kwargs: Any) -> Any:
        transport = original(*args, **kwargs)
        if isinstance(transport, httpx.AsyncHTTPTransport):  # keeps litellm's proxy mounts
            return transport
        return CanonicalTransport(transport)

    create_async_transport.canonical_sse = True  # type: ignore[attr-defined]
    handler.create_async_transport = staticmethod(create_async_transport)
