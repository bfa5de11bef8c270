"""The direct backend's httpx path: behind a proxy (httpx applies it and
``NO_PROXY`` as always), or with an injected client. httpx's errors become
``http_reply``'s, so the backend maps one family of errors whichever path ran."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from swebash_py.provider.http_reply import (
    ConnectError,
    ConnectTimeout,
    ReadTimeout,
    Response,
    Timeouts,
    TransportError,
    WriteTimeout,
)


def new_client(tls: bool) -> httpx.AsyncClient:
    """A client for https (httpx's own TLS set-up) or for plain http.

    Plain-http URLs (local servers) get a client without TLS set up: loading the
    CA bundle costs ~20 ms of start-up (and ``verify=False`` ~25 ms) and such a
    client never uses it. Its bare context still requires verification and
    trusts no CA, so it fails closed if ever used for https.
    """
    import ssl

    return httpx.AsyncClient(verify=True if tls else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))


@asynccontextmanager
async def post(client: httpx.AsyncClient, url: str, headers: dict[str, str],
               body: dict[str, Any], timeouts: Timeouts) -> AsyncIterator[Response]:
    """``async with post(...) as response``: the streamed response of one POST."""
    timeout = httpx.Timeout(timeouts.write, connect=timeouts.connect, pool=timeouts.connect,
                            read=timeouts.read)
    try:
        async with client.stream("POST", url, headers=headers, json=body,
                                 timeout=timeout) as response:
            yield Response(response.status_code, response.reason_phrase, dict(response.headers),
                           response.aiter_bytes())
    except httpx.HTTPError as exc:
        raise _ours(exc) from exc


def _ours(exc: httpx.HTTPError) -> TransportError:
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ReadTimeout):
        return ReadTimeout(detail)
    if isinstance(exc, httpx.WriteTimeout):
        return WriteTimeout(detail)
    if isinstance(exc, httpx.ConnectTimeout):
        return ConnectTimeout(detail, _seconds(exc))
    if isinstance(exc, httpx.ConnectError):
        return ConnectError(detail)
    return TransportError(detail)


def _seconds(exc: httpx.TimeoutException) -> float:
    try:
        value = exc.request.extensions.get("timeout", {}).get("connect")
    except RuntimeError:  # no request attached
        value = None
    return float(value) if value else 0.0
