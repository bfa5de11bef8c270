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


# A server without vision says so as a 5xx too (llama.cpp: 500 "image input is not
# supported - hint: ... mmproj", "Unsupported content part type: image_url"): that is
# no outage to retry but the model refusing images (the agent asks again with notes).
_NO_IMAGE_WORDS = ("image input is not supported", "does not support image",
                   "unsupported content part type", "not compiled for multimodal", "mmproj")


def is_image_refusal(status: int, message: str) -> bool:
    """Whether an error answer says the model (or its server) takes no images."""
    lowered = message.lower()
    if status >= 500:
        return any(words in lowered for words in _NO_IMAGE_WORDS)
    return status in (400, 413, 422) and ("image" in lowered or "vision" in lowered)


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
        if is_image_refusal(status, message):
            return ImagesRefused(f"{provider} did not take the image (a model without "
                                 f"vision, or an image it refuses): {detail}", status=status)
        return BadRequest(f"bad request: {detail}", status=status)
    if status in (401, 403):
        return AuthenticationFailed(f"authentication failed: {detail}", status=status)
    if status == 404:
        return ModelNotFound(f"model not found: {detail}", status=status)
    if status == 429:
        return RateLimited(f"rate limited: {detail}", status=status, retry_after=retry_after)
    if status >= 500 and is_image_refusal(status, message):
        return ImagesRefused(f"{provider} did not take the image (a model without vision, "
                             f"or a server without it): {detail}", status=status)
    if status >= 500:
        return ProviderUnavailable(f"provider error: {detail}", status=status,
                                   retry_after=retry_after)
    return BadRequest(f"unexpected answer: {detail}", status=status)
