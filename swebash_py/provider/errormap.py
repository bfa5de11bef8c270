"""HTTP failures to our error classes, shared by every backend."""

from __future__ import annotations

import time
from collections.abc import Mapping

from swebash_py.errors import (
    AuthenticationFailed,
    BadRequest,
    ContextTooLong,
    ImagesRefused,
    ModelNotFound,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)

_CONTEXT_WORDS = ("context_length_exceeded", "context length", "context window",
                  "prompt is too long", "maximum context", "too many tokens",
                  "input is too long", "reduce the length")


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (number or HTTP date)."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    if (ms := lowered.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # a date here is rare: its parser stays off the start-up path

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def is_context_message(message: str) -> bool:
    lowered = message.lower()
    return any(word in lowered for word in _CONTEXT_WORDS)


def error_for_status(status: int, message: str, retry_after: float | None = None,
                     provider: str = "provider", *, context: bool = False) -> ProviderError:
    """The error class a user can act on for an HTTP status (``context``: the
    body already said the context window was exceeded)."""
    detail = f"{provider} returned HTTP {status}" + (f": {message}" if message else "")
    if status in (400, 413, 422):
        if context or is_context_message(message):
            return ContextTooLong(f"context too long: {detail}", status=status)
        if "image" in message.lower() or "vision" in message.lower():
            return ImagesRefused(f"{provider} did not take the image (a model without "
                                 f"vision, or an image it refuses): {detail}", status=status)
        return BadRequest(f"bad request: {detail}", status=status)
    if status in (401, 403):
        return AuthenticationFailed(f"authentication failed: {detail}", status=status)
    if status == 404:
        return ModelNotFound(f"model not found: {detail}", status=status)
    if status == 429:
        return RateLimited(f"rate limited: {detail}", status=status, retry_after=retry_after)
    if status >= 500:
        return ProviderUnavailable(f"provider error: {detail}", status=status,
                                   retry_after=retry_after)
    return BadRequest(f"unexpected answer: {detail}", status=status)
