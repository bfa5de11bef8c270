"""What the direct backend's two HTTP paths share: the transport failures and
one response type, so its error mapping does not care which path ran.

The lean path (``h11_transport``) raises these errors itself; the httpx path
(``httpx_transport``, behind a proxy or with an injected client) maps httpx's
errors to them, the way httpx maps httpcore's.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any


class TransportError(Exception):
    """The exchange failed below HTTP (connect, send, receive)."""


class ConnectError(TransportError):
    """No connection (refused, unknown host, TLS refused)."""


class ConnectTimeout(TransportError):
    """No connection within ``seconds``."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


class ReadTimeout(TransportError):
    """Nothing received within the read timeout."""


class WriteTimeout(TransportError):
    """The request could not be sent within the write timeout."""


@dataclass(frozen=True)
class Timeouts:
    """Seconds for each phase (``None``: no limit); ``read`` is per read."""

    connect: float | None
    read: float | None
    write: float | None


class Response:
    """Status, headers (names lower-cased, repeats joined with ``, ``) and a body
    read once, either streamed (``aiter_bytes``) or whole (``aread``)."""

    def __init__(self, status_code: int, reason_phrase: str, headers: dict[str, str],
                 body: AsyncIterator[bytes]) -> None:
        self.status_code = status_code
        self.reason_phrase = reason_phrase
        self.headers = headers
        self._body = body
        self.content = b""

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        return self._body

    async def aread(self) -> bytes:
        self.content = b"".join([chunk async for chunk in self._body])
        return self.content

    @property
    def text(self) -> str:
        return self.content.decode(_charset(self.headers.get("content-type")), errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


def _charset(content_type: str | None) -> str:
    """The ``charset`` of a content type when Python knows it, else UTF-8 (as httpx)."""
    for param in (content_type or "").split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            try:
                return codecs.lookup(value.strip().strip('"')).name
            except LookupError:
                break
    return "utf-8"
